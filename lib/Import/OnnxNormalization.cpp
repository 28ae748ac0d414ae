//===- OnnxNormalization.cpp - Converters of ONNX's other normalizations --===//
//
// InstanceNormalization, GroupNormalization and LRN as compositions of hx's
// reductions and elementwise operators (hx's own normalization operators
// are nn.batch_norm and nn.layer_norm):
//
//  - InstanceNormalization: mean and variance over the spatial dims of each
//    (sample, channel), then the per-channel scale and bias;
//  - GroupNormalization: the same over each group of channels (the input
//    reshaped to [N, groups, rest]); its scale and bias are per group at
//    opset 18 and per channel from 21;
//  - LRN: the sum of squares over a window of channels is an average pool
//    of the squares (the channels made a spatial dim, padding counted)
//    times the window's size, so y = x / (bias + alpha * avg)^beta.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

/// (x - mean) / sqrt(var + eps) over `axes`, kept as dims.
ExprRef normalize(const NodeCtx &ctx, ExprRef x, DType t, ArrayRef<int64_t> axes, double eps) {
  Attrs over{{"axis", attrs::ints(axes)}, {"keepdims", attrs::boolean(true)}};
  ExprRef centered = ctx.call("subtract", {x, ctx.call("mean", {x}, over)});
  ExprRef var = ctx.call("mean", {ctx.call("multiply", {centered, centered})}, over);
  ExprRef inv = ctx.call("rsqrt", {ctx.call("add", {var, ctx.scalar(t, eps)})});
  return ctx.call("multiply", {centered, inv});
}

/// A per-channel [C] vector shaped to broadcast over [N, C, spatial...].
ExprRef perChannel(const NodeCtx &ctx, ExprRef v, int64_t c, int64_t rank) {
  std::vector<int64_t> shape(static_cast<size_t>(rank - 1), 1);
  shape[0] = c;
  return reshapeTo(ctx, v, shape);
}

Error instanceNorm(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (!x->dims || x->dims->size() < 3 || (*x->dims)[1] < 0)
    return ctx.error("the input must have rank 3 or more and a known channel count");
  int64_t r = rankOf(*x), c = (*x->dims)[1];
  std::vector<int64_t> spatial;
  for (int64_t k = 2; k < r; ++k)
    spatial.push_back(k);
  ExprRef y = normalize(ctx, ctx.use(*x), x->dtype, spatial, ctx.getFloat("epsilon", 1e-5f));
  y = ctx.call("multiply", {y, perChannel(ctx, ctx.use(1), c, r)});
  ctx.setOutput(0, ctx.call("add", {y, perChannel(ctx, ctx.use(2), c, r)}));
  return Error::success();
}

/// GroupNormalization; `PerChannel`: scale and bias of [C] (opset 21), else
/// of [groups] (opset 18).
template <bool PerChannel> Error groupNorm(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (!x->isStatic() || x->dims->size() < 3)
    return ctx.error("the input must have a static shape of rank 3 or more");
  const Dims &d = *x->dims;
  int64_t r = int64_t(d.size()), n = d[0], c = d[1], g = ctx.getInt("num_groups", 0);
  if (g < 1 || c % g)
    return ctx.error("num_groups must divide the channels (" + Twine(c) + ")");
  if (!PerChannel && g != c && ctx.getInt("stash_type", 1) != 1)
    return ctx.error("stash_type other than 1 (float32) is not supported");
  ExprRef y = normalize(ctx, reshapeTo(ctx, ctx.use(*x), {n, g, -1}), x->dtype, {2},
                        ctx.getFloat("epsilon", 1e-5f));
  y = reshapeTo(ctx, y, Dims(d.begin(), d.end()));
  ExprRef scale = ctx.use(1), bias = ctx.use(2);
  if (!PerChannel) {
    // [groups] -> [groups, C / groups] -> [C].
    ExprRef spread = ctx.constant(HostTensor(x->dtype, {g, c / g}));
    auto widen = [&](ExprRef v) {
      return reshapeTo(ctx, ctx.call("add", {reshapeTo(ctx, v, {g, 1}), spread}), {c});
    };
    scale = widen(scale);
    bias = widen(bias);
  }
  y = ctx.call("multiply", {y, perChannel(ctx, scale, c, r)});
  ctx.setOutput(0, ctx.call("add", {y, perChannel(ctx, bias, c, r)}));
  return Error::success();
}

Error lrn(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (!x->isStatic() || x->dims->size() != 4)
    return ctx.error("the input must have a static shape of rank 4");
  const Dims &d = *x->dims;
  int64_t size = ctx.getInt("size", 0);
  if (size < 1)
    return ctx.error("size must be positive");
  double alpha = ctx.getFloat("alpha", 1e-4f), beta = ctx.getFloat("beta", 0.75f),
         bias = ctx.getFloat("bias", 1.0f);
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  ExprRef in = ctx.use(*x);
  ExprRef sq = reshapeTo(ctx, ctx.call("multiply", {in, in}), {d[0], 1, d[1], d[2] * d[3]});
  ExprRef avg = ctx.call("nn.avg_pool2d", {sq},
                         {{"pool_size", attrs::ints({size, 1})},
                          {"strides", attrs::ints({1, 1})},
                          {"padding", attrs::ints({lo, 0, hi, 0})},
                          {"count_include_pad", attrs::boolean(true)}});
  avg = reshapeTo(ctx, avg, Dims(d.begin(), d.end()));
  DType t = x->dtype;
  ExprRef base =
      ctx.call("add", {ctx.scalar(t, bias), ctx.call("multiply", {avg, ctx.scalar(t, alpha)})});
  ctx.setOutput(0, ctx.call("divide", {in, ctx.call("power", {base, ctx.scalar(t, beta)})}));
  return Error::success();
}

} // namespace

void onnximport::addNormalizationConverters(ConverterTable &t) {
  t.add("InstanceNormalization", {11, 21}, instanceNorm);
  t.add("LRN", {11, 21}, lrn);
  t.add("GroupNormalization", {18, 20}, groupNorm<false>);
  t.add("GroupNormalization", {21, 21}, groupNorm<true>);
}
