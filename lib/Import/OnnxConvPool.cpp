//===- OnnxConvPool.cpp - Converters of ONNX convolutions and pools -------===//
//
// Conv (1-D and 2-D, with a bias), ConvTranspose (a convolution of the
// input with zeros inserted), MaxPool, AveragePool, LpPool (the window sums
// of |x|^p a depthwise convolution with ones), the global pools, and
// Resize of the spatial dims (image.resize2d).
// A window's pads and auto_pad become hx's explicit (top, left, bottom,
// right) padding; anything hx cannot express is an error naming the
// attribute.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include <cmath>

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

} // namespace

Expected<Window> onnximport::readWindow(const NodeCtx &ctx, const OnnxValue &x,
                                        std::vector<int64_t> kernel) {
  size_t n = kernel.size();
  if (n < 1 || n > 3)
    return ctx.error(Twine(n) + "-D windows are not supported (1-D to 3-D are)");
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

namespace {

Error conv(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(w, ctx.required(1));
  if (!w->dims || w->dims->size() < 3)
    return ctx.error("the weight must have a known rank of 3 or 4");
  std::vector<int64_t> kernel(w->dims->begin() + 2, w->dims->end());
  if (std::optional<std::vector<int64_t>> ks = ctx.getInts("kernel_shape"))
    kernel = *ks;
  TRY(win, readWindow(ctx, *x, kernel));
  if (kernel.size() == 3)
    return conv3d(ctx, *x, *w, win);
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

/// MaxPool (nn.max_pool2d) and AveragePool (nn.avg_pool2d); a 1-D window
/// as a 2-D one over a height of 1.
template <bool IsMax> Error pool(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  std::optional<std::vector<int64_t>> kernel = ctx.getInts("kernel_shape");
  if (!kernel)
    return ctx.error("kernel_shape is required");
  if (IsMax && ctx.node.output_size() > 1 && !ctx.node.output(1).empty())
    return ctx.error("the Indices output is not supported");
  if (IsMax && ctx.getInt("storage_order", 0))
    return ctx.error("storage_order=1 is not supported");
  TRY(win, readWindow(ctx, *x, *kernel));
  if (kernel->size() == 3)
    return pool3d(ctx, *x, win, IsMax);
  bool is1d = kernel->size() == 1;
  ExprRef in = ctx.use(*x);
  if (is1d) {
    // As 2-D, the input given a height of 1.
    if (!x->isStatic())
      return ctx.error("1-D pooling needs a static input shape");
    Dims d = *x->dims;
    in = ctx.call("reshape", {in}, {{"newshape", attrs::ints({d[0], d[1], 1, d[2]})}});
    win.kernel.insert(win.kernel.begin(), 1);
    win.strides.insert(win.strides.begin(), 1);
    win.dilations.insert(win.dilations.begin(), 1);
    win.pads = {0, win.pads[0], 0, win.pads[1]};
  }
  Attrs a{{"pool_size", attrs::ints(win.kernel)},
          {"strides", attrs::ints(win.strides)},
          {"dilation", attrs::ints(win.dilations)},
          {"padding", attrs::ints(win.pads)},
          {"ceil_mode", attrs::boolean(ctx.getInt("ceil_mode", 0))}};
  if (!IsMax)
    a.set("count_include_pad", attrs::boolean(ctx.getInt("count_include_pad", 0)));
  ExprRef out = ctx.call(IsMax ? "nn.max_pool2d" : "nn.avg_pool2d", {in}, std::move(a));
  if (is1d)
    out = ctx.call("squeeze", {out}, {{"axis", attrs::ints({2})}});
  ctx.setOutput(0, out);
  return Error::success();
}

/// LpPool: (sum over the window of |x|^p)^(1/p). The sums are a depthwise
/// convolution of |x|^p with a kernel of ones over zero padding; ceil_mode
/// (opset 18) widens the end padding so that the last partial window is
/// whole, as the pools' ceil_mode counts windows.
Error lpPool(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  std::optional<std::vector<int64_t>> kernel = ctx.getInts("kernel_shape");
  if (!kernel)
    return ctx.error("kernel_shape is required");
  TRY(win, readWindow(ctx, *x, *kernel));
  size_t n = kernel->size();
  if (n == 3)
    return ctx.error("3-D LpPool is not supported (1-D and 2-D are)");
  int64_t c = (*x->dims)[1], p = ctx.getInt("p", 2);
  if (c < 1)
    return ctx.error("the channel dim must be known at import time");
  if (p < 1)
    return ctx.error("p must be positive, got " + Twine(p));
  if (ctx.getInt("ceil_mode", 0))
    for (size_t i = 0; i < n; ++i) {
      int64_t in = (*x->dims)[2 + i];
      if (in < 0)
        return ctx.error("ceil_mode needs the spatial dims at import time");
      int64_t room = in + win.pads[i] + win.pads[n + i] - ((*kernel)[i] - 1) * win.dilations[i] - 1;
      if (room > 0 && room % win.strides[i])
        win.pads[n + i] += win.strides[i] - room % win.strides[i];
    }
  DType t = x->dtype;
  ExprRef in = ctx.use(*x);
  ExprRef pow = p == 2 ? ctx.call("multiply", {in, in}) : ctx.call("abs", {in});
  if (p > 2)
    pow = ctx.call("power", {pow, ctx.scalar(t, double(p))});
  std::vector<int64_t> wshape{c, 1};
  wshape.insert(wshape.end(), kernel->begin(), kernel->end());
  HostTensor ones(t, wshape);
  for (int64_t i = 0, e = ones.numElements(); i < e; ++i)
    ones.setDouble(i, 1);
  ExprRef sum = ctx.call(n == 1 ? "nn.conv1d" : "nn.conv2d", {pow, ctx.constant(std::move(ones))},
                         {{"strides", attrs::ints(win.strides)},
                          {"padding", attrs::ints(win.pads)},
                          {"dilation", attrs::ints(win.dilations)},
                          {"groups", attrs::integer(c)},
                          {"channels", attrs::integer(c)},
                          {"kernel_size", attrs::ints(*kernel)}});
  ExprRef y = p == 1   ? sum
              : p == 2 ? ctx.call("sqrt", {sum})
                       : ctx.call("power", {sum, ctx.scalar(t, 1.0 / double(p))});
  ctx.setOutput(0, y);
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

/// Reverses `x` along `axis` of size `n` (a take of n-1 .. 0).
ExprRef flip(const NodeCtx &ctx, ExprRef x, int64_t axis, int64_t n) {
  std::vector<int64_t> rev;
  for (int64_t i = n - 1; i >= 0; --i)
    rev.push_back(i);
  return ctx.call("take", {x, ctx.constant(intTensor(rev, DType::Int64, Dims{n}))},
                  {{"axis", attrs::integer(axis)}, {"mode", attrs::str("clip")}});
}

/// ConvTranspose (1-D and 2-D) as a convolution of the input with zeros
/// inserted between its elements (stride - 1 of them), padded by
/// dilation * (kernel - 1) less ONNX's pads on each side (cropped where that
/// is negative), with the weight's in and out channels swapped per group
/// and its window reversed.
Error convTranspose(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(w, ctx.required(1));
  if (!x->isStatic() || !w->isStatic() || x->dims->size() != w->dims->size() ||
      (x->dims->size() != 3 && x->dims->size() != 4))
    return ctx.error("only 1-D and 2-D transposed convolutions of static shapes are supported");
  bool is1d = x->dims->size() == 3;
  Dims xd = *x->dims, wd = *w->dims;
  ExprRef in = ctx.use(*x), weight = ctx.use(*w);
  if (is1d) { // as 2-D with a height of 1
    xd.insert(xd.begin() + 2, 1);
    wd.insert(wd.begin() + 2, 1);
    in = ctx.call("reshape", {in}, {{"newshape", attrs::ints(xd)}});
    weight = ctx.call("reshape", {weight}, {{"newshape", attrs::ints(wd)}});
  }
  size_t n = is1d ? 1 : 2;
  auto spatial = [&](StringRef name, int64_t def) -> Expected<std::vector<int64_t>> {
    std::vector<int64_t> v = ctx.getInts(name).value_or(std::vector<int64_t>(n, def));
    if (v.size() != n)
      return ctx.error(name + " must have " + Twine(n) + " values");
    if (is1d)
      v.insert(v.begin(), def);
    return v;
  };
  TRY(strides, spatial("strides", 1));
  TRY(dil, spatial("dilations", 1));
  TRY(outPad, spatial("output_padding", 0));
  int64_t g = ctx.getInt("group", 1), cin = xd[1];
  if (g < 1 || cin % g || wd[0] != cin)
    return ctx.error("the weight's first dim must be the input's channels, a multiple of group");
  int64_t cout = wd[1] * g;
  std::vector<int64_t> k = {wd[2], wd[3]};
  for (int i = 0; i < 2; ++i)
    if (strides[i] < 1 || dil[i] < 1 || outPad[i] < 0 || outPad[i] >= std::max(strides[i], dil[i]))
      return ctx.error("strides and dilations must be positive, output_padding below them");
  // ONNX's pads, begin then end per spatial dim.
  std::vector<int64_t> pb(2, 0), pe(2, 0);
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  std::optional<std::vector<int64_t>> outShape = ctx.getInts("output_shape");
  if (outShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    std::vector<int64_t> target;
    if (outShape) {
      target = std::vector<int64_t>(outShape->end() - std::min<size_t>(outShape->size(), n),
                                    outShape->end());
      if (target.size() != n)
        return ctx.error("output_shape must give the " + Twine(n) + " spatial dims");
      if (is1d)
        target.insert(target.begin(), 1);
    } else {
      target = {xd[2] * strides[0], xd[3] * strides[1]};
    }
    for (int i = 0; i < 2; ++i) {
      int64_t total =
          strides[i] * (xd[2 + i] - 1) + outPad[i] + (k[i] - 1) * dil[i] + 1 - target[i];
      bool upper = autoPad != "SAME_LOWER";
      pb[i] = upper ? total / 2 : total - total / 2;
      pe[i] = total - pb[i];
    }
  } else if (autoPad == "NOTSET") {
    if (std::optional<std::vector<int64_t>> p = ctx.getInts("pads")) {
      if (p->size() != 2 * n)
        return ctx.error("pads must have " + Twine(2 * n) + " values");
      if (is1d)
        pb[1] = (*p)[0], pe[1] = (*p)[1];
      else
        pb = {(*p)[0], (*p)[1]}, pe = {(*p)[2], (*p)[3]};
    }
  } else if (autoPad != "VALID") {
    return ctx.error("auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  // Zeros between the elements: [N, C, H, 1, W, 1] widened to s along the
  // unit dims, then cut to (H - 1) * s + 1 rows and columns.
  int64_t nb = xd[0], h = xd[2], wdt = xd[3];
  if (strides[0] > 1 || strides[1] > 1) {
    ExprRef t = ctx.call("reshape", {in}, {{"newshape", attrs::ints({nb, cin, h, 1, wdt, 1})}});
    if (strides[0] > 1)
      t = ctx.call("concatenate",
                   {ctx.tuple({t, ctx.constant(HostTensor(x->dtype,
                                                          {nb, cin, h, strides[0] - 1, wdt, 1}))})},
                   {{"axis", attrs::integer(3)}});
    if (strides[1] > 1)
      t = ctx.call("concatenate",
                   {ctx.tuple({t, ctx.constant(HostTensor(
                                      x->dtype, {nb, cin, h, strides[0], wdt, strides[1] - 1}))})},
                   {{"axis", attrs::integer(5)}});
    t = ctx.call("reshape", {t},
                 {{"newshape", attrs::ints({nb, cin, h * strides[0], wdt * strides[1]})}});
    in = ctx.call("strided_slice", {t},
                  {{"begin", attrs::ints({0, 0})},
                   {"end", attrs::ints({(h - 1) * strides[0] + 1, (wdt - 1) * strides[1] + 1})},
                   {"axes", attrs::ints({2, 3})}});
  }
  // Padding of the full convolution; a negative amount crops.
  std::vector<int64_t> lo(2), hi(2), cropLo(2, 0), cropHi(2, 0);
  for (int i = 0; i < 2; ++i) {
    lo[i] = dil[i] * (k[i] - 1) - pb[i];
    hi[i] = dil[i] * (k[i] - 1) - pe[i] + outPad[i];
    if (lo[i] < 0)
      cropLo[i] = -lo[i], lo[i] = 0;
    if (hi[i] < 0)
      cropHi[i] = -hi[i], hi[i] = 0;
  }
  if (cropLo[0] || cropLo[1] || cropHi[0] || cropHi[1]) {
    int64_t eh = (h - 1) * strides[0] + 1, ew = (wdt - 1) * strides[1] + 1;
    if (cropLo[0] + cropHi[0] >= eh || cropLo[1] + cropHi[1] >= ew)
      return ctx.error("the pads leave no output");
    in = ctx.call("strided_slice", {in},
                  {{"begin", attrs::ints({cropLo[0], cropLo[1]})},
                   {"end", attrs::ints({eh - cropHi[0], ew - cropHi[1]})},
                   {"axes", attrs::ints({2, 3})}});
  }
  // [Cin, Cout/g, kh, kw] -> [g, Cout/g, Cin/g, kh, kw] -> [Cout, Cin/g, kh, kw],
  // the window reversed.
  ExprRef wt = ctx.call("reshape", {weight},
                        {{"newshape", attrs::ints({g, cin / g, cout / g, k[0], k[1]})}});
  wt = ctx.call("transpose", {wt}, {{"axes", attrs::ints({0, 2, 1, 3, 4})}});
  wt = ctx.call("reshape", {wt}, {{"newshape", attrs::ints({cout, cin / g, k[0], k[1]})}});
  wt = flip(ctx, flip(ctx, wt, 2, k[0]), 3, k[1]);
  ExprRef out = ctx.call("nn.conv2d", {in, wt},
                         {{"padding", attrs::ints({lo[0], lo[1], hi[0], hi[1]})},
                          {"dilation", attrs::ints(dil)},
                          {"groups", attrs::integer(g)},
                          {"channels", attrs::integer(cout)},
                          {"kernel_size", attrs::ints(k)}});
  if (ctx.input(2))
    out = ctx.call("nn.bias_add", {out, ctx.use(2)});
  if (is1d) {
    std::vector<int64_t> shape = {nb, cout, -1};
    out = ctx.call("reshape", {out}, {{"newshape", attrs::ints(shape)}});
  }
  ctx.setOutput(0, out);
  return Error::success();
}

/// Resize (opsets 11 to 21) of the two spatial dims of an NCHW tensor:
/// image.resize2d, which maps output to input coordinates by the ratio of
/// the sizes. The output size comes from `sizes`, or from `scales` (each
/// scale times its dim rounded down); where that is fractional, ONNX maps
/// coordinates by the scales given, and so does image.resize2d given them
/// as its `scales`. From opset 18: `axes` naming the spatial dims, keep_aspect_ratio_policy,
/// and antialias (refused when set).
Error resize(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (!x->dims || x->dims->size() != 4)
    return ctx.error("only the two spatial dims of a rank-4 (NCHW) input are resized");
  const Dims &in = *x->dims;
  if (ctx.getInt("antialias", 0))
    return ctx.error("antialias=1 is not supported");
  std::vector<int64_t> axes = {0, 1, 2, 3};
  if (std::optional<std::vector<int64_t>> a = ctx.getInts("axes")) {
    axes.clear();
    for (int64_t v : *a)
      axes.push_back(normAxis(v, 4));
  }
  TRY(scales, ctx.known(2));
  TRY(sizes, ctx.known(3));
  if (scales && scales->numElements() == 0)
    scales = nullptr;
  if (sizes && sizes->numElements() == 0)
    sizes = nullptr;
  if (!scales == !sizes)
    return ctx.error("exactly one of scales and sizes must be given");
  const HostTensor *given = sizes ? sizes : scales;
  if (given->rank() != 1 || given->numElements() != int64_t(axes.size()))
    return ctx.error(Twine(sizes ? "sizes" : "scales") + " must have " + Twine(axes.size()) +
                     " values");
  std::string mode = ctx.getString("coordinate_transformation_mode", "half_pixel");
  Dims out = in;
  // The scales of H and W when a scale gives a fractional size: ONNX then
  // maps coordinates by the scale, which image.resize2d's `scales` says.
  std::vector<double> fractional;
  if (sizes) {
    std::string policy = ctx.getString("keep_aspect_ratio_policy", "stretch");
    std::vector<double> ratio;
    for (size_t i = 0; i < axes.size(); ++i)
      ratio.push_back(double(sizes->getDouble(int64_t(i))) / double(in[axes[i]]));
    for (size_t i = 0; i < axes.size(); ++i) {
      double r = ratio[i];
      if (policy == "not_larger")
        r = *std::min_element(ratio.begin(), ratio.end());
      else if (policy == "not_smaller")
        r = *std::max_element(ratio.begin(), ratio.end());
      else if (policy != "stretch")
        return ctx.error("keep_aspect_ratio_policy must be stretch, not_larger or not_smaller");
      out[axes[i]] = policy == "stretch" ? int64_t(sizes->getDouble(int64_t(i)))
                                         : int64_t(std::nearbyint(r * double(in[axes[i]])));
    }
  } else {
    for (size_t i = 0; i < axes.size(); ++i) {
      double scale = scales->getDouble(int64_t(i)), exact = scale * double(in[axes[i]]);
      if (!(scale > 0) || !std::isfinite(exact))
        return ctx.error("scales must be positive");
      if (std::abs(exact - std::nearbyint(exact)) > 1e-6)
        fractional.assign(4, 1.0);
      out[axes[i]] = int64_t(std::floor(exact + 1e-6));
    }
    if (!fractional.empty())
      for (size_t i = 0; i < axes.size(); ++i)
        fractional[size_t(axes[i])] = scales->getDouble(int64_t(i));
  }
  if (out[0] != in[0] || out[1] != in[1])
    return ctx.error("only the spatial dims (2 and 3) may be resized");
  for (int64_t d : out)
    if (d < 1 || d > TensorType::kMaxDim)
      return ctx.error("the output size must be positive");
  std::string onnxMode = ctx.getString("mode", "nearest");
  std::string method = onnxMode == "nearest" ? "nearest_neighbor" : onnxMode;
  if (method != "nearest_neighbor" && method != "linear" && method != "cubic")
    return ctx.error("mode must be nearest, linear or cubic, not '" + onnxMode + "'");
  // image.resize2d takes TVM's exact path for nearest sampling, asymmetric
  // and an integral upscale (input index o / factor, floor rounding) unless
  // it is given scales: given them, it rounds as nearest_mode says.
  std::string nearestMode = ctx.getString("nearest_mode", "round_prefer_floor");
  if (method == "nearest_neighbor" && mode == "asymmetric" && nearestMode != "floor" &&
      fractional.empty())
    for (int k : {2, 3})
      if (out[k] % in[k] == 0 && out[k] / in[k] > 1) {
        fractional = {1, 1, double(out[2]) / double(in[2]), double(out[3]) / double(in[3])};
        break;
      }
  Attrs a{{"size", attrs::ints({out[2], out[3]})},
          {"method", attrs::str(method)},
          {"coordinate_transformation_mode", attrs::str(mode)},
          {"rounding_method", attrs::str(nearestMode)},
          {"cubic_alpha", attrs::real(ctx.getFloat("cubic_coeff_a", -0.75f))},
          {"cubic_exclude", attrs::integer(ctx.getInt("exclude_outside", 0))},
          {"extrapolation_value", attrs::real(ctx.getFloat("extrapolation_value", 0))}};
  // The modes that read the output's length: ONNX's reference (onnx 1.12's
  // test data) takes in * scale unrounded there, ONNX Runtime and PyTorch
  // the rounded size, which hx takes too. Where the two differ, refuse
  // (tf_crop_and_resize reads the length only, never the scale: as ONNX
  // Runtime).
  if (!fractional.empty() &&
      (mode == "align_corners" || (mode == "pytorch_half_pixel" && (out[2] == 1 || out[3] == 1))))
    return ctx.error("coordinate_transformation_mode " + mode +
                     " with a scale that gives a fractional size: ONNX's reference maps "
                     "coordinates by the unrounded size and ONNX Runtime by the rounded one; "
                     "give sizes instead");
  if (!fractional.empty() && mode != "tf_crop_and_resize")
    a.set("scales", AttrValue::ofList({attrs::real(fractional[2]), attrs::real(fractional[3])}));
  if (mode == "tf_crop_and_resize") {
    TRY(roi, ctx.known(1));
    if (!roi || roi->numElements() != 8)
      return ctx.error("tf_crop_and_resize needs an roi of 8 values");
    std::vector<AttrValue> box;
    for (int64_t k : {2, 3, 6, 7})
      box.push_back(attrs::real(roi->getDouble(k)));
    a.set("roi", AttrValue::ofList(std::move(box)));
  }
  ctx.setOutput(0, ctx.call("image.resize2d", {ctx.use(*x)}, std::move(a)));
  return Error::success();
}

} // namespace

void onnximport::addConvPoolConverters(ConverterTable &t) {
  // Opset 13 let roi and scales be left out (""); 18 added axes,
  // keep_aspect_ratio_policy and antialias; 19 half_pixel_symmetric.
  t.add("Resize", {11, 21}, resize);
  t.add("ConvTranspose", {11, 21}, convTranspose);
  t.add("Conv", {11, 21}, conv);
  t.add("MaxPool", {11, 21}, pool<true>);
  t.add("AveragePool", {11, 21}, pool<false>);
  // Opset 18 added LpPool's ceil_mode and dilations (their defaults before).
  t.add("LpPool", {11, 21}, lpPool);
  t.add("GlobalAveragePool", {11, 21}, globalPool<false>);
  t.add("GlobalMaxPool", {11, 21}, globalPool<true>);
}
