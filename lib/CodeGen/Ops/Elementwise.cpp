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

using namespace llvm;

namespace hx {

namespace {
enum class Binary { Add, Sub, Mul, Div, Max, Min, Pow, Equal, Less, Greater };
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
  Copy
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
    return kb.math(MathFn::Pow, t, {x, y});
  case Binary::Equal:
    return kb.compare(CmpOp::EQ, t, x, y);
  case Binary::Less:
    return kb.compare(CmpOp::LT, t, x, y);
  case Binary::Greater:
    return kb.compare(CmpOp::GT, t, x, y);
  }
  llvm_unreachable("unknown binary operator");
}

/// power's exponent where it is a small integral literal (1 to 4, or -1):
/// then x * x is the correctly rounded square, as pow's is.
static std::optional<double> smallPower(const KernelSpec &spec) {
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
  return op == Unary::Exp || op == Unary::Log || op == Unary::Sqrt || op == Unary::Rsqrt ||
         op == Unary::Tanh || op == Unary::Sigmoid || op == Unary::Erf;
}

static Value *unaryValue(KernelBuilder &kb, Unary op, const KernelSpec &spec, Value *x) {
  DType t = spec.inputs[0]->dtype;
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
  case Unary::Sigmoid: {
    // e = exp(-|x|) never overflows: 1 / (1 + e) for x >= 0, e / (1 + e)
    // below (down to the denormals).
    Value *neg = kb.compare(CmpOp::LT, t, x, kb.constant(t, 0));
    Value *e = kb.math(MathFn::Exp, t, {kb.select(neg, x, kb.neg(t, x))});
    Value *num = kb.select(neg, e, kb.constant(t, 1));
    return kb.div(t, num, kb.add(t, kb.constant(t, 1), e));
  }
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
    return kb.select(kb.compare(CmpOp::GT, t, x, kb.constant(t, 0)), x,
                     kb.mul(t, kb.constant(t, spec.getFloat("alpha")), x));
  case Unary::Copy:
    return x;
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
      .Case("clip", un(Unary::Clip))
      .Case("cast", un(Unary::Cast))
      // data + bias, the bias read along the axis (bias_add's kernel, Nn.cpp).
      .Case("nn.bias_add", bin(Binary::Add))
      .Default(std::nullopt);
}

Error checkElementwiseValue(KernelBuilder &kb, const KernelSpec &spec) {
  std::optional<ElementwiseOp> op = elementwiseOp(spec.opName());
  if (!op)
    return unsupported(kb, spec, "a fused elementwise use");
  DType t = spec.inputs[0]->dtype;
  if (op->kind == ElementwiseOp::UnaryOp && isTranscendental(op->unary) && !isFloat(t))
    return unsupported(kb, spec, "dtype " + dtypeName(t));
  if (op->kind == ElementwiseOp::BinaryOp && op->binary == Binary::Pow && !isFloat(t))
    return unsupported(kb, spec, "dtype " + dtypeName(t));
  if (op->kind == ElementwiseOp::UnaryOp && spec.inputs[0]->shape != spec.outputs[0]->shape)
    return unsupported(kb, spec, "a result of another shape than the operand");
  if (spec.opName() != "nn.bias_add")
    return checkOperandShapes(kb, spec);
  return Error::success();
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
  bool math = (op.kind == ElementwiseOp::UnaryOp && isTranscendental(op.unary)) ||
              (op.kind == ElementwiseOp::BinaryOp && op.binary == Binary::Pow && !k);
  int64_t work = math                                                             ? kMathWork
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
      {"add", elementwiseKernel},      {"subtract", elementwiseKernel},
      {"multiply", elementwiseKernel}, {"divide", elementwiseKernel},
      {"maximum", elementwiseKernel},  {"minimum", elementwiseKernel},
      {"power", elementwiseKernel},    {"equal", elementwiseKernel},
      {"less", elementwiseKernel},     {"greater", elementwiseKernel},
      {"where", elementwiseKernel},    {"negative", elementwiseKernel},
      {"abs", elementwiseKernel},      {"exp", elementwiseKernel},
      {"log", elementwiseKernel},      {"sqrt", elementwiseKernel},
      {"rsqrt", elementwiseKernel},    {"tanh", elementwiseKernel},
      {"sigmoid", elementwiseKernel},  {"nn.relu", elementwiseKernel},
      {"erf", elementwiseKernel},      {"nn.leaky_relu", elementwiseKernel},
      {"copy", elementwiseKernel},     {"clip", elementwiseKernel},
      {"cast", elementwiseKernel},
  };
  return table;
}

} // namespace hx
