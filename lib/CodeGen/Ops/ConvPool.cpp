//===- ConvPool.cpp - Kernels of the convolutions, pools and resizes ------===//
//
// Layouts are any permutation of NCHW (data, result) and OIHW (kernel), or
// NCW and OIW for nn.conv1d, as lib/Ops/ConvPool.cpp accepts: each layout
// becomes the element strides of the logical dims, so one loop nest serves
// all of them (unit-stride, and vectorizable, when W is the innermost dim).
// A 1-D layout is viewed as 2-D with H = 1 (stride 0): nn.conv1d is
// nn.conv2d's kernel (direct loops or implicit GEMM) with a window of height
// 1. Padding is (top, left, bottom, right) from 1, 2 or 4 values, for
// nn.conv1d (left, right) from 1 or 2.
//
// nn.conv2d, one parallel iteration per output row (n, o, oh), with a
// private accumulator row acc[OW] in the accumulator type:
//
//   acc[*] = 0
//   for ic in group(o): for kh: ih = oh*sh + kh*dh - top; if 0 <= ih < H:
//     for kw: w = weight[o, ic, kh, kw]
//       for ow in [lo, hi):           // the ow whose iw lies inside the input
//         acc[ow] += data[n, g*ICg + ic, ih, ow*sw + kw*dw - left] * w
//   out[n, o, oh, *] = acc[*]
//
// The innermost loop runs over output columns (unit-stride for NCHW and
// stride 1) and has no bounds checks: [lo, hi) is computed per kw.
// Where the target tiles the contraction of this shape (a GPU: shared-memory
// tiles, always; the cpu: its packed GEMM, where the shape pays for packing)
// nn.conv2d is instead an implicit GEMM per group: rows (n, oh, ow),
// columns the group's output channels, depth (ic, kh, kw), padding read as
// zero: A's load is clamped into the input and the padding is a separate
// predicate (Contraction::insideA), so the target zeroes it where it
// stores the tile, not right after the load.
//
// nn.max_pool2d: per output row, per column, the max over the window's
// positions inside the input (padding never counts; ceil_mode's partial
// windows just have fewer positions); a window with none gives -inf.
// nn.avg_pool2d: the same loops summing the positions inside the input,
// divided by TVM's count per window (the positions inside the input, or with
// count_include_pad inside the input and its explicit padding; see the
// interpreter). nn.adaptive_avg_pool2d: per output row, per column, the mean
// of its bin, [floor(i * in / out), ceil((i + 1) * in / out)) along each
// dim. nn.global_avg_pool2d: per (n, c), the sum over H x W divided by H * W.
//
// image.resize2d: per output row (n, c, oh) its taps (input rows and
// weights), per column the column's taps, and the weighted sum of the tap
// grid, in float32 with the coordinate arithmetic and rounding operation for
// operation as the interpreter's (TVM's topi/image/resize.py): 1 tap per dim
// for nearest_neighbor, 2 for linear, 4 for cubic. nn.upsampling is that
// kernel with TVM's topi upsampling's sampling (align_corners or asymmetric).
//
//===----------------------------------------------------------------------===//

#include "../LoopNest.h"
#include "OpKernels.h"
#include <array>
#include <limits>

using namespace llvm;

namespace hx {

namespace {
/// Element strides of the four logical dims (NCHW or OIHW order) and their
/// sizes. A 1-D layout (NCW, OIW) is viewed as 2-D with H = 1 (stride 0).
struct LayoutView {
  std::array<int64_t, 4> size;
  std::array<int64_t, 4> stride;
};
} // namespace

/// floor(a / b) and ceil(a / b) for b > 0.
static int64_t floorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); }
static int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

/// [lo, hi) split into vectors of `lanes` columns and then power-of-two
/// pieces of the rest: (first column, width) each, width 1 a scalar.
/// Explicit vectors, since LLVM does not vectorize loops of fewer than 16
/// iterations (a 7- or 14-wide row).
static std::vector<std::pair<int64_t, unsigned>> rowPieces(int64_t lo, int64_t hi, unsigned lanes) {
  std::vector<std::pair<int64_t, unsigned>> pieces;
  int64_t at = lo;
  for (; at + int64_t(lanes) <= hi; at += lanes)
    pieces.push_back({at, lanes});
  for (unsigned w = lanes / 2; w >= 1; w /= 2)
    if (hi - at >= int64_t(w)) {
      pieces.push_back({at, w});
      at += w;
    }
  return pieces;
}

/// Runs body(x, width) over rowPieces(lo, hi, lanes), the full vectors as
/// a loop; lanes 1: one loop of scalars.
static void forPieces(KernelBuilder &kb, int64_t lo, int64_t hi, unsigned lanes,
                      function_ref<void(Value *x, unsigned width)> body) {
  if (lanes <= 1)
    return kb.forRange(lo, hi, [&](Value *x) { body(x, 1); });
  int64_t full = (hi - lo) / lanes;
  if (full > 0)
    kb.forRange(0, full, [&](Value *i) { body(kb.iadd(kb.imul(i, lanes), lo), lanes); });
  for (auto [at, width] : rowPieces(lo + full * lanes, hi, lanes))
    body(kb.index(at), width);
}

/// Views a tensor in `layout` (a permutation of `letters`, 4 or 3 of them)
/// in logical order.
static std::optional<LayoutView> viewLayout(const TensorType *t, StringRef layout,
                                            StringRef letters) {
  std::optional<SmallVector<unsigned, 4>> pos = layoutPositions(layout, letters);
  if (!pos || t->rank() != letters.size())
    return std::nullopt;
  Shape strides = contiguousStrides(t->shape);
  LayoutView v;
  for (unsigned i = 0, j = 0; i < 4; ++i) {
    if (i == 2 && pos->size() == 3) { // 1-D: H = 1
      v.size[i] = 1;
      v.stride[i] = 0;
      continue;
    }
    v.size[i] = t->shape[(*pos)[j]];
    v.stride[i] = strides[(*pos)[j++]];
  }
  return v;
}

static Expected<LayoutView> getLayout(const KernelBuilder &kb, const KernelSpec &spec,
                                      const TensorType *t, StringRef attr, StringRef letters,
                                      StringRef fallbackAttr = {}) {
  std::string layout = spec.getString(attr);
  if (layout.empty() && !fallbackAttr.empty())
    layout = spec.getString(fallbackAttr);
  if (std::optional<LayoutView> v = viewLayout(t, layout, letters))
    return *v;
  return unsupported(kb, spec, attr + " " + layout);
}

/// (first, second) from a 1- or 2-value attribute, both at least 1; for
/// `spatial` 1 (1-D) a 1-value one as (1, value).
static Expected<std::pair<int64_t, int64_t>>
getPair(const KernelBuilder &kb, const KernelSpec &spec, StringRef attr, unsigned spatial = 2) {
  Shape v = spec.getInts(attr);
  if (v.size() == 1)
    v.resize(spatial, v[0]);
  if (spatial == 1)
    v.insert(v.begin(), 1);
  if (v.size() != 2 || v[0] < 1 || v[1] < 1)
    return unsupported(kb, spec, attr + " " + intListToString(spec.getInts(attr)));
  return std::make_pair(v[0], v[1]);
}

/// (top, left, bottom, right); for `spatial` 1 (0, left, 0, right).
static Expected<std::array<int64_t, 4>> getPadding(const KernelBuilder &kb, const KernelSpec &spec,
                                                   unsigned spatial = 2) {
  Shape p = spec.getInts("padding");
  if (spatial == 2)
    if (std::optional<std::array<int64_t, 4>> out = padding2d(p))
      return *out;
  if (spatial == 1)
    if (std::optional<std::array<int64_t, 2>> lr = padding1d(p))
      return std::array<int64_t, 4>{0, (*lr)[0], 0, (*lr)[1]};
  return unsupported(kb, spec, "padding " + intListToString(p));
}

/// The geometry of a 2-D window: padding (top, left, bottom, right), strides
/// and dilation.
struct Window2d {
  int64_t top, left, bottom, right, sh, sw, dh, dw;
};

