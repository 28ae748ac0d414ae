//===- OnnxConvPool.cpp - Converters of ONNX convolutions and pools -------===//
//
// Conv (1-D and 2-D, with a bias), MaxPool, AveragePool and the global pools.
// A window's pads and auto_pad become hx's explicit (top, left, bottom,
// right) padding; anything hx cannot express is an error naming the
// attribute.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

/// hx's padding for a window op: explicit pads, or auto_pad's.
Expected<std::vector<int64_t>> windowPadding(const NodeCtx &ctx, const OnnxValue &x,
                                             ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                                             ArrayRef<int64_t> dilations) {
  size_t n = kernel.size();
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  std::vector<int64_t> pads(2 * n, 0);
  if (autoPad == "NOTSET") {
    if (std::optional<std::vector<int64_t>> p = ctx.getInts("pads")) {
      if (p->size() != 2 * n)
        return ctx.error("pads must have " + Twine(2 * n) + " values");
      pads = *p;
    }
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      int64_t in = (*x.dims)[2 + i];
      if (in < 0)
        return ctx.error("auto_pad=" + autoPad + " needs the spatial dims at import time");
      int64_t out = (in + strides[i] - 1) / strides[i];
      int64_t total =
          std::max<int64_t>(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in);
      int64_t small = total / 2, big = total - small;
      pads[i] = autoPad == "SAME_UPPER" ? small : big;
      pads[i + n] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad != "VALID") {
    return ctx.error("auto_pad '" + autoPad + "' is not supported");
  }
  return pads;
}

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;
};

Expected<Window> readWindow(const NodeCtx &ctx, const OnnxValue &x, std::vector<int64_t> kernel) {
  size_t n = kernel.size();
  if (n != 1 && n != 2)
    return ctx.error(Twine(n) + "-D windows are not supported (1-D and 2-D are)");
  if (!x.dims || x.dims->size() != n + 2)
    return ctx.error("the input must have rank " + Twine(n + 2));
  Window w;
  w.kernel = kernel;
  w.strides = ctx.getInts("strides").value_or(std::vector<int64_t>(n, 1));
  w.dilations = ctx.getInts("dilations").value_or(std::vector<int64_t>(n, 1));
  if (w.strides.size() != n || w.dilations.size() != n)
    return ctx.error("strides and dilations must have " + Twine(n) + " values");
  for (size_t i = 0; i < n; ++i)
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1)
      return ctx.error("kernel sizes, strides and dilations must be positive");
  TRY(pads, windowPadding(ctx, x, w.kernel, w.strides, w.dilations));
  w.pads = pads;
  return w;
}

Error conv(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(w, ctx.required(1));
  if (!w->dims || w->dims->size() < 3)
    return ctx.error("the weight must have a known rank of 3 or 4");
  std::vector<int64_t> kernel(w->dims->begin() + 2, w->dims->end());
  if (std::optional<std::vector<int64_t>> ks = ctx.getInts("kernel_shape"))
    kernel = *ks;
  TRY(win, readWindow(ctx, *x, kernel));
  bool is1d = kernel.size() == 1;
  ExprRef out = ctx.call(is1d ? "nn.conv1d" : "nn.conv2d", {ctx.use(*x), ctx.use(*w)},
                         {{"strides", attrs::ints(win.strides)},
                          {"padding", attrs::ints(win.pads)},
                          {"dilation", attrs::ints(win.dilations)},
                          {"groups", attrs::integer(ctx.getInt("group", 1))},
                          {"channels", attrs::integer((*w->dims)[0])},
                          {"kernel_size", attrs::ints(kernel)}});
  if (ctx.input(2))
    out = ctx.call("nn.bias_add", {out, ctx.use(2)});
  ctx.setOutput(0, out);
  return Error::success();
}

/// MaxPool (nn.max_pool2d) and AveragePool (nn.avg_pool2d).
template <bool IsMax> Error pool(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  std::optional<std::vector<int64_t>> kernel = ctx.getInts("kernel_shape");
  if (!kernel)
    return ctx.error("kernel_shape is required");
  if (kernel->size() != 2)
    return ctx.error("only 2-D pooling is supported");
  TRY(win, readWindow(ctx, *x, *kernel));
  if (IsMax && ctx.node.output_size() > 1 && !ctx.node.output(1).empty())
    return ctx.error("the Indices output is not supported");
  if (IsMax && ctx.getInt("storage_order", 0))
    return ctx.error("storage_order=1 is not supported");
  Attrs a{{"pool_size", attrs::ints(win.kernel)},
          {"strides", attrs::ints(win.strides)},
          {"dilation", attrs::ints(win.dilations)},
          {"padding", attrs::ints(win.pads)},
          {"ceil_mode", attrs::boolean(ctx.getInt("ceil_mode", 0))}};
  if (!IsMax)
    a.set("count_include_pad", attrs::boolean(ctx.getInt("count_include_pad", 0)));
  ctx.setOutput(0,
                ctx.call(IsMax ? "nn.max_pool2d" : "nn.avg_pool2d", {ctx.use(*x)}, std::move(a)));
  return Error::success();
}

/// GlobalAveragePool and GlobalMaxPool.
template <bool IsMax> Error globalPool(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (rankOf(*x) != 4)
    return ctx.error("only 2-D pooling (a rank-4 input) is supported");
  ctx.setOutput(
      0, IsMax ? ctx.call("max", {ctx.use(*x)},
                          {{"axis", attrs::ints({2, 3})}, {"keepdims", attrs::boolean(true)}})
               : ctx.call("nn.global_avg_pool2d", {ctx.use(*x)}));
  return Error::success();
}

} // namespace

void onnximport::addConvPoolConverters(ConverterTable &t) {
  t.add("Conv", {11, 21}, conv);
  t.add("MaxPool", {11, 21}, pool<true>);
  t.add("AveragePool", {11, 21}, pool<false>);
  t.add("GlobalAveragePool", {11, 21}, globalPool<false>);
  t.add("GlobalMaxPool", {11, 21}, globalPool<true>);
}
