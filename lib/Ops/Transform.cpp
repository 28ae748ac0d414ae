//===- Transform.cpp - Shape-changing operators ---------------------------===//
//
// TVM's relations for operators that move data without arithmetic:
//
//   reshape(Tensor[(2, 3, 4)], newshape=[0, -1])     : Tensor[(2, 12)]
//   transpose(Tensor[(2, 3, 4)], axes=[0, 2, 1])     : Tensor[(2, 4, 3)]
//     (axes=None reverses the dims)
//   expand_dims(Tensor[(2, 3)], axis=1, num_newaxis=2) : Tensor[(2, 1, 1, 3)]
//   squeeze(Tensor[(1, 3, 1)], axis=None)            : Tensor[(3)]
//     (None drops every static 1; listed axes must be 1 or `?`)
//   concatenate((Tensor[(2, 3)], Tensor[(4, 3)]), axis=0) : Tensor[(6, 3)]
//   stack((Tensor[(2, 3)], Tensor[(2, 3)]), axis=-1) : Tensor[(2, 3, 2)]
//     (fields of one shape; axis in [-(rank+1), rank])
//   strided_slice(Tensor[(4, 6)], begin=[3, 1], end=[0, 6], strides=[-1, 2])
//                                                    : Tensor[(3, 3)]
//     (TVM's canonicalization: negative indices wrap once, then clamp;
//     slice_mode="size" reads end as sizes; axes picks the sliced dims)
//   nn.pad(Tensor[(2, 3)], Tensor[()], pad_width=[[1, 0], [2, 2]])
//                                                    : Tensor[(3, 7)]
//     (the pad value is operand 1, a scalar; pad_mode "constant" uses it,
//     "edge" repeats the border, "reflect" mirrors: pads below the dim)
//   layout_transform(Tensor[(1, 8, 5, 5)], src_layout="NCHW", dst_layout="NHWC4c")
//                                                    : Tensor[(1, 5, 5, 2, 4)]
//     (any permutation of the primal axes, each split into a block at most
//     once; a split must divide the axis)
//   split(Tensor[(6, 4)], indices_or_sections=3)     : (Tensor[(2, 4)] x 3)
//   split(Tensor[(6, 4)], indices_or_sections=[1, 4]) : (Tensor[(1, 4)],
//                                     Tensor[(3, 4)], Tensor[(2, 4)])
//   take(Tensor[(6, 4, 5)], Tensor[(2, 3), int64], axis=1) : Tensor[(6, 2, 3, 5)]
//     (axis=None indexes the flattened data)
//   gather(Tensor[(6, 4, 5)], Tensor[(6, 2, 5), int64], axis=1) : Tensor[(6, 2, 5)]
//     (TVM's GatherRel: indices of the data's rank, none of their other
//     dims beyond the data's; out[.., j, ..] = data[.., indices[.., j, ..], ..]
//     along axis; a negative index counts from the end, then clamps)
//   gather_nd(Tensor[(2, 3, 4)], Tensor[(2, 5), int64]) : Tensor[(5, 4)]
//     (TVM's GatherNDRel: indices (M, Y...) index the data's first M dims
//     after batch_dims shared leading dims; the result is (batch dims,
//     Y..., the data's remaining dims); negative from the end, then clamps)
//   scatter_elements(Tensor[(4, 5)], Tensor[(2, 5), int64], Tensor[(2, 5)], axis=0)
//                                                    : Tensor[(4, 5)]
//     (the data with out[.., indices[.., j, ..], ..] = updates[.., j, ..]
//     along axis; indices and updates of one shape, of the data's rank and
//     no larger off the axis; reduction "update", "add", "mul", "min" or
//     "max" combines with what is there, in index order)
//   scatter_nd(Tensor[(4, 5)], Tensor[(1, 3), int64], Tensor[(3, 5)])
//                                                    : Tensor[(4, 5)]
//     (gather_nd's inverse: indices (M, Y...) address slices of the data's
//     dims after the first M; updates (Y..., the data's remaining dims);
//     mode as scatter_elements' reduction)
//
// All of them accept every dtype (scatter's add and mul: not bool).
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"
#include "hx/Ops/DataLayout.h"
#include "llvm/ADT/BitVector.h"

