//===- OnnxElementwise.cpp - Converters of elementwise ONNX operators -----===//
//
// Unary and broadcasting binary operators map one to one onto hx's (Max and
// Min of more than two inputs fold pairwise); Clip's bounds, attributes
// before opset 11 and inputs known at import time from it, become
// attributes; Identity and Dropout (at inference; refused when asked to
// train, which it can be from opset 12) are their input. Gelu (opset 20)
// and Mish (18) are compositions of hx's elementwise operators.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include <cmath>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

template <OpName Op> Error unary(NodeCtx &ctx) {
  ctx.setOutput(0, ctx.call(Op.name, {ctx.use(0)}));
  return Error::success();
}

template <OpName Op> Error binary(NodeCtx &ctx) {
  ctx.setOutput(0, ctx.call(Op.name, {ctx.use(0), ctx.use(1)}));
  return Error::success();
}

/// Max and Min take any number of inputs.
template <OpName Op> Error variadic(NodeCtx &ctx) {
  ExprRef acc = ctx.use(0);
  for (size_t i = 1; i < ctx.numInputs(); ++i)
    acc = ctx.call(Op.name, {acc, ctx.use(i)});
  ctx.setOutput(0, acc);
  return Error::success();
}

Error identity(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ctx.alias(0, *x);
  if (ctx.node.output_size() > 1 && !ctx.node.output(1).empty()) // Dropout's mask
    return ctx.error("the mask output is not supported at inference");
  return Error::success();
}

/// Dropout-12 and later: the identity at inference, as Dropout-11. Its
/// third input, training_mode, may ask for training: a true or run-time
/// flag would drop values at random, which hx does not do, so it is refused
/// rather than imported as the identity (a silently wrong answer).
Error dropout(NodeCtx &ctx) {
  if (ctx.input(2)) {
    Expected<const HostTensor *> mode = ctx.known(2);
    if (!mode)
      return ctx.error("training_mode is given at run time; hx imports Dropout for inference "
                       "only (training_mode false)");
    if ((*mode)->numElements() != 1 || (*mode)->getDouble(0) != 0)
      return ctx.error("training_mode is true; hx imports Dropout for inference only "
                       "(training_mode false)");
  }
  return identity(ctx);
}

Error reciprocal(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ctx.setOutput(0, ctx.call("divide", {ctx.scalar(x->dtype, 1), ctx.use(*x)}));
  return Error::success();
}

Error leakyRelu(NodeCtx &ctx) {
  ctx.setOutput(0, ctx.call("nn.leaky_relu", {ctx.use(0)},
                            {{"alpha", attrs::real(ctx.getFloat("alpha", 0.01f))}}));
  return Error::success();
}

/// hx's text has no infinity: an unbounded side is the largest float.
AttrValue bound(double v) {
  if (std::isinf(v))
    v = v > 0 ? 3.4028234663852886e38 : -3.4028234663852886e38;
  return attrs::real(v);
}

Error clip(NodeCtx &ctx, double lo, double hi) {
  ctx.setOutput(0, ctx.call("clip", {ctx.use(0)}, {{"a_min", bound(lo)}, {"a_max", bound(hi)}}));
  return Error::success();
}

/// Clip-6: the bounds are attributes.
Error clipAttributes(NodeCtx &ctx) {
  return clip(ctx, ctx.getFloat("min", -INFINITY), ctx.getFloat("max", INFINITY));
}

/// Clip-11 and later: the bounds are optional inputs, which hx needs known.
Error clipInputs(NodeCtx &ctx) {
  double bounds[2] = {-INFINITY, INFINITY};
  for (size_t i : {1, 2}) {
    Expected<const HostTensor *> v = ctx.known(i);
    if (!v)
      return v.takeError();
    if (!*v)
      continue;
    if ((*v)->numElements() != 1 || std::isnan((*v)->getDouble(0)))
      return ctx.error(Twine(i == 1 ? "min" : "max") + " must be a number (a scalar, not NaN)");
    bounds[i - 1] = (*v)->getDouble(0);
  }
  return clip(ctx, bounds[0], bounds[1]);
}

