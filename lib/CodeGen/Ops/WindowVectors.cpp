//===- WindowVectors.cpp - Depthwise convolutions and max pools as vectors -===//
//
// float32 windows whose sums or maxima stay in vector registers across the
// taps, each tap one masked load, on a target with vectors (the cpu):
//
//  - by rows (emitRows): each output row in chunks of vector width, then
//    power-of-two pieces (without an epilogue, chunks of one power of two,
//    the last moved back: chunksOf); strided columns read every sw-th lane
//    of a wider load shared by the stride's phases (loadTapLanes);
//  - by planes (emitPlanes), for stride 1 where output rows keep the
//    input's width and are narrow (14 or 7 wide): a whole plane in vectors
//    that run across its rows, every lane's row and column known when the
//    code is generated;
//  - sliding (emitSlidingMax), for max pools without an epilogue whose
//    windows overlap down the rows: each input row's maximum over the
//    window's columns computed once, then each output row the maximum of
//    its window's rows.
//
// One mechanism serves both operators; they differ only in their taps
// (WindowTaps: a multiply-add with a weight, or a max). ConvPool.cpp asks
// for these for nn.conv2d (one input channel per group) and nn.max_pool2d
// with an NCHW result, and falls back to its loop nests where they do not
// apply.
//
//===----------------------------------------------------------------------===//

#include "Window.h"
#include <limits>
#include <map>

using namespace llvm;