using namespace llvm;

namespace hx {

static constexpr int64_t kDyn = TensorType::kDynamic;

static TypeRef reshapeRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  Shape newshape = ctx.getInts("newshape");
  Expected<Shape> out = inferReshape(data->shape, newshape, ctx.getBool("allowzero"));
  if (!out) {
    ctx.attrError("newshape", toString(out.takeError()));
    return nullptr;
  }
  return makeTensorType(*out, data->dtype);
}

static TypeRef transposeRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  size_t rank = data->rank();
  std::optional<Shape> axes = ctx.getOptInts("axes");
  Shape out;
  if (!axes || axes->empty()) {
    for (size_t i = rank; i > 0; --i)
      out.push_back(data->shape[i - 1]);
    return makeTensorType(out, data->dtype);
  }
  if (axes->size() != rank) {
    ctx.attrError("axes", "axes " + intListToString(*axes) + " must list " + Twine(rank) +
                              " axes, one per dim of " + shapeToString(data->shape));
    return nullptr;
  }
  BitVector seen(rank, false);
  for (int64_t a : *axes) {
    std::optional<unsigned> ax = ctx.normalizeAxis(a, rank, "axes");
    if (!ax)
      return nullptr;
    if (seen.test(*ax)) {
      ctx.attrError("axes", "axes " + intListToString(*axes) + " is not a permutation: axis " +
                                Twine(*ax) + " repeats");
      return nullptr;
    }
    seen.set(*ax);
    out.push_back(data->shape[*ax]);
  }
  return makeTensorType(out, data->dtype);
}

static TypeRef expandDimsRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  int64_t num = ctx.getInt("num_newaxis");
  if (num < 0) {
    ctx.attrError("num_newaxis", "num_newaxis must be non-negative, got " + Twine(num));
    return nullptr;
  }
  if (size_t(num) > kMaxRank - std::min(kMaxRank, data->rank())) {
    ctx.attrError("num_newaxis", "num_newaxis=" + Twine(num) + " would exceed the maximum rank " +
                                     Twine(kMaxRank));
    return nullptr;
  }
  // The insertion point ranges over [-rank-1, rank].
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data->rank() + 1, "axis");
  if (!axis)
    return nullptr;
  Shape out(data->shape.begin(), data->shape.end());
  out.insert(out.begin() + *axis, size_t(num), 1);
  return makeTensorType(out, data->dtype);
}

static TypeRef squeezeRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  size_t rank = data->rank();
  BitVector drop(rank, false);
  if (std::optional<Shape> axes = ctx.getOptInts("axis")) {
    for (int64_t a : *axes) {
      std::optional<unsigned> ax = ctx.normalizeAxis(a, rank, "axis");
      if (!ax)
        return nullptr;
      int64_t d = data->shape[*ax];
      if (d != 1 && d != kDyn) {
        ctx.attrError("axis", "cannot squeeze axis " + Twine(*ax) + " of size " + Twine(d) +
                                  " in " + shapeToString(data->shape));
        return nullptr;
      }
      drop.set(*ax);
    }
  } else {
    for (size_t i = 0; i < rank; ++i)
      if (data->shape[i] == 1)
        drop.set(i);
  }
  Shape out;
  for (size_t i = 0; i < rank; ++i)
    if (!drop.test(i))
      out.push_back(data->shape[i]);
  return makeTensorType(out, data->dtype);
}

