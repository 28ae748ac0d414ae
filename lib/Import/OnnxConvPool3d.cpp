//===- OnnxConvPool3d.cpp - 3-D convolutions and pools as 2-D ones --------===//
//
// hx's window operators are 1-D and 2-D. A 3-D Conv, MaxPool or
// AveragePool over (N, C, D, H, W), of static shape, becomes 2-D ones over
// (H, W) with the depth folded into the batch; the depth's padding is an
// nn.pad and its window a strided_slice per tap:
//
//  - Conv: the padded input with its depth moved next to the batch; for
//    each of the kernel's kd depth taps, the depth slice that tap reads at
//    every output depth (start k * dilation, step the stride) is convolved
//    in 2-D with that tap's weights, and the kd results are summed. That is
//    the 3-D convolution's work, in kd 2-D convolutions.
//  - MaxPool and AveragePool: the 2-D pool of every depth slice first, then
//    for each output depth the maximum, or the sum, of the kd pooled slices
//    its window covers. An average's count of a box's positions is the
//    count along the depth times the count in the (H, W) window, so the
//    depth sum of the 2-D averages divided by the depth's count (a
//    constant per output depth) is the 3-D average, count_include_pad or
//    not. ceil_mode counts windows as the 2-D pools do, the depth's extra
//    windows reading past the end as padding.
//
// 3-D ConvTranspose and LpPool are refused where they are converted.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include <limits>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

/// The depth of a 3-D window: the input's padded depth range and the
/// number of output depths.
struct Depth {
  int64_t kernel, stride, dilation, padBefore, padAfter, in, out;
  /// The extra padding ceil_mode adds at the end for a last partial window.
  int64_t ceilExtra = 0;
};

Expected<Depth> readDepth(const NodeCtx &ctx, const Window &win, int64_t in, bool ceil) {
  Depth d{win.kernel[0], win.strides[0], win.dilations[0], win.pads[0], win.pads[3], in, 0};
  int64_t room = in + d.padBefore + d.padAfter - (d.kernel - 1) * d.dilation - 1;
  if (room < 0)
    return ctx.error("the depth window is larger than the padded input");
  if (ceil && room % d.stride)
    d.ceilExtra = d.stride - room % d.stride;
  d.out = (room + d.ceilExtra) / d.stride + 1;
  return d;
}

/// x (N, C, D, H, W) with its depth padded by `fill` and moved next to the
/// batch: (N, D', C, H, W).
ExprRef depthNextToBatch(NodeCtx &ctx, ExprRef x, DType t, const Depth &d, double fill) {
  int64_t after = d.padAfter + d.ceilExtra;
  if (d.padBefore || after) {
    std::vector<AttrValue> widths;
    for (int64_t i = 0; i < 5; ++i)
      widths.push_back(attrs::ints({i == 2 ? d.padBefore : 0, i == 2 ? after : 0}));
    x = ctx.call("nn.pad", {x, ctx.scalar(t, fill)},
                 {{"pad_width", AttrValue::ofList(std::move(widths))}});
  }
  return transposeBy(ctx, x, {0, 2, 1, 3, 4});
}

/// The depth slice tap k reads at every output depth: (N, out, ...).
ExprRef depthTap(NodeCtx &ctx, ExprRef x, const Depth &d, int64_t k) {
  int64_t begin = k * d.dilation;
  return ctx.call("strided_slice", {x},
                  {{"begin", attrs::ints({begin})},
                   {"end", attrs::ints({begin + (d.out - 1) * d.stride + 1})},
                   {"strides", attrs::ints({d.stride})},
                   {"axes", attrs::ints({1})}});
}

/// The (H, W) part of a window's attributes, as hx's 2-D operators name them.
Attrs planeAttrs(const Window &win, StringRef kernelName) {
  return {{kernelName.str(), attrs::ints({win.kernel[1], win.kernel[2]})},
          {"strides", attrs::ints({win.strides[1], win.strides[2]})},
          {"dilation", attrs::ints({win.dilations[1], win.dilations[2]})},
          {"padding", attrs::ints({win.pads[1], win.pads[2], win.pads[4], win.pads[5]})}};
}

} // namespace