namespace hx {

/// Lane j < width of a window tap over an input row at `rowBase` (float32,
/// unit-stride columns): input column (first + j) * sw + colOffset, the
/// lanes whose column is outside [0, w) not read and 0; `valid` gets which
/// lanes are inside. Null where none is. The row is read as one masked
/// load of width * sw lanes from the tap's column rounded down to a
/// multiple of sw, and every sw-th lane kept from the tap's phase, so that
/// the taps of one stride's phases (s = 0 and 1 of a 3x3/2 window) read
/// the same load (one instruction once the kernel is optimized).
static Value *loadTapLanes(KernelBuilder &kb, Value *in, Value *rowBase, int64_t first,
                           unsigned width, int64_t sw, int64_t colOffset, int64_t w,
                           SmallVectorImpl<bool> &valid) {
  int64_t phase = ((colOffset % sw) + sw) % sw;
  int64_t start = first * sw + colOffset - phase;
  SmallVector<bool, 32> read;
  for (int64_t l = 0; l < int64_t(width) * sw; ++l)
    read.push_back(start + l >= 0 && start + l < w);
  valid.clear();
  for (unsigned j = 0; j < width; ++j)
    valid.push_back(read[size_t(phase + int64_t(j) * sw)]);
  if (llvm::none_of(valid, [](bool v) { return v; }))
    return nullptr;
  Value *v = kb.loadVectorMasked(in, kb.iadd(rowBase, start), read);
  if (sw > 1) {
    SmallVector<int, 16> every;
    for (unsigned j = 0; j < width; ++j)
      every.push_back(int(phase + int64_t(j) * sw));
    v = kb.shuffleLanes(v, every);
  }
  return v;
}

/// What a window sums or takes the max of, for emitRows and emitPlanes:
/// the value a chunk starts from, what runs once per output plane (n, oc)
/// (a convolution's weights), and how a tap's vector joins the chunk.
struct WindowTaps {
  double init;
  function_ref<void(Value *oc)> begin;
  function_ref<Value *(Value *acc, Value *v, int64_t r, int64_t s, unsigned width)> combine;
  /// Whether a NaN tap makes the lane NaN though `combine` drops it (a max
  /// as one instruction): the chunk then keeps which lanes met a NaN beside
  /// its values, off the taps' dependency chain, and they become NaN once
  /// the taps are done.
  bool propagateNaN = false;
  /// Whether the taps are a sum (a convolution's): each kernel row's taps
  /// are then summed from `init` (0) apart and the rows added after, so
  /// that the taps are kh short dependency chains instead of one of kh*kw
  /// (the sum's order: each row's taps, then the rows in order).
  bool sumRows = false;
};

namespace {
/// A chunk's values over the taps and, where WindowTaps::propagateNaN, the
/// lanes that met a NaN.
struct ChunkState {
  Value *acc, *nan;
  static ChunkState start(KernelBuilder &kb, const WindowTaps &taps, unsigned width) {
    Value *acc = kb.splat(kb.constant(DType::Float32, taps.init), width);
    Value *nan = taps.propagateNaN ? kb.splat(kb.constant(DType::Bool, 0), width) : nullptr;
    return {acc, nan};
  }
  /// Joins tap value v (0 in the lanes it does not read) in the lanes
  /// `valid`.
  ChunkState join(KernelBuilder &kb, const WindowTaps &taps, ArrayRef<bool> valid, Value *v,
                  int64_t r, int64_t s, unsigned width) const {
    ChunkState next{taps.combine(acc, v, r, s, width), nullptr};
    if (nan)
      next.nan = kb.logicalOr(nan, kb.isNaN(DType::Float32, v)); // 0 where not read
    if (llvm::all_of(valid, [](bool b) { return b; }))
      return next;
    return {kb.selectLanes(valid, next.acc, acc), next.nan};
  }
  /// This sum plus a kernel row's (WindowTaps::sumRows), where `cond`
  /// (null: always).
  ChunkState addRow(KernelBuilder &kb, Value *cond, const ChunkState &row) const {
    Value *sum = kb.add(DType::Float32, acc, row.acc);
    return {cond ? kb.select(cond, sum, acc) : sum, nullptr};
  }
  ChunkState select(KernelBuilder &kb, Value *cond, const ChunkState &other) const {
    return {kb.select(cond, acc, other.acc), nan ? kb.select(cond, nan, other.nan) : nullptr};
  }
  Value *finish(KernelBuilder &kb, unsigned width) const {
    if (!nan)
      return acc;
    return kb.select(
        nan, kb.splat(kb.constant(DType::Float32, std::numeric_limits<double>::quiet_NaN()), width),
        acc);
  }
};
} // namespace

/// Stores a chunk of `width` lanes at element `at` of the result (through
/// the epilogue's vector form), `coords` its first element's.
static void storeChunk(KernelBuilder &kb, const KernelSpec &spec, Value *at,
                       ArrayRef<Value *> coords, unsigned width, Value *acc) {
  if (width == 1)
    kb.storeResult(DType::Float32, spec.outputBuffer(0), at, coords, kb.extractLane(acc, 0));
  else
    kb.storeVectorResult(spec.outputBuffer(0), at, coords, acc);
}

/// The chunks of a run of n outputs: whole vectors, then power-of-two
/// pieces (rowPieces); where the result has no epilogue, chunks of the
/// widest power of two up to the vector that n holds, the last moved back
/// to end at n (its first lanes computed and stored twice, to the same
/// values: nothing reads the result in between), so that a 55-wide row is
/// 4 vectors, not 3 and pieces of 4, 2 and 1, and a 13-wide one 2 of 8.
static std::vector<std::pair<int64_t, unsigned>>
chunksOf(const KernelBuilder &kb, const KernelSpec &spec, int64_t n, unsigned lanes) {
  int64_t width = 1;
  while (width * 2 <= std::min<int64_t>(n, lanes))
    width *= 2;
  if (kb.hasEpilogue(spec.outputBuffer(0)) || width == n || n == 0)
    return rowPieces(0, n, lanes);
  std::vector<std::pair<int64_t, unsigned>> chunks;
  for (int64_t first = 0; first < n; first += width)
    chunks.push_back({std::min(first, n - width), unsigned(width)});
  return chunks;
}

/// Computes each piece's chunk (`chunk`) and stores it (`store`). Where
/// the result's epilogue computes a math function (a sigmoid), the chunks
/// go through scratch and are stored once the last is computed, the stores
/// in a function of their own where the target outlines them
/// (KernelBuilder::outlined): the epilogue's constants then do not take the
/// registers of the taps' weights and sums.
using Pieces = ArrayRef<std::pair<int64_t, unsigned>>;
static void computeAndStore(KernelBuilder &kb, const KernelSpec &spec, Pieces pieces,
                            int64_t extent, function_ref<Value *(int64_t, unsigned)> chunk,
                            function_ref<void(int64_t, unsigned, Value *)> store) {
  unsigned result = spec.outputBuffer(0);
  if (!kb.hasVectorEpilogue(result) || !kb.hasMathEpilogue(result)) {
    for (auto [first, width] : pieces)
      store(first, width, chunk(first, width));
    return;
  }
  kb.withScratch(DType::Float32, extent, [&](Value *sums) {
    for (auto [first, width] : pieces)
      kb.storeVector(sums, kb.index(first), chunk(first, width));
    kb.outlined("store", [&] {
      for (auto [first, width] : pieces)
        store(first, width, kb.loadVector(DType::Float32, sums, kb.index(first), width));
    });
  });
}

/// By rows: per output row (n, oc, y) of an NCHW result over unit-stride
/// input columns, the row's chunks (chunksOf), up to six at a time, each
/// held in registers over the taps, kernel row by kernel row (a sum's rows
/// apart: WindowTaps::sumRows).
/// A tap row outside the input is skipped (a select: its row is read
/// clamped inside), a tap column outside it is masked lane by lane (known
/// at generation, loadTapLanes), so that nothing outside the input is read
/// or joined, and the chunk is stored once through the epilogue's vector
/// form. The row-in-memory loop reads and writes its row once per tap; this
/// reads each input element once per tap and keeps the sums where the adds
/// are. Input plane (n, oc / ocg).
static void emitRows(KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                     const LayoutView &ov, const Window2d &win, int64_t kh, int64_t kw, int64_t ocg,
                     unsigned lanes, const WindowTaps &taps) {
  auto [top, left, bottom, right, sh, sw, dh, dw] = win;
  int64_t n = dv.size[0], h = dv.size[2], w = dv.size[3];
  int64_t o = ov.size[1], oh = ov.size[2], ow = ov.size[3];
  std::vector<std::pair<int64_t, unsigned>> pieces = chunksOf(kb, spec, ow, lanes);
  kb.parallelFor(n * o * oh, 2 * kh * kw * ow, [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, o, oh});
    Value *in = kb.buffer(spec.inputBuffer(0));
    Value *plane = kb.linearOffset({idx[0], kb.idiv(idx[1], ocg)}, {dv.stride[0], dv.stride[1]});
    Value *outBase = kb.linearOffset(idx, {ov.stride[0], ov.stride[1], ov.stride[2]});
    if (taps.begin)
      taps.begin(idx[1]);
    SmallVector<Value *, 7> rowBase, inside;
    for (int64_t r = 0; r < kh; ++r) {
      Value *ih = kb.iadd(kb.imul(idx[2], sh), r * dh - top);
      inside.push_back(
          kb.logicalAnd(kb.icmp(CmpOp::GE, ih, kb.index(0)), kb.icmp(CmpOp::LT, ih, kb.index(h))));
      Value *clamped = kb.imin(kb.imax(ih, kb.index(0)), kb.index(h - 1));
      rowBase.push_back(kb.iadd(plane, kb.imul(clamped, dv.stride[2])));
    }
    // The chunks of up to kGroup pieces at a time, kernel row by kernel
    // row: a row's kw weights and each chunk's sum stay in registers (all
    // kh*kw weights would not, with four chunks of a 56-wide row).
    constexpr size_t kGroup = 6;
    std::map<int64_t, Value *> sums;
    for (size_t g0 = 0; g0 < pieces.size(); g0 += kGroup) {
      Pieces group = Pieces(pieces).slice(g0, std::min(kGroup, pieces.size() - g0));
      SmallVector<ChunkState, kGroup> acc;
      for (auto [first, width] : group)
        acc.push_back(ChunkState::start(kb, taps, width));
      for (int64_t r = 0; r < kh; ++r)
        for (size_t i = 0; i < group.size(); ++i) {
          auto [first, width] = group[i];
          ChunkState a = taps.sumRows ? ChunkState::start(kb, taps, width) : acc[i];
          for (int64_t s = 0; s < kw; ++s) {
            SmallVector<bool, 32> valid;
            Value *v = loadTapLanes(kb, in, rowBase[r], first, width, sw, s * dw - left, w, valid);
            if (v)
              a = a.join(kb, taps, valid, v, r, s, width);
          }
          acc[i] = taps.sumRows ? acc[i].addRow(kb, inside[r], a) : a.select(kb, inside[r], acc[i]);
        }
      for (size_t i = 0; i < group.size(); ++i)
        sums[group[i].first] = acc[i].finish(kb, group[i].second);
    }
    auto chunk = [&](int64_t first, unsigned) { return sums[first]; };
    auto store = [&](int64_t first, unsigned width, Value *acc) {
      Value *x = kb.index(first);
      storeChunk(kb, spec, kb.iadd(outBase, x), {idx[0], idx[1], idx[2], x}, width, acc);
    };
    computeAndStore(kb, spec, pieces, ow, chunk, store);
  });
}

