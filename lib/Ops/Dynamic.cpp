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
//   unique(Tensor[(4, 3), float32], sorted=True, axis=0)
//     : (Tensor[(?, 3), float32], Tensor[(?), int64], Tensor[(4), int64],
//        Tensor[(?), int64])
//     ONNX Unique: the distinct slices along axis (the distinct elements of
//     the flattened tensor without one), ascending or in order of first
//     occurrence; each one's first index, each slice's index among them,
//     and each one's count
//
// And the operators whose result shape comes from a small operand's values
// (ONNX's shape inputs, when they are not known at import time):
//
//   shape_of(x, dtype)               Tensor[(rank), dtype] (static, but known
//                                    only once x's shape is)
//   dyn.reshape(x, newshape)         rank of newshape's length
//   dyn.topk(x, k, axis, ...)        (values, indices), ? along axis
//   dyn.slice(x, starts, ends, axes, steps)   ONNX Slice
//   dyn.expand(x, shape)             ONNX Expand (two-way broadcast)
//   dyn.tile(x, repeats)             Tile
//   dyn.full(shape, fill)            ConstantOfShape
//   dyn.arange(start, limit, delta)  Range
//
// and RoiAlign, whose shape is known but which has no kernel (the host runs
// it, as the cpu fallback of a detector's tail):
//
//   vision.roi_align(data: NCHW, rois: (R, 5) [batch, x1, y1, x2, y2],
//                    pooled_size, spatial_scale, sample_ratio, mode,
//                    aligned)             : (R, C, pooled_size)
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

static TypeRef uniqueRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  Shape shape{kDyn};
  int64_t length = data->numElements().value_or(kDyn);
  if (std::optional<int64_t> a = ctx.getOptInt("axis")) {
    std::optional<unsigned> axis = ctx.normalizeAxis(*a, data->rank(), "axis");
    if (!axis)
      return nullptr;
    shape.assign(data->shape.begin(), data->shape.end());
    length = shape[*axis];
    shape[*axis] = kDyn;
  }
  TypeRef count = makeTensorType({kDyn}, DType::Int64);
  return make<TupleType>(std::vector<TypeRef>{makeTensorType(shape, data->dtype), count,
                                              makeTensorType({length}, DType::Int64), count});
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

/// Argument i is a 1-D integer tensor of a static length (a shape, a list
/// of starts): its length, or nullopt after an error.
static std::optional<int64_t> listArg(TypeRelContext &ctx, unsigned i, StringRef what) {
  const TensorType *t = ctx.tensorArg(i, kIntegers);
  if (!t)
    return std::nullopt;
  if (t->rank() != 1 || t->shape[0] == kDyn) {
    ctx.error(what + " must be a 1-D integer tensor of a known length, got " + typeToString(t),
              {i});
    return std::nullopt;
  }
  return t->shape[0];
}

/// A tensor of `rank` dims, each known only from values.
static TypeRef unknownDims(int64_t rank, DType dtype) {
  return makeTensorType(Shape(size_t(rank), kDyn), dtype);
}

static TypeRef shapeOfRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  std::optional<DType> dt = ctx.getDType("dtype");
  if (!data || !ctx.checkAttrDType("dtype", dt.value_or(DType::Int32), kIndexTypes))
    return nullptr;
  return makeTensorType({int64_t(data->rank())}, dt.value_or(DType::Int32));
}

static TypeRef dynReshapeRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  std::optional<int64_t> rank = listArg(ctx, 1, "newshape");
  if (!data || !rank)
    return nullptr;
  return unknownDims(*rank, data->dtype);
}

static TypeRef dynTopkRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0, kFloats | kIntegers);
  const TensorType *k = ctx.tensorArg(1, kIntegers);
  if (!data || !k)
    return nullptr;
  std::optional<int64_t> n = k->numElements();
  if (k->rank() > 1 || (n && *n != 1)) {
    ctx.error("k must hold one value, got " + typeToString(k), {1});
    return nullptr;
  }
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis");
  std::optional<DType> dt = ctx.getDType("dtype");
  if (!axis || !ctx.checkAttrDType("dtype", dt.value_or(DType::Int32), kIndexTypes))
    return nullptr;
  Shape shape(data->shape.begin(), data->shape.end());
  shape[*axis] = kDyn;
  return make<TupleType>(std::vector<TypeRef>{makeTensorType(shape, data->dtype),
                                              makeTensorType(shape, dt.value_or(DType::Int32))});
}

static TypeRef dynSliceRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  std::optional<int64_t> n[4];
  const char *names[] = {"starts", "ends", "axes", "steps"};
  for (unsigned i = 0; i < 4; ++i)
    if (!(n[i] = listArg(ctx, i + 1, names[i])))
      return nullptr;
  if (*n[1] != *n[0] || *n[2] != *n[0] || *n[3] != *n[0]) {
    ctx.error("starts, ends, axes and steps differ in length", {1, 2, 3, 4});
    return nullptr;
  }
  return unknownDims(int64_t(data->rank()), data->dtype);
}

static TypeRef dynExpandRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  std::optional<int64_t> rank = listArg(ctx, 1, "shape");
  if (!data || !rank)
    return nullptr;
  return unknownDims(std::max<int64_t>(*rank, int64_t(data->rank())), data->dtype);
}

static TypeRef dynTileRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  std::optional<int64_t> n = listArg(ctx, 1, "repeats");
  if (!data || !n)
    return nullptr;
  if (*n != int64_t(data->rank())) {
    ctx.error("repeats has " + Twine(*n) + " values for rank " + Twine(data->rank()), {0, 1});
    return nullptr;
  }
  return unknownDims(*n, data->dtype);
}

