//===- Elementwise.cpp - Kernels of broadcasting and unary operators ------===//
//
// Every operator of lib/Ops/Elementwise.cpp is one strided nest over the
// result shape (LoopNest.h): the result is contiguous, each operand is read
// through its broadcast strides (stride 0 on a broadcast dim), and the body
// computes one element:
//
//   add(Tensor[(5, 1), f32], Tensor[(7), f32]) -> (5, 7):
//     parallel over 5 rows { for j in 0..7: out[i*7+j] = a[i] + b[j] }
//
// The operators differ only in the scalar function applied per element,
// which is what this file spells out per operator.
//
//===----------------------------------------------------------------------===//

#include "../LoopNest.h"
#include "OpKernels.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>

using namespace llvm;

namespace hx {

namespace {
enum class Binary {
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Pow,
  Equal,
  Less,
  Greater,
  LessEqual,
  GreaterEqual,
  FloorMod,
  Mod,
  And,
  Or,
  Xor,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr
};
enum class Unary {
  Neg,
  Abs,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,
  Sigmoid,
  Relu,
  Clip,
  Cast,
  Erf,
  LeakyRelu,
  Copy,
  Floor,
  Ceil,
  Round,
  Sign,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  IsNaN,
  IsInf,
  Not,
  BitNot
};
} // namespace

/// Checks that every operand broadcasts to the result (InferType
/// guarantees it for checked calls; the strides below rely on it).
static Error checkOperandShapes(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *out = spec.outputs[0];
  for (const TensorType *in : spec.inputs)
    if (!broadcastsTo(in->shape, out->shape))
      return unsupported(kb, spec,
                         "an operand of shape " + shapeToString(in->shape) +
                             " for a result of shape " + shapeToString(out->shape));
  return Error::success();
}

/// Estimated scalar operations per element of a math-function call.
static constexpr int64_t kMathWork = 20;

static Value *applyBinary(KernelBuilder &kb, Binary op, DType t, Value *x, Value *y) {
  switch (op) {
  case Binary::Add:
    return kb.add(t, x, y);
  case Binary::Sub:
    return kb.sub(t, x, y);
  case Binary::Mul:
    return kb.mul(t, x, y);
  case Binary::Div:
    return kb.div(t, x, y);
  case Binary::Max:
    return kb.max(t, x, y);
  case Binary::Min:
    return kb.min(t, x, y);
  case Binary::Pow:
    if (!isFloat(t)) { // in float64, truncated and wrapped as the interpreter's
      const DType f = DType::Float64;
      Value *p = kb.math(MathFn::Pow, f, {kb.cast(x, t, f), kb.cast(y, t, f)});
      // An exact integer power below 2^53 is exact in a correctly rounded
      // pow (the host's), but CUDA's libdevice pow is within 2 ulp and may
      // give 3^1 as 2.9999999999999996, truncated to 2: a result within a
      // few ulp of an integer is that integer.
      Value *n = kb.math(MathFn::RoundEven, f, {p});
      Value *near = kb.compare(CmpOp::LE, f, kb.abs(f, kb.sub(f, p, n)),
                               kb.mul(f, kb.abs(f, n), kb.constant(f, 0x1p-50)));
      return kb.cast(kb.select(near, n, p), f, t);
    }
    return kb.math(MathFn::Pow, t, {x, y});
  case Binary::Equal:
    return kb.compare(CmpOp::EQ, t, x, y);
  case Binary::Less:
    return kb.compare(CmpOp::LT, t, x, y);
  case Binary::Greater:
    return kb.compare(CmpOp::GT, t, x, y);
  case Binary::LessEqual:
    return kb.compare(CmpOp::LE, t, x, y);
  case Binary::GreaterEqual:
    return kb.compare(CmpOp::GE, t, x, y);
  case Binary::Mod:
    return kb.rem(t, x, y);
  case Binary::FloorMod: {
    // The truncated remainder, plus y where it is nonzero and its sign
    // differs from y's.
    Value *r = kb.rem(t, x, y);
    Value *zero = kb.constant(t, 0);
    Value *differ =
        kb.logicalAnd(kb.compare(CmpOp::NE, t, r, zero),
                      kb.compare(CmpOp::NE, DType::Bool, kb.compare(CmpOp::LT, t, r, zero),
                                 kb.compare(CmpOp::LT, t, y, zero)));
    return kb.select(differ, kb.add(t, r, y), r);
  }
  case Binary::And:
    return kb.logicalAnd(x, y);
  case Binary::Or:
    return kb.logicalOr(x, y);
  case Binary::Xor:
    return kb.compare(CmpOp::NE, DType::Bool, x, y);
  case Binary::BitAnd:
    return kb.bitAnd(x, y);
  case Binary::BitOr:
    return kb.bitOr(x, y);
  case Binary::BitXor:
    return kb.bitXor(x, y);
  case Binary::Shl:
    return kb.shiftLeft(t, x, y);
  case Binary::Shr:
    return kb.shiftRight(t, x, y);
  }
  llvm_unreachable("unknown binary operator");
}

/// power's exponent where it is a small integral literal (1 to 4, or -1):
/// then x * x is the correctly rounded square, as pow's is.
static std::optional<double> smallPower(const KernelSpec &spec) {
  // Integers go through float64 as the interpreter's (products would wrap
  // where the interpreter saturates).
  if (!isFloat(spec.inputs[0]->dtype))
    return std::nullopt;
  std::optional<double> k = specializedLiteral(*spec.call, 1);
  if (k && *k != -1 && !(*k >= 1 && *k <= 4 && *k == double(int64_t(*k))))
    k.reset();
  return k;
}

static Value *binaryValue(KernelBuilder &kb, Binary op, DType t, Value *x, Value *y,
                          std::optional<double> k) {
  if (k && *k == -1)
    return kb.div(t, kb.constant(t, 1), x);
  if (k) {
    Value *x2 = kb.mul(t, x, x);
    return *k == 1 ? x : *k == 2 ? x2 : *k == 3 ? kb.mul(t, x2, x) : kb.mul(t, x2, x2);
  }
  return applyBinary(kb, op, t, x, y);
}

static bool isTranscendental(Unary op) {
  switch (op) {
  case Unary::Exp:
  case Unary::Log:
  case Unary::Sqrt:
  case Unary::Rsqrt:
  case Unary::Tanh:
  case Unary::Sigmoid:
  case Unary::Erf:
  case Unary::Floor:
  case Unary::Ceil:
  case Unary::Round:
  case Unary::Sin:
  case Unary::Cos:
  case Unary::Tan:
  case Unary::Asin:
  case Unary::Acos:
  case Unary::Atan:
  case Unary::Sinh:
  case Unary::Cosh:
  case Unary::Asinh:
  case Unary::Acosh:
  case Unary::Atanh:
    return true;
  default:
    return false;
  }
}

/// The math function of a unary operator that is one call.
static std::optional<MathFn> mathOf(Unary op) {
  switch (op) {
  case Unary::Floor:
    return MathFn::Floor;
  case Unary::Ceil:
    return MathFn::Ceil;
  case Unary::Round:
    return MathFn::RoundEven;
  case Unary::Sin:
    return MathFn::Sin;
  case Unary::Cos:
    return MathFn::Cos;
  case Unary::Tan:
    return MathFn::Tan;
  case Unary::Asin:
    return MathFn::Asin;
  case Unary::Acos:
    return MathFn::Acos;
  case Unary::Atan:
    return MathFn::Atan;
  case Unary::Sinh:
    return MathFn::Sinh;
  case Unary::Cosh:
    return MathFn::Cosh;
  case Unary::Asinh:
    return MathFn::Asinh;
  case Unary::Acosh:
    return MathFn::Acosh;
  case Unary::Atanh:
    return MathFn::Atanh;
  default:
    return std::nullopt;
  }
}

static Value *unaryValue(KernelBuilder &kb, Unary op, const KernelSpec &spec, Value *x) {
  DType t = spec.inputs[0]->dtype;
  if (std::optional<MathFn> fn = mathOf(op))
    return kb.math(*fn, t, {x});
  switch (op) {
  case Unary::Neg:
    return kb.neg(t, x);
  case Unary::Abs:
    return kb.abs(t, x);
  case Unary::Exp:
    return kb.math(MathFn::Exp, t, {x});
  case Unary::Log:
    return kb.math(MathFn::Log, t, {x});
  case Unary::Sqrt:
    return kb.math(MathFn::Sqrt, t, {x});
  case Unary::Rsqrt:
    return kb.div(t, kb.constant(t, 1), kb.math(MathFn::Sqrt, t, {x}));
  case Unary::Tanh:
    return kb.math(MathFn::Tanh, t, {x});
  case Unary::Sigmoid:
    return kb.sigmoid(t, x);
  case Unary::Relu:
    return kb.max(t, x, kb.constant(t, 0));
  case Unary::Clip:
    // Integer bounds truncate toward zero, which clamps integers exactly as
    // clamping in double and truncating the result would.
    return kb.min(t, kb.max(t, x, kb.constant(t, spec.getFloat("a_min"))),
                  kb.constant(t, spec.getFloat("a_max")));
  case Unary::Cast:
    return kb.cast(x, t, spec.outputs[0]->dtype);
  case Unary::Erf:
    return kb.math(MathFn::Erf, t, {x});
  case Unary::LeakyRelu:
    // alpha as a float32 (not rounded to a half or bfloat16 first), as the
    // interpreter multiplies by it.
    return kb.select(
        kb.compare(CmpOp::GT, t, x, kb.constant(t, 0)), x,
        kb.mul(t, kb.constant(KernelBuilder::valueDType(t), spec.getFloat("alpha")), x));
  case Unary::Copy:
    return x;
  case Unary::Sign: {
    // -1 below zero, 1 above; zero (of either sign) and NaN stay.
    Value *zero = kb.constant(t, 0);
    Value *r = kb.select(kb.compare(CmpOp::LT, t, x, zero), kb.constant(t, -1), x);
    return kb.select(kb.compare(CmpOp::GT, t, x, zero), kb.constant(t, 1), r);
  }
  case Unary::IsNaN:
    return kb.isNaN(t, x);
  case Unary::IsInf:
    return kb.compare(CmpOp::EQ, t, kb.abs(t, x), kb.constant(t, INFINITY));
  case Unary::Not:
    return kb.logicalNot(x);
  case Unary::BitNot:
    return kb.bitNot(x);
  default: // the math functions, above
    break;
  }
  llvm_unreachable("unknown unary operator");
}

/// What each operator of this file computes per element.
namespace {
struct ElementwiseOp {
  enum Kind : uint8_t { BinaryOp, UnaryOp, Where } kind;
  Binary binary = Binary::Add;
  Unary unary = Unary::Copy;
};
} // namespace

static std::optional<ElementwiseOp> elementwiseOp(StringRef name) {
  using E = ElementwiseOp;
  auto bin = [](Binary b) { return E{E::BinaryOp, b, Unary::Copy}; };
  auto un = [](Unary u) { return E{E::UnaryOp, Binary::Add, u}; };
  return StringSwitch<std::optional<E>>(name)
      .Case("add", bin(Binary::Add))
      .Case("subtract", bin(Binary::Sub))
      .Case("multiply", bin(Binary::Mul))
      .Case("divide", bin(Binary::Div))
      .Case("maximum", bin(Binary::Max))
      .Case("minimum", bin(Binary::Min))
      .Case("power", bin(Binary::Pow))
      .Case("equal", bin(Binary::Equal))
      .Case("less", bin(Binary::Less))
      .Case("greater", bin(Binary::Greater))
      .Case("less_equal", bin(Binary::LessEqual))
      .Case("greater_equal", bin(Binary::GreaterEqual))
      .Case("floor_mod", bin(Binary::FloorMod))
      .Case("mod", bin(Binary::Mod))
      .Case("logical_and", bin(Binary::And))
      .Case("logical_or", bin(Binary::Or))
      .Case("logical_xor", bin(Binary::Xor))
      .Case("bitwise_and", bin(Binary::BitAnd))
      .Case("bitwise_or", bin(Binary::BitOr))
      .Case("bitwise_xor", bin(Binary::BitXor))
      .Case("left_shift", bin(Binary::Shl))
      .Case("right_shift", bin(Binary::Shr))
      .Case("where", E{E::Where})
      .Case("negative", un(Unary::Neg))
      .Case("abs", un(Unary::Abs))
      .Case("exp", un(Unary::Exp))
      .Case("log", un(Unary::Log))
      .Case("sqrt", un(Unary::Sqrt))
      .Case("rsqrt", un(Unary::Rsqrt))
      .Case("tanh", un(Unary::Tanh))
      .Case("sigmoid", un(Unary::Sigmoid))
      .Case("nn.relu", un(Unary::Relu))
      .Case("erf", un(Unary::Erf))
      .Case("nn.leaky_relu", un(Unary::LeakyRelu))
      .Case("copy", un(Unary::Copy))
      .Case("floor", un(Unary::Floor))
      .Case("ceil", un(Unary::Ceil))
      .Case("round", un(Unary::Round))
      .Case("sign", un(Unary::Sign))
      .Case("sin", un(Unary::Sin))
      .Case("cos", un(Unary::Cos))
      .Case("tan", un(Unary::Tan))
      .Case("asin", un(Unary::Asin))
      .Case("acos", un(Unary::Acos))
      .Case("atan", un(Unary::Atan))
      .Case("sinh", un(Unary::Sinh))
      .Case("cosh", un(Unary::Cosh))
      .Case("asinh", un(Unary::Asinh))
      .Case("acosh", un(Unary::Acosh))
      .Case("atanh", un(Unary::Atanh))
      .Case("isnan", un(Unary::IsNaN))
      .Case("isinf", un(Unary::IsInf))
      .Case("logical_not", un(Unary::Not))
      .Case("bitwise_not", un(Unary::BitNot))
      .Case("clip", un(Unary::Clip))
      .Case("cast", un(Unary::Cast))
      // data + bias, the bias read along the axis (bias_add's kernel, Nn.cpp).
      .Case("nn.bias_add", bin(Binary::Add))
      .Default(std::nullopt);
}

/// The operators that work on bits: integers or bool only.
static bool needsBits(const ElementwiseOp &op) {
  if (op.kind == ElementwiseOp::UnaryOp)
    return op.unary == Unary::Not || op.unary == Unary::BitNot;
  return op.kind == ElementwiseOp::BinaryOp &&
         (op.binary == Binary::And || op.binary == Binary::Or || op.binary == Binary::Xor ||
          op.binary == Binary::BitAnd || op.binary == Binary::BitOr ||
          op.binary == Binary::BitXor || op.binary == Binary::Shl || op.binary == Binary::Shr);
}

Error checkElementwiseValue(KernelBuilder &kb, const KernelSpec &spec) {
  std::optional<ElementwiseOp> op = elementwiseOp(spec.opName());
  if (!op)
    return unsupported(kb, spec, "a fused elementwise use");
  DType t = spec.inputs[0]->dtype;
  if (op->kind == ElementwiseOp::UnaryOp && isTranscendental(op->unary) && !isFloat(t))
    return unsupported(kb, spec, "dtype " + dtypeName(t));
  if (needsBits(*op) && !isInteger(t) && t != DType::Bool)
    return unsupported(kb, spec, "dtype " + dtypeName(t));
  if (op->kind == ElementwiseOp::UnaryOp && spec.inputs[0]->shape != spec.outputs[0]->shape)
    return unsupported(kb, spec, "a result of another shape than the operand");
  if (spec.opName() != "nn.bias_add")
    return checkOperandShapes(kb, spec);
  return Error::success();
}

bool elementwiseIsMath(const KernelSpec &spec) {
  std::optional<ElementwiseOp> op = elementwiseOp(spec.opName());
  if (!op)
    return false;
  return (op->kind == ElementwiseOp::UnaryOp && isTranscendental(op->unary)) ||
         (op->kind == ElementwiseOp::BinaryOp && op->binary == Binary::Pow && !smallPower(spec));
}

Value *elementwiseValue(KernelBuilder &kb, const KernelSpec &spec, ArrayRef<Value *> x) {
  ElementwiseOp op = *elementwiseOp(spec.opName());
  switch (op.kind) {
  case ElementwiseOp::BinaryOp:
    return binaryValue(kb, op.binary, spec.inputs[0]->dtype, x[0], x[1],
                       op.binary == Binary::Pow ? smallPower(spec) : std::nullopt);
  case ElementwiseOp::UnaryOp:
    return unaryValue(kb, op.unary, spec, x[0]);
  case ElementwiseOp::Where:
    return kb.select(kb.isNonzero(spec.inputs[0]->dtype, x[0]), x[1], x[2]);
  }
  llvm_unreachable("unknown elementwise operator");
}

/// Every operator of this file: one strided nest over the result, operands
/// read through their broadcast strides.
static Error elementwiseKernel(KernelBuilder &kb, const KernelSpec &spec) {
  if (Error e = checkElementwiseValue(kb, spec))
    return e;
  ElementwiseOp op = *elementwiseOp(spec.opName());
  const TensorType *out = spec.outputs[0];
  SmallVector<StridedOperand, 4> views{{contiguousStrides(out->shape), 0}};
  for (const TensorType *in : spec.inputs)
    views.push_back({broadcastStrides(in->shape, out->shape), 0});
  // power with a small literal exponent never reads it.
  std::optional<double> k = op.kind == ElementwiseOp::BinaryOp && op.binary == Binary::Pow
                                ? smallPower(spec)
                                : std::nullopt;
  int64_t work = elementwiseIsMath(spec)                                          ? kMathWork
                 : op.kind == ElementwiseOp::BinaryOp && op.binary == Binary::Div ? 4
                                                                                  : 1;
  emitStridedLoops(kb, out->shape, views, work, [&](ArrayRef<Value *> off) {
    SmallVector<Value *, 3> x;
    for (unsigned i = 0; i < spec.inputs.size(); ++i)
      x.push_back(k && i == 1
                      ? nullptr
                      : kb.load(spec.inputs[i]->dtype, kb.buffer(spec.inputBuffer(i)), off[i + 1]));
    kb.store(out->dtype, kb.buffer(spec.outputBuffer(0)), off[0], elementwiseValue(kb, spec, x));
  });
  return Error::success();
}

ArrayRef<KernelEntry> elementwiseKernels() {
  static const KernelEntry table[] = {
      {"add", elementwiseKernel},         {"subtract", elementwiseKernel},
      {"multiply", elementwiseKernel},    {"divide", elementwiseKernel},
      {"maximum", elementwiseKernel},     {"minimum", elementwiseKernel},
      {"power", elementwiseKernel},       {"equal", elementwiseKernel},
      {"less", elementwiseKernel},        {"greater", elementwiseKernel},
      {"less_equal", elementwiseKernel},  {"greater_equal", elementwiseKernel},
      {"floor_mod", elementwiseKernel},   {"mod", elementwiseKernel},
      {"logical_and", elementwiseKernel}, {"logical_or", elementwiseKernel},
      {"logical_xor", elementwiseKernel}, {"bitwise_and", elementwiseKernel},
      {"bitwise_or", elementwiseKernel},  {"bitwise_xor", elementwiseKernel},
      {"left_shift", elementwiseKernel},  {"right_shift", elementwiseKernel},
      {"where", elementwiseKernel},       {"negative", elementwiseKernel},
      {"abs", elementwiseKernel},         {"exp", elementwiseKernel},
      {"log", elementwiseKernel},         {"sqrt", elementwiseKernel},
      {"rsqrt", elementwiseKernel},       {"tanh", elementwiseKernel},
      {"sigmoid", elementwiseKernel},     {"nn.relu", elementwiseKernel},
      {"erf", elementwiseKernel},         {"nn.leaky_relu", elementwiseKernel},
      {"copy", elementwiseKernel},        {"clip", elementwiseKernel},
      {"cast", elementwiseKernel},        {"floor", elementwiseKernel},
      {"ceil", elementwiseKernel},        {"round", elementwiseKernel},
      {"sign", elementwiseKernel},        {"sin", elementwiseKernel},
      {"cos", elementwiseKernel},         {"tan", elementwiseKernel},
      {"asin", elementwiseKernel},        {"acos", elementwiseKernel},
      {"atan", elementwiseKernel},        {"sinh", elementwiseKernel},
      {"cosh", elementwiseKernel},        {"asinh", elementwiseKernel},
      {"acosh", elementwiseKernel},       {"atanh", elementwiseKernel},
      {"isnan", elementwiseKernel},       {"isinf", elementwiseKernel},
      {"logical_not", elementwiseKernel}, {"bitwise_not", elementwiseKernel},
  };
  return table;
}

} // namespace hx