/// By planes, for a window of stride 1 whose output rows are as wide as its
/// input rows, as a `same` padding makes them (EfficientNet's 14x14 and 7x7
/// maps, an inception branch's 3x3 pool), where rows narrower than a vector
/// waste its lanes: each plane (n, oc) of the result is one run of oh*ow
/// floats, and so is its input plane (n, oc / ocg), so that output element
/// e and tap (r, s) read input element e + (r*dh - top)*w + s*dw - left.
/// The plane is cut into vectors of `lanes` consecutive elements across its
/// rows (then power-of-two pieces); every lane's row and column are known
/// when the code is generated, so each tap is one load, masked where the
/// tap falls in the padding, and one `combine` (the lanes outside keep
/// their value), in the direct loop's order. The vectors go through the
/// epilogue's vector form, which must read rows as one run
/// (KernelBuilder::vectorStoreSpansRows; planesPay checks).
static bool planesPay(const KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                      const LayoutView &ov, const Window2d &win, int64_t kh, int64_t kw,
                      unsigned lanes) {
  int64_t oh = ov.size[2], ow = ov.size[3], w = dv.size[3];
  int64_t byRows = int64_t(chunksOf(kb, spec, ow, lanes).size()) * oh;
  int64_t byPlanes = int64_t(chunksOf(kb, spec, oh * ow, lanes).size());
  return win.sh == 1 && win.sw == 1 && ow == w && dv.stride[2] == w && dv.stride[3] == 1 &&
         ov.stride[3] == 1 && ov.stride[2] == ow && kb.vectorStoreSpansRows(spec.outputBuffer(0)) &&
         byPlanes < byRows && byPlanes * kh * kw <= 1024; // the code's size
}

