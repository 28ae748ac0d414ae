//===- OnnxLoss.cpp - Converters of ONNX losses ---------------------------===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss as compositions of
// hx operators; hx has no loss operator. For an input of shape
// (N, C, d1, ..., dk) and integer targets of shape (N, d1, ..., dk):
//
//   t      = where(equal(target, ignore_index), -1, target)  (with ignore_index)
//   onehot = equal(expand_dims(t, axis=1), [0, 1, ..., C-1] as (1, C, 1, ...))
//   picked = where(onehot, input, 0) [* weight as (1, C, 1, ...)]
//   loss   = negative(sum(picked, axis=[1]))                  reduction "none"
//            sum(loss)                                        "sum"
//            sum(loss) / sum(where(onehot, weight, 0))        "mean" (or the
//                 count of targets not ignored when there is no weight)
//
// A target equal to ignore_index becomes -1, which matches no class, so its
// loss and its weight are 0 (ONNX's rule). The class count C must be known
// at import time (the range is a constant). SoftmaxCrossEntropyLoss is the
// same over nn.log_softmax of the scores along axis 1, its optional second
// output that log-probability. Both exist from opset 12; 13 only added
// bfloat16, which hx has no dtype for.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

/// The loss of log-probabilities `logProb` (of the value `x`, which gives
/// dtype and shape) against input `targetIdx`, weights input `weightIdx`.
Expected<ExprRef> nllLoss(NodeCtx &ctx, const OnnxValue &x, ExprRef logProb, size_t targetIdx,
                          size_t weightIdx) {
  TRY(target, ctx.required(targetIdx));
  if (!isFloat(x.dtype))
    return ctx.error("the input must be a float tensor, not " + dtypeName(x.dtype));
  if (target->dtype != DType::Int32 && target->dtype != DType::Int64)
    return ctx.error("the target must be int32 or int64, not " + dtypeName(target->dtype));
  if (Error e = needRank(ctx, x, "the input"))
    return e;
  int64_t rank = rankOf(x);
  if (rank < 2)
    return ctx.error("the input must have rank 2 or more (N, C, ...), not " + Twine(rank));
  int64_t classes = (*x.dims)[1];
  if (classes < 0)
    return ctx.error("the class count (dim 1 of the input) must be known at import time");
  std::string reduction = ctx.getString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.error("reduction '" + reduction + "' is not one of none, sum, mean");

  // The classes 0..C-1 as (1, C, 1, ..., 1).
  Dims classShape(size_t(rank), 1);
  classShape[1] = classes;
  std::vector<int64_t> ids(static_cast<size_t>(classes));
  for (int64_t c = 0; c < classes; ++c)
    ids[size_t(c)] = c;
  ExprRef classRange = ctx.constant(intTensor(ids, target->dtype, classShape));

  ExprRef t = ctx.use(*target);
  bool ignores = ctx.attr("ignore_index") != nullptr;
  if (ignores) {
    int64_t ignore = ctx.getInt("ignore_index", 0);
    t = ctx.call("where", {ctx.call("equal", {t, ctx.scalar(target->dtype, double(ignore))}),
                           ctx.scalar(target->dtype, -1), t});
  }
  ExprRef onehot =
      ctx.call("equal", {ctx.call("expand_dims", {t}, {{"axis", attrs::integer(1)}}), classRange});
  ExprRef zero = ctx.scalar(x.dtype, 0);
  ExprRef picked = ctx.call("where", {onehot, logProb, zero});
  ExprRef weight;
  if (OnnxValue *w = ctx.input(weightIdx)) {
    if (w->dtype != x.dtype)
      return ctx.error("the weight's dtype " + dtypeName(w->dtype) + " is not the input's");
    weight = ctx.call("reshape", {ctx.use(*w)}, {{"newshape", attrs::ints(classShape)}});
    picked = ctx.call("multiply", {picked, weight});
  }
  ExprRef loss = ctx.call("negative", {ctx.call("sum", {picked}, {{"axis", attrs::ints({1})}})});
  if (reduction == "none")
    return loss;
  if (reduction == "sum")
    return ctx.call("sum", {loss});
  if (!weight && !ignores)
    return ctx.call("mean", {loss});
  ExprRef counted = weight
                        ? ctx.call("where", {onehot, weight, zero})
                        : ctx.call("cast", {onehot}, {{"dtype", attrs::str(dtypeName(x.dtype))}});
  return ctx.call("divide", {ctx.call("sum", {loss}), ctx.call("sum", {counted})});
}

Error negativeLogLikelihoodLoss(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(loss, nllLoss(ctx, *x, ctx.use(*x), 1, 2));
  ctx.setOutput(0, loss);
  return Error::success();
}

Error softmaxCrossEntropyLoss(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the scores"))
    return e;
  if (rankOf(*x) < 2)
    return ctx.error("the scores must have rank 2 or more (N, C, ...)");
  ExprRef logProb = ctx.call("nn.log_softmax", {ctx.use(*x)}, {{"axis", attrs::integer(1)}});
  TRY(loss, nllLoss(ctx, *x, logProb, 1, 2));
  ctx.setOutput(0, loss);
  if (ctx.node.output_size() > 1 && !ctx.node.output(1).empty())
    ctx.setOutput(1, logProb);
  return Error::success();
}

} // namespace

void onnximport::addLossConverters(ConverterTable &t) {
  t.add("NegativeLogLikelihoodLoss", {12, 21}, negativeLogLikelihoodLoss);
  t.add("SoftmaxCrossEntropyLoss", {12, 21}, softmaxCrossEntropyLoss);
}