/// A window's geometry; a 1-D window (`spatial` 1) is a 2-D one of height 1.
static Expected<Window2d> getWindow(const KernelBuilder &kb, const KernelSpec &spec,
                                    unsigned spatial = 2) {
  Expected<std::array<int64_t, 4>> pad = getPadding(kb, spec, spatial);
  if (!pad)
    return pad.takeError();
  Expected<std::pair<int64_t, int64_t>> strides = getPair(kb, spec, "strides", spatial);
  if (!strides)
    return strides.takeError();
  Expected<std::pair<int64_t, int64_t>> dilation = getPair(kb, spec, "dilation", spatial);
  if (!dilation)
    return dilation.takeError();
  auto [top, left, bottom, right] = *pad;
  return Window2d{
      top, left, bottom, right, strides->first, strides->second, dilation->first, dilation->second};
}

/// The data and result views of a pooling (or resizing) operator (`layout`,
/// and `out_layout` defaulting to it; the resizing operators have none:
/// `hasOutLayout` false).
static Expected<std::pair<LayoutView, LayoutView>>
getPoolLayouts(const KernelBuilder &kb, const KernelSpec &spec, bool hasOutLayout = true) {
  Expected<LayoutView> data = getLayout(kb, spec, spec.inputs[0], "layout", "NCHW");
  if (!data)
    return data.takeError();
  Expected<LayoutView> out = getLayout(kb, spec, spec.outputs[0],
                                       hasOutLayout ? "out_layout" : "layout", "NCHW", "layout");
  if (!out)
    return out.takeError();
  return std::make_pair(*data, *out);
}

static bool anyZero(ArrayRef<int64_t> shape) { return llvm::is_contained(shape, 0); }

/// Lane j < width of a window tap over an input row at `rowBase` (float32,
/// unit-stride columns): input column (first + j) * sw + colOffset, read
/// as one masked load (of width * sw lanes, every sw-th kept), the lanes
/// whose column is outside [0, w) not read and 0; `valid` gets which lanes
/// are inside. Null where none is.
static Value *loadTapLanes(KernelBuilder &kb, Value *in, Value *rowBase, int64_t first,
                           unsigned width, int64_t sw, int64_t colOffset, int64_t w,
                           SmallVectorImpl<bool> &valid) {
  int64_t start = first * sw + colOffset;
  SmallVector<bool, 32> read(size_t(int64_t(width) * sw), false);
  valid.clear();
  for (unsigned j = 0; j < width; ++j) {
    int64_t col = start + int64_t(j) * sw;
    valid.push_back(col >= 0 && col < w);
    read[size_t(j) * sw] = valid.back();
  }
  if (llvm::none_of(valid, [](bool v) { return v; }))
    return nullptr;
  Value *v = kb.loadVectorMasked(in, kb.iadd(rowBase, start), read);
  if (sw > 1) {
    SmallVector<int, 16> every;
    for (unsigned j = 0; j < width; ++j)
      every.push_back(int(j * sw));
    v = kb.shuffleLanes(v, every);
  }
  return v;
}

/// A depthwise float32 convolution (one input channel per group), NCHW
/// result, unit-stride input columns: per output row (n, oc, y), chunks of
/// `lanes` columns (then power-of-two pieces), each summed in registers
/// over the taps (r, s) in the direct loop's order. A tap row outside the
/// input is skipped (a select: its row is read clamped inside), a tap
/// column outside it is masked lane by lane (known at generation), so that
/// nothing outside the input is read or added, and the chunk is stored
/// once through the epilogue's vector form. The row-in-memory loop reads
/// and writes its row once per tap; this reads each input element once per
/// tap and keeps the sums where the adds are.
static void emitDepthwiseRows(KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                              const LayoutView &wv, const LayoutView &ov, const Window2d &win,
                              int64_t ocg, unsigned lanes) {
  auto [top, left, bottom, right, sh, sw, dh, dw] = win;
  auto [n, c, h, w] = dv.size;
  auto [o, icg, kh, kw] = wv.size;
  int64_t oh = ov.size[2], ow = ov.size[3];
  const DType f32 = DType::Float32;
  std::vector<std::pair<int64_t, unsigned>> pieces = rowPieces(0, ow, lanes);
  kb.parallelFor(n * o * oh, 2 * kh * kw * ow, [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, o, oh});
    Value *in = kb.buffer(spec.inputBuffer(0)), *wts = kb.buffer(spec.inputBuffer(1));
    Value *ci = kb.idiv(idx[1], ocg);
    Value *plane = kb.linearOffset({idx[0], ci}, {dv.stride[0], dv.stride[1]});
    Value *wBase = kb.imul(idx[1], wv.stride[0]);
    Value *outBase = kb.linearOffset(idx, {ov.stride[0], ov.stride[1], ov.stride[2]});
    // The taps' weights and rows, shared by the chunks.
    SmallVector<Value *, 49> wt;
    SmallVector<Value *, 7> rowBase, inside;
    for (int64_t r = 0; r < kh; ++r) {
      Value *ih = kb.iadd(kb.imul(idx[2], sh), r * dh - top);
      inside.push_back(
          kb.logicalAnd(kb.icmp(CmpOp::GE, ih, kb.index(0)), kb.icmp(CmpOp::LT, ih, kb.index(h))));
      Value *clamped = kb.imin(kb.imax(ih, kb.index(0)), kb.index(h - 1));
      rowBase.push_back(kb.iadd(plane, kb.imul(clamped, dv.stride[2])));
      for (int64_t s = 0; s < kw; ++s)
        wt.push_back(kb.load(f32, wts, kb.iadd(wBase, r * wv.stride[2] + s * wv.stride[3])));
    }
    for (auto [first, width] : pieces) {
      Value *acc = kb.splat(kb.constant(f32, 0), width);
      for (int64_t r = 0; r < kh; ++r) {
        Value *a = acc;
        for (int64_t s = 0; s < kw; ++s) {
          SmallVector<bool, 32> valid;
          Value *v = loadTapLanes(kb, in, rowBase[r], first, width, sw, s * dw - left, w, valid);
          if (!v)
            continue;
          Value *sum = kb.add(f32, a, kb.mul(f32, v, kb.splat(wt[r * kw + s], width)));
          a = llvm::all_of(valid, [](bool v) { return v; }) ? sum : kb.selectLanes(valid, sum, a);
        }
        acc = kb.select(inside[r], a, acc);
      }
      Value *x = kb.index(first);
      Value *at = kb.iadd(outBase, x);
      if (width == 1)
        kb.storeResult(f32, spec.outputBuffer(0), at, {idx[0], idx[1], idx[2], x},
                       kb.extractLane(acc, 0));
      else
        kb.storeVectorResult(spec.outputBuffer(0), at, {idx[0], idx[1], idx[2], x}, acc);
    }
  });
}

/// A window over planes (a depthwise float32 convolution, a float32 max
/// pool) of stride 1 whose output rows are as wide as its input rows, as a
/// `same` padding makes them (EfficientNet's 14x14 and 7x7 maps, an
/// inception branch's 3x3 pool), where rows narrower than a vector waste
/// its lanes: each plane (n, oc) of the result is one run of oh*ow floats,
/// and so is its input plane (n, oc / ocg), so that output element e and
/// tap (r, s) read input element e + (r*dh - top)*w + s*dw - left. The
/// plane is cut into vectors of `lanes` consecutive elements across its
/// rows (then power-of-two pieces); every lane's row and column are known
/// when the code is generated, so each tap is one load, masked where the
/// tap falls in the padding, and one `combine` (the lanes outside keep
/// their value), in the direct loop's order from `init`. `begin` runs once
/// per plane (a convolution's weights). The vectors go through the
/// epilogue's vector form, which must read rows as one run
/// (KernelBuilder::vectorStoreSpansRows).
struct PlaneTaps {
  double init;
  function_ref<void(Value *oc)> begin;
  function_ref<Value *(Value *acc, Value *v, int64_t r, int64_t s, unsigned width)> combine;
};