/// The fields of a tuple operand (concatenate, stack): at least one, each a
/// tensor of a supported dtype; nullopt after an error (`verb` names the
/// operation in "cannot <verb> an empty tuple").
static std::optional<SmallVector<const TensorType *, 4>> tensorFields(TypeRelContext &ctx,
                                                                      StringRef verb) {
  const TupleType *tuple = ctx.tupleArg(0);
  if (!tuple)
    return std::nullopt;
  if (tuple->fields.empty()) {
    ctx.error("cannot " + verb + " an empty tuple", {0});
    return std::nullopt;
  }
  SmallVector<const TensorType *, 4> parts;
  for (size_t i = 0; i < tuple->fields.size(); ++i) {
    const auto *t = dyn_cast<TensorType>(tuple->fields[i].get());
    if (!t) {
      ctx.error("tuple field " + Twine(i) + " must be a tensor, got " +
                    typeToString(tuple->fields[i].get()),
                {0});
      return std::nullopt;
    }
    if (!dtypeSetContains(ctx.def.dtypes, t->dtype)) {
      ctx.error("unsupported dtype " + dtypeName(t->dtype) +
                    " (supported: " + dtypeSetToString(ctx.def.dtypes) + ")",
                {0});
      return std::nullopt;
    }
    parts.push_back(t);
  }
  return parts;
}

/// The shape the tuple fields of concatenate (`concatAxis`: sizes there add
/// up) or stack (no axis: every dim agrees) describe; a `?` dim matches any.
/// Every field has field 0's dtype and rank. Nullopt after reporting.
static std::optional<Shape> joinFieldShapes(TypeRelContext &ctx, ArrayRef<const TensorType *> parts,
                                            std::optional<unsigned> concatAxis) {
  const TensorType *first = parts[0];
  Shape out(first->shape.begin(), first->shape.end());
  for (size_t i = 1; i < parts.size(); ++i) {
    const TensorType *t = parts[i];
    if (t->dtype != first->dtype || t->rank() != first->rank()) {
      ctx.error("tuple field " + Twine(i) + " " + typeToString(t) + " does not match field 0 " +
                    typeToString(first) + " in dtype and rank",
                {0});
      return std::nullopt;
    }
    for (size_t d = 0; d < out.size(); ++d) {
      int64_t a = out[d], b = t->shape[d];
      if (concatAxis && d == *concatAxis) {
        out[d] = (a == kDyn || b == kDyn) ? kDyn : a + b;
      } else if (a == kDyn) {
        out[d] = b;
      } else if (b != kDyn && a != b) {
        ctx.error("shapes " + shapeToString(first->shape) + " and " + shapeToString(t->shape) +
                      " (fields 0 and " + Twine(i) + ") differ" +
                      (concatAxis ? " outside the concatenation axis " + Twine(*concatAxis)
                                  : Twine(": stacked tensors have one shape")),
                  {0});
        return std::nullopt;
      }
    }
  }
  return out;
}

static TypeRef concatenateRel(TypeRelContext &ctx) {
  std::optional<SmallVector<const TensorType *, 4>> fields = tensorFields(ctx, "concatenate");
  if (!fields)
    return nullptr;
  ArrayRef<const TensorType *> parts = *fields;
  const TensorType *first = parts[0];
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), first->rank(), "axis");
  if (!axis)
    return nullptr;
  std::optional<Shape> out = joinFieldShapes(ctx, parts, *axis);
  if (!out)
    return nullptr;
  return makeTensorType(*out, first->dtype);
}

/// stack: every field has one shape and dtype (a `?` dim matches any); the
/// result inserts a dim of the field count at `axis`, in [-(rank+1), rank].
static TypeRef stackRel(TypeRelContext &ctx) {
  std::optional<SmallVector<const TensorType *, 4>> fields = tensorFields(ctx, "stack");
  if (!fields)
    return nullptr;
  ArrayRef<const TensorType *> parts = *fields;
  const TensorType *first = parts[0];
  int64_t axisAttr = ctx.getInt("axis"), rank = int64_t(first->rank());
  std::optional<unsigned> axis = normalizeAxis(axisAttr, first->rank() + 1);
  if (!axis) {
    ctx.attrError("axis", "axis " + Twine(axisAttr) + " is out of range for stacking rank-" +
                              Twine(rank) + " tensors (expected " + Twine(-rank - 1) + " to " +
                              Twine(rank) + ")");
    return nullptr;
  }
  std::optional<Shape> out = joinFieldShapes(ctx, parts, std::nullopt);
  if (!out)
    return nullptr;
  out->insert(out->begin() + *axis, int64_t(parts.size()));
  return makeTensorType(*out, first->dtype);
}

