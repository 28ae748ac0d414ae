//===- ElementwiseOps.cpp - Reference broadcasting, unary, where, cast ----===//
//
// Binary operators broadcast NumPy-style: each output element reads the
// operand elements that broadcastIndex maps to it. Floats are computed in
// double and rounded once when stored; integers (and bool) are computed
// exactly in int64, wrapping to the result width as two's complement, so
// int64 values beyond 2^53 stay exact:
//
//   divide      integers truncate toward zero (C, TVM's truncdiv); x / 0 is
//               0 (NumPy's result; the kernels give the same, nothing
//               traps); INT_MIN / -1 wraps to INT_MIN
//   maximum,    NaN in either operand gives NaN (NumPy)
//   minimum
//   equal, less, greater, less_equal, greater_equal
//               bool results; NaN compares unequal/false
//   floor_mod   a - floor(a / b) * b: the remainder of truncated division,
//               plus b where it is nonzero and its sign differs from b's
//               (Python's %); integers: x % 0 is 0
//   mod         the remainder of truncated division, with a's sign (C's %,
//               fmod); integers: x % 0 is 0, INT_MIN % -1 is 0
//   logical_and, logical_or, logical_xor, logical_not   on bools
//   bitwise_and, bitwise_or, bitwise_xor, bitwise_not   on the integers'
//               two's complement bits
//   left_shift, right_shift   a << b and a >> b in the dtype's width,
//               arithmetic for signed dtypes and logical for unsigned: a
//               count outside [0, bits) gives 0 (left, and right of an
//               unsigned dtype) or shifts by bits - 1, the sign's fill
//   power       integers: pow in double, truncated toward zero (saturating
//               at the int64 range), wrapped to the width
//   round       halves to even
//   sign        -1, 0 or 1 (-0 and NaN stay themselves)
//   isnan, isinf   bool results
//   nn.relu     max(x, 0); NaN stays NaN
//   clip        float bounds (NaN passes through); integer tensors use the
//               bounds truncated toward zero, max(min(x, a_max), a_min) as TVM
//   cast        float -> integer truncates toward zero (NaN gives 0, values
//               wrap to the width through int64, saturating beyond int64);
//               anything -> bool is x != 0; integer -> integer wraps
//   where       cond nonzero selects x; three-way broadcasting; elements are
//               copied bit for bit
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>
#include <cstring>

using namespace llvm;