static bool planesPay(const KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                      const LayoutView &ov, const Window2d &win, int64_t kh, int64_t kw,
                      unsigned lanes) {
  int64_t oh = ov.size[2], ow = ov.size[3], w = dv.size[3];
  int64_t byRows = int64_t(rowPieces(0, ow, lanes).size()) * oh;
  int64_t byPlanes = int64_t(rowPieces(0, oh * ow, lanes).size());
  return lanes > 1 && win.sh == 1 && win.sw == 1 && ow == w && dv.stride[2] == w &&
         dv.stride[3] == 1 && ov.stride[3] == 1 && ov.stride[2] == ow &&
         kb.vectorStoreSpansRows(spec.outputBuffer(0)) && byPlanes < byRows &&
         byPlanes * kh * kw <= 1024; // the code's size
}

static void emitPlanes(KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                       const LayoutView &ov, const Window2d &win, int64_t kh, int64_t kw,
                       int64_t ocg, unsigned lanes, const PlaneTaps &taps) {
  auto [top, left, bottom, right, sh, sw, dh, dw] = win;
  int64_t n = dv.size[0], h = dv.size[2], w = dv.size[3];
  int64_t o = ov.size[1], oh = ov.size[2], ow = ov.size[3];
  const DType f32 = DType::Float32;
  std::vector<std::pair<int64_t, unsigned>> pieces = rowPieces(0, oh * ow, lanes);
  kb.parallelFor(n * o, 2 * kh * kw * oh * ow, [&](Value *p) {
    Value *img = kb.idiv(p, o), *oc = kb.irem(p, o);
    Value *in = kb.buffer(spec.inputBuffer(0));
    Value *plane = kb.linearOffset({img, kb.idiv(oc, ocg)}, {dv.stride[0], dv.stride[1]});
    Value *outBase = kb.linearOffset({img, oc}, {ov.stride[0], ov.stride[1]});
    if (taps.begin)
      taps.begin(oc);
    for (auto [first, width] : pieces) {
      Value *acc = kb.splat(kb.constant(f32, taps.init), width);
      for (int64_t r = 0; r < kh; ++r)
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
          Value *next = taps.combine(acc, v, r, s, width);
          acc = llvm::all_of(valid, [](bool v) { return v; }) ? next
                                                              : kb.selectLanes(valid, next, acc);
        }
      Value *at = kb.iadd(outBase, first);
      SmallVector<Value *, 4> coords{img, oc, kb.index(first / ow), kb.index(first % ow)};
      if (width == 1)
        kb.storeResult(f32, spec.outputBuffer(0), at, coords, kb.extractLane(acc, 0));
      else
        kb.storeVectorResult(spec.outputBuffer(0), at, coords, acc);
    }
  });
}

/// A depthwise float32 convolution over planes (emitPlanes): each tap a
/// multiply-add with its weight.
static void emitDepthwisePlanes(KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                                const LayoutView &wv, const LayoutView &ov, const Window2d &win,
                                int64_t ocg, unsigned lanes) {
  int64_t kh = wv.size[2], kw = wv.size[3];
  const DType f32 = DType::Float32;
  SmallVector<Value *, 49> wt;
  auto begin = [&](Value *oc) {
    Value *wts = kb.buffer(spec.inputBuffer(1)), *wBase = kb.imul(oc, wv.stride[0]);
    wt.clear();
    for (int64_t r = 0; r < kh; ++r)
      for (int64_t s = 0; s < kw; ++s)
        wt.push_back(kb.load(f32, wts, kb.iadd(wBase, r * wv.stride[2] + s * wv.stride[3])));
  };
  auto combine = [&](Value *acc, Value *v, int64_t r, int64_t s, unsigned width) {
    return kb.add(f32, acc, kb.mul(f32, v, kb.splat(wt[r * kw + s], width)));
  };
  emitPlanes(kb, spec, dv, ov, win, kh, kw, ocg, lanes, {0, begin, combine});
}