static TypeRef splitRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis");
  if (!axis)
    return nullptr;
  int64_t dim = data->shape[*axis];
  AttrValue spec = ctx.attr("indices_or_sections");
  std::vector<TypeRef> fields;
  auto piece = [&](int64_t size) {
    Shape s(data->shape.begin(), data->shape.end());
    s[*axis] = size;
    fields.push_back(makeTensorType(s, data->dtype));
  };

  if (spec.kind == AttrValue::Kind::Int) {
    int64_t sections = spec.intValue;
    if (sections <= 0) {
      ctx.attrError("indices_or_sections",
                    "the number of sections must be positive, got " + Twine(sections));
      return nullptr;
    }
    if (sections > kMaxSplitSections) {
      ctx.attrError("indices_or_sections", Twine(sections) +
                                               " sections are more than the maximum " +
                                               Twine(kMaxSplitSections));
      return nullptr;
    }
    if (dim != kDyn && dim % sections != 0) {
      ctx.attrError("indices_or_sections", "axis " + Twine(*axis) + " of size " + Twine(dim) +
                                               " cannot be split into " + Twine(sections) +
                                               " equal sections");
      return nullptr;
    }
    for (int64_t i = 0; i < sections; ++i)
      piece(dim == kDyn ? kDyn : dim / sections);
    return make<TupleType>(std::move(fields));
  }

  Shape indices = ctx.getInts("indices_or_sections");
  int64_t begin = 0;
  for (int64_t idx : indices) {
    if (idx <= begin || (dim != kDyn && idx >= dim)) {
      ctx.attrError("indices_or_sections", "split indices " + intListToString(indices) +
                                               " must be strictly increasing, positive and less "
                                               "than the size " +
                                               dimToString(dim) + " of axis " + Twine(*axis));
      return nullptr;
    }
    piece(idx - begin);
    begin = idx;
  }
  piece(dim == kDyn ? kDyn : dim - begin);
  return make<TupleType>(std::move(fields));
}

/// strided_slice: the sizes stridedSlice (ShapeUtils.h) computes by TVM's
/// rules; an attribute at fault is blamed at its value.
static TypeRef stridedSliceRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  AttrProblem problem;
  std::optional<SmallVector<SliceDim, 4>> dims =
      stridedSlice(data->shape, ctx.getInts("begin"), ctx.getInts("end"), ctx.getOptInts("strides"),
                   ctx.getOptInts("axes"), ctx.getString("slice_mode"), problem);
  if (!dims) {
    ctx.attrError(problem);
    return nullptr;
  }
  Shape out;
  for (const SliceDim &d : *dims)
    out.push_back(d.size);
  return makeTensorType(out, data->dtype);
}

/// nn.pad(data, pad_value): pad_width holds one [before, after] pair of
/// non-negative sizes per dim (TVM's PadRel); the result grows each dim by
/// its pair, as padShape (ShapeUtils.h) computes, with pad_mode's rules.
/// pad_value is a scalar of any supported dtype: the kernels cast it to the
/// data's dtype, as TVM's PadCompute does.
static TypeRef padRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  const TensorType *value = data ? ctx.tensorArg(1) : nullptr;
  if (!value)
    return nullptr;
  if (value->rank() != 0) {
    ctx.error("the pad value (operand 1) must be a scalar, got " + typeToString(value), {1});
    return nullptr;
  }
  std::optional<SmallVector<IntPair, 4>> pads = ctx.getIntPairs("pad_width", data->rank());
  if (!pads)
    return nullptr;
  AttrProblem problem;
  std::optional<Shape> out = padShape(data->shape, *pads, ctx.getString("pad_mode"), problem);
  if (!out) {
    ctx.attrError(problem);
    return nullptr;
  }
  return makeTensorType(*out, data->dtype);
}

