//===- OnnxReduce.cpp - Converters of ONNX reductions ---------------------===//
//
// ReduceMean, ReduceSum, ReduceMax, ReduceMin and ReduceProd: hx's mean,
// sum, max, min and prod over the given axes (all of them without axes), keepdims as ONNX's.
// The axes are an attribute until ONNX made them input 1 (ReduceSum at
// opset 13, the others at 18); without axes (absent or empty),
// noop_with_empty_axes leaves the input as it is. Opset 13 only added
// bfloat16 to the others, which hx has no dtype for: one row each.
//
// The other reductions are compositions over the same axes:
//   ReduceL1         sum(abs(x))
//   ReduceL2         sqrt(sum(x * x))
//   ReduceSumSquare  sum(x * x)
//   ReduceLogSum     log(sum(x))
//   ReduceLogSumExp  log(sum(exp(x - m))) + m, m = max(x) (kept dims for the
//                    subtraction): no exp overflows
// (the float ones refuse integer inputs).
//
// ArgMax and ArgMin: hx's argmax and argmin over the one axis (keepdims and
// select_last_index as ONNX's; the attribute came at opset 12 and is 0
// before), their int32 indices cast to ONNX's int64.
//
// CumSum: hx's cumsum along the axis (input 1, known at import time);
// reverse runs it between two strided_slice reversals along the axis.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

/// The hx attributes of a reduction of `x` over the node's axes (`axis`,
/// `keepdims` as given); nullopt when noop_with_empty_axes and no axes (absent
/// or empty: ONNX's rule either way) leave the input unchanged.
template <ListArg Axes>
Expected<std::optional<Attrs>> reduceAttrs(NodeCtx &ctx, const OnnxValue &x, bool keep) {
  TRY(axes, listArg<Axes>(ctx, "axes", 1));
  Attrs a;
  if (axes && !axes->empty()) {
    if (Error e = needRank(ctx, x, "the input"))
      return e;
    std::vector<int64_t> n;
    for (int64_t axis : *axes)
      n.push_back(normAxis(axis, rankOf(x)));
    a.set("axis", attrs::ints(n));
  } else if (ctx.getInt("noop_with_empty_axes", 0)) {
    return std::nullopt;
  }
  a.set("keepdims", attrs::boolean(keep));
  return std::optional<Attrs>(std::move(a));
}

template <OpName Op, ListArg Axes> Error reduce(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(a, reduceAttrs<Axes>(ctx, *x, ctx.getInt("keepdims", 1)));
  if (!a) {
    ctx.alias(0, *x);
    return Error::success();
  }
  ExprRef in = ctx.use(*x);
  // bool (ReduceMax and ReduceMin from opset 20): any and all, as uint8.
  if (x->dtype == DType::Bool && (StringRef(Op.name) == "max" || StringRef(Op.name) == "min")) {
    in = ctx.call("cast", {in}, {{"dtype", attrs::str("uint8")}});
    ctx.setOutput(0, ctx.call("cast", {ctx.call(Op.name, {in}, std::move(*a))},
                              {{"dtype", attrs::str("bool")}}));
    return Error::success();
  }
  ctx.setOutput(0, ctx.call(Op.name, {in}, std::move(*a)));
  return Error::success();
}

enum class Composite { L1, L2, SumSquare, LogSum, LogSumExp };

/// The reductions hx builds from sum, max and elementwise operators (their
/// axes an attribute before opset 18, input 1 from it).
template <Composite K, ListArg Axes> Error composite(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  bool keep = ctx.getInt("keepdims", 1);
  TRY(a, reduceAttrs<Axes>(ctx, *x, keep));
  if (!a) {
    ctx.alias(0, *x);
    return Error::success();
  }
  if (K != Composite::L1 && K != Composite::SumSquare && !isFloat(x->dtype))
    return ctx.error("the input must be a float tensor, not " + dtypeName(x->dtype));
  ExprRef in = ctx.use(*x);
  auto sum = [&](ExprRef v) { return ctx.call("sum", {v}, *a); };
  ExprRef y;
  switch (K) {
  case Composite::L1:
    y = sum(ctx.call("abs", {in}));
    break;
  case Composite::L2:
    y = ctx.call("sqrt", {sum(ctx.call("multiply", {in, in}))});
    break;
  case Composite::SumSquare:
    y = sum(ctx.call("multiply", {in, in}));
    break;
  case Composite::LogSum:
    y = ctx.call("log", {sum(in)});
    break;
  case Composite::LogSumExp: {
    Attrs kept = *a;
    kept.set("keepdims", attrs::boolean(true));
    ExprRef m = ctx.call("max", {in}, kept);
    ExprRef s = sum(ctx.call("exp", {ctx.call("subtract", {in, m})}));
    y = ctx.call("add", {ctx.call("log", {s}), keep ? m : ctx.call("max", {in}, *a)});
    break;
  }
  }
  ctx.setOutput(0, y);
  return Error::success();
}