/// nn.conv2d, and nn.conv1d (`spatial` 1) as a conv2d with H = 1.
static Error convKernel(KernelBuilder &kb, const KernelSpec &spec, unsigned spatial) {
  const TensorType *dataT = spec.inputs[0], *weightT = spec.inputs[1], *outT = spec.outputs[0];
  StringRef dataLetters = spatial == 2 ? "NCHW" : "NCW";
  Expected<LayoutView> data = getLayout(kb, spec, dataT, "data_layout", dataLetters);
  if (!data)
    return data.takeError();
  Expected<LayoutView> weight =
      getLayout(kb, spec, weightT, "kernel_layout", spatial == 2 ? "OIHW" : "OIW");
  if (!weight)
    return weight.takeError();
  Expected<LayoutView> out = getLayout(kb, spec, outT, "out_layout", dataLetters, "data_layout");
  if (!out)
    return out.takeError();
  Expected<Window2d> window = getWindow(kb, spec, spatial);
  if (!window)
    return window.takeError();
  auto [top, left, bottom, right, sh, sw, dh, dw] = *window;
  int64_t groups = spec.getInt("groups");
  auto [n, c, h, w] = data->size;
  auto [o, icg, kh, kw] = weight->size;
  int64_t oh = out->size[2], ow = out->size[3];
  if (groups < 1 || c % groups != 0 || o % groups != 0 || icg * groups != c)
    return unsupported(kb, spec, "groups=" + std::to_string(groups));
  if (anyZero(outT->shape))
    return Error::success();
  int64_t ocg = o / groups;
  DType t = dataT->dtype, acc = kb.accumulatorType(t);
  const LayoutView &dv = *data, &wv = *weight, &ov = *out;
  // The result's own coordinates are (n, c, y, x) where it is NCHW: an
  // epilogue then reads its operands at offsets linear in them.
  bool nchwResult = ArrayRef<int64_t>(ov.stride) == ArrayRef<int64_t>{o * oh * ow, oh * ow, ow, 1};
  // (n, c, x) for a 1-D convolution's NCW result.
  auto resultCoords = [&](Value *b, Value *ch, Value *y, Value *x) -> SmallVector<Value *, 4> {
    if (!nchwResult)
      return {};
    if (outT->rank() == 3)
      return {b, ch, x};
    return {b, ch, y, x};
  };

  {
    // Implicit GEMM per group g: C[(b, y, x), oc] = Σ over (ic, r, s) of
    // input[b, g*icg + ic, y*sh + r*dh - top, x*sw + s*dw - left] (0 in the
    // padding) * weight[g*ocg + oc, ic, r, s].
    KernelBuilder::Contraction c;
    c.type = t;
    c.batch = groups;
    c.m = n * oh * ow;
    c.n = ocg;
    c.depth = icg * kh * kw;
    // Input coordinates (batch, channel, row, column) of A(g, i, k); the
    // row and column may fall in the padding.
    auto inputAt = [&](Value *g, Value *i, Value *k) {
      SmallVector<Value *, 4> p = kb.unflatten(i, {n, oh, ow});
      SmallVector<Value *, 4> q = kb.unflatten(k, {icg, kh, kw});
      Value *ci = kb.iadd(kb.imul(g, icg), q[0]);
      Value *ih = kb.iadd(kb.iadd(kb.imul(p[1], sh), kb.imul(q[1], dh)), -top);
      Value *iw = kb.iadd(kb.iadd(kb.imul(p[2], sw), kb.imul(q[2], dw)), -left);
      return std::array<Value *, 4>{p[0], ci, ih, iw};
    };
    // The load is clamped into the input; insideA zeroes the padding, so
    // that a target may zero after the load has landed. Without padding
    // every position is inside: no clamp, no predicate.
    bool padded = top || left || bottom || right;
    auto loadA = [&](Value *g, Value *i, Value *k) {
      auto [bi, ci, ih, iw] = inputAt(g, i, k);
      Value *zero = kb.index(0);
      Value *chClamped = padded ? kb.imin(kb.imax(ih, zero), kb.index(h - 1)) : ih;
      Value *cwClamped = padded ? kb.imin(kb.imax(iw, zero), kb.index(w - 1)) : iw;
      Value *off = kb.linearOffset({bi, ci, chClamped, cwClamped},
                                   {dv.stride[0], dv.stride[1], dv.stride[2], dv.stride[3]});
      return kb.load(t, kb.buffer(spec.inputBuffer(0)), off);
    };
    auto insideA = [&](Value *g, Value *i, Value *k) {
      auto [bi, ci, ih, iw] = inputAt(g, i, k);
      Value *zero = kb.index(0);
      return kb.logicalAnd(
          kb.logicalAnd(kb.icmp(CmpOp::GE, ih, zero), kb.icmp(CmpOp::LT, ih, kb.index(h))),
          kb.logicalAnd(kb.icmp(CmpOp::GE, iw, zero), kb.icmp(CmpOp::LT, iw, kb.index(w))));
    };
    auto loadB = [&](Value *g, Value *j, Value *k) {
      SmallVector<Value *, 4> q = kb.unflatten(k, {icg, kh, kw});
      Value *oc = kb.iadd(kb.imul(g, ocg), j);
      Value *off = kb.linearOffset({oc, q[0], q[1], q[2]},
                                   {wv.stride[0], wv.stride[1], wv.stride[2], wv.stride[3]});
      return kb.load(t, kb.buffer(spec.inputBuffer(1)), off);
    };
    auto store = [&](Value *g, Value *i, Value *j, Value *sum) {
      SmallVector<Value *, 4> p = kb.unflatten(i, {n, oh, ow});
      Value *oc = kb.iadd(kb.imul(g, ocg), j);
      Value *off = kb.linearOffset({p[0], oc, p[1], p[2]},
                                   {ov.stride[0], ov.stride[1], ov.stride[2], ov.stride[3]});
      kb.storeResult(outT->dtype, spec.outputBuffer(0), off, resultCoords(p[0], oc, p[1], p[2]),
                     kb.cast(sum, acc, outT->dtype));
    };
    c.loadA = loadA;
    if (padded)
      c.insideA = insideA;
    KernelBuilder::Window win;
    win.buffer = spec.inputBuffer(0);
    win.images = n;
    win.height = h;
    win.width = w;
    std::copy(dv.stride.begin(), dv.stride.end(), win.stride);
    win.outH = oh;
    win.outW = ow;
    win.channels = icg;
    win.kernelH = kh;
    win.kernelW = kw;
    win.strideH = sh;
    win.strideW = sw;
    win.dilationH = dh;
    win.dilationW = dw;
    win.top = top;
    win.left = left;
    if (outT->dtype == DType::Float32 && isFloat(acc) &&
        (!kb.hasEpilogue(spec.outputBuffer(0)) || kb.hasVectorEpilogue(spec.outputBuffer(0)))) {
      win.resultBuffer = spec.outputBuffer(0);
      std::copy(ov.stride.begin(), ov.stride.end(), win.resultStride);
    }
    if (wv.stride[3] == 1 && wv.stride[2] == kw && wv.stride[1] == kh * kw) {
      c.bBuffer = spec.inputBuffer(1);
      c.bBatchStride = ocg * wv.stride[0];
      c.bRowStride = wv.stride[0];
    }
    c.window = &win;
    c.loadB = loadB;
    c.store = store;
    if (kb.tilesContraction(c)) {
      kb.contraction(c);
      return Error::success();
    }
  }

  // A depthwise float32 convolution on a target with vectors: each output
  // row, or where rows are narrow each whole plane, in chunks of vector
  // width held in registers across the taps.
  unsigned lanes = kb.vectorLanes(DType::Float32);
  if (lanes > 1 && icg == 1 && t == DType::Float32 && outT->dtype == DType::Float32 &&
      kb.productAccumulatorType(t) == DType::Float32 && outT->rank() == 4 && nchwResult &&
      dv.stride[3] == 1 && kb.canStoreVectorResult(spec.outputBuffer(0))) {
    if (planesPay(kb, spec, dv, ov, *window, kh, kw, lanes)) {
      emitDepthwisePlanes(kb, spec, dv, wv, ov, *window, ocg, lanes);
      return Error::success();
    }
    if (int64_t(rowPieces(0, ow, lanes).size()) * kh * kw <= 1024) {
      emitDepthwiseRows(kb, spec, dv, wv, ov, *window, ocg, lanes);
      return Error::success();
    }
  }

  // The direct loop: one output row per iteration, summed in a row of
  // productAccumulatorType (float32 on the cpu).
  DType dacc = kb.productAccumulatorType(t);
  kb.parallelFor(n * o * oh, 2 * std::max<int64_t>(icg * kh * kw, 1) * ow, [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, o, oh});
    Value *in = kb.buffer(spec.inputBuffer(0)), *wts = kb.buffer(spec.inputBuffer(1));
    Value *cBase = kb.imul(kb.idiv(idx[1], ocg), icg);
    kb.withScratch(dacc, ow, [&](Value *row) {
      kb.forRange(0, ow, [&](Value *x) { kb.store(dacc, row, x, kb.constant(dacc, 0)); });
      kb.forRange(0, icg, [&](Value *ic) {
        Value *ci = kb.iadd(cBase, ic);
        kb.forRange(0, kh, [&](Value *r) {
          Value *ih = kb.iadd(kb.iadd(kb.imul(idx[2], sh), kb.imul(r, dh)), -top);
          Value *inside = kb.logicalAnd(kb.icmp(CmpOp::GE, ih, kb.index(0)),
                                        kb.icmp(CmpOp::LT, ih, kb.index(h)));
          kb.ifThen(inside, [&] {
            Value *rowBase =
                kb.linearOffset({idx[0], ci, ih}, {dv.stride[0], dv.stride[1], dv.stride[2]});
            Value *wBase =
                kb.linearOffset({idx[1], ic, r}, {wv.stride[0], wv.stride[1], wv.stride[2]});
            kb.forRange(0, kw, [&](Value *s) {
              Value *wt =
                  kb.cast(kb.load(t, wts, kb.iadd(wBase, kb.imul(s, wv.stride[3]))), t, dacc);
              // iw = x*sw + x0; the valid x are [lo, hi).
              Value *x0 = kb.iadd(kb.imul(s, dw), -left);
              Value *zero = kb.index(0);
              Value *lo = kb.idiv(kb.iadd(kb.imax(kb.isub(zero, x0), zero), sw - 1), sw);
              Value *y = kb.isub(kb.index(w - 1), x0);
              Value *hi =
                  kb.select(kb.icmp(CmpOp::LT, y, zero), zero,
                            kb.imin(kb.index(ow), kb.iadd(kb.idiv(kb.imax(y, zero), sw), 1)));
              kb.forRange(lo, hi, [&](Value *x) {
                Value *iw = kb.iadd(kb.imul(x, sw), x0);
                Value *v =
                    kb.cast(kb.load(t, in, kb.iadd(rowBase, kb.imul(iw, dv.stride[3]))), t, dacc);
                kb.store(dacc, row, x, kb.add(dacc, kb.load(dacc, row, x), kb.mul(dacc, v, wt)));
              });
            });
          });
        });
      });
      Value *outBase = kb.linearOffset(idx, {ov.stride[0], ov.stride[1], ov.stride[2]});
      // In vectors where the result is NCHW float32 (through the
      // epilogue's vector form, if any): a row is often narrower than
      // LLVM vectorizes (7 or 14 wide).
      unsigned lanes = nchwResult && outT->rank() == 4 && outT->dtype == DType::Float32 &&
                               dacc == DType::Float32 &&
                               kb.canStoreVectorResult(spec.outputBuffer(0))
                           ? kb.vectorLanes(DType::Float32)
                           : 1;
      forPieces(kb, 0, ow, lanes, [&](Value *x, unsigned width) {
        Value *at = kb.iadd(outBase, kb.imul(x, ov.stride[3]));
        if (width > 1)
          return kb.storeVectorResult(spec.outputBuffer(0), at, {idx[0], idx[1], idx[2], x},
                                      kb.loadVector(dacc, row, x, width));
        kb.storeResult(outT->dtype, spec.outputBuffer(0), at,
                       resultCoords(idx[0], idx[1], idx[2], x),
                       kb.cast(kb.load(dacc, row, x), dacc, outT->dtype));
      });
    });
  });
  return Error::success();
}

/// A windowed pool's data and result views and its window.
struct Pool2d {
  LayoutView data, out;
  Window2d window;
  int64_t ph, pw; // pool_size
};