/// layout_transform: the shape TVM's BijectiveLayout gives (DataLayout.h).
static TypeRef layoutTransformRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  LayoutMap map;
  AttrProblem problem;
  std::optional<Shape> out = layoutTransformShape(data->shape, ctx.getString("src_layout"),
                                                  ctx.getString("dst_layout"), map, problem);
  if (!out) {
    ctx.attrError(problem);
    return nullptr;
  }
  return makeTensorType(*out, data->dtype);
}

/// take(data, indices): with axis None, indices into the flattened data
/// (the result has the indices' shape); else data.shape[:axis] +
/// indices.shape + data.shape[axis+1:]. Indices are int32 or int64.
static TypeRef takeRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  const TensorType *indices = data ? ctx.tensorArg(1, kIndexTypes) : nullptr;
  if (!indices)
    return nullptr;
  if (ctx.getInt("batch_dims") != 0) {
    ctx.attrError("batch_dims", "batch_dims other than 0 is not supported");
    return nullptr;
  }
  std::string mode = ctx.getString("mode");
  if (mode != "clip" && mode != "wrap" && mode != "fast") {
    ctx.attrError("mode", "mode must be \"clip\", \"wrap\" or \"fast\", got \"" + mode + "\"");
    return nullptr;
  }
  std::optional<int64_t> axisAttr = ctx.getOptInt("axis");
  if (!axisAttr)
    return makeTensorType(indices->shape, data->dtype);
  std::optional<unsigned> axis = ctx.normalizeAxis(*axisAttr, data->rank(), "axis");
  if (!axis)
    return nullptr;
  Shape out(data->shape.begin(), data->shape.begin() + *axis);
  out.append(indices->shape.begin(), indices->shape.end());
  out.append(data->shape.begin() + *axis + 1, data->shape.end());
  return makeTensorType(out, data->dtype);
}

/// gather's and scatter_elements' indices: the data's rank, no dim beyond
/// the data's but along `axis`.
static bool checkAxisIndices(TypeRelContext &ctx, const TensorType *data, const TensorType *indices,
                             unsigned axis) {
  if (indices->rank() != data->rank()) {
    ctx.error("the indices (operand 1) must have the data's rank " + Twine(data->rank()) +
                  ", got " + typeToString(indices),
              {1});
    return false;
  }
  for (size_t d = 0; d < data->rank(); ++d)
    if (d != axis && indices->shape[d] != kDyn && data->shape[d] != kDyn &&
        indices->shape[d] > data->shape[d]) {
      ctx.error("dim " + Twine(d) + " of the indices (" + Twine(indices->shape[d]) +
                    ") exceeds the data's (" + Twine(data->shape[d]) + ")",
                {1});
      return false;
    }
  return true;
}

static TypeRef gatherRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  const TensorType *indices = data ? ctx.tensorArg(1, kIndexTypes) : nullptr;
  if (!indices)
    return nullptr;
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis");
  if (!axis)
    return nullptr;
  if (!checkAxisIndices(ctx, data, indices, *axis))
    return nullptr;
  return makeTensorType(indices->shape, data->dtype);
}

static TypeRef gatherNdRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  const TensorType *indices = data ? ctx.tensorArg(1, kIndexTypes) : nullptr;
  if (!indices)
    return nullptr;
  int64_t b = ctx.getInt("batch_dims");
  if (indices->rank() < 1 || b < 0 || size_t(b) + 1 > indices->rank() || size_t(b) > data->rank()) {
    ctx.error("the indices (operand 1) must have rank above batch_dims " + Twine(b) +
                  ", and the data rank batch_dims or more, got " + typeToString(indices),
              {1});
    return nullptr;
  }
  int64_t m = indices->shape[0];
  if (m == kDyn || m < 1 || size_t(b + m) > data->rank()) {
    ctx.error("dim 0 of the indices must be static, from 1 to the data's rank " +
                  Twine(data->rank()) + " less batch_dims " + Twine(b) + ", got " +
                  typeToString(indices),
              {1});
    return nullptr;
  }
  for (int64_t d = 0; d < b; ++d)
    if (indices->shape[1 + d] != kDyn && data->shape[d] != kDyn &&
        indices->shape[1 + d] != data->shape[d]) {
      ctx.error("batch dim " + Twine(d) + " of the indices (" + Twine(indices->shape[1 + d]) +
                    ") is not the data's (" + Twine(data->shape[d]) + ")",
                {1});
      return nullptr;
    }
  Shape out(indices->shape.begin() + 1, indices->shape.end());
  out.append(data->shape.begin() + b + m, data->shape.end());
  return makeTensorType(out, data->dtype);
}