static TypeRef dynFullRel(TypeRelContext &ctx) {
  std::optional<int64_t> rank = listArg(ctx, 0, "shape");
  const TensorType *fill = ctx.tensorArg(1);
  if (!rank || !fill)
    return nullptr;
  if (fill->rank() != 0) {
    ctx.error("the fill value must be a scalar, got " + typeToString(fill), {1});
    return nullptr;
  }
  return unknownDims(*rank, fill->dtype);
}

static TypeRef dynArangeRel(TypeRelContext &ctx) {
  const TensorType *start = ctx.tensorArg(0, kNumeric);
  const TensorType *limit = ctx.tensorArg(1, kNumeric);
  const TensorType *delta = ctx.tensorArg(2, kNumeric);
  if (!start || !limit || !delta)
    return nullptr;
  if (start->rank() || limit->rank() || delta->rank() || start->dtype != limit->dtype ||
      start->dtype != delta->dtype) {
    ctx.error("start, limit and delta must be scalars of one dtype", {0, 1, 2});
    return nullptr;
  }
  return unknownDims(1, start->dtype);
}

static TypeRef roiAlignRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0, kFloats);
  const TensorType *rois = ctx.tensorArg(1, kFloats);
  if (!data || !rois)
    return nullptr;
  if (data->rank() != 4) {
    ctx.error("the data must be NCHW, got " + typeToString(data), {0});
    return nullptr;
  }
  if (rois->rank() != 2 || (rois->shape[1] != kDyn && rois->shape[1] != 5) ||
      rois->dtype != data->dtype) {
    ctx.error("rois must be (boxes, 5) of [batch index, x1, y1, x2, y2] in the data's dtype, got " +
                  typeToString(rois),
              {1});
    return nullptr;
  }
  Shape size = ctx.getInts("pooled_size");
  if (size.size() != 2 || size[0] < 1 || size[1] < 1) {
    ctx.attrError("pooled_size", "pooled_size must be two positive sizes");
    return nullptr;
  }
  std::string mode = ctx.getString("mode");
  if (mode != "avg" && mode != "max") {
    ctx.attrError("mode", "mode must be \"avg\" or \"max\", got \"" + mode + "\"");
    return nullptr;
  }
  return makeTensorType({rois->shape[0], data->shape[1], size[0], size[1]}, data->dtype);
}

/// A value-dependent operator: one argument list, no kernel.
static OpDef dynamicOp(StringRef name, StringRef summary, unsigned numArgs, DTypeSet dtypes,
                       TypeRelationFn rel, std::vector<AttrSpec> attrs = {}) {
  OpDef d;
  d.name = name;
  d.summary = summary;
  d.numArgs = numArgs;
  d.dtypes = dtypes;
  d.relation = rel;
  d.attrs = std::move(attrs);
  d.valueDependentShape = true;
  return d;
}

void addDynamicOps(std::vector<OpDef> &ops) {
  ops.push_back(dynamicOp("shape_of", "The shape of a tensor, as a 1-D tensor", 1, kAnySupported,
                          shapeOfRel, {dtypeAttr("dtype", "int32")}));
  ops.push_back(dynamicOp("dyn.reshape",
                          "Reshape to a shape given as a tensor (0 copies a dim, -1 "
                          "is inferred, unless allowzero)",
                          2, kAnySupported, dynReshapeRel, {boolAttr("allowzero", false)}));
  ops.push_back(
      dynamicOp("dyn.topk", "topk with k given as a tensor", 2, kFloats | kIntegers, dynTopkRel,
                {intAttr("axis", -1), boolAttr("is_ascend", false), dtypeAttr("dtype", "int32")}));
  ops.push_back(dynamicOp("dyn.slice", "ONNX Slice: starts, ends, axes and steps given as tensors",
                          5, kAnySupported, dynSliceRel));
  ops.push_back(dynamicOp("dyn.expand", "ONNX Expand: broadcast to a shape given as a tensor", 2,
                          kAnySupported, dynExpandRel));
  ops.push_back(
      dynamicOp("dyn.tile", "Tile by repeats given as a tensor", 2, kAnySupported, dynTileRel));
  ops.push_back(dynamicOp("dyn.full", "A tensor of a shape given as a tensor, filled with a scalar",
                          2, kAnySupported, dynFullRel));
  // RoiAlign's shape is the boxes' count, but it has no kernel: the host
  // runs it, as NMS (the cpu fallback of a detector's tail).
  ops.push_back(
      dynamicOp("vision.roi_align", "Each box's bilinear samples averaged (or the largest) per bin",
                2, kFloats, roiAlignRel,
                {requiredAttr("pooled_size", AttrKind::IntList), floatAttr("spatial_scale", 1.0),
                 intAttr("sample_ratio", -1), stringAttr("layout", "NCHW"),
                 stringAttr("mode", "avg"), boolAttr("aligned", false)}));
  ops.push_back(dynamicOp("dyn.arange",
                          "start, start + delta, ... below limit (scalars as tensors)", 3, kNumeric,
                          dynArangeRel));

  ops.push_back(dynamicOp("nonzero", "The indices of the nonzero elements, one column each", 1,
                          kAnySupported, nonzeroRel));

  ops.push_back(dynamicOp("unique",
                          "The distinct elements, or slices along axis, with their first "
                          "indices, inverse indices and counts",
                          1, kAnySupported, uniqueRel,
                          {boolAttr("sorted", true), noneAttr("axis", AttrKind::OptInt)}));

  ops.push_back(dynamicOp("vision.non_max_suppression",
                          "The boxes greedy non-maximum suppression keeps, per batch and class", 5,
                          kFloats | kIntegers, nmsRel, {intAttr("center_point_box", 0)}));
}

} // namespace hx