static Expected<Pool2d> getPool(const KernelBuilder &kb, const KernelSpec &spec) {
  Expected<std::pair<LayoutView, LayoutView>> layouts = getPoolLayouts(kb, spec);
  if (!layouts)
    return layouts.takeError();
  Expected<Window2d> window = getWindow(kb, spec);
  if (!window)
    return window.takeError();
  Expected<std::pair<int64_t, int64_t>> size = getPair(kb, spec, "pool_size");
  if (!size)
    return size.takeError();
  return Pool2d{layouts->first, layouts->second, *window, size->first, size->second};
}

/// The loop nest of the windowed pools (nn.max_pool2d, nn.avg_pool2d): one
/// parallel iteration per output row (n, c, oh), a serial loop over its
/// columns, and per output element
///
///   acc = init(); for each window position: acc = visit(acc, valid, v);
///   out[n, c, oh, ow] = finish(acc, oh, ow)
///
/// where v is the element at the position clamped into the input and valid
/// whether the position is inside it (padding and ceil_mode's room are not).
/// `acc` has dtype `accType`; finish gives a value of the result's dtype.
/// The callbacks run inside the parallel loop.
struct PoolNest {
  DType accType;
  function_ref<Value *()> init;
  function_ref<Value *(Value *acc, Value *valid, Value *v)> visit;
  function_ref<Value *(Value *acc, Value *oh, Value *ow)> finish;
};

static Error emitPool(KernelBuilder &kb, const KernelSpec &spec, const Pool2d &pool,
                      const PoolNest &nest) {
  const TensorType *dataT = spec.inputs[0], *outT = spec.outputs[0];
  auto [top, left, bottom, right, sh, sw, dh, dw] = pool.window;
  const LayoutView &dv = pool.data, &ov = pool.out;
  auto [n, c, h, w] = dv.size;
  int64_t oh = ov.size[2], ow = ov.size[3], ph = pool.ph, pw = pool.pw;
  if (anyZero(outT->shape))
    return Error::success();
  if (anyZero(dataT->shape))
    return unsupported(kb, spec, "an empty input with a non-empty result");
  DType t = dataT->dtype;

  kb.parallelFor(n * c * oh, std::max<int64_t>(ph * pw, 1) * ow * 3, [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, c, oh});
    Value *in = kb.buffer(spec.inputBuffer(0)), *res = kb.buffer(spec.outputBuffer(0));
    Value *planeBase = kb.linearOffset({idx[0], idx[1]}, {dv.stride[0], dv.stride[1]});
    Value *outBase = kb.linearOffset(idx, {ov.stride[0], ov.stride[1], ov.stride[2]});
    Value *zero = kb.index(0);
    kb.forRange(0, ow, [&](Value *x) {
      KernelBuilder::LocalVar acc = kb.localVar(nest.accType, nest.init());
      kb.forRange(0, ph, [&](Value *r) {
        Value *ih = kb.iadd(kb.iadd(kb.imul(idx[2], sh), kb.imul(r, dh)), -top);
        Value *inH =
            kb.logicalAnd(kb.icmp(CmpOp::GE, ih, zero), kb.icmp(CmpOp::LT, ih, kb.index(h)));
        Value *ihc = kb.imin(kb.imax(ih, zero), kb.index(h - 1));
        kb.forRange(0, pw, [&](Value *s) {
          Value *iw = kb.iadd(kb.iadd(kb.imul(x, sw), kb.imul(s, dw)), -left);
          Value *valid = kb.logicalAnd(inH, kb.logicalAnd(kb.icmp(CmpOp::GE, iw, zero),
                                                          kb.icmp(CmpOp::LT, iw, kb.index(w))));
          Value *iwc = kb.imin(kb.imax(iw, zero), kb.index(w - 1));
          Value *v =
              kb.load(t, in, kb.linearOffset({ihc, iwc}, {dv.stride[2], dv.stride[3]}, planeBase));
          kb.set(acc, nest.visit(kb.get(acc), valid, v));
        });
      });
      kb.store(outT->dtype, res, kb.iadd(outBase, kb.imul(x, ov.stride[3])),
               nest.finish(kb.get(acc), idx[2], x));
    });
  });
  return Error::success();
}

static Error conv1dKernel(KernelBuilder &kb, const KernelSpec &spec) {
  return convKernel(kb, spec, 1);
}
static Error conv2dKernel(KernelBuilder &kb, const KernelSpec &spec) {
  return convKernel(kb, spec, 2);
}

/// nn.max_pool2d where columns are unit-stride (NCHW): per output row, a
/// row of maxima starts at the lowest value and each window tap (r, s)
/// whose input row is inside the input takes the max with it over the
/// columns whose input column is inside too, a range known when the kernel
/// is generated. So the column loop has no predicate and no clamp, and
/// vectorizes: the pool runs at the speed of its loads (the generic nest
/// visits each output's taps one by one, with a select per tap). The row is
/// then stored once per element, as a fused epilogue needs. The same taps
/// as emitPool's, taken in the same order per output.
static void emitMaxPoolRows(KernelBuilder &kb, const KernelSpec &spec, const Pool2d &pool) {
  auto [top, left, bottom, right, sh, sw, dh, dw] = pool.window;
  const LayoutView &dv = pool.data, &ov = pool.out;
  auto [n, c, h, w] = dv.size;
  int64_t oh = ov.size[2], ow = ov.size[3];
  DType t = spec.inputs[0]->dtype, rt = spec.outputs[0]->dtype;
  kb.parallelFor(n * c * oh, std::max<int64_t>(pool.ph * pool.pw, 1) * ow, [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, c, oh});
    Value *in = kb.buffer(spec.inputBuffer(0));
    Value *planeBase = kb.linearOffset({idx[0], idx[1]}, {dv.stride[0], dv.stride[1]});
    kb.withScratch(t, ow, [&](Value *row) {
      kb.forRange(0, ow, [&](Value *x) { kb.store(t, row, x, kb.lowest(t)); });
      for (int64_t r = 0; r < pool.ph; ++r) {
        Value *ih = kb.iadd(kb.imul(idx[2], sh), r * dh - top);
        Value *inside =
            kb.logicalAnd(kb.icmp(CmpOp::GE, ih, kb.index(0)), kb.icmp(CmpOp::LT, ih, kb.index(h)));
        kb.ifThen(inside, [&] {
          Value *rowBase = kb.iadd(planeBase, kb.imul(ih, dv.stride[2]));
          for (int64_t s = 0; s < pool.pw; ++s) {
            // Columns x with 0 <= x * sw + off < w.
            int64_t off = s * dw - left;
            int64_t lo = std::max<int64_t>(0, ceilDiv(-off, sw));
            int64_t hi = std::min<int64_t>(ow, floorDiv(w - 1 - off, sw) + 1);
            if (lo >= hi)
              continue;
            kb.forRange(lo, hi, [&](Value *x) {
              Value *v = kb.load(t, in, kb.iadd(rowBase, kb.iadd(kb.imul(x, sw), off)));
              kb.store(t, row, x, kb.max(t, kb.load(t, row, x), v));
            });
          }
        });
      }
      Value *res = kb.buffer(spec.outputBuffer(0));
      Value *outBase = kb.linearOffset(idx, {ov.stride[0], ov.stride[1], ov.stride[2]});
      kb.forRange(0, ow,
                  [&](Value *x) { kb.store(rt, res, kb.iadd(outBase, x), kb.load(t, row, x)); });
    });
  });
}