namespace hx::interp {

namespace {
enum class Bin {
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Pow,
  Eq,
  Lt,
  Gt,
  Le,
  Ge,
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
enum class Un {
  Neg,
  Abs,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,
  Sigmoid,
  Relu,
  Erf,
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
  Not,
  BitNot
};
} // namespace

static bool isComparison(Bin k) {
  return k == Bin::Eq || k == Bin::Lt || k == Bin::Gt || k == Bin::Le || k == Bin::Ge;
}

/// The remainder of a / b truncated, and moved to b's sign for floor_mod.
static double floatRemainder(double a, double b, bool floored) {
  double r = std::fmod(a, b);
  if (floored && r != 0 && (r < 0) != (b < 0))
    r += b;
  return r;
}

static int64_t intRemainder(int64_t a, int64_t b, bool floored) {
  if (b == 0 || b == -1) // x % -1 is 0 (INT64_MIN % -1 would trap)
    return 0;
  int64_t r = a % b;
  if (floored && r != 0 && (r < 0) != (b < 0))
    r += b;
  return r;
}

static double applyFloat(Bin k, double a, double b) {
  switch (k) {
  case Bin::Add:
    return a + b;
  case Bin::Sub:
    return a - b;
  case Bin::Mul:
    return a * b;
  case Bin::Div:
    return a / b;
  case Bin::Max:
    return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  case Bin::Min:
    return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  case Bin::Pow:
    return std::pow(a, b);
  case Bin::Eq:
    return a == b;
  case Bin::Lt:
    return a < b;
  case Bin::Gt:
    return a > b;
  case Bin::Le:
    return a <= b;
  case Bin::Ge:
    return a >= b;
  case Bin::FloorMod:
    return floatRemainder(a, b, true);
  case Bin::Mod:
    return floatRemainder(a, b, false);
  default: // logical and bitwise operators (the registry takes no floats)
    return NAN;
  }
}

/// Wrapping int64 arithmetic on values of a `bits`-wide dtype; x / 0 is 0.
static int64_t applyInt(Bin k, int64_t a, int64_t b, unsigned bits, bool u) {
  uint64_t ua = uint64_t(a), ub = uint64_t(b);
  // `u`: the bits are a uint64's (narrower unsigned dtypes hold non-negative
  // int64s, ordered as they are), so division, remainders and order are
  // unsigned.
  if (u) {
    switch (k) {
    case Bin::Div:
      return ub == 0 ? 0 : int64_t(ua / ub);
    case Bin::Max:
      return int64_t(std::max(ua, ub));
    case Bin::Min:
      return int64_t(std::min(ua, ub));
    case Bin::Pow:
      return truncToInt64(std::pow(double(ua), double(ub)));
    case Bin::Lt:
      return ua < ub;
    case Bin::Gt:
      return ua > ub;
    case Bin::Le:
      return ua <= ub;
    case Bin::Ge:
      return ua >= ub;
    case Bin::FloorMod:
    case Bin::Mod:
      return ub == 0 ? 0 : int64_t(ua % ub);
    case Bin::Shl:
      return ub >= bits ? 0 : int64_t(ua << ub);
    case Bin::Shr:
      return ub >= bits ? 0 : int64_t(ua >> ub);
    default:
      break;
    }
  }
  switch (k) {
  case Bin::Add:
    return int64_t(ua + ub);
  case Bin::Sub:
    return int64_t(ua - ub);
  case Bin::Mul:
    return int64_t(ua * ub);
  case Bin::Div:
    if (b == 0)
      return 0;
    if (b == -1)
      return int64_t(uint64_t(0) - ua); // INT64_MIN / -1 wraps
    return a / b;
  case Bin::Max:
    return std::max(a, b);
  case Bin::Min:
    return std::min(a, b);
  case Bin::Pow:
    return truncToInt64(std::pow(double(a), double(b)));
  case Bin::Eq:
    return a == b;
  case Bin::Lt:
    return a < b;
  case Bin::Gt:
    return a > b;
  case Bin::Le:
    return a <= b;
  case Bin::Ge:
    return a >= b;
  case Bin::FloorMod:
    return intRemainder(a, b, true);
  case Bin::Mod:
    return intRemainder(a, b, false);
  case Bin::And:
    return a != 0 && b != 0;
  case Bin::Or:
    return a != 0 || b != 0;
  case Bin::Xor:
    return (a != 0) != (b != 0);
  case Bin::BitAnd:
    return a & b;
  case Bin::BitOr:
    return a | b;
  case Bin::BitXor:
    return a ^ b;
  case Bin::Shl:
    // The result wraps to the width when stored.
    return b < 0 || b >= int64_t(bits) ? 0 : int64_t(ua << b);
  case Bin::Shr:
    return a >> (b < 0 || b >= int64_t(bits) ? int64_t(bits) - 1 : b);
  }
  return 0;
}

static Expected<OpResults> binary(OpContext &ctx, Bin k) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &a = ctx.arg(0), &b = ctx.arg(1);
  if (a.dtype() != b.dtype())
    return ctx.error("dtypes " + dtypeName(a.dtype()) + " and " + dtypeName(b.dtype()) +
                     " do not match");
  std::optional<Shape> shape = broadcastShapes(a.shape(), b.shape());
  if (!shape)
    return ctx.error("shapes " + shapeStr(a.shape()) + " and " + shapeStr(b.shape()) +
                     " are not broadcastable");
  Expected<HostTensor> out = ctx.makeResult(0, *shape, isComparison(k) ? DType::Bool : a.dtype());
  if (!out)
    return out.takeError();
  std::vector<int64_t> ia = broadcastIndex(a.shape(), *shape);
  std::vector<int64_t> ib = broadcastIndex(b.shape(), *shape);
  int64_t n = out->numElements();
  if (!isIntegral(a.dtype())) {
    std::vector<double> va = toDoubles(a), vb = toDoubles(b);
    for (int64_t i = 0; i < n; ++i)
      out->setDouble(i, applyFloat(k, va[ia[i]], vb[ib[i]]));
  } else {
    unsigned bits = 8 * dtypeBytes(a.dtype());
    // Narrower unsigned dtypes hold non-negative int64s: their unsigned and
    // signed arithmetic agree but for the shifts' counts out of range.
    bool u = isUnsigned(a.dtype());
    for (int64_t i = 0; i < n; ++i) {
      setInt64(*out, i, applyInt(k, getInt64(a, ia[i]), getInt64(b, ib[i]), bits, u));
    }
  }
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

template <Bin K> static Expected<OpResults> binaryOp(OpContext &ctx) { return binary(ctx, K); }

static double applyFloat(Un k, double x) {
  switch (k) {
  case Un::Neg:
    return -x;
  case Un::Abs:
    return std::fabs(x);
  case Un::Exp:
    return std::exp(x);
  case Un::Log:
    return std::log(x);
  case Un::Sqrt:
    return std::sqrt(x);
  case Un::Rsqrt:
    return 1.0 / std::sqrt(x);
  case Un::Tanh:
    return std::tanh(x);
  case Un::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case Un::Relu:
    return std::isnan(x) ? x : std::max(x, 0.0);
  case Un::Erf:
    return std::erf(x);
  case Un::Copy:
    return x;
  case Un::Floor:
    return std::floor(x);
  case Un::Ceil:
    return std::ceil(x);
  case Un::Round: {
    if (!std::isfinite(x))
      return x;
    double f = std::floor(x), d = x - f;
    if (d != 0.5)
      return d < 0.5 ? f : f + 1;
    return std::fmod(f, 2) == 0 ? f : f + 1; // a half: to the even neighbour
  }
  case Un::Sign:
    return x > 0 ? 1 : x < 0 ? -1 : x;
  case Un::Sin:
    return std::sin(x);
  case Un::Cos:
    return std::cos(x);
  case Un::Tan:
    return std::tan(x);
  case Un::Asin:
    return std::asin(x);
  case Un::Acos:
    return std::acos(x);
  case Un::Atan:
    return std::atan(x);
  case Un::Sinh:
    return std::sinh(x);
  case Un::Cosh:
    return std::cosh(x);
  case Un::Asinh:
    return std::asinh(x);
  case Un::Acosh:
    return std::acosh(x);
  case Un::Atanh:
    return std::atanh(x);
  case Un::Not:
  case Un::BitNot: // bool and integers only (the registry's dtypes)
    return NAN;
  }
  return 0;
}

static int64_t applyInt(Un k, int64_t x) {
  switch (k) {
  case Un::Neg:
    return int64_t(uint64_t(0) - uint64_t(x));
  case Un::Abs:
    return x < 0 ? int64_t(uint64_t(0) - uint64_t(x)) : x;
  case Un::Relu:
    return std::max<int64_t>(x, 0);
  case Un::Copy:
    return x;
  case Un::Sign:
    return (x > 0) - (x < 0);
  case Un::Not:
    return x == 0;
  case Un::BitNot:
    return ~x;
  default:
    // Float-only operators (the registry rejects integer inputs).
    return truncToInt64(applyFloat(k, double(x)));
  }
}

static Expected<OpResults> unary(OpContext &ctx, Un k) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  Expected<HostTensor> out = ctx.makeResult(0, a.shape(), a.dtype());
  if (!out)
    return out.takeError();
  int64_t n = a.numElements();
  if (!isIntegral(a.dtype())) {
    std::vector<double> va = toDoubles(a);
    for (int64_t i = 0; i < n; ++i)
      out->setDouble(i, applyFloat(k, va[i]));
  } else {
    for (int64_t i = 0; i < n; ++i)
      setInt64(*out, i, applyInt(k, getInt64(a, i)));
  }
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

template <Un K> static Expected<OpResults> unaryOp(OpContext &ctx) { return unary(ctx, K); }

/// isnan and isinf: a float operand, bool results.
template <bool (*Test)(double)> static Expected<OpResults> testOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  Expected<HostTensor> out = ctx.makeResult(0, a.shape(), DType::Bool);
  if (!out)
    return out.takeError();
  std::vector<double> va = toDoubles(a);
  for (int64_t i = 0, n = a.numElements(); i < n; ++i)
    setInt64(*out, i, Test(va[i]));
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

static bool isNaN(double x) { return std::isnan(x); }
static bool isInf(double x) { return std::isinf(x); }

static Expected<OpResults> leakyReluOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  double alpha = ctx.getFloat("alpha");
  Expected<HostTensor> out = ctx.makeResult(0, a.shape(), a.dtype());
  if (!out)
    return out.takeError();
  std::vector<double> va = toDoubles(a);
  for (int64_t i = 0; i < a.numElements(); ++i)
    out->setDouble(i, va[i] > 0 ? va[i] : alpha * va[i]);
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

static Expected<OpResults> whereOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(3))
    return e;
  const HostTensor &c = ctx.arg(0), &x = ctx.arg(1), &y = ctx.arg(2);
  if (x.dtype() != y.dtype())
    return ctx.error("dtypes " + dtypeName(x.dtype()) + " and " + dtypeName(y.dtype()) +
                     " of the two branches do not match");
  std::optional<Shape> xy = broadcastShapes(x.shape(), y.shape());
  std::optional<Shape> shape = xy ? broadcastShapes(c.shape(), *xy) : std::nullopt;
  if (!shape)
    return ctx.error("shapes " + shapeStr(c.shape()) + ", " + shapeStr(x.shape()) + " and " +
                     shapeStr(y.shape()) + " are not broadcastable");
  Expected<HostTensor> out = ctx.makeResult(0, *shape, x.dtype());
  if (!out)
    return out.takeError();
  if (out->dtype() != x.dtype())
    return ctx.error("the result dtype " + dtypeName(out->dtype()) + " differs from " +
                     dtypeName(x.dtype()));
  std::vector<int64_t> ic = broadcastIndex(c.shape(), *shape);
  std::vector<int64_t> ix = broadcastIndex(x.shape(), *shape);
  std::vector<int64_t> iy = broadcastIndex(y.shape(), *shape);
  size_t eb = dtypeBytes(x.dtype());
  auto *dst = static_cast<uint8_t *>(out->data());
  const auto *px = static_cast<const uint8_t *>(x.data());
  const auto *py = static_cast<const uint8_t *>(y.data());
  for (int64_t i = 0, n = out->numElements(); i < n; ++i) {
    bool pick = isIntegral(c.dtype()) ? getInt64(c, ic[i]) != 0 : c.getDouble(ic[i]) != 0;
    const uint8_t *src = pick ? px + size_t(ix[i]) * eb : py + size_t(iy[i]) * eb;
    std::memcpy(dst + size_t(i) * eb, src, eb);
  }
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

static Expected<OpResults> clipOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  double lo = ctx.getFloat("a_min"), hi = ctx.getFloat("a_max");
  if (!(lo <= hi))
    return ctx.error("a_min (" + formatDouble(lo) + ") is greater than a_max (" + formatDouble(hi) +
                     ")");
  Expected<HostTensor> out = ctx.makeResult(0, a.shape(), a.dtype());
  if (!out)
    return out.takeError();
  int64_t n = a.numElements();
  if (!isIntegral(a.dtype())) {
    for (int64_t i = 0; i < n; ++i) {
      double v = a.getDouble(i);
      out->setDouble(i, v < lo ? lo : v > hi ? hi : v);
    }
  } else {
    // TVM converts the bounds to the tensor's dtype (truncating) and computes
    // max(min(x, a_max), a_min).
    int64_t ilo = truncToInt64(lo), ihi = truncToInt64(hi);
    for (int64_t i = 0; i < n; ++i)
      setInt64(*out, i, std::max(std::min(getInt64(a, i), ihi), ilo));
  }
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

static Expected<OpResults> castOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  std::optional<DType> to = ctx.getDType("dtype");
  if (!to && !ctx.resultType(0))
    return ctx.error("missing target dtype");
  Expected<HostTensor> out = ctx.makeResult(0, a.shape(), to.value_or(a.dtype()));
  if (!out)
    return out.takeError();
  int64_t n = a.numElements();
  if (isIntegral(a.dtype())) {
    for (int64_t i = 0; i < n; ++i)
      setInt64(*out, i, getInt64(a, i));
  } else {
    for (int64_t i = 0; i < n; ++i)
      out->setDouble(i, a.getDouble(i));
  }
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

OpImplFn findElementwiseOp(StringRef name) {
  return StringSwitch<OpImplFn>(name)
      .Case("add", binaryOp<Bin::Add>)
      .Case("subtract", binaryOp<Bin::Sub>)
      .Case("multiply", binaryOp<Bin::Mul>)
      .Case("divide", binaryOp<Bin::Div>)
      .Case("maximum", binaryOp<Bin::Max>)
      .Case("minimum", binaryOp<Bin::Min>)
      .Case("power", binaryOp<Bin::Pow>)
      .Case("equal", binaryOp<Bin::Eq>)
      .Case("less", binaryOp<Bin::Lt>)
      .Case("greater", binaryOp<Bin::Gt>)
      .Case("less_equal", binaryOp<Bin::Le>)
      .Case("greater_equal", binaryOp<Bin::Ge>)
      .Case("floor_mod", binaryOp<Bin::FloorMod>)
      .Case("mod", binaryOp<Bin::Mod>)
      .Case("logical_and", binaryOp<Bin::And>)
      .Case("logical_or", binaryOp<Bin::Or>)
      .Case("logical_xor", binaryOp<Bin::Xor>)
      .Case("bitwise_and", binaryOp<Bin::BitAnd>)
      .Case("bitwise_or", binaryOp<Bin::BitOr>)
      .Case("bitwise_xor", binaryOp<Bin::BitXor>)
      .Case("left_shift", binaryOp<Bin::Shl>)
      .Case("right_shift", binaryOp<Bin::Shr>)
      .Case("where", whereOp)
      .Case("negative", unaryOp<Un::Neg>)
      .Case("abs", unaryOp<Un::Abs>)
      .Case("exp", unaryOp<Un::Exp>)
      .Case("log", unaryOp<Un::Log>)
      .Case("sqrt", unaryOp<Un::Sqrt>)
      .Case("rsqrt", unaryOp<Un::Rsqrt>)
      .Case("tanh", unaryOp<Un::Tanh>)
      .Case("sigmoid", unaryOp<Un::Sigmoid>)
      .Case("nn.relu", unaryOp<Un::Relu>)
      .Case("clip", clipOp)
      .Case("erf", unaryOp<Un::Erf>)
      .Case("copy", unaryOp<Un::Copy>)
      .Case("floor", unaryOp<Un::Floor>)
      .Case("ceil", unaryOp<Un::Ceil>)
      .Case("round", unaryOp<Un::Round>)
      .Case("sign", unaryOp<Un::Sign>)
      .Case("sin", unaryOp<Un::Sin>)
      .Case("cos", unaryOp<Un::Cos>)
      .Case("tan", unaryOp<Un::Tan>)
      .Case("asin", unaryOp<Un::Asin>)
      .Case("acos", unaryOp<Un::Acos>)
      .Case("atan", unaryOp<Un::Atan>)
      .Case("sinh", unaryOp<Un::Sinh>)
      .Case("cosh", unaryOp<Un::Cosh>)
      .Case("asinh", unaryOp<Un::Asinh>)
      .Case("acosh", unaryOp<Un::Acosh>)
      .Case("atanh", unaryOp<Un::Atanh>)
      .Case("logical_not", unaryOp<Un::Not>)
      .Case("bitwise_not", unaryOp<Un::BitNot>)
      .Case("isnan", testOp<isNaN>)
      .Case("isinf", testOp<isInf>)
      .Case("nn.leaky_relu", leakyReluOp)
      .Case("cast", castOp)
      .Default(nullptr);
}

} // namespace hx::interp
