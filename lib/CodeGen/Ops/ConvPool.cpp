//===- ConvPool.cpp - Kernels of the convolutions and pools ---------------===//
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
// stores the tile, not right after the load. Every form first drops the
// kernel rows and columns whose taps meet only padding (dropDeadTaps: a
// dilated kernel wider than the map).
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
// Where the target has vectors, float32 depthwise convolutions and max
// pools hold their sums in vector registers across the taps instead
// (WindowVectors.cpp); image.resize2d and nn.upsampling are in Resize.cpp.
//
//===----------------------------------------------------------------------===//

#include "../LoopNest.h"
#include "Window.h"
#include <cstring>
#include <vector>

using namespace llvm;

namespace hx {

/// [lo, hi) split into vectors of `lanes` columns and then power-of-two
/// pieces of the rest: (first column, width) each, width 1 a scalar.
/// Explicit vectors, since LLVM does not vectorize loops of fewer than 16
/// iterations (a 7- or 14-wide row).
std::vector<std::pair<int64_t, unsigned>> rowPieces(int64_t lo, int64_t hi, unsigned lanes) {
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

Expected<LayoutView> getLayout(const KernelBuilder &kb, const KernelSpec &spec, const TensorType *t,
                               StringRef attr, StringRef letters, StringRef fallbackAttr) {
  std::string layout = spec.getString(attr);
  if (layout.empty() && !fallbackAttr.empty())
    layout = spec.getString(fallbackAttr);
  if (std::optional<LayoutView> v = viewLayout(t, layout, letters))
    return *v;
  return unsupported(kb, spec, attr + " " + layout);
}

Expected<std::pair<int64_t, int64_t>> getPair(const KernelBuilder &kb, const KernelSpec &spec,
                                              StringRef attr, unsigned spatial) {
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

Expected<Window2d> getWindow(const KernelBuilder &kb, const KernelSpec &spec, unsigned spatial) {
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

Expected<std::pair<LayoutView, LayoutView>>
getPoolLayouts(const KernelBuilder &kb, const KernelSpec &spec, bool hasOutLayout) {
  Expected<LayoutView> data = getLayout(kb, spec, spec.inputs[0], "layout", "NCHW");
  if (!data)
    return data.takeError();
  Expected<LayoutView> out = getLayout(kb, spec, spec.outputs[0],
                                       hasOutLayout ? "out_layout" : "layout", "NCHW", "layout");
  if (!out)
    return out.takeError();
  return std::make_pair(*data, *out);
}

/// The kernel rows r (of `extent`, dilation d, stride st, padding `before`)
/// whose taps meet the input for some output row y < out: y*st + r*d -
/// before in [0, in). [first, last + 1), or an empty range.
static std::pair<int64_t, int64_t> liveTaps(int64_t extent, int64_t d, int64_t st, int64_t before,
                                            int64_t in, int64_t out) {
  int64_t first = -1, last = -1;
  for (int64_t r = 0; r < extent; ++r) {
    int64_t lo = r * d - before;
    int64_t y = lo >= 0 ? 0 : ceilDiv(-lo, st);
    if (y < out && lo + y * st < in) {
      if (first < 0)
        first = r;
      last = r;
    }
  }
  return {first < 0 ? 0 : first, last + 1};
}

/// Drops the kernel rows and columns of a convolution whose taps all fall
/// in the padding (a dilated kernel wider than the map: DeepLabV3's 3x3
/// of dilation 24 and 36 over 14x14 is a 1x1, of 12 a 3x3 whose outer taps
/// meet two rows): the window and the weights' view shrink to the taps that
/// meet the input, the padding moves with them, and the result is the
/// same (a tap in the padding adds nothing). Not where no tap meets it.
static void dropDeadTaps(Window2d &win, LayoutView &wv, int64_t h, int64_t w, int64_t oh,
                         int64_t ow) {
  auto [r0, r1] = liveTaps(wv.size[2], win.dh, win.sh, win.top, h, oh);
  auto [s0, s1] = liveTaps(wv.size[3], win.dw, win.sw, win.left, w, ow);
  if (r1 <= r0 || s1 <= s0 || (r0 == 0 && r1 == wv.size[2] && s0 == 0 && s1 == wv.size[3]))
    return;
  win.top -= r0 * win.dh;
  win.bottom -= (wv.size[2] - r1) * win.dh;
  win.left -= s0 * win.dw;
  win.right -= (wv.size[3] - s1) * win.dw;
  wv.offset += r0 * wv.stride[2] + s0 * wv.stride[3];
  wv.size[2] = r1 - r0;
  wv.size[3] = s1 - s0;
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
  dropDeadTaps(*window, *weight, data->size[2], data->size[3], out->size[2], out->size[3]);
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
                                   {wv.stride[0], wv.stride[1], wv.stride[2], wv.stride[3]},
                                   kb.index(wv.offset));
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
    std::vector<float> weights; // the weights' values, while the kernel is built
    if (wv.stride[3] == 1 && wv.stride[2] == kw && wv.stride[1] == kh * kw && wv.offset == 0) {
      c.bBuffer = spec.inputBuffer(1);
      c.bBatchStride = ocg * wv.stride[0];
      c.bRowStride = wv.stride[0];
    }
    // The weights' values where they are known when the kernel is built,
    // as B (oc, (ic, r, s)) contiguous: the tensor as it is, or its live
    // taps gathered (dropDeadTaps).
    if (const TensorData *wt = buildTimeOperand(spec, 1);
        wt && kb.readsBuildTimeValues() && wt->dtype == DType::Float32 && t == DType::Float32) {
      const float *all = reinterpret_cast<const float *>(wt->bytes.data());
      weights.resize(size_t(o * icg * kh * kw));
      for (int64_t oc = 0; oc < o; ++oc)
        for (int64_t ic = 0; ic < icg; ++ic)
          for (int64_t r = 0; r < kh; ++r)
            for (int64_t s = 0; s < kw; ++s)
              weights[size_t(((oc * icg + ic) * kh + r) * kw + s)] =
                  all[wv.offset + oc * wv.stride[0] + ic * wv.stride[1] + r * wv.stride[2] +
                      s * wv.stride[3]];
      c.bValues = weights.data();
      c.bRowStride = icg * kh * kw;
      c.bBatchStride = ocg * c.bRowStride;
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
  // width held in registers across the taps (WindowVectors.cpp).
  if (icg == 1 && t == DType::Float32 && outT->dtype == DType::Float32 &&
      kb.productAccumulatorType(t) == DType::Float32 && outT->rank() == 4 && nchwResult &&
      emitDepthwiseVectors(kb, spec, dv, wv, ov, *window, ocg))
    return Error::success();

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
            Value *wBase = kb.linearOffset(
                {idx[1], ic, r}, {wv.stride[0], wv.stride[1], wv.stride[2]}, kb.index(wv.offset));
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

Expected<Pool2d> getPool(const KernelBuilder &kb, const KernelSpec &spec) {
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

static Error maxPool2dKernel(KernelBuilder &kb, const KernelSpec &spec) {
  Expected<Pool2d> pool = getPool(kb, spec);
  if (!pool)
    return pool.takeError();
  DType t = spec.inputs[0]->dtype;
  // float32: vectors held across the taps (WindowVectors.cpp).
  if (emitMaxPoolVectors(kb, spec, *pool))
    return Error::success();
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

ArrayRef<KernelEntry> convPoolKernels() {
  static const KernelEntry table[] = {
      {"nn.conv2d", conv2dKernel},
      {"nn.conv1d", conv1dKernel},
      {"nn.max_pool2d", maxPool2dKernel},
      {"nn.avg_pool2d", avgPool2dKernel},
      {"nn.adaptive_avg_pool2d", adaptiveAvgPool2dKernel},
      {"nn.global_avg_pool2d", globalAvgPool2dKernel},
  };
  return table;
}

} // namespace hx