static void emitPlanes(KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                       const LayoutView &ov, const Window2d &win, int64_t kh, int64_t kw,
                       int64_t ocg, unsigned lanes, const WindowTaps &taps) {
  auto [top, left, bottom, right, sh, sw, dh, dw] = win;
  int64_t n = dv.size[0], h = dv.size[2], w = dv.size[3];
  int64_t o = ov.size[1], oh = ov.size[2], ow = ov.size[3];
  std::vector<std::pair<int64_t, unsigned>> pieces = chunksOf(kb, spec, oh * ow, lanes);
  kb.parallelFor(n * o, 2 * kh * kw * oh * ow, [&](Value *p) {
    Value *img = kb.idiv(p, o), *oc = kb.irem(p, o);
    Value *in = kb.buffer(spec.inputBuffer(0));
    Value *plane = kb.linearOffset({img, kb.idiv(oc, ocg)}, {dv.stride[0], dv.stride[1]});
    Value *outBase = kb.linearOffset({img, oc}, {ov.stride[0], ov.stride[1]});
    if (taps.begin)
      taps.begin(oc);
    auto chunk = [&](int64_t first, unsigned width) {
      ChunkState acc = ChunkState::start(kb, taps, width);
      for (int64_t r = 0; r < kh; ++r) {
        ChunkState a = taps.sumRows ? ChunkState::start(kb, taps, width) : acc;
        bool any = false;
        for (int64_t s = 0; s < kw; ++s) {
          SmallVector<bool, 32> valid;
          for (unsigned j = 0; j < width; ++j) {
            int64_t e = first + j, iy = e / ow + r * dh - top, ix = e % ow + s * dw - left;
            valid.push_back(iy >= 0 && iy < h && ix >= 0 && ix < w);
          }
          if (llvm::none_of(valid, [](bool v) { return v; }))
            continue;
          int64_t delta = (r * dh - top) * w + s * dw - left;
          Value *v = kb.loadVectorMasked(in, kb.iadd(plane, first + delta), valid);
          a = a.join(kb, taps, valid, v, r, s, width);
          any = true;
        }
        if (!taps.sumRows)
          acc = a;
        else if (any)
          acc = acc.addRow(kb, nullptr, a);
      }
      return acc.finish(kb, width);
    };
    auto store = [&](int64_t first, unsigned width, Value *acc) {
      storeChunk(kb, spec, kb.iadd(outBase, first),
                 {img, oc, kb.index(first / ow), kb.index(first % ow)}, width, acc);
    };
    computeAndStore(kb, spec, pieces, oh * ow, chunk, store);
  });
}

