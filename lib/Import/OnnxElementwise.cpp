//===- OnnxElementwise.cpp - Converters of elementwise ONNX operators -----===//
//
// Unary and broadcasting binary operators map one to one onto hx's (Max,
// Min and Sum of more than two inputs fold pairwise; Mod picks floor_mod or
// mod by its fmod attribute, BitShift left_shift or right_shift by its
// direction); Clip's bounds, attributes before opset 11 and inputs known at
// import time from it, become attributes; Identity and Dropout (at
// inference; refused when asked to train, which it can be from opset 12)
// are their input. The activations ONNX defines by formulas (Softplus,
// Elu, Selu, Celu, HardSigmoid, HardSwish, PRelu, Shrink, ...) and Mean
// are those formulas in hx's operators, with no kernel of their own, as are
// Gelu (opset 20) and Mish (18). Opset 18's Bitwise* are hx's bitwise_*.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include "llvm/Support/FormatVariadic.h"
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
/// rather than imported as the identity (a silently wrong answer), unless
/// the ratio is known to be 0, which drops nothing (PyTorch exports
/// F.dropout(p=0.0, training=True) so).
Error dropout(NodeCtx &ctx) {
  if (ctx.input(2)) {
    if (ctx.input(1)) {
      Expected<const HostTensor *> ratio = ctx.known(1);
      if (!ratio)
        consumeError(ratio.takeError());
      else if ((*ratio)->numElements() == 1 && (*ratio)->getDouble(0) == 0) {
        TRY(x, ctx.required(0));
        ctx.alias(0, *x);
        if (ctx.node.output_size() > 1 && !ctx.node.output(1).empty()) {
          // The mask keeps every element.
          if (!x->isStatic() || elementCount(*x->dims) < 0)
            return ctx.error("the mask output needs the input's shape static");
          HostTensor mask(DType::Bool, *x->dims);
          for (int64_t i = 0, n = mask.numElements(); i < n; ++i)
            mask.setDouble(i, 1);
          ctx.setConstant(1, std::move(mask));
        }
        return Error::success();
      }
    }
    Expected<const HostTensor *> mode = ctx.known(2);
    if (!mode) {
      consumeError(mode.takeError());
      return ctx.error("training_mode is given at run time; hx imports Dropout for inference "
                       "only (training_mode false)");
    }
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

/// IsInf-10: isinf, narrowed to one sign by detect_positive and
/// detect_negative.
Error isInf(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  bool pos = ctx.getInt("detect_positive", 1) != 0, neg = ctx.getInt("detect_negative", 1) != 0;
  ExprRef inf = ctx.call("isinf", {ctx.use(*x)});
  if (!pos || !neg) {
    ExprRef side = pos   ? ctx.call("greater", {ctx.use(*x), ctx.scalar(x->dtype, 0)})
                   : neg ? ctx.call("less", {ctx.use(*x), ctx.scalar(x->dtype, 0)})
                         : ctx.scalar(DType::Bool, 0);
    inf = ctx.call("logical_and", {inf, side});
  }
  ctx.setOutput(0, inf);
  return Error::success();
}

/// Mod-10 and Mod-13: fmod 0, integers only, takes the divisor's sign
/// (floor_mod); fmod 1 the dividend's (mod, C's fmod).
Error mod(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  int64_t fmod = ctx.getInt("fmod", 0);
  if (fmod != 0 && fmod != 1)
    return ctx.error("attribute 'fmod' is " + Twine(fmod) + "; ONNX defines 0 and 1");
  if (fmod == 0 && isFloat(x->dtype))
    return ctx.error("fmod 0 (the divisor's sign) on " + dtypeName(x->dtype) +
                     " inputs; ONNX defines floats' Mod with fmod 1 only");
  ctx.setOutput(0, ctx.call(fmod ? "mod" : "floor_mod", {ctx.use(*x), ctx.use(1)}));
  return Error::success();
}

/// BitShift-11: direction LEFT or RIGHT (ONNX defines it on unsigned
/// integers: hx's shifts are logical there).
Error bitShift(NodeCtx &ctx) {
  std::string dir = ctx.getString("direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    return ctx.error("attribute 'direction' is '" + dir + "'; ONNX defines LEFT and RIGHT");
  ctx.setOutput(0,
                ctx.call(dir == "LEFT" ? "left_shift" : "right_shift", {ctx.use(0), ctx.use(1)}));
  return Error::success();
}

/// Pow: the result has the base's dtype. An exponent of another dtype is
/// cast to the base's, but for an integer base with a float exponent,
/// computed in the exponent's dtype and cast back (as ONNX Runtime).
Error pow(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(y, ctx.required(1));
  ExprRef a = ctx.use(*x), b = ctx.use(*y);
  auto cast = [&](ExprRef e, DType t) {
    return ctx.call("cast", {std::move(e)}, {{"dtype", attrs::str(dtypeName(t))}});
  };
  if (x->dtype == y->dtype)
    ctx.setOutput(0, ctx.call("power", {a, b}));
  else if (!isFloat(x->dtype) && isFloat(y->dtype))
    ctx.setOutput(0, cast(ctx.call("power", {cast(a, y->dtype), b}), x->dtype));
  else
    ctx.setOutput(0, ctx.call("power", {a, cast(b, x->dtype)}));
  return Error::success();
}

/// Softplus: log(1 + e^x), as max(x, 0) + log(1 + e^-|x|), which never
/// overflows.
Error softplus(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ExprRef e = ctx.call("exp", {ctx.call("negative", {ctx.call("abs", {ctx.use(*x)})})});
  ExprRef l = ctx.call("log", {ctx.call("add", {e, ctx.scalar(x->dtype, 1)})});
  ctx.setOutput(0, ctx.call("add", {ctx.call("nn.relu", {ctx.use(*x)}), l}));
  return Error::success();
}

/// Softsign: x / (1 + |x|).
Error softsign(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ExprRef d = ctx.call("add", {ctx.call("abs", {ctx.use(*x)}), ctx.scalar(x->dtype, 1)});
  ctx.setOutput(0, ctx.call("divide", {ctx.use(*x), d}));
  return Error::success();
}

/// x where x > 0, else alpha * (e^x - 1): Elu's and Selu's body.
ExprRef eluOf(NodeCtx &ctx, OnnxValue &x, float alpha) {
  ExprRef em1 = ctx.call("subtract", {ctx.call("exp", {ctx.use(x)}), ctx.scalar(x.dtype, 1)});
  ExprRef neg = ctx.call("multiply", {ctx.scalar(x.dtype, alpha), em1});
  ExprRef pos = ctx.call("greater", {ctx.use(x), ctx.scalar(x.dtype, 0)});
  return ctx.call("where", {pos, ctx.use(x), neg});
}

Error elu(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ctx.setOutput(0, eluOf(ctx, *x, ctx.getFloat("alpha", 1.0f)));
  return Error::success();
}

/// Selu: gamma * elu(x, alpha).
Error selu(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ExprRef e = eluOf(ctx, *x, ctx.getFloat("alpha", 1.67326319217681884765625f));
  float gamma = ctx.getFloat("gamma", 1.05070102214813232421875f);
  ctx.setOutput(0, ctx.call("multiply", {ctx.scalar(x->dtype, gamma), e}));
  return Error::success();
}

/// Celu-12: max(0, x) + min(0, alpha * (e^(x / alpha) - 1)).
Error celu(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  float alpha = ctx.getFloat("alpha", 1.0f);
  if (alpha == 0)
    return ctx.error("attribute 'alpha' is 0");
  ExprRef e = ctx.call("exp", {ctx.call("divide", {ctx.use(*x), ctx.scalar(x->dtype, alpha)})});
  ExprRef neg = ctx.call("multiply", {ctx.scalar(x->dtype, alpha),
                                      ctx.call("subtract", {e, ctx.scalar(x->dtype, 1)})});
  neg = ctx.call("minimum", {neg, ctx.scalar(x->dtype, 0)});
  ctx.setOutput(0, ctx.call("add", {ctx.call("nn.relu", {ctx.use(*x)}), neg}));
  return Error::success();
}

/// ThresholdedRelu: x where x > alpha, else 0.
Error thresholdedRelu(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  float alpha = ctx.getFloat("alpha", 1.0f);
  ExprRef above = ctx.call("greater", {ctx.use(*x), ctx.scalar(x->dtype, alpha)});
  ctx.setOutput(0, ctx.call("where", {above, ctx.use(*x), ctx.scalar(x->dtype, 0)}));
  return Error::success();
}

/// max(0, min(1, alpha * x + beta)).
ExprRef hardSigmoidOf(NodeCtx &ctx, OnnxValue &x, float alpha, float beta) {
  ExprRef y = ctx.call("multiply", {ctx.use(x), ctx.scalar(x.dtype, alpha)});
  y = ctx.call("add", {y, ctx.scalar(x.dtype, beta)});
  return ctx.call("clip", {y}, {{"a_min", attrs::real(0)}, {"a_max", attrs::real(1)}});
}

Error hardSigmoid(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ctx.setOutput(0, hardSigmoidOf(ctx, *x, ctx.getFloat("alpha", 0.2f), ctx.getFloat("beta", 0.5f)));
  return Error::success();
}

/// HardSwish-14: x * hardsigmoid(x) with alpha 1/6 and beta 1/2.
Error hardSwish(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ExprRef s = hardSigmoidOf(ctx, *x, 1.0f / 6, 0.5f);
  ctx.setOutput(0, ctx.call("multiply", {ctx.use(*x), s}));
  return Error::success();
}

/// PRelu: slope * x where x < 0, else x. The slope broadcasts to x
/// (unidirectionally: the result has x's shape).
Error prelu(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(slope, ctx.required(1));
  if (x->dims && slope->dims) {
    const Dims &xd = *x->dims, &sd = *slope->dims;
    bool fits = sd.size() <= xd.size();
    for (size_t i = 0; fits && i < sd.size(); ++i) {
      int64_t s = sd[sd.size() - 1 - i], d = xd[xd.size() - 1 - i];
      fits = s == 1 || s == d || (s < 0 && d < 0);
    }
    if (!fits)
      return ctx.error("the slope's shape does not broadcast to the input's");
  }
  ExprRef neg = ctx.call("less", {ctx.use(*x), ctx.scalar(x->dtype, 0)});
  ExprRef scaled = ctx.call("multiply", {ctx.use(*slope), ctx.use(*x)});
  ctx.setOutput(0, ctx.call("where", {neg, scaled, ctx.use(*x)}));
  return Error::success();
}

/// Mean: the sum of the inputs over their count.
Error mean(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ExprRef acc = ctx.use(*x);
  for (size_t i = 1; i < ctx.numInputs(); ++i)
    acc = ctx.call("add", {acc, ctx.use(i)});
  ctx.setOutput(0, ctx.call("divide", {acc, ctx.scalar(x->dtype, double(ctx.numInputs()))}));
  return Error::success();
}

/// CastLike-15: a cast to input 1's dtype.
Error castLike(NodeCtx &ctx) {
  TRY(like, ctx.required(1));
  ctx.setOutput(0, ctx.call("cast", {ctx.use(0)}, {{"dtype", attrs::str(dtypeName(like->dtype))}}));
  return Error::success();
}

/// Shrink: x + bias where x < -lambd, x - bias where x > lambd, else 0.
Error shrink(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  float lambd = ctx.getFloat("lambd", 0.5f), bias = ctx.getFloat("bias", 0.0f);
  if (!isFloat(x->dtype) && (lambd != std::trunc(lambd) || bias != std::trunc(bias)))
    return ctx.error("lambd (" + formatv("{0}", lambd).str() + ") and bias (" +
                     formatv("{0}", bias).str() + ") must be integers for " + dtypeName(x->dtype) +
                     " inputs");
  DType t = x->dtype;
  ExprRef hi = ctx.call("greater", {ctx.use(*x), ctx.scalar(t, lambd)});
  ExprRef y = ctx.call(
      "where", {hi, ctx.call("subtract", {ctx.use(*x), ctx.scalar(t, bias)}), ctx.scalar(t, 0)});
  ExprRef lo = ctx.call("less", {ctx.use(*x), ctx.scalar(t, -lambd)});
  ctx.setOutput(0, ctx.call("where", {lo, ctx.call("add", {ctx.use(*x), ctx.scalar(t, bias)}), y}));
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
  // Since opset 6 or 7 (Floor, Ceil, Sin, ..., Atan), 9 (Sign, Sinh, ...,
  // Atanh, IsNaN) and 11 (Round); -13 only widens the dtypes.
  t.add("Floor", {11, 21}, unary<"floor">);
  t.add("Ceil", {11, 21}, unary<"ceil">);
  t.add("Round", {11, 21}, unary<"round">);
  t.add("Sign", {11, 21}, unary<"sign">);
  t.add("Sin", {11, 21}, unary<"sin">);
  t.add("Cos", {11, 21}, unary<"cos">);
  t.add("Tan", {11, 21}, unary<"tan">);
  t.add("Asin", {11, 21}, unary<"asin">);
  t.add("Acos", {11, 21}, unary<"acos">);
  t.add("Atan", {11, 21}, unary<"atan">);
  t.add("Sinh", {11, 21}, unary<"sinh">);
  t.add("Cosh", {11, 21}, unary<"cosh">);
  t.add("Asinh", {11, 21}, unary<"asinh">);
  t.add("Acosh", {11, 21}, unary<"acosh">);
  t.add("Atanh", {11, 21}, unary<"atanh">);
  t.add("IsNaN", {11, 21}, unary<"isnan">);
  t.add("IsInf", {11, 21}, isInf);              // since 10
  t.add("Not", {11, 21}, unary<"logical_not">); // since 1
  // The activations defined by formulas: Softplus, Softsign, Elu, Selu,
  // HardSigmoid since 1 or 6, ThresholdedRelu 10, Shrink 9, PRelu 9
  // (unidirectional broadcasting from 7), Celu 12, HardSwish 14.
  t.add("Softplus", {11, 21}, softplus);
  t.add("Softsign", {11, 21}, softsign);
  t.add("Elu", {11, 21}, elu);
  t.add("Selu", {11, 21}, selu);
  t.add("Celu", {12, 21}, celu);
  t.add("ThresholdedRelu", {11, 21}, thresholdedRelu);
  t.add("HardSigmoid", {11, 21}, hardSigmoid);
  t.add("HardSwish", {14, 21}, hardSwish);
  t.add("PRelu", {11, 21}, prelu);
  t.add("Shrink", {11, 21}, shrink);

  t.add("Add", {11, 21}, binary<"add">);
  t.add("Sub", {11, 21}, binary<"subtract">);
  t.add("Mul", {11, 21}, binary<"multiply">);
  t.add("Div", {11, 21}, binary<"divide">);
  t.add("Pow", {11, 21}, pow);
  t.add("Equal", {11, 21}, binary<"equal">);
  t.add("Less", {11, 21}, binary<"less">);
  t.add("Greater", {11, 21}, binary<"greater">);
  t.add("Max", {11, 21}, variadic<"maximum">);
  t.add("Min", {11, 21}, variadic<"minimum">);
  t.add("Where", {11, 21}, where);
  // GreaterOrEqual and LessOrEqual since 12; And, Or, Xor since 7; Mod 10;
  // BitShift 11; Sum and Mean 8 (multidirectional broadcasting).
  t.add("GreaterOrEqual", {12, 21}, binary<"greater_equal">);
  t.add("LessOrEqual", {12, 21}, binary<"less_equal">);
  t.add("And", {11, 21}, binary<"logical_and">);
  t.add("Or", {11, 21}, binary<"logical_or">);
  t.add("Xor", {11, 21}, binary<"logical_xor">);
  t.add("Mod", {11, 21}, mod);
  t.add("BitShift", {11, 21}, bitShift);
  t.add("Sum", {11, 21}, variadic<"add">);
  t.add("Mean", {11, 21}, mean);

  t.add("Clip", {6, 10}, clipAttributes);
  t.add("Clip", {11, 21}, clipInputs);
  t.add("Cast", {11, 21}, cast);
  t.add("CastLike", {15, 21}, castLike); // since 15
  t.add("Identity", {11, 21}, identity);
  t.add("Dropout", {11, 11}, identity);
  t.add("Dropout", {12, 21}, dropout);
  t.add("Gelu", {20, 21}, gelu);
  t.add("Mish", {18, 21}, mish);
  t.add("BitwiseAnd", {18, 21}, binary<"bitwise_and">);
  t.add("BitwiseOr", {18, 21}, binary<"bitwise_or">);
  t.add("BitwiseXor", {18, 21}, binary<"bitwise_xor">);
  t.add("BitwiseNot", {18, 21}, unary<"bitwise_not">);
}
