//===- Elementwise.cpp - Broadcasting binary ops, unary ops, where, cast --===//
//
// Binary arithmetic, comparisons, logical and bitwise operators broadcast
// their operands NumPy-style (broadcastShapes); both operands must have the
// same dtype, and comparisons yield bool. `where` broadcasts all three
// operands. Unary operators, `clip` and `cast` keep the shape; the tests
// `isnan` and `isinf` yield bool.
//
//   add(Tensor[(5, 1), float32], Tensor[(7), float32])  : Tensor[(5, 7), float32]
//   less(Tensor[(?, 3), int32], Tensor[(3), int32])     : Tensor[(?, 3), bool]
//   isnan(Tensor[(2, 3), float16])                      : Tensor[(2, 3), bool]
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"

using namespace llvm;

namespace hx {

/// Broadcasts operands 0 and 1 (same dtype) and returns the result with
/// `resultDType`, or the operands' dtype when unset.
static TypeRef broadcastBinary(TypeRelContext &ctx, std::optional<DType> resultDType) {
  const TensorType *a = ctx.tensorArg(0);
  const TensorType *b = a ? ctx.tensorArg(1) : nullptr;
  if (!a || !b)
    return nullptr;
  if (a->dtype != b->dtype) {
    ctx.error("dtypes " + dtypeName(a->dtype) + " and " + dtypeName(b->dtype) + " do not match",
              {0, 1});
    return nullptr;
  }
  std::optional<Shape> shape = broadcastShapes(a->shape, b->shape);
  if (!shape) {
    ctx.error("shapes " + shapeToString(a->shape) + " and " + shapeToString(b->shape) +
                  " are not broadcastable",
              {0, 1});
    return nullptr;
  }
  return makeTensorType(*shape, resultDType.value_or(a->dtype));
}

static TypeRef broadcastRel(TypeRelContext &ctx) { return broadcastBinary(ctx, std::nullopt); }

static TypeRef compareRel(TypeRelContext &ctx) { return broadcastBinary(ctx, DType::Bool); }

/// The operand's shape, as bool (isnan, isinf).
static TypeRef unaryTestRel(TypeRelContext &ctx) {
  const TensorType *t = ctx.tensorArg(0);
  if (!t)
    return nullptr;
  return makeTensorType(t->shape, DType::Bool);
}

static TypeRef whereRel(TypeRelContext &ctx) {
  const TensorType *cond = ctx.tensorArg(0, kAnySupported);
  const TensorType *x = cond ? ctx.tensorArg(1) : nullptr;
  const TensorType *y = x ? ctx.tensorArg(2) : nullptr;
  if (!y)
    return nullptr;
  if (x->dtype != y->dtype) {
    ctx.error("dtypes " + dtypeName(x->dtype) + " and " + dtypeName(y->dtype) +
                  " of the two branches do not match",
              {1, 2});
    return nullptr;
  }
  std::optional<Shape> xy = broadcastShapes(x->shape, y->shape);
  if (!xy) {
    ctx.error("shapes " + shapeToString(x->shape) + " and " + shapeToString(y->shape) +
                  " are not broadcastable",
              {1, 2});
    return nullptr;
  }
  std::optional<Shape> all = broadcastShapes(cond->shape, *xy);
  if (!all) {
    ctx.error("condition shape " + shapeToString(cond->shape) + " is not broadcastable with " +
                  shapeToString(*xy),
              {0, 1, 2});
    return nullptr;
  }
  return makeTensorType(*all, x->dtype);
}

static TypeRef clipRel(TypeRelContext &ctx) {
  const TensorType *t = ctx.tensorArg(0);
  if (!t)
    return nullptr;
  double lo = ctx.getFloat("a_min"), hi = ctx.getFloat("a_max");
  if (lo > hi) {
    ctx.attrError("a_min", "a_min (" + formatNumber(lo) + ") is greater than a_max (" +
                               formatNumber(hi) + ")");
    return nullptr;
  }
  return makeTensorType(t->shape, t->dtype);
}

static TypeRef castRel(TypeRelContext &ctx) {
  const TensorType *t = ctx.tensorArg(0);
  if (!t)
    return nullptr;
  // Verified: the attribute is required and names a dtype.
  DType to = ctx.getDType("dtype").value_or(t->dtype);
  if (!ctx.checkAttrDType("dtype", to, kAnySupported))
    return nullptr;
  return makeTensorType(t->shape, to);
}

static OpDef binary(StringRef name, StringRef summary, DTypeSet dtypes,
                    TypeRelationFn rel = broadcastRel) {
  OpDef d;
  d.name = name;
  d.summary = summary;
  d.numArgs = 2;
  d.dtypes = dtypes;
  d.relation = rel;
  d.pattern = OpPattern::Broadcast;
  return d;
}

static OpDef unary(StringRef name, StringRef summary, DTypeSet dtypes) {
  OpDef d;
  d.name = name;
  d.summary = summary;
  d.numArgs = 1;
  d.dtypes = dtypes;
  d.relation = identityTensorRel;
  d.pattern = OpPattern::Elementwise;
  return d;
}

static constexpr DTypeSet kBoolOnly = dtypeBit(DType::Bool);

void addElementwiseOps(std::vector<OpDef> &ops) {
  ops.push_back(binary("add", "Elementwise a + b with broadcasting", kNumeric));
  ops.push_back(binary("subtract", "Elementwise a - b with broadcasting", kNumeric));
  ops.push_back(binary("multiply", "Elementwise a * b with broadcasting", kNumeric));
  ops.push_back(binary("divide",
                       "Elementwise a / b with broadcasting (integers "
                       "truncate)",
                       kNumeric));
  ops.push_back(binary("maximum", "Elementwise max(a, b) with broadcasting", kNumeric));
  ops.push_back(binary("minimum", "Elementwise min(a, b) with broadcasting", kNumeric));
  ops.push_back(binary("power",
                       "Elementwise a ** b with broadcasting (integers: computed in float64, "
                       "truncated)",
                       kNumeric));
  ops.push_back(
      binary("equal", "Elementwise a == b with broadcasting, as bool", kAnySupported, compareRel));
  ops.push_back(
      binary("less", "Elementwise a < b with broadcasting, as bool", kNumeric, compareRel));
  ops.push_back(
      binary("greater", "Elementwise a > b with broadcasting, as bool", kNumeric, compareRel));
  ops.push_back(
      binary("less_equal", "Elementwise a <= b with broadcasting, as bool", kNumeric, compareRel));
  ops.push_back(binary("greater_equal", "Elementwise a >= b with broadcasting, as bool", kNumeric,
                       compareRel));
  ops.push_back(binary("floor_mod",
                       "Elementwise a - floor(a / b) * b with broadcasting: the remainder "
                       "has b's sign (integers: x % 0 is 0)",
                       kNumeric));
  ops.push_back(binary("mod",
                       "Elementwise remainder of a / b truncated, with a's sign (C's % and "
                       "fmod; integers: x % 0 is 0)",
                       kNumeric));
  ops.push_back(binary("logical_and", "Elementwise a and b of bools with broadcasting", kBoolOnly));
  ops.push_back(binary("logical_or", "Elementwise a or b of bools with broadcasting", kBoolOnly));
  ops.push_back(binary("logical_xor", "Elementwise a != b of bools with broadcasting", kBoolOnly));
  ops.push_back(binary("bitwise_and", "Elementwise bitwise a & b with broadcasting", kIndexTypes));
  ops.push_back(binary("bitwise_or", "Elementwise bitwise a | b with broadcasting", kIndexTypes));
  ops.push_back(binary("bitwise_xor", "Elementwise bitwise a ^ b with broadcasting", kIndexTypes));
  ops.push_back(binary(
      "left_shift", "Elementwise a << b with broadcasting (0 for b outside [0, bits))", kIntegers));
  ops.push_back(binary("right_shift",
                       "Elementwise a >> b with broadcasting, arithmetic for signed dtypes and "
                       "logical for unsigned (b outside [0, bits): the sign's fill, or 0)",
                       kIntegers));

  OpDef where;
  where.name = "where";
  where.summary = "Elementwise select: x where cond is nonzero, else y";
  where.numArgs = 3;
  where.dtypes = kAnySupported;
  where.relation = whereRel;
  where.pattern = OpPattern::Broadcast;
  ops.push_back(std::move(where));

  ops.push_back(unary("negative", "Elementwise -a", kNumeric));
  ops.push_back(unary("abs", "Elementwise |a|", kNumeric));
  ops.push_back(unary("exp", "Elementwise e ** a", kFloats));
  ops.push_back(unary("log", "Elementwise natural logarithm", kFloats));
  ops.push_back(unary("sqrt", "Elementwise square root", kFloats));
  ops.push_back(unary("rsqrt", "Elementwise 1 / sqrt(a)", kFloats));
  ops.push_back(unary("tanh", "Elementwise hyperbolic tangent", kFloats));
  ops.push_back(unary("sigmoid", "Elementwise 1 / (1 + e ** -a)", kFloats));
  ops.push_back(unary("nn.relu", "Elementwise max(a, 0)", kNumeric));
  ops.push_back(unary("erf", "Elementwise Gauss error function", kFloats));
  ops.push_back(unary("copy", "Elementwise copy of the operand", kAnySupported));
  ops.push_back(unary("floor", "Elementwise largest integral value <= a", kFloatOnly));
  ops.push_back(unary("ceil", "Elementwise smallest integral value >= a", kFloatOnly));
  ops.push_back(unary("round", "Elementwise nearest integral value, halves to even", kFloatOnly));
  ops.push_back(unary("sign", "Elementwise -1, 0 or 1 by the sign of a (NaN stays NaN)", kNumeric));
  ops.push_back(unary("sin", "Elementwise sine", kFloatOnly));
  ops.push_back(unary("cos", "Elementwise cosine", kFloatOnly));
  ops.push_back(unary("tan", "Elementwise tangent", kFloatOnly));
  ops.push_back(unary("asin", "Elementwise arcsine", kFloatOnly));
  ops.push_back(unary("acos", "Elementwise arccosine", kFloatOnly));
  ops.push_back(unary("atan", "Elementwise arctangent", kFloatOnly));
  ops.push_back(unary("sinh", "Elementwise hyperbolic sine", kFloatOnly));
  ops.push_back(unary("cosh", "Elementwise hyperbolic cosine", kFloatOnly));
  ops.push_back(unary("asinh", "Elementwise inverse hyperbolic sine", kFloatOnly));
  ops.push_back(unary("acosh", "Elementwise inverse hyperbolic cosine", kFloatOnly));
  ops.push_back(unary("atanh", "Elementwise inverse hyperbolic tangent", kFloatOnly));
  ops.push_back(unary("logical_not", "Elementwise not a of bools", kBoolOnly));
  ops.push_back(unary("bitwise_not", "Elementwise bitwise ~a", kIndexTypes));
  for (auto [name, summary] : {std::pair{"isnan", "Elementwise whether a is NaN, as bool"},
                               std::pair{"isinf", "Elementwise whether a is infinite, as bool"}}) {
    OpDef test = unary(name, summary, kFloatOnly);
    test.relation = unaryTestRel;
    ops.push_back(std::move(test));
  }

  OpDef leaky = unary("nn.leaky_relu", "Elementwise a where a > 0, else alpha * a", kFloats);
  leaky.attrs = {floatAttr("alpha", 0.01)};
  ops.push_back(std::move(leaky));

  OpDef clip = unary("clip", "Elementwise clamp to [a_min, a_max]", kNumeric);
  clip.attrs = {requiredAttr("a_min", AttrKind::Float), requiredAttr("a_max", AttrKind::Float)};
  clip.relation = clipRel;
  ops.push_back(std::move(clip));

  OpDef cast = unary("cast", "Elementwise conversion to another dtype", kAnySupported);
  cast.attrs = {requiredAttr("dtype", AttrKind::DType)};
  cast.relation = castRel;
  ops.push_back(std::move(cast));
}

} // namespace hx
