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

template <Binary Op> static Error binaryKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *a = spec.inputs[0], *b = spec.inputs[1], *out = spec.outputs[0];
  DType t = a->dtype;
  if (Op == Binary::Pow && !isFloat(t))
    return unsupported(kb, spec, "dtype " + dtypeName(t));
  if (Error e = checkOperandShapes(kb, spec))
    return e;
  StridedOperand views[] = {{contiguousStrides(out->shape), 0},
                            {broadcastStrides(a->shape, out->shape), 0},
                            {broadcastStrides(b->shape, out->shape), 0}};
  // power with a small integral literal exponent is multiplies (x * x is
  // the correctly rounded square, as pow's), or a reciprocal for -1.
  std::optional<double> k =
      Op == Binary::Pow ? specializedLiteral(*spec.call, 1) : std::optional<double>();
  if (k && *k != -1 && !(*k >= 1 && *k <= 4 && *k == double(int64_t(*k))))
    k.reset();
  int64_t work = Op == Binary::Pow && !k ? kMathWork : Op == Binary::Div ? 4 : 1;
  emitStridedLoops(kb, out->shape, views, work, [&](ArrayRef<Value *> off) {
    Value *x = kb.load(t, kb.buffer(spec.inputBuffer(0)), off[1]);
    Value *r;
    if (k && *k == -1) {
      r = kb.div(t, kb.constant(t, 1), x);
    } else if (k) {
      Value *x2 = kb.mul(t, x, x);
      r = *k == 1 ? x : *k == 2 ? x2 : *k == 3 ? kb.mul(t, x2, x) : kb.mul(t, x2, x2);
    } else {
      Value *y = kb.load(t, kb.buffer(spec.inputBuffer(1)), off[2]);
      r = applyBinary(kb, Op, t, x, y);
    }
    kb.store(out->dtype, kb.buffer(spec.outputBuffer(0)), off[0], r);
  });
  return Error::success();
}

static Error whereKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *c = spec.inputs[0], *x = spec.inputs[1], *y = spec.inputs[2];
  const TensorType *out = spec.outputs[0];
  if (Error e = checkOperandShapes(kb, spec))
    return e;
  StridedOperand views[] = {{contiguousStrides(out->shape), 0},
                            {broadcastStrides(c->shape, out->shape), 0},
                            {broadcastStrides(x->shape, out->shape), 0},
                            {broadcastStrides(y->shape, out->shape), 0}};
  emitStridedLoops(kb, out->shape, views, 1, [&](ArrayRef<Value *> off) {
    Value *cond = kb.isNonzero(c->dtype, kb.load(c->dtype, kb.buffer(spec.inputBuffer(0)), off[1]));
    Value *xv = kb.load(x->dtype, kb.buffer(spec.inputBuffer(1)), off[2]);
    Value *yv = kb.load(y->dtype, kb.buffer(spec.inputBuffer(2)), off[3]);
    kb.store(out->dtype, kb.buffer(spec.outputBuffer(0)), off[0], kb.select(cond, xv, yv));
  });
  return Error::success();
}

static bool isTranscendental(Unary op) {
  return op == Unary::Exp || op == Unary::Log || op == Unary::Sqrt || op == Unary::Rsqrt ||
         op == Unary::Tanh || op == Unary::Sigmoid || op == Unary::Erf;
}

