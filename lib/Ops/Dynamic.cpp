//===- Dynamic.cpp - Operators whose result shape depends on values -------===//
//
// A value-dependent shape is a `?` dim that no relation can fill in: the
// count of nonzero elements, the boxes NMS keeps. These operators have no
// kernel on any target: a run evaluates each call on the host once its
// operands are known, between two stages of the schedule (hx/Run/Stages.h),
// as the interpreter does.
//
//   nonzero(Tensor[(2, 3), float32])           : Tensor[(2, ?), int64]
//     the indices of the nonzero elements, one column per element in
//     row-major order (ONNX NonZero, NumPy's nonzero stacked)
//   vision.non_max_suppression(boxes: Tensor[(B, N, 4), float32],
//                              scores: Tensor[(B, C, N), float32],
//                              max_output_boxes_per_class: int64 scalar,
//                              iou_threshold: float32 scalar,
//                              score_threshold: float32 scalar,
//                              center_point_box=0)  : Tensor[(?, 3), int64]
//     ONNX NonMaxSuppression: rows [batch, class, box] of the boxes kept,
//     by batch, then class, then descending score
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"

using namespace llvm;

namespace hx {

static constexpr int64_t kDyn = TensorType::kDynamic;

static TypeRef nonzeroRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  if (data->rank() == 0) {
    ctx.error("the indices of a scalar's nonzero elements have no dims to index", {0});
    return nullptr;
  }
  return makeTensorType({int64_t(data->rank()), kDyn}, DType::Int64);
}

/// Argument i holds one value (shape () or (1)) of a dtype in `allowed`.
static bool scalarArg(TypeRelContext &ctx, unsigned i, DTypeSet allowed, StringRef what) {
  const TensorType *t = ctx.tensorArg(i, allowed);
  if (!t)
    return false;
  std::optional<int64_t> n = t->numElements();
  if (t->rank() > 1 || (n && *n != 1)) {
    ctx.error(what + " must hold one value, got " + typeToString(t), {i});
    return false;
  }
  return true;
}

static TypeRef nmsRel(TypeRelContext &ctx) {
  const TensorType *boxes = ctx.tensorArg(0, kFloats);
  const TensorType *scores = ctx.tensorArg(1, kFloats);
  if (!boxes || !scores)
    return nullptr;
  if (boxes->rank() != 3 || (boxes->shape[2] != kDyn && boxes->shape[2] != 4)) {
    ctx.error("boxes must be (batches, boxes, 4), got " + typeToString(boxes), {0});
    return nullptr;
  }
  if (scores->rank() != 3) {
    ctx.error("scores must be (batches, classes, boxes), got " + typeToString(scores), {1});
    return nullptr;
  }
  if (scores->dtype != boxes->dtype) {
    ctx.error("boxes and scores differ in dtype", {0, 1});
    return nullptr;
  }
  auto differ = [](int64_t a, int64_t b) { return a != kDyn && b != kDyn && a != b; };
  if (differ(boxes->shape[0], scores->shape[0]) || differ(boxes->shape[1], scores->shape[2])) {
    ctx.error("boxes " + typeToString(boxes) + " and scores " + typeToString(scores) +
                  " disagree on the batches or the boxes",
              {0, 1});
    return nullptr;
  }
  if (!scalarArg(ctx, 2, kIntegers, "max_output_boxes_per_class") ||
      !scalarArg(ctx, 3, kFloats, "iou_threshold") ||
      !scalarArg(ctx, 4, kFloats, "score_threshold"))
    return nullptr;
  int64_t cpb = ctx.getInt("center_point_box");
  if (cpb != 0 && cpb != 1) {
    ctx.attrError("center_point_box", "center_point_box must be 0 or 1, got " + Twine(cpb));
    return nullptr;
  }
  return makeTensorType({kDyn, 3}, DType::Int64);
}

void addDynamicOps(std::vector<OpDef> &ops) {
  OpDef nonzero;
  nonzero.name = "nonzero";
  nonzero.summary = "The indices of the nonzero elements, one column each";
  nonzero.numArgs = 1;
  nonzero.dtypes = kAnySupported;
  nonzero.relation = nonzeroRel;
  nonzero.valueDependentShape = true;
  ops.push_back(std::move(nonzero));

  OpDef nms;
  nms.name = "vision.non_max_suppression";
  nms.summary = "The boxes greedy non-maximum suppression keeps, per batch and class";
  nms.numArgs = 5;
  nms.dtypes = kFloats | kIntegers;
  nms.attrs = {intAttr("center_point_box", 0)};
  nms.relation = nmsRel;
  nms.valueDependentShape = true;
  ops.push_back(std::move(nms));
}

} // namespace hx
