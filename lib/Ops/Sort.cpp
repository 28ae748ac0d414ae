//===- Sort.cpp - argsort and topk (cpu only) -----------------------------===//
//
// TVM's ArgsortRel and TopKRel. The GPU target kinds lack these operators
// (the target-kind table, hx/IR/TargetKind.h), which exercises
// PlanDevices' fallback to the cpu.
//
//   argsort(Tensor[(4, 5), float32], axis=-1)      : Tensor[(4, 5), int32]
//   topk(Tensor[(4, 5), float32], k=2)             : (Tensor[(4, 2), float32],
//                                                     Tensor[(4, 2), int32])
//   topk(..., ret_type="values") / ret_type="indices" : one tensor
//
// k < 1 selects the whole axis, as in TVM; a static k larger than the axis is
// an error.
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"

using namespace llvm;

namespace hx {

static constexpr int64_t kDyn = TensorType::kDynamic;
/// What argsort and topk order: the dtypes their kernels have been checked
/// with.
static constexpr DTypeSet kSortable = kFloatOnly | dtypeBit(DType::Int32) | dtypeBit(DType::Int64);

static std::optional<DType> indexDType(TypeRelContext &ctx) {
  std::optional<DType> dt = ctx.getDType("dtype");
  DType t = dt.value_or(DType::Int32);
  if (!ctx.checkAttrDType("dtype", t, kIndexTypes))
    return std::nullopt;
  return t;
}

static TypeRef argsortRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  if (!ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis"))
    return nullptr;
  std::optional<DType> dt = indexDType(ctx);
  if (!dt)
    return nullptr;
  return makeTensorType(data->shape, *dt);
}

static TypeRef topkRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis");
  if (!axis)
    return nullptr;
  std::string retType = ctx.getString("ret_type");
  if (retType != "both" && retType != "values" && retType != "indices") {
    ctx.attrError("ret_type", "ret_type must be \"both\", \"values\" or "
                              "\"indices\", got \"" +
                                  retType + "\"");
    return nullptr;
  }
  std::optional<DType> dt = indexDType(ctx);
  if (!dt)
    return nullptr;

  Shape shape(data->shape.begin(), data->shape.end());
  int64_t dim = shape[*axis];
  std::optional<int64_t> k = ctx.getOptInt("k");
  if (k && *k >= 1) {
    if (dim != kDyn && *k > dim) {
      ctx.attrError("k", "k=" + Twine(*k) + " exceeds the size " + Twine(dim) + " of axis " +
                             Twine(*axis));
      return nullptr;
    }
    shape[*axis] = *k;
  }
  TypeRef values = makeTensorType(shape, data->dtype);
  TypeRef indices = makeTensorType(shape, *dt);
  if (retType == "values")
    return values;
  if (retType == "indices")
    return indices;
  return make<TupleType>(std::vector<TypeRef>{values, indices});
}

void addSortOps(std::vector<OpDef> &ops) {
  OpDef argsort;
  argsort.name = "argsort";
  argsort.summary = "Indices that sort the data along an axis";
  argsort.numArgs = 1;
  argsort.dtypes = kSortable;
  argsort.attrs = {intAttr("axis", -1), boolAttr("is_ascend", true), dtypeAttr("dtype", "int32")};
  argsort.relation = argsortRel;
  ops.push_back(std::move(argsort));

  OpDef topk;
  topk.name = "topk";
  topk.summary = "The k largest (or smallest) values and their indices";
  topk.numArgs = 1;
  topk.dtypes = kSortable;
  AttrSpec k = intAttr("k", 1);
  k.kind = AttrKind::OptInt;
  topk.attrs = {k, intAttr("axis", -1), stringAttr("ret_type", "both"),
                boolAttr("is_ascend", false), dtypeAttr("dtype", "int32")};
  topk.relation = topkRel;
  ops.push_back(std::move(topk));
}

} // namespace hx