Error cast(NodeCtx &ctx) {
  std::optional<DType> to = dtypeFromOnnx(ctx.getInt("to", 0));
  if (!to)
    return ctx.error("attribute 'to' is " + onnxTypeName(ctx.getInt("to", 0)) +
                     ", which hx has no dtype for");
  ctx.setOutput(0, ctx.call("cast", {ctx.use(0)}, {{"dtype", attrs::str(dtypeName(*to))}}));
  return Error::success();
}

/// Gelu (opset 20): x * Phi(x) by erf, or its tanh approximation.
Error gelu(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  std::string approximate = ctx.getString("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return ctx.error("approximate must be \"none\" or \"tanh\", not \"" + approximate + "\"");
  DType t = x->dtype;
  ExprRef in = ctx.use(*x), inner;
  if (approximate == "none") {
    inner = ctx.call("erf", {ctx.call("multiply", {in, ctx.scalar(t, M_SQRT1_2)})});
  } else {
    // sqrt(2/pi) * (x + 0.044715 x^3)
    ExprRef cube = ctx.call("multiply", {ctx.call("multiply", {in, in}), in});
    ExprRef poly = ctx.call("add", {in, ctx.call("multiply", {cube, ctx.scalar(t, 0.044715)})});
    inner = ctx.call("tanh", {ctx.call("multiply", {poly, ctx.scalar(t, M_2_SQRTPI * M_SQRT1_2)})});
  }
  ExprRef half = ctx.call("multiply", {in, ctx.scalar(t, 0.5)});
  ctx.setOutput(0, ctx.call("multiply", {half, ctx.call("add", {inner, ctx.scalar(t, 1)})}));
  return Error::success();
}

/// Mish (opset 18): x * tanh(softplus(x)), softplus(x) = log(1 + exp(x)).
Error mish(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ExprRef in = ctx.use(*x);
  ExprRef softplus =
      ctx.call("log", {ctx.call("add", {ctx.call("exp", {in}), ctx.scalar(x->dtype, 1)})});
  ctx.setOutput(0, ctx.call("multiply", {in, ctx.call("tanh", {softplus})}));
  return Error::success();
}

Error where(NodeCtx &ctx) {
  ctx.setOutput(0, ctx.call("where", {ctx.use(0), ctx.use(1), ctx.use(2)}));
  return Error::success();
}

} // namespace

void onnximport::addElementwiseConverters(ConverterTable &t) {
  t.add("Abs", {11, 21}, unary<"abs">);
  t.add("Erf", {11, 21}, unary<"erf">);
  t.add("Exp", {11, 21}, unary<"exp">);
  t.add("Log", {11, 21}, unary<"log">);
  t.add("Neg", {11, 21}, unary<"negative">);
  t.add("Relu", {11, 21}, unary<"nn.relu">);
  t.add("Sigmoid", {11, 21}, unary<"sigmoid">);
  t.add("Sqrt", {11, 21}, unary<"sqrt">);
  t.add("Tanh", {11, 21}, unary<"tanh">);
  t.add("Reciprocal", {11, 21}, reciprocal);
  t.add("LeakyRelu", {11, 21}, leakyRelu);

  t.add("Add", {11, 21}, binary<"add">);
  t.add("Sub", {11, 21}, binary<"subtract">);
  t.add("Mul", {11, 21}, binary<"multiply">);
  t.add("Div", {11, 21}, binary<"divide">);
  t.add("Pow", {11, 21}, binary<"power">);
  t.add("Equal", {11, 21}, binary<"equal">);
  t.add("Less", {11, 21}, binary<"less">);
  t.add("Greater", {11, 21}, binary<"greater">);
  t.add("Max", {11, 21}, variadic<"maximum">);
  t.add("Min", {11, 21}, variadic<"minimum">);
  t.add("Where", {11, 21}, where);

  t.add("Clip", {6, 10}, clipAttributes);
  t.add("Clip", {11, 21}, clipInputs);
  t.add("Cast", {11, 21}, cast);
  t.add("Identity", {11, 21}, identity);
  t.add("Dropout", {11, 11}, identity);
  t.add("Dropout", {12, 21}, dropout);
  t.add("Gelu", {20, 21}, gelu);
  t.add("Mish", {18, 21}, mish);
}
