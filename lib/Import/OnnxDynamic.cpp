//===- OnnxDynamic.cpp - Converters with value-dependent shapes -----------===//
//
// The ONNX operators whose output shape depends on input values, as hx's
// value-dependent operators (lib/Ops/Dynamic.cpp), whose runs go in stages
// (docs/execution.md):
//
//   NonZero(x)                       nonzero(x)
//   Compress(x, cond, axis)          take(x, squeeze(nonzero(cond)), axis)
//                                    (x flattened without axis); a
//                                    condition shorter than the axis drops
//                                    the rest, as ONNX allows
//   NonMaxSuppression(boxes, scores, max_output_boxes_per_class,
//                     iou_threshold, score_threshold)
//                                    vision.non_max_suppression; an absent
//                                    max_output_boxes_per_class is 0 (no
//                                    box), an absent iou_threshold 0, an
//                                    absent score_threshold keeps every
//                                    score (-inf)
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include <cmath>

using namespace llvm;
using namespace hx;
using namespace hx::onnximport;

namespace {

Error nonZero(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  if (x->dims->empty())
    return ctx.error("the nonzero elements of a scalar have no dims to index");
  ctx.setOutput(0, ctx.call("nonzero", {ctx.use(0)}));
  return Error::success();
}

Error compress(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(cond, ctx.required(1));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  if (Error e = needRank(ctx, *cond, "the condition"))
    return e;
  if (cond->dims->size() != 1)
    return ctx.error("the condition must be 1-D, got rank " + Twine(cond->dims->size()));
  ExprRef picked =
      ctx.call("squeeze", {ctx.call("nonzero", {ctx.use(1)})}, {{"axis", attrs::ints({0})}});
  const onnx::AttributeProto *axisAttr = ctx.attr("axis");
  if (!axisAttr) {
    ctx.setOutput(0, ctx.call("take", {reshapeTo(ctx, ctx.use(0), {-1}), picked},
                              {{"axis", AttrValue::ofInt(0)}}));
    return Error::success();
  }
  int64_t rank = int64_t(x->dims->size()), axis = ctx.getInt("axis", 0);
  if (axis < -rank || axis >= rank)
    return ctx.error("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
  ctx.setOutput(0, ctx.call("take", {ctx.use(0), picked},
                            {{"axis", AttrValue::ofInt(axis < 0 ? axis + rank : axis)}}));
  return Error::success();
}

Error nonMaxSuppression(NodeCtx &ctx) {
  TRY(boxes, ctx.required(0));
  TRY(scores, ctx.required(1));
  (void)boxes;
  (void)scores;
  int64_t center = ctx.getInt("center_point_box", 0);
  if (center != 0 && center != 1)
    return ctx.error("center_point_box must be 0 or 1, got " + Twine(center));
  auto operand = [&](size_t i, DType dtype, double absent) {
    return ctx.input(i) ? ctx.use(i) : ctx.scalar(dtype, absent);
  };
  ExprRef maxOut = operand(2, DType::Int64, 0);
  ExprRef iou = operand(3, DType::Float32, 0);
  ExprRef minScore = operand(4, DType::Float32, -INFINITY);
  ctx.setOutput(0, ctx.call("vision.non_max_suppression",
                            {ctx.use(0), ctx.use(1), maxOut, iou, minScore},
                            {{"center_point_box", AttrValue::ofInt(center)}}));
  return Error::success();
}

} // namespace

void onnximport::addDynamicConverters(ConverterTable &t) {
  // NonZero and Compress changed only in the dtypes they take (9 to 13, 11).
  t.add("NonZero", {9, 21}, nonZero);
  t.add("Compress", {9, 21}, compress);
  // NonMaxSuppression: 10, then 11 (negative-free semantics unchanged).
  t.add("NonMaxSuppression", {10, 21}, nonMaxSuppression);
}
