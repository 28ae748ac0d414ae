//===- Reduce.cpp - sum, mean, max, min -----------------------------------===//
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
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"
#include "llvm/ADT/BitVector.h"

using namespace llvm;

namespace hx {

static TypeRef reduceRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
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
  return makeTensorType(out, data->dtype);
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

void addReduceOps(std::vector<OpDef> &ops) {
  ops.push_back(reduction("sum", "Sum over the given axes"));
  ops.push_back(reduction("mean", "Arithmetic mean over the given axes"));
  ops.push_back(reduction("max", "Maximum over the given axes"));
  ops.push_back(reduction("min", "Minimum over the given axes"));
}

} // namespace hx