/// The reductions scatter_elements and scatter_nd combine updates with.
static bool checkScatterMode(TypeRelContext &ctx, StringRef attr, DType t) {
  std::string mode = ctx.getString(attr);
  if ((mode == "add" || mode == "mul") && t == DType::Bool) {
    ctx.attrError(attr, attr + " \"" + mode + "\" is not defined for bool");
    return false;
  }
  if (mode == "update" || mode == "add" || mode == "mul" || mode == "min" || mode == "max")
    return true;
  ctx.attrError(attr, attr + " must be \"update\", \"add\", \"mul\", \"min\" or \"max\", got \"" +
                          mode + "\"");
  return false;
}

/// The updates (operand 2) must have the data's dtype and the shape `want`.
static bool checkUpdates(TypeRelContext &ctx, const TensorType *data, const TensorType *updates,
                         ArrayRef<int64_t> want) {
  bool fits = updates->dtype == data->dtype && updates->rank() == want.size();
  for (size_t d = 0; fits && d < want.size(); ++d)
    fits = updates->shape[d] == kDyn || want[d] == kDyn || updates->shape[d] == want[d];
  if (!fits)
    ctx.error("the updates (operand 2) must be " +
                  typeToString(makeTensorType(want, data->dtype).get()) + ", got " +
                  typeToString(updates),
              {2});
  return fits;
}

static TypeRef scatterElementsRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  const TensorType *indices = data ? ctx.tensorArg(1, kIndexTypes) : nullptr;
  const TensorType *updates = indices ? ctx.tensorArg(2) : nullptr;
  if (!updates || !checkScatterMode(ctx, "reduction", data->dtype))
    return nullptr;
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis");
  if (!axis)
    return nullptr;
  if (!checkAxisIndices(ctx, data, indices, *axis))
    return nullptr;
  if (!checkUpdates(ctx, data, updates, indices->shape))
    return nullptr;
  return makeTensorType(data->shape, data->dtype);
}

static TypeRef scatterNdRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  const TensorType *indices = data ? ctx.tensorArg(1, kIndexTypes) : nullptr;
  const TensorType *updates = indices ? ctx.tensorArg(2) : nullptr;
  if (!updates || !checkScatterMode(ctx, "mode", data->dtype))
    return nullptr;
  int64_t m = indices->rank() ? indices->shape[0] : 0;
  if (m == kDyn || m < 1 || size_t(m) > data->rank()) {
    ctx.error("dim 0 of the indices (operand 1) must be static, from 1 to the data's rank " +
                  Twine(data->rank()) + ", got " + typeToString(indices),
              {1});
    return nullptr;
  }
  Shape want(indices->shape.begin() + 1, indices->shape.end());
  want.append(data->shape.begin() + m, data->shape.end());
  if (!checkUpdates(ctx, data, updates, want))
    return nullptr;
  return makeTensorType(data->shape, data->dtype);
}

static OpDef transformOp(StringRef name, StringRef summary, std::vector<AttrSpec> attrs,
                         TypeRelationFn rel) {
  OpDef d;
  d.name = name;
  d.summary = summary;
  d.numArgs = 1;
  d.dtypes = kAnySupported;
  d.attrs = std::move(attrs);
  d.relation = rel;
  d.pattern = OpPattern::Injective;
  return d;
}

