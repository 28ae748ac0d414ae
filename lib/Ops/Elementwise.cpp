//===- Elementwise.cpp - Broadcasting binary ops, unary ops, where, cast --===//
//
// Binary arithmetic and comparisons broadcast their operands NumPy-style
// (broadcastShapes); both operands must have the same dtype, and comparisons
// yield bool. `where` broadcasts all three operands. Unary operators, `clip`
// and `cast` keep the shape.
//
//   add(Tensor[(5, 1), float32], Tensor[(7), float32])  : Tensor[(5, 7), float32]
//   less(Tensor[(?, 3), int32], Tensor[(3), int32])     : Tensor[(?, 3), bool]
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
  ops.push_back(binary("power", "Elementwise a ** b with broadcasting", kFloats));
  ops.push_back(
      binary("equal", "Elementwise a == b with broadcasting, as bool", kAnySupported, compareRel));
  ops.push_back(
      binary("less", "Elementwise a < b with broadcasting, as bool", kNumeric, compareRel));
  ops.push_back(
      binary("greater", "Elementwise a > b with broadcasting, as bool", kNumeric, compareRel));

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