Error onnximport::conv3d(NodeCtx &ctx, OnnxValue &x, OnnxValue &w, const Window &win) {
  TRY(xd, staticDims(ctx, x, 5, "the input"));
  TRY(wd, staticDims(ctx, w, 5, "the weight"));
  TRY(d, readDepth(ctx, win, xd[2], false));
  int64_t n = xd[0], c = xd[1], m = wd[0];
  ExprRef in = depthNextToBatch(ctx, ctx.use(x), x.dtype, d, 0);
  Attrs a = planeAttrs(win, "kernel_size");
  a.set("groups", attrs::integer(ctx.getInt("group", 1)));
  a.set("channels", attrs::integer(m));
  ExprRef sum;
  for (int64_t k = 0; k < d.kernel; ++k) {
    ExprRef tap = reshapeTo(ctx, depthTap(ctx, in, d, k), {n * d.out, c, xd[3], xd[4]});
    ExprRef wk = ctx.call(
        "strided_slice", {ctx.use(w)},
        {{"begin", attrs::ints({k})}, {"end", attrs::ints({k + 1})}, {"axes", attrs::ints({2})}});
    wk = reshapeTo(ctx, wk, {m, wd[1], wd[3], wd[4]});
    ExprRef y = ctx.call("nn.conv2d", {tap, wk}, a);
    sum = sum ? ctx.call("add", {sum, y}) : y;
  }
  // (N * out, M, OH, OW) -> (N, out, M, OH, OW) -> (N, M, out, OH, OW).
  ExprRef out = transposeBy(ctx, reshapeTo(ctx, sum, {-4, n, d.out, -2}), {0, 2, 1, 3, 4});
  if (ctx.input(2))
    out = ctx.call("nn.bias_add", {out, ctx.use(2)});
  ctx.setOutput(0, out);
  return Error::success();
}

Error onnximport::pool3d(NodeCtx &ctx, OnnxValue &x, const Window &win, bool isMax) {
  TRY(xd, staticDims(ctx, x, 5, "the input"));
  bool ceil = ctx.getInt("ceil_mode", 0), includePad = ctx.getInt("count_include_pad", 0);
  TRY(d, readDepth(ctx, win, xd[2], ceil));
  DType t = x.dtype;
  double fill = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  ExprRef in = depthNextToBatch(ctx, ctx.use(x), t, d, fill);
  int64_t n = xd[0], c = xd[1], padded = xd[2] + d.padBefore + d.padAfter + d.ceilExtra;
  // Every depth slice pooled in 2-D: (N * D', C, H, W) -> (N, D', C, OH, OW).
  Attrs a = planeAttrs(win, "pool_size");
  a.set("ceil_mode", attrs::boolean(ceil));
  if (!isMax)
    a.set("count_include_pad", attrs::boolean(includePad));
  ExprRef planes = reshapeTo(ctx, in, {n * padded, c, xd[3], xd[4]});
  planes = ctx.call(isMax ? "nn.max_pool2d" : "nn.avg_pool2d", {planes}, std::move(a));
  planes = reshapeTo(ctx, planes, {-4, n, padded, -2});
  ExprRef acc;
  for (int64_t k = 0; k < d.kernel; ++k) {
    ExprRef tap = depthTap(ctx, planes, d, k);
    acc = !acc ? tap : ctx.call(isMax ? "maximum" : "add", {acc, tap});
  }
  if (!isMax) {
    // Per output depth, 1 / the depth positions its window counts: inside
    // the input, or (count_include_pad) inside the explicit padding.
    int64_t lo = includePad ? 0 : d.padBefore;
    int64_t hi = includePad ? xd[2] + d.padBefore + d.padAfter : d.padBefore + xd[2];
    HostTensor scale(t, std::vector<int64_t>{1, d.out, 1, 1, 1});
    for (int64_t o = 0; o < d.out; ++o) {
      int64_t count = 0;
      for (int64_t k = 0; k < d.kernel; ++k) {
        int64_t at = o * d.stride + k * d.dilation;
        count += at >= lo && at < hi;
      }
      scale.setDouble(o, count ? 1.0 / double(count) : 0.0);
    }
    acc = ctx.call("multiply", {acc, ctx.constant(std::move(scale))});
  }
  ctx.setOutput(0, transposeBy(ctx, acc, {0, 2, 1, 3, 4}));
  return Error::success();
}
