//===- OnnxReduce.cpp - Converters of ONNX reductions ---------------------===//
//
// ReduceMean, ReduceSum, ReduceMax and ReduceMin: hx's mean, sum, max and
// min over the given axes (all of them without axes), keepdims as ONNX's.
// The axes are an attribute until ONNX made them input 1 (ReduceSum at
// opset 13, the others at 18); without axes (absent or empty),
// noop_with_empty_axes leaves the input as it is.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

template <OpName Op, ListArg Axes> Error reduce(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(axes, listArg<Axes>(ctx, "axes", 1));
  bool keep = ctx.getInt("keepdims", 1);
  Attrs a;
  if (axes && !axes->empty()) {
    if (Error e = needRank(ctx, *x, "the input"))
      return e;
    std::vector<int64_t> n;
    for (int64_t axis : *axes)
      n.push_back(normAxis(axis, rankOf(*x)));
    a.set("axis", attrs::ints(n));
  } else if (ctx.getInt("noop_with_empty_axes", 0)) {
    // No axes, or an empty list: the identity (ONNX's rule either way).
    ctx.alias(0, *x);
    return Error::success();
  }
  a.set("keepdims", attrs::boolean(keep));
  ctx.setOutput(0, ctx.call(Op.name, {ctx.use(*x)}, std::move(a)));
  return Error::success();
}

} // namespace

void onnximport::addReduceConverters(ConverterTable &t) {
  // Opset 18 made the axes of every Reduce* but ReduceSum (13) an input.
  t.add("ReduceMean", {11, 17}, reduce<"mean", ListArg::Attribute>);
  t.add("ReduceMean", {18, 21}, reduce<"mean", ListArg::Input>);
  t.add("ReduceSum", {11, 12}, reduce<"sum", ListArg::Attribute>);
  t.add("ReduceSum", {13, 21}, reduce<"sum", ListArg::Input>);
  t.add("ReduceMax", {11, 17}, reduce<"max", ListArg::Attribute>);
  t.add("ReduceMax", {18, 21}, reduce<"max", ListArg::Input>);
  t.add("ReduceMin", {11, 17}, reduce<"min", ListArg::Attribute>);
  t.add("ReduceMin", {18, 21}, reduce<"min", ListArg::Input>);
}