/// nn.max_pool2d of float32 with unit-stride columns on a target with
/// vectors, as emitDepthwiseRows sums: per output row, chunks of `lanes`
/// columns (then power-of-two pieces) held in registers across the taps,
/// each tap one masked load (strided columns: every sw-th lane of a wider
/// one) whose lanes outside the input keep the running max, and the chunk
/// stored once (through the epilogue's vector form). The taps in
/// emitPool's order.
static void emitMaxPoolVectors(KernelBuilder &kb, const KernelSpec &spec, const Pool2d &pool,
                               unsigned lanes) {
  auto [top, left, bottom, right, sh, sw, dh, dw] = pool.window;
  const LayoutView &dv = pool.data, &ov = pool.out;
  auto [n, c, h, w] = dv.size;
  int64_t oh = ov.size[2], ow = ov.size[3];
  const DType f32 = DType::Float32;
  std::vector<std::pair<int64_t, unsigned>> pieces = rowPieces(0, ow, lanes);
  kb.parallelFor(n * c * oh, std::max<int64_t>(pool.ph * pool.pw, 1) * ow, [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, c, oh});
    Value *in = kb.buffer(spec.inputBuffer(0));
    Value *planeBase = kb.linearOffset({idx[0], idx[1]}, {dv.stride[0], dv.stride[1]});
    SmallVector<Value *, 8> rowBase, inside;
    for (int64_t r = 0; r < pool.ph; ++r) {
      Value *ih = kb.iadd(kb.imul(idx[2], sh), r * dh - top);
      inside.push_back(
          kb.logicalAnd(kb.icmp(CmpOp::GE, ih, kb.index(0)), kb.icmp(CmpOp::LT, ih, kb.index(h))));
      Value *clamped = kb.imin(kb.imax(ih, kb.index(0)), kb.index(h - 1));
      rowBase.push_back(kb.iadd(planeBase, kb.imul(clamped, dv.stride[2])));
    }
    Value *outBase = kb.linearOffset(idx, {ov.stride[0], ov.stride[1], ov.stride[2]});
    for (auto [first, width] : pieces) {
      Value *acc = kb.splat(kb.lowest(f32), width);
      for (int64_t r = 0; r < pool.ph; ++r) {
        Value *a = acc;
        for (int64_t s = 0; s < pool.pw; ++s) {
          SmallVector<bool, 32> valid;
          Value *v = loadTapLanes(kb, in, rowBase[r], first, width, sw, s * dw - left, w, valid);
          if (!v)
            continue;
          Value *m = kb.max(f32, a, v);
          a = llvm::all_of(valid, [](bool v) { return v; }) ? m : kb.selectLanes(valid, m, a);
        }
        acc = kb.select(inside[r], a, acc);
      }
      Value *x = kb.index(first);
      if (width == 1)
        kb.storeResult(f32, spec.outputBuffer(0), kb.iadd(outBase, x), {idx[0], idx[1], idx[2], x},
                       kb.extractLane(acc, 0));
      else
        kb.storeVectorResult(spec.outputBuffer(0), kb.iadd(outBase, x), {idx[0], idx[1], idx[2], x},
                             acc);
    }
  });
}

static Error maxPool2dKernel(KernelBuilder &kb, const KernelSpec &spec) {
  Expected<Pool2d> pool = getPool(kb, spec);
  if (!pool)
    return pool.takeError();
  DType t = spec.inputs[0]->dtype;
  unsigned lanes = kb.vectorLanes(DType::Float32);
  const LayoutView &ov = pool->out;
  // An epilogue's vector form runs along the result's last dim: W only in
  // an NCHW result.
  int64_t oc = ov.size[1], oh = ov.size[2], ow = ov.size[3];
  bool nchwResult = ArrayRef<int64_t>(ov.stride) == ArrayRef<int64_t>{oc * oh * ow, oh * ow, ow, 1};
  if (lanes > 1 && t == DType::Float32 && spec.outputs[0]->dtype == DType::Float32 &&
      pool->data.stride[3] == 1 && ov.stride[3] == 1 && pool->window.sw <= 2 &&
      (nchwResult || !kb.hasEpilogue(spec.outputBuffer(0))) &&
      kb.canStoreVectorResult(spec.outputBuffer(0)) && !anyZero(spec.outputs[0]->shape) &&
      !anyZero(spec.inputs[0]->shape) &&
      int64_t(rowPieces(0, ov.size[3], lanes).size()) * pool->ph * pool->pw <= 1024) {
    if (nchwResult &&
        planesPay(kb, spec, pool->data, ov, pool->window, pool->ph, pool->pw, lanes)) {
      auto combine = [&](Value *acc, Value *v, int64_t, int64_t, unsigned) {
        return kb.max(DType::Float32, acc, v);
      };
      emitPlanes(kb, spec, pool->data, ov, pool->window, pool->ph, pool->pw, 1, lanes,
                 {-std::numeric_limits<double>::infinity(), nullptr, combine});
      return Error::success();
    }
    emitMaxPoolVectors(kb, spec, *pool, lanes);
    return Error::success();
  }
  // Unit-stride columns and a window of a few taps (each tap is a loop).
  if (pool->data.stride[3] == 1 && pool->out.stride[3] == 1 && pool->ph * pool->pw <= 64 &&
      !anyZero(spec.outputs[0]->shape) && !anyZero(spec.inputs[0]->shape)) {
    emitMaxPoolRows(kb, spec, *pool);
    return Error::success();
  }
  auto init = [&] { return kb.lowest(t); };
  auto visit = [&](Value *m, Value *valid, Value *v) {
    return kb.select(valid, kb.max(t, m, v), m);
  };
  auto finish = [](Value *m, Value *, Value *) { return m; };
  return emitPool(kb, spec, *pool, {t, init, visit, finish});
}

/// TVM's count of the positions of window `o` (an index) along one dim of
/// size `in` (see the interpreter): those inside the input, or with
/// `includePad` inside the input and its explicit padding (`padAfter`),
/// with truncating divisions.
static Value *windowCount(KernelBuilder &kb, Value *o, int64_t size, int64_t stride,
                          int64_t dilation, int64_t padBefore, int64_t padAfter, int64_t in,
                          bool includePad) {
  Value *start = kb.iadd(kb.imul(o, stride), -padBefore);
  Value *end = kb.iadd(start, (size - 1) * dilation);
  Value *d = kb.index(dilation);
  if (includePad) {
    Value *last = kb.imin(end, kb.index(in + padAfter - 1));
    return kb.iadd(kb.div(DType::Int64, kb.isub(last, start), d), 1);
  }
  Value *skipped =
      kb.imax(kb.div(DType::Int64, kb.isub(kb.index(dilation - 1), start), d), kb.index(0));
  Value *first = kb.iadd(start, kb.imul(skipped, dilation));
  Value *last = kb.imin(end, kb.index(in - 1));
  return kb.iadd(kb.div(DType::Int64, kb.isub(last, first), d), 1);
}

static Error avgPool2dKernel(KernelBuilder &kb, const KernelSpec &spec) {
  Expected<Pool2d> pool = getPool(kb, spec);
  if (!pool)
    return pool.takeError();
  const Window2d &win = pool->window;
  int64_t h = pool->data.size[2], w = pool->data.size[3];
  bool includePad = spec.getBool("count_include_pad");
  DType t = spec.inputs[0]->dtype, acc = kb.accumulatorType(t), rt = spec.outputs[0]->dtype;
  auto init = [&] { return kb.constant(acc, 0); };
  auto visit = [&](Value *sum, Value *valid, Value *v) {
    return kb.accumulate(acc, sum, kb.select(valid, kb.cast(v, t, acc), kb.constant(acc, 0)));
  };
  auto finish = [&](Value *sum, Value *oh, Value *ow) {
    Value *count =
        kb.imul(windowCount(kb, oh, pool->ph, win.sh, win.dh, win.top, win.bottom, h, includePad),
                windowCount(kb, ow, pool->pw, win.sw, win.dw, win.left, win.right, w, includePad));
    if (!includePad)
      count = kb.imax(count, kb.index(1));
    return kb.cast(kb.div(acc, sum, kb.cast(count, DType::Int64, acc)), acc, rt);
  };
  return emitPool(kb, spec, *pool, {acc, init, visit, finish});
}