/// A window over an NCHW result on a target with vectors: by planes where
/// they pay, else by rows where the code stays small; false (nothing
/// emitted) otherwise.
static bool emitWindow(KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                       const LayoutView &ov, const Window2d &win, int64_t kh, int64_t kw,
                       int64_t ocg, const WindowTaps &taps) {
  unsigned lanes = kb.vectorLanes(DType::Float32);
  if (lanes <= 1 || dv.stride[3] != 1 || !kb.canStoreVectorResult(spec.outputBuffer(0)))
    return false;
  if (planesPay(kb, spec, dv, ov, win, kh, kw, lanes)) {
    emitPlanes(kb, spec, dv, ov, win, kh, kw, ocg, lanes, taps);
    return true;
  }
  if (int64_t(chunksOf(kb, spec, ov.size[3], lanes).size()) * kh * kw > 1024) // the code's size
    return false;
  emitRows(kb, spec, dv, ov, win, kh, kw, ocg, lanes, taps);
  return true;
}

bool emitDepthwiseVectors(KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                          const LayoutView &wv, const LayoutView &ov, const Window2d &win,
                          int64_t ocg) {
  // Each tap a multiply-add with its weight, the weights loaded per plane.
  int64_t kh = wv.size[2], kw = wv.size[3];
  const DType f32 = DType::Float32;
  SmallVector<Value *, 49> wt;
  auto begin = [&](Value *oc) {
    Value *wts = kb.buffer(spec.inputBuffer(1)),
          *wBase = kb.iadd(kb.imul(oc, wv.stride[0]), wv.offset);
    wt.clear();
    for (int64_t r = 0; r < kh; ++r)
      for (int64_t s = 0; s < kw; ++s)
        wt.push_back(kb.load(f32, wts, kb.iadd(wBase, r * wv.stride[2] + s * wv.stride[3])));
  };
  auto combine = [&](Value *acc, Value *v, int64_t r, int64_t s, unsigned width) {
    return kb.mulAdd(f32, v, kb.splat(wt[r * kw + s], width), acc);
  };
  WindowTaps taps{0, begin, combine};
  taps.sumRows = true;
  return emitWindow(kb, spec, dv, ov, win, kh, kw, ocg, taps);
}