void addTransformOps(std::vector<OpDef> &ops) {
  OpDef take = transformOp(
      "take", "Gather along an axis (or the flattened data) at indices",
      {noneAttr("axis", AttrKind::OptInt), intAttr("batch_dims", 0), stringAttr("mode", "clip")},
      takeRel);
  take.numArgs = 2;
  ops.push_back(std::move(take));
  OpDef gather = transformOp("gather", "Gather along an axis at indices of the data's rank",
                             {intAttr("axis", 0)}, gatherRel);
  gather.numArgs = 2;
  ops.push_back(std::move(gather));
  OpDef gatherNd = transformOp("gather_nd", "Gather elements or slices at index tuples",
                               {intAttr("batch_dims", 0)}, gatherNdRel);
  gatherNd.numArgs = 2;
  ops.push_back(std::move(gatherNd));
  OpDef scatterElements =
      transformOp("scatter_elements", "Write updates into the data along an axis at indices",
                  {intAttr("axis", 0), stringAttr("reduction", "update")}, scatterElementsRel);
  scatterElements.numArgs = 3;
  scatterElements.pattern = OpPattern::Opaque;
  ops.push_back(std::move(scatterElements));
  OpDef scatterNd = transformOp("scatter_nd", "Write update slices into the data at index tuples",
                                {stringAttr("mode", "update")}, scatterNdRel);
  scatterNd.numArgs = 3;
  scatterNd.pattern = OpPattern::Opaque;
  ops.push_back(std::move(scatterNd));
  OpDef pad = transformOp(
      "nn.pad", "Pad each dim with a value, the edge or a reflection",
      {requiredAttr("pad_width", AttrKind::IntListList), stringAttr("pad_mode", "constant")},
      padRel);
  pad.numArgs = 2;
  ops.push_back(std::move(pad));
  ops.push_back(transformOp(
      "reshape", "Reshape (newshape may use 0, -1, -2, -3, -4)",
      {requiredAttr("newshape", AttrKind::IntList), boolAttr("allowzero", false)}, reshapeRel));
  ops.push_back(transformOp("transpose", "Permute the dims (reverse them by default)",
                            {noneAttr("axes", AttrKind::OptIntList)}, transposeRel));
  ops.push_back(transformOp("expand_dims", "Insert num_newaxis dims of size 1",
                            {requiredAttr("axis", AttrKind::Int), intAttr("num_newaxis", 1)},
                            expandDimsRel));
  ops.push_back(transformOp("squeeze", "Remove dims of size 1",
                            {noneAttr("axis", AttrKind::OptIntList)}, squeezeRel));
  OpDef concat = transformOp("concatenate", "Join a tuple of tensors along an axis",
                             {intAttr("axis", 0)}, concatenateRel);
  concat.takesTuple = true;
  ops.push_back(std::move(concat));
  OpDef stack = transformOp("stack", "Join a tuple of same-shaped tensors along a new axis",
                            {intAttr("axis", 0)}, stackRel);
  stack.takesTuple = true;
  ops.push_back(std::move(stack));
  ops.push_back(
      transformOp("strided_slice", "Slice with steps along some or all axes",
                  {requiredAttr("begin", AttrKind::IntList), requiredAttr("end", AttrKind::IntList),
                   noneAttr("strides", AttrKind::OptIntList), stringAttr("slice_mode", "end"),
                   noneAttr("axes", AttrKind::OptIntList)},
                  stridedSliceRel));
  ops.push_back(transformOp(
      "layout_transform", "Reorder and block the axes of a layout (NCHW to NHWC or NCHW4c)",
      {requiredAttr("src_layout", AttrKind::String), requiredAttr("dst_layout", AttrKind::String)},
      layoutTransformRel));
  ops.push_back(transformOp(
      "split", "Split along an axis into equal sections or at indices",
      {requiredAttr("indices_or_sections", AttrKind::IntOrIntList), intAttr("axis", 0)}, splitRel));
}

} // namespace hx