static Error adaptiveAvgPool2dKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *dataT = spec.inputs[0], *outT = spec.outputs[0];
  Expected<std::pair<LayoutView, LayoutView>> layouts = getPoolLayouts(kb, spec);
  if (!layouts)
    return layouts.takeError();
  const LayoutView &dv = layouts->first, &ov = layouts->second;
  auto [n, c, h, w] = dv.size;
  int64_t oh = ov.size[2], ow = ov.size[3];
  if (anyZero(outT->shape))
    return Error::success();
  DType t = dataT->dtype, acc = kb.accumulatorType(t);
  // Bin i of `o` over `in`: [floor(i * in / o), ceil((i + 1) * in / o)).
  auto bin = [&](Value *i, int64_t in, int64_t o) {
    Value *end = kb.imul(kb.iadd(i, 1), in);
    return std::make_pair(kb.idiv(kb.imul(i, in), o), kb.idiv(kb.iadd(end, o - 1), o));
  };
  int64_t work = std::max<int64_t>((h + oh - 1) / oh * ((w + ow - 1) / ow), 1) * ow;
  kb.parallelFor(n * c * oh, work, [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, c, oh});
    Value *in = kb.buffer(spec.inputBuffer(0)), *res = kb.buffer(spec.outputBuffer(0));
    Value *planeBase = kb.linearOffset({idx[0], idx[1]}, {dv.stride[0], dv.stride[1]});
    Value *outBase = kb.linearOffset(idx, {ov.stride[0], ov.stride[1], ov.stride[2]});
    auto [y0, y1] = bin(idx[2], h, oh);
    kb.forRange(0, ow, [&](Value *x) {
      auto [x0, x1] = bin(x, w, ow);
      KernelBuilder::LocalVar sum = kb.localVar(acc, kb.constant(acc, 0));
      kb.forRange(y0, y1, [&](Value *iy) {
        Value *rowBase = kb.iadd(planeBase, kb.imul(iy, dv.stride[2]));
        kb.forRange(x0, x1, [&](Value *ix) {
          Value *v = kb.cast(kb.load(t, in, kb.iadd(rowBase, kb.imul(ix, dv.stride[3]))), t, acc);
          kb.set(sum, kb.accumulate(acc, kb.get(sum), v));
        });
      });
      Value *count = kb.imul(kb.isub(y1, y0), kb.isub(x1, x0));
      Value *mean = kb.div(acc, kb.get(sum), kb.cast(count, DType::Int64, acc));
      kb.store(outT->dtype, res, kb.iadd(outBase, kb.imul(x, ov.stride[3])),
               kb.cast(mean, acc, outT->dtype));
    });
  });
  return Error::success();
}

static Error globalAvgPool2dKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *dataT = spec.inputs[0], *outT = spec.outputs[0];
  Expected<std::pair<LayoutView, LayoutView>> layouts = getPoolLayouts(kb, spec);
  if (!layouts)
    return layouts.takeError();
  const LayoutView &dv = layouts->first, &ov = layouts->second;
  auto [n, c, h, w] = dv.size;
  if (n * c == 0)
    return Error::success();
  DType t = dataT->dtype, acc = kb.accumulatorType(t);
  kb.parallelFor(n * c, std::max<int64_t>(h * w, 1), [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, c});
    Value *in = kb.buffer(spec.inputBuffer(0));
    Value *base = kb.linearOffset(idx, {dv.stride[0], dv.stride[1]});
    KernelBuilder::LocalVar sum = kb.localVar(acc, kb.constant(acc, 0));
    auto add = [&](Value *at) {
      kb.set(sum, kb.accumulate(acc, kb.get(sum), kb.cast(kb.load(t, in, at), t, acc)));
    };
    if (dv.stride[3] == 1 && dv.stride[2] == w) {
      // A contiguous plane: one loop over it, which the target vectorizes
      // whole (rows of 7 or 14 are shorter than its vectors).
      kb.forRange(0, h * w, [&](Value *i) { add(kb.iadd(base, i)); });
    } else {
      kb.forRange(0, h, [&](Value *y) {
        Value *rowBase = kb.iadd(base, kb.imul(y, dv.stride[2]));
        kb.forRange(0, w, [&](Value *x) { add(kb.iadd(rowBase, kb.imul(x, dv.stride[3]))); });
      });
    }
    Value *mean = kb.div(acc, kb.get(sum), kb.constantInt(acc, h * w));
    Value *off = kb.linearOffset(idx, {ov.stride[0], ov.stride[1]});
    kb.store(outT->dtype, kb.buffer(spec.outputBuffer(0)), off, kb.cast(mean, acc, outT->dtype));
  });
  return Error::success();
}

namespace {
/// image.resize2d's sampling (see ShapeUtils.h and the interpreter).
struct Sampling {
  ResizeMethod method;
  ResizeCoord coord;
  ResizeRounding rounding;
  float alpha;  // cubic_alpha
  bool exclude; // cubic_exclude
  std::array<double, 4> roi;
  float extrapolation;
  /// The output/input scales (H, W) coordinates map by; 0: the sizes'.
  std::array<double, 2> scales = {0, 0};
};

/// The taps of one output index along one dim: input indices (clamped into
/// the input) and float32 weights; `outside` (a bool, or null) when
/// tf_crop_and_resize extrapolates.
struct Taps {
  SmallVector<Value *, 4> index, weight;
  Value *outside = nullptr;
};
} // namespace

/// TVM's input coordinate (float32) of output index o, operation for
/// operation as the interpreter's resizeCoord.
static Value *resizeCoord(KernelBuilder &kb, const Sampling &s, Value *o, int64_t in, int64_t out,
                          double roiStart, double roiEnd, double given) {
  DType f = DType::Float32;
  auto c = [&](double v) { return kb.constant(f, v); };
  Value *fx = kb.cast(o, DType::Int64, f);
  Value *scale = c(given > 0 ? 1 / given : double(in) / double(out));
  auto halfPixel = [&] { return kb.sub(f, kb.mul(f, kb.add(f, fx, c(0.5)), scale), c(0.5)); };
  switch (s.coord) {
  case ResizeCoord::HalfPixelSymmetric: {
    double adjustment = given > 0 ? double(out) / (given * double(in)) : 1;
    return kb.add(f, c(double(in) / 2 * (1 - adjustment)), halfPixel());
  }
  case ResizeCoord::HalfPixel:
    return halfPixel();
  case ResizeCoord::AlignCorners:
    return out > 1 ? kb.mul(f, c(double(in - 1) / double(out - 1)), fx) : c(0);
  case ResizeCoord::Asymmetric:
    return kb.mul(f, scale, fx);
  case ResizeCoord::PytorchHalfPixel:
    return out > 1 ? halfPixel() : c(0);
  case ResizeCoord::TfHalfPixelForNN:
    return kb.mul(f, kb.add(f, fx, c(0.5)), scale);
  case ResizeCoord::TfCropAndResize:
    if (out <= 1)
      return c(0.5 * (roiStart + roiEnd) * double(in - 1));
    return kb.add(f, c(roiStart * double(in - 1)),
                  kb.div(f, kb.mul(f, kb.mul(f, fx, c(roiEnd - roiStart)), c(double(in - 1))),
                         c(double(out - 1))));
  }
  return c(0);
}