/// A max pool whose windows overlap down the rows (pool height above the
/// row stride, no dilation), without an epilogue: per plane and chunk of
/// `lanes` output columns (the last moved back to end at the row's end, or
/// where the row is narrower one masked store), down the output rows. Each
/// input row's maximum over the window's columns (kw taps) is computed once
/// and kept in a ring of kh rows in scratch, and each output row is the
/// maximum of its kh row maxima: sh*kw + kh taps per output row instead of
/// kh*kw (6 instead of 9 for a 3x3 of stride 1, in 16 lanes where a 14-wide
/// row by rows took two chunks of 8). Rows outside the input are -inf;
/// NaN propagates as in emitWindow.
static bool emitSlidingMax(KernelBuilder &kb, const KernelSpec &spec, const Pool2d &pool,
                           const WindowTaps &taps) {
  auto [top, left, bottom, right, sh, sw, dh, dw] = pool.window;
  const LayoutView &dv = pool.data, &ov = pool.out;
  const int64_t kh = pool.ph, kw = pool.pw;
  const unsigned lanes = kb.vectorLanes(DType::Float32);
  const int64_t n = dv.size[0], ch = dv.size[1], h = dv.size[2], w = dv.size[3];
  const int64_t oh = ov.size[2], ow = ov.size[3];
  if (dh != 1 || dw != 1 || kh <= sh || oh < 2 || lanes < 8 || dv.stride[3] != 1 ||
      kb.hasEpilogue(spec.outputBuffer(0)))
    return false;
  std::vector<int64_t> firsts;
  for (int64_t first = 0; first < ow; first += lanes)
    firsts.push_back(ow >= int64_t(lanes) ? std::min(first, ow - int64_t(lanes)) : 0);
  if (int64_t(firsts.size()) * (sh * kw + kh) * 2 > 1024) // the code's size
    return false;
  SmallVector<bool, 16> storeMask;
  for (unsigned j = 0; j < lanes; ++j)
    storeMask.push_back(int64_t(j) < ow);
  const DType f32 = DType::Float32;
  Value *minusInf = kb.splat(kb.constant(f32, taps.init), lanes);
  kb.parallelFor(n * ch, 2 * (sh * kw + kh) * oh * ow, [&](Value *p) {
    Value *img = kb.idiv(p, ch), *c = kb.irem(p, ch);
    Value *in = kb.buffer(spec.inputBuffer(0)), *out = kb.buffer(spec.outputBuffer(0));
    Value *plane = kb.linearOffset({img, c}, {dv.stride[0], dv.stride[1]});
    Value *outPlane = kb.linearOffset({img, c}, {ov.stride[0], ov.stride[1]});
    // The maximum over the window's columns of the input row at rowBase,
    // for the chunk of output columns from `first`.
    auto columnsMax = [&](Value *rowBase, int64_t first) {
      ChunkState st = ChunkState::start(kb, taps, lanes);
      for (int64_t s = 0; s < kw; ++s) {
        SmallVector<bool, 32> valid;
        Value *v = loadTapLanes(kb, in, rowBase, first, lanes, sw, s - left, w, valid);
        if (v)
          st = st.join(kb, taps, valid, v, 0, s, lanes);
      }
      return st.finish(kb, lanes);
    };
    // Few rows: every output row written out, the row maxima in registers
    // and the rows outside the input known to be outside.
    if (int64_t(firsts.size()) * oh * (sh * kw + kh) <= 1024) {
      for (int64_t first : firsts) {
        std::map<int64_t, Value *> rows; // input row -> its maximum
        auto rowMax = [&](int64_t iy) -> Value * {
          if (iy < 0 || iy >= h)
            return nullptr;
          if (Value *m = rows[iy])
            return m;
          return rows[iy] = columnsMax(kb.iadd(plane, kb.index(iy * dv.stride[2])), first);
        };
        SmallVector<bool, 16> all(lanes, true);
        for (int64_t y = 0; y < oh; ++y) {
          ChunkState st = ChunkState::start(kb, taps, lanes);
          for (int64_t r = 0; r < kh; ++r)
            if (Value *m = rowMax(y * sh + r - top))
              st = st.join(kb, taps, all, m, r, 0, lanes);
          Value *at = kb.iadd(outPlane, kb.index(y * ov.stride[2] + first));
          kb.storeVectorMasked(out, at, st.finish(kb, lanes), storeMask);
        }
      }
      return;
    }
    kb.withScratch(f32, kh * int64_t(lanes), [&](Value *ring) {
      for (int64_t first : firsts) {
        // Input row k - top's maximum over the columns, into ring slot k % kh.
        auto rowMax = [&](Value *k) {
          Value *iy = kb.iadd(k, -top);
          Value *inside = kb.logicalAnd(kb.icmp(CmpOp::GE, iy, kb.index(0)),
                                        kb.icmp(CmpOp::LT, iy, kb.index(h)));
          Value *rowBase = kb.iadd(
              plane, kb.imul(kb.imin(kb.imax(iy, kb.index(0)), kb.index(h - 1)), dv.stride[2]));
          Value *m = kb.select(inside, columnsMax(rowBase, first), minusInf);
          kb.storeVector(ring, kb.imul(kb.irem(k, kh), lanes), m);
        };
        for (int64_t r = 0; r < kh - sh; ++r)
          rowMax(kb.index(r));
        SmallVector<bool, 16> all(lanes, true);
        kb.forRange(0, oh, [&](Value *y) {
          Value *k0 = kb.imul(y, sh);
          for (int64_t r = kh - sh; r < kh; ++r)
            rowMax(kb.iadd(k0, r));
          ChunkState st = ChunkState::start(kb, taps, lanes);
          for (int64_t r = 0; r < kh; ++r) {
            Value *at = kb.imul(kb.irem(kb.iadd(k0, r), kh), lanes);
            st = st.join(kb, taps, all, kb.loadVector(f32, ring, at, lanes), r, 0, lanes);
          }
          Value *at = kb.iadd(kb.iadd(outPlane, kb.imul(y, ov.stride[2])), first);
          kb.storeVectorMasked(out, at, st.finish(kb, lanes), storeMask);
        });
      }
    });
  });
  return true;
}

