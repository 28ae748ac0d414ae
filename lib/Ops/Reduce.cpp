//===- Reduce.cpp - The reductions, arg-reductions and cumsum -------------===//
//
// TVM's ReduceRel. The reduced axes are:
//   axis=None          every axis (exclude is ignored, as in TVM);
//   axis=[a, b, ...]   those axes (negative values count from the end; an
//                      empty list reduces nothing); `axis=1` means `[1]`;
//   exclude=True       every axis *not* listed.
// Reduced dims are dropped, or kept as 1 with keepdims=True.
//
//   sum(Tensor[(2, 3, 4)], axis=[1])                : Tensor[(2, 4)]
//   mean(Tensor[(2, 3, 4)], axis=[1], keepdims=True) : Tensor[(2, 1, 4)]
//   max(Tensor[(2, 3, 4)], axis=[1], exclude=True)   : Tensor[(3)]
//
// argmax and argmin (TVM's ArgReduceRel) reduce the same axes to the int32
// index of the first (select_last_index=True: the last) extreme element,
// counted row-major over the reduced dims when there are several:
//
//   argmax(Tensor[(2, 3, 4), float32], axis=[1]) : Tensor[(2, 4), int32]
//
// cumsum (TVM's ScanopRel) keeps the shape, or flattens the data when axis
// is None; its dtype attribute, when set, is the result's (the sum's):
//
//   cumsum(Tensor[(2, 3), int32], axis=1, dtype="int64") : Tensor[(2, 3), int64]
//   cumsum(Tensor[(2, 3), float32])                      : Tensor[(6), float32]
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"
#include "llvm/ADT/BitVector.h"

using namespace llvm;

namespace hx {

/// The result of reducing `data` over the call's axes, of dtype `out`.
static TypeRef reducedType(TypeRelContext &ctx, const TensorType *data, DType outDType) {
  size_t rank = data->rank();
  BitVector reduced(rank, false);
  if (std::optional<Shape> axes = ctx.getOptInts("axis")) {
    for (int64_t a : *axes) {
      std::optional<unsigned> ax = ctx.normalizeAxis(a, rank, "axis");
      if (!ax)
        return nullptr;
      if (reduced.test(*ax)) {
        ctx.attrError("axis", "axis " + Twine(*ax) + " is listed twice");
        return nullptr;
      }
      reduced.set(*ax);
    }
    if (ctx.getBool("exclude"))
      reduced.flip();
  } else {
    reduced.set();
  }

  bool keepDims = ctx.getBool("keepdims");
  Shape out;
  for (size_t i = 0; i < rank; ++i) {
    if (!reduced.test(i))
      out.push_back(data->shape[i]);
    else if (keepDims)
      out.push_back(1);
  }
  return makeTensorType(out, outDType);
}

static TypeRef reduceRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  return data ? reducedType(ctx, data, data->dtype) : nullptr;
}

static TypeRef argReduceRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  return data ? reducedType(ctx, data, DType::Int32) : nullptr;
}

static OpDef reduction(StringRef name, StringRef summary) {
  OpDef d;
  d.name = name;
  d.summary = summary;
  d.numArgs = 1;
  d.dtypes = kNumeric;
  d.attrs = {noneAttr("axis", AttrKind::OptIntList), boolAttr("keepdims", false),
             boolAttr("exclude", false)};
  d.relation = reduceRel;
  d.pattern = OpPattern::CommReduce;
  return d;
}

static TypeRef cumsumRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  DType out = ctx.getDType("dtype").value_or(data->dtype);
  if (!ctx.checkAttrDType("dtype", out, kNumeric))
    return nullptr;
  std::optional<int64_t> axis = ctx.getOptInt("axis");
  if (!axis) {
    int64_t n = 1;
    for (int64_t d : data->shape)
      n = (d == TensorType::kDynamic || n == TensorType::kDynamic) ? TensorType::kDynamic : n * d;
    return makeTensorType(Shape{n}, out);
  }
  if (!ctx.normalizeAxis(*axis, data->rank(), "axis"))
    return nullptr;
  return makeTensorType(data->shape, out);
}

void addReduceOps(std::vector<OpDef> &ops) {
  ops.push_back(reduction("sum", "Sum over the given axes"));
  ops.push_back(reduction("mean", "Arithmetic mean over the given axes"));
  ops.push_back(reduction("max", "Maximum over the given axes"));
  ops.push_back(reduction("min", "Minimum over the given axes"));
  ops.push_back(reduction("prod", "Product over the given axes"));
  for (auto [name, summary] :
       {std::pair<StringRef, StringRef>{"argmax", "Index of the maximum over the given axes"},
        {"argmin", "Index of the minimum over the given axes"}}) {
    OpDef d = reduction(name, summary);
    d.attrs.push_back(boolAttr("select_last_index", false));
    d.relation = argReduceRel;
    ops.push_back(std::move(d));
  }
  OpDef cumsum;
  cumsum.name = "cumsum";
  cumsum.summary = "Running sum along an axis (of the flattened data without one)";
  cumsum.numArgs = 1;
  cumsum.dtypes = kNumeric;
  cumsum.attrs = {noneAttr("axis", AttrKind::OptInt), dtypeAttr("dtype", ""),
                  boolAttr("exclusive", false)};
  cumsum.relation = cumsumRel;
  ops.push_back(std::move(cumsum));
}

} // namespace hx