template <Unary Op> static Error unaryKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *out = spec.outputs[0];
  DType t = in->dtype;
  if (isTranscendental(Op) && !isFloat(t))
    return unsupported(kb, spec, "dtype " + dtypeName(t));
  if (in->shape != out->shape)
    return unsupported(kb, spec, "a result of another shape than the operand");
  double lo = 0, hi = 0;
  if (Op == Unary::Clip) {
    lo = spec.getFloat("a_min");
    hi = spec.getFloat("a_max");
  }
  if (Op == Unary::LeakyRelu)
    lo = spec.getFloat("alpha");
  Shape strides = contiguousStrides(out->shape);
  StridedOperand views[] = {{strides, 0}, {strides, 0}};
  emitStridedLoops(kb, out->shape, views, isTranscendental(Op) ? kMathWork : 1,
                   [&](ArrayRef<Value *> off) {
                     Value *x = kb.load(t, kb.buffer(spec.inputBuffer(0)), off[1]);
                     Value *r = nullptr;
                     switch (Op) {
                     case Unary::Neg:
                       r = kb.neg(t, x);
                       break;
                     case Unary::Abs:
                       r = kb.abs(t, x);
                       break;
                     case Unary::Exp:
                       r = kb.math(MathFn::Exp, t, {x});
                       break;
                     case Unary::Log:
                       r = kb.math(MathFn::Log, t, {x});
                       break;
                     case Unary::Sqrt:
                       r = kb.math(MathFn::Sqrt, t, {x});
                       break;
                     case Unary::Rsqrt:
                       r = kb.div(t, kb.constant(t, 1), kb.math(MathFn::Sqrt, t, {x}));
                       break;
                     case Unary::Tanh:
                       r = kb.math(MathFn::Tanh, t, {x});
                       break;
                     case Unary::Sigmoid: {
                       // e = exp(-|x|) never overflows: 1 / (1 + e) for
                       // x >= 0, e / (1 + e) below (down to the denormals).
                       Value *neg = kb.compare(CmpOp::LT, t, x, kb.constant(t, 0));
                       Value *e = kb.math(MathFn::Exp, t, {kb.select(neg, x, kb.neg(t, x))});
                       Value *num = kb.select(neg, e, kb.constant(t, 1));
                       r = kb.div(t, num, kb.add(t, kb.constant(t, 1), e));
                       break;
                     }
                     case Unary::Relu:
                       r = kb.max(t, x, kb.constant(t, 0));
                       break;
                     case Unary::Clip:
                       // Integer bounds truncate toward zero, which clamps integers exactly
                       // as clamping in double and truncating the result would.
                       r = kb.min(t, kb.max(t, x, kb.constant(t, lo)), kb.constant(t, hi));
                       break;
                     case Unary::Cast:
                       r = kb.cast(x, t, out->dtype);
                       break;
                     case Unary::Erf:
                       r = kb.math(MathFn::Erf, t, {x});
                       break;
                     case Unary::LeakyRelu:
                       r = kb.select(kb.compare(CmpOp::GT, t, x, kb.constant(t, 0)), x,
                                     kb.mul(t, kb.constant(t, lo), x));
                       break;
                     case Unary::Copy:
                       r = x;
                       break;
                     }
                     kb.store(out->dtype, kb.buffer(spec.outputBuffer(0)), off[0], r);
                   });
  return Error::success();
}

ArrayRef<KernelEntry> elementwiseKernels() {
  static const KernelEntry table[] = {
      {"add", binaryKernel<Binary::Add>},
      {"subtract", binaryKernel<Binary::Sub>},
      {"multiply", binaryKernel<Binary::Mul>},
      {"divide", binaryKernel<Binary::Div>},
      {"maximum", binaryKernel<Binary::Max>},
      {"minimum", binaryKernel<Binary::Min>},
      {"power", binaryKernel<Binary::Pow>},
      {"equal", binaryKernel<Binary::Equal>},
      {"less", binaryKernel<Binary::Less>},
      {"greater", binaryKernel<Binary::Greater>},
      {"where", whereKernel},
      {"negative", unaryKernel<Unary::Neg>},
      {"abs", unaryKernel<Unary::Abs>},
      {"exp", unaryKernel<Unary::Exp>},
      {"log", unaryKernel<Unary::Log>},
      {"sqrt", unaryKernel<Unary::Sqrt>},
      {"rsqrt", unaryKernel<Unary::Rsqrt>},
      {"tanh", unaryKernel<Unary::Tanh>},
      {"sigmoid", unaryKernel<Unary::Sigmoid>},
      {"nn.relu", unaryKernel<Unary::Relu>},
      {"erf", unaryKernel<Unary::Erf>},
      {"nn.leaky_relu", unaryKernel<Unary::LeakyRelu>},
      {"copy", unaryKernel<Unary::Copy>},
      {"clip", unaryKernel<Unary::Clip>},
      {"cast", unaryKernel<Unary::Cast>},
  };
  return table;
}

} // namespace hx