bool emitMaxPoolVectors(KernelBuilder &kb, const KernelSpec &spec, const Pool2d &pool) {
  const LayoutView &ov = pool.out;
  // An epilogue's vector form runs along the result's last dim: W only in
  // an NCHW result; a pool of another result layout stores lane by lane.
  int64_t oc = ov.size[1], oh = ov.size[2], ow = ov.size[3];
  bool nchwResult = ArrayRef<int64_t>(ov.stride) == ArrayRef<int64_t>{oc * oh * ow, oh * ow, ow, 1};
  if (!nchwResult || spec.inputs[0]->dtype != DType::Float32 ||
      spec.outputs[0]->dtype != DType::Float32 || pool.window.sw > 2 ||
      anyZero(spec.outputs[0]->shape) || anyZero(spec.inputs[0]->shape))
    return false;
  // v > acc ? v : acc is one instruction (x86's max); the NaNs are kept
  // aside (propagateNaN), so that a NaN in the window still gives NaN.
  auto combine = [&](Value *acc, Value *v, int64_t, int64_t, unsigned) {
    return kb.select(kb.compare(CmpOp::GT, DType::Float32, v, acc), v, acc);
  };
  WindowTaps taps{-std::numeric_limits<double>::infinity(), nullptr, combine, true};
  if (emitSlidingMax(kb, spec, pool, taps))
    return true;
  return emitWindow(kb, spec, pool.data, ov, pool.window, pool.ph, pool.pw, 1, taps);
}

} // namespace hx