/// The taps of output index o along a dim of `in` inputs and `out` outputs,
/// as the interpreter's resizeTaps.
static Taps resizeTaps(KernelBuilder &kb, const Sampling &s, Value *o, int64_t in, int64_t out,
                       double roiStart, double roiEnd, double given) {
  DType f = DType::Float32;
  auto c = [&](float v) { return kb.constant(f, v); };
  auto clamp = [&](Value *i) { return kb.imin(kb.imax(i, kb.index(0)), kb.index(in - 1)); };
  // floor(x) as an index within [-4, in + 4], as the interpreter's.
  auto floorIndex = [&](Value *fl) {
    return kb.imin(kb.imax(kb.cast(fl, f, DType::Int64), kb.index(-4)), kb.index(in + 4));
  };
  Taps t;
  Value *x = resizeCoord(kb, s, o, in, out, roiStart, roiEnd, given);
  if (s.coord == ResizeCoord::TfCropAndResize)
    t.outside = kb.logicalOr(kb.compare(CmpOp::LT, f, x, c(0)),
                             kb.compare(CmpOp::GT, f, x, c(float(in - 1))));
  switch (s.method) {
  case ResizeMethod::NearestNeighbor: {
    Value *i;
    if (s.coord == ResizeCoord::Asymmetric && given == 0 && out % in == 0 &&
        double(out / in) <= 1 / (1e-5 * double(in) + 1e-5)) {
      i = kb.idiv(o, out / in); // TVM's exact integer path for integral upscaling
    } else {
      Value *r = nullptr;
      switch (s.rounding) {
      case ResizeRounding::Round:
        r = kb.math(MathFn::Round, f, {x});
        break;
      case ResizeRounding::RoundPreferFloor:
        r = kb.math(MathFn::Ceil, f, {kb.sub(f, x, c(0.5f))});
        break;
      case ResizeRounding::RoundPreferCeil:
        r = kb.math(MathFn::Floor, f, {kb.add(f, x, c(0.5f))});
        break;
      case ResizeRounding::Floor:
        r = kb.math(MathFn::Floor, f, {kb.add(f, x, c(1e-5f))});
        break;
      case ResizeRounding::Ceil:
        r = kb.math(MathFn::Ceil, f, {kb.sub(f, x, c(1e-5f))});
        break;
      }
      i = kb.cast(r, f, DType::Int64);
    }
    t.index = {clamp(i)};
    t.weight = {c(1)};
    return t;
  }
  case ResizeMethod::Linear: {
    Value *fl = kb.math(MathFn::Floor, f, {x});
    Value *i = floorIndex(fl), *frac = kb.sub(f, x, fl);
    t.index = {clamp(i), clamp(kb.iadd(i, 1))};
    t.weight = {kb.sub(f, c(1), frac), frac};
    return t;
  }
  case ResizeMethod::Cubic: {
    Value *fl = kb.math(MathFn::Floor, f, {x});
    Value *i = floorIndex(fl), *u = kb.sub(f, x, fl);
    Value *u2 = kb.mul(f, u, u), *u3 = kb.mul(f, u2, u);
    float a = s.alpha;
    auto mul = [&](float k, Value *v) { return kb.mul(f, c(k), v); };
    t.weight = {mul(a, kb.add(f, kb.sub(f, u3, mul(2, u2)), u)),
                kb.add(f, kb.sub(f, mul(a + 2, u3), mul(3 + a, u2)), c(1)),
                kb.sub(f, kb.add(f, mul(-(a + 2), u3), mul(3 + 2 * a, u2)), mul(a, u)),
                kb.add(f, mul(-a, u3), mul(a, u2))};
    if (s.exclude) {
      Value *sum = nullptr;
      for (int64_t k = 0; k < 4; ++k) {
        Value *off = kb.logicalOr(kb.icmp(CmpOp::LT, kb.iadd(i, k - 1), kb.index(0)),
                                  kb.icmp(CmpOp::GT, kb.iadd(i, k), kb.index(in)));
        t.weight[k] = kb.select(off, c(0), t.weight[k]);
        sum = sum ? kb.add(f, sum, t.weight[k]) : t.weight[k];
      }
      for (Value *&w : t.weight)
        w = kb.div(f, w, sum);
    }
    for (int64_t k = 0; k < 4; ++k)
      t.index.push_back(clamp(kb.iadd(i, k - 1)));
    return t;
  }
  }
  return t;
}

/// image.resize2d's kernel, also nn.upsampling's: per output row (n, c, oh),
/// its taps, then per column the column's taps and the weighted sum of the
/// tap grid (float32, as TVM computes).
static Error emitResize(KernelBuilder &kb, const KernelSpec &spec, const Sampling &s) {
  const TensorType *dataT = spec.inputs[0], *outT = spec.outputs[0];
  Expected<std::pair<LayoutView, LayoutView>> layouts =
      getPoolLayouts(kb, spec, /*hasOutLayout=*/false);
  if (!layouts)
    return layouts.takeError();
  const LayoutView &dv = layouts->first, &ov = layouts->second;
  auto [n, c, h, w] = dv.size;
  int64_t oh = ov.size[2], ow = ov.size[3];
  if (anyZero(outT->shape))
    return Error::success();
  if (anyZero(dataT->shape))
    return unsupported(kb, spec, "an empty input with a non-empty result");
  DType t = dataT->dtype, f = DType::Float32;
  int64_t taps = s.method == ResizeMethod::NearestNeighbor ? 1
                 : s.method == ResizeMethod::Linear        ? 2
                                                           : 4;
  kb.parallelFor(n * c * oh, (taps * taps * 2 + 20) * ow, [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, c, oh});
    Value *in = kb.buffer(spec.inputBuffer(0)), *res = kb.buffer(spec.outputBuffer(0));
    Value *planeBase = kb.linearOffset({idx[0], idx[1]}, {dv.stride[0], dv.stride[1]});
    Value *outBase = kb.linearOffset(idx, {ov.stride[0], ov.stride[1], ov.stride[2]});
    Taps row = resizeTaps(kb, s, idx[2], h, oh, s.roi[0], s.roi[2], s.scales[0]);
    kb.forRange(0, ow, [&](Value *x) {
      Taps col = resizeTaps(kb, s, x, w, ow, s.roi[1], s.roi[3], s.scales[1]);
      Value *v = nullptr;
      for (size_t j = 0; j < row.index.size(); ++j) {
        Value *rowBase = kb.iadd(planeBase, kb.imul(row.index[j], dv.stride[2]));
        Value *sum = nullptr;
        for (size_t i = 0; i < col.index.size(); ++i) {
          Value *p =
              kb.cast(kb.load(t, in, kb.iadd(rowBase, kb.imul(col.index[i], dv.stride[3]))), t, f);
          Value *term = taps == 1 ? p : kb.mul(f, col.weight[i], p);
          sum = sum ? kb.add(f, sum, term) : term;
        }
        Value *term = taps == 1 ? sum : kb.mul(f, row.weight[j], sum);
        v = v ? kb.add(f, v, term) : term;
      }
      if (row.outside)
        v = kb.select(kb.logicalOr(row.outside, col.outside), kb.constant(f, s.extrapolation), v);
      kb.store(outT->dtype, res, kb.iadd(outBase, kb.imul(x, ov.stride[3])),
               kb.cast(v, f, outT->dtype));
    });
  });
  return Error::success();
}

static Error resize2dKernel(KernelBuilder &kb, const KernelSpec &spec) {
  std::string mode = spec.getString("coordinate_transformation_mode");
  std::optional<ResizeMethod> method = parseResizeMethod(spec.getString("method"));
  std::optional<ResizeCoord> coord = parseResizeCoord(mode);
  if (!method || !coord)
    return unsupported(kb, spec, "method " + spec.getString("method") + " with " + mode);
  std::optional<ResizeRounding> rounding =
      parseResizeRounding(spec.getString("rounding_method"), *coord);
  if (!rounding && *method == ResizeMethod::NearestNeighbor)
    return unsupported(kb, spec, "rounding_method " + spec.getString("rounding_method"));
  Sampling s{*method,
             *coord,
             rounding.value_or(ResizeRounding::Round),
             float(spec.getFloat("cubic_alpha")),
             spec.getInt("cubic_exclude") != 0,
             {0, 0, 0, 0},
             float(spec.getFloat("extrapolation_value"))};
  SmallVector<double, 4> roi = attrFloats(spec.attr("roi"));
  if (roi.size() == 4)
    std::copy(roi.begin(), roi.end(), s.roi.begin());
  SmallVector<double, 4> scales = attrFloats(spec.attr("scales"));
  if (scales.size() == 2)
    s.scales = {scales[0], scales[1]};
  return emitResize(kb, spec, s);
}

/// TVM's topi upsampling: resize2d (to the result's size, round(in * scale))
/// with align_corners or asymmetric coordinates and the default rounding.
static Error upsamplingKernel(KernelBuilder &kb, const KernelSpec &spec) {
  std::optional<ResizeMethod> method = parseUpsamplingMethod(spec.getString("method"));
  if (!method)
    return unsupported(kb, spec, "method " + spec.getString("method"));
  ResizeCoord coord =
      spec.getBool("align_corners") ? ResizeCoord::AlignCorners : ResizeCoord::Asymmetric;
  Sampling s{*method, coord, *parseResizeRounding("", coord), -0.5f, false, {0, 0, 0, 0}, 0};
  return emitResize(kb, spec, s);
}

ArrayRef<KernelEntry> convPoolKernels() {
  static const KernelEntry table[] = {
      {"nn.conv2d", conv2dKernel},
      {"nn.conv1d", conv1dKernel},
      {"nn.max_pool2d", maxPool2dKernel},
      {"nn.avg_pool2d", avgPool2dKernel},
      {"nn.adaptive_avg_pool2d", adaptiveAvgPool2dKernel},
      {"nn.global_avg_pool2d", globalAvgPool2dKernel},
      {"nn.upsampling", upsamplingKernel},
      {"image.resize2d", resize2dKernel},
  };
  return table;
}

} // namespace hx