/// ArgMax and ArgMin (`Op`).
template <OpName Op> Error argReduce(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", 0), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", 0)) + " is out of range for rank " +
                     Twine(r));
  Attrs a{{"axis", attrs::ints({axis})},
          {"keepdims", attrs::boolean(ctx.getInt("keepdims", 1))},
          {"select_last_index", attrs::boolean(ctx.getInt("select_last_index", 0))}};
  ExprRef idx = ctx.call(Op.name, {ctx.use(*x)}, std::move(a));
  ctx.setOutput(0, ctx.call("cast", {idx}, {{"dtype", attrs::str("int64")}}));
  return Error::success();
}

Error cumsum(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  TRY(axisIn, ctx.constInts(1));
  if (!axisIn || axisIn->size() != 1)
    return ctx.error("the axis input must be one integer");
  int64_t r = rankOf(*x), axis = normAxis(axisIn->front(), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(axisIn->front()) + " is out of range for rank " + Twine(r));
  ExprRef y = ctx.use(*x);
  int64_t n = (*x->dims)[axis];
  bool reverse = ctx.getInt("reverse", 0) && n != 1;
  if (reverse && n < 0)
    return ctx.error("reverse=1 needs the dim along the axis static");
  auto flip = [&](ExprRef v) {
    return ctx.call("strided_slice", {v},
                    {{"begin", attrs::ints({n - 1})},
                     {"end", attrs::ints({-n - 1})},
                     {"strides", attrs::ints({-1})},
                     {"axes", attrs::ints({axis})}});
  };
  if (reverse)
    y = flip(y);
  y = ctx.call(
      "cumsum", {y},
      {{"axis", attrs::integer(axis)}, {"exclusive", attrs::boolean(ctx.getInt("exclusive", 0))}});
  ctx.setOutput(0, reverse ? flip(y) : y);
  return Error::success();
}

} // namespace

void onnximport::addReduceConverters(ConverterTable &t) {
  // Opset 18 made the axes of every Reduce* but ReduceSum (13) an input;
  // 20 added bool to ReduceMax and ReduceMin.
  t.add("ReduceMean", {11, 17}, reduce<"mean", ListArg::Attribute>);
  t.add("ReduceMean", {18, 21}, reduce<"mean", ListArg::Input>);
  t.add("ReduceSum", {11, 12}, reduce<"sum", ListArg::Attribute>);
  t.add("ReduceSum", {13, 21}, reduce<"sum", ListArg::Input>);
  t.add("ReduceMax", {11, 17}, reduce<"max", ListArg::Attribute>);
  t.add("ReduceMax", {18, 21}, reduce<"max", ListArg::Input>);
  t.add("ReduceMin", {11, 17}, reduce<"min", ListArg::Attribute>);
  t.add("ReduceMin", {18, 21}, reduce<"min", ListArg::Input>);
  t.add("ReduceProd", {11, 17}, reduce<"prod", ListArg::Attribute>);
  t.add("ReduceProd", {18, 21}, reduce<"prod", ListArg::Input>);
  using enum Composite;
  t.add("ReduceL1", {11, 17}, composite<L1, ListArg::Attribute>);
  t.add("ReduceL1", {18, 21}, composite<L1, ListArg::Input>);
  t.add("ReduceL2", {11, 17}, composite<L2, ListArg::Attribute>);
  t.add("ReduceL2", {18, 21}, composite<L2, ListArg::Input>);
  t.add("ReduceSumSquare", {11, 17}, composite<SumSquare, ListArg::Attribute>);
  t.add("ReduceSumSquare", {18, 21}, composite<SumSquare, ListArg::Input>);
  t.add("ReduceLogSum", {11, 17}, composite<LogSum, ListArg::Attribute>);
  t.add("ReduceLogSum", {18, 21}, composite<LogSum, ListArg::Input>);
  t.add("ReduceLogSumExp", {11, 17}, composite<LogSumExp, ListArg::Attribute>);
  t.add("ReduceLogSumExp", {18, 21}, composite<LogSumExp, ListArg::Input>);
  // Opset 12 added select_last_index (0 before: one converter); 13 bfloat16.
  t.add("ArgMax", {11, 21}, argReduce<"argmax">);
  t.add("ArgMin", {11, 21}, argReduce<"argmin">);
  t.add("CumSum", {11, 21}, cumsum); // 14 only added float16 and bfloat16
}
