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
// And a shape computation on a shape only the run knows (Shape of a
// NonZero's result, say): Shape is shape_of, Size prod(shape_of),
// ConstantOfShape dyn.full, Range dyn.arange, and a Reshape, Expand, Tile,
// Slice or TopK whose shape operand only the run knows (onlyRunKnows) is
// dyn.reshape, dyn.expand, dyn.tile, dyn.slice or dyn.topk.
//
//   Unique(x, axis, sorted)          unique(x, sorted, axis): its four
//                                    fields are Y, indices, inverse_indices
//                                    and counts
//
//   RoiAlign(x, rois, batch_indices)  vision.roi_align(x, concatenate(
//                                    cast(batch_indices), rois)); half_pixel
//                                    (opset 16's default) is `aligned`
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include <algorithm>
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

Error uniqueNode(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  Attrs at{{"sorted", attrs::boolean(ctx.getInt("sorted", 1) != 0)}};
  if (ctx.attr("axis")) {
    int64_t rank = int64_t(x->dims->size()), axis = ctx.getInt("axis", 0);
    if (axis < -rank || axis >= rank)
      return ctx.error("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
    at.set("axis", attrs::integer(axis < 0 ? axis + rank : axis));
  }
  ExprRef all = ctx.call("unique", {ctx.use(0)}, at);
  for (int i = 0; i < ctx.node.output_size() && i < 4; ++i)
    if (!ctx.node.output(i).empty())
      ctx.setOutput(unsigned(i), ctx.getItem(all, unsigned(i)));
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

/// Shape of a value whose shape only the run knows (a static one folds):
/// shape_of, its [start, end) taken by strided_slice (opset 15).
Error shape(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x);
  ExprRef s = ctx.call("shape_of", {ctx.use(*x)}, {{"dtype", attrs::str("int64")}});
  int64_t start = std::clamp<int64_t>(normAxis(ctx.getInt("start", 0), r), 0, r);
  int64_t end = std::clamp<int64_t>(normAxis(ctx.getInt("end", r), r), start, r);
  if (start != 0 || end != r)
    s = ctx.call("strided_slice", {s},
                 {{"begin", attrs::ints({start})}, {"end", attrs::ints({end})}});
  ctx.setOutput(0, s);
  if (OnnxValue *out = ctx.imp.lookup(ctx.node.output(0)))
    out->shapeOf = Dims(x->dims->begin() + start, x->dims->begin() + end);
  return Error::success();
}

Error size(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  ctx.setOutput(
      0, ctx.call("prod", {ctx.call("shape_of", {ctx.use(*x)}, {{"dtype", attrs::str("int64")}})}));
  return Error::success();
}

/// ConstantOfShape of a run-time shape: dyn.full with the value attribute's
/// one element (float32 0 without it).
Error constantOfShape(NodeCtx &ctx) {
  TRY(shapeIn, ctx.required(0));
  (void)shapeIn;
  HostTensor fill(DType::Float32, ArrayRef<int64_t>{});
  fill.setDouble(0, 0);
  if (const onnx::AttributeProto *v = ctx.attr("value")) {
    Expected<HostTensor> t = tensorFromProto(v->t());
    if (!t)
      return ctx.error("attribute 'value': " + toString(t.takeError()));
    if (t->numElements() != 1)
      return ctx.error("attribute 'value' must be a one-element tensor");
    fill = HostTensor(t->dtype(), ArrayRef<int64_t>{});
    fill.setDouble(0, t->getDouble(0));
  }
  ctx.setOutput(0, ctx.call("dyn.full", {ctx.use(0), ctx.constant(std::move(fill))}));
  return Error::success();
}

Error range(NodeCtx &ctx) {
  for (size_t i = 0; i < 3; ++i)
    if (Error e = ctx.required(i).takeError())
      return e;
  ExprRef args[3];
  for (size_t i = 0; i < 3; ++i) {
    args[i] = ctx.use(i);
    if (rankOf(*ctx.input(i)) == 1)
      args[i] = reshapeTo(ctx, args[i], {});
  }
  ctx.setOutput(0, ctx.call("dyn.arange", {args[0], args[1], args[2]}));
  return Error::success();
}

/// RoiAlign: vision.roi_align over rois with the batch index as a first
/// column (TVM's layout); opset 16's half_pixel (its default) is
/// `aligned`, output_half_pixel (opset 10's only mode) is not.
Error roiAlign(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(rois, ctx.required(1));
  TRY(idx, ctx.required(2));
  if (rankOf(*x) != 4)
    return ctx.error("the input must be 4-D (N, C, H, W)");
  std::string mode = ctx.getString("mode", "avg");
  if (mode != "avg" && mode != "max")
    return ctx.error("mode '" + mode + "' is not supported (avg and max are)");
  std::string ctm = ctx.getString("coordinate_transformation_mode",
                                  ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return ctx.error("coordinate_transformation_mode '" + ctm + "' is not supported");
  ExprRef batch =
      ctx.call("cast", {ctx.use(*idx)}, {{"dtype", attrs::str(dtypeName(rois->dtype).str())}});
  batch = ctx.call("expand_dims", {batch}, {{"axis", attrs::integer(1)}});
  ExprRef boxes =
      ctx.call("concatenate", {ctx.tuple({batch, ctx.use(*rois)})}, {{"axis", attrs::integer(1)}});
  ctx.setOutput(
      0, ctx.call("vision.roi_align", {ctx.use(*x), boxes},
                  {{"pooled_size",
                    attrs::ints({ctx.getInt("output_height", 1), ctx.getInt("output_width", 1)})},
                   {"spatial_scale", AttrValue::ofFloat(ctx.getFloat("spatial_scale", 1))},
                   {"sample_ratio", attrs::integer(ctx.getInt("sampling_ratio", 0))},
                   {"mode", attrs::str(mode)},
                   {"aligned", attrs::boolean(ctm == "half_pixel")}}));
  return Error::success();
}

} // namespace

Error onnximport::dynamicSlice(NodeCtx &ctx) {
  TRY(starts, ctx.required(1));
  TRY(ends, ctx.required(2));
  (void)ends;
  if (!starts->dims || starts->dims->size() != 1 || (*starts->dims)[0] < 0)
    return ctx.error("starts must be a 1-D tensor of a known length");
  int64_t n = (*starts->dims)[0];
  std::vector<int64_t> axes(static_cast<size_t>(n)), ones(static_cast<size_t>(n), 1);
  for (int64_t i = 0; i < n; ++i)
    axes[size_t(i)] = i;
  ExprRef ax = ctx.input(3) ? ctx.use(3) : ctx.constant(intTensor(axes));
  ExprRef st = ctx.input(4) ? ctx.use(4) : ctx.constant(intTensor(ones));
  ctx.setOutput(0, ctx.call("dyn.slice", {ctx.use(0), ctx.use(1), ctx.use(2), ax, st}));
  return Error::success();
}

void onnximport::addDynamicConverters(ConverterTable &t) {
  // Shape's start and end came at opset 15; Size, ConstantOfShape and Range
  // changed only in dtypes. Each folds first when its value is known.
  t.add("Shape", {11, 21}, shape);
  t.add("Size", {11, 21}, size);
  t.add("ConstantOfShape", {11, 21}, constantOfShape);
  t.add("Range", {11, 21}, range);
  // RoiAlign: opset 10, then 16 (coordinate_transformation_mode).
  t.add("RoiAlign", {11, 21}, roiAlign);
  // NonZero and Compress changed only in the dtypes they take (9 to 13, 11).
  t.add("NonZero", {9, 21}, nonZero);
  t.add("Compress", {9, 21}, compress);
  t.add("Unique", {11, 21}, uniqueNode);
  // NonMaxSuppression: 10, then 11 (negative-free semantics unchanged).
  t.add("NonMaxSuppression", {10, 21}, nonMaxSuppression);
}
