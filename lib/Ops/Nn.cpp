//===- Nn.cpp - Dense, batch matmul, bias_add and softmax -----------------===//
//
// TVM's relations for the matrix operators:
//
//   nn.dense(data[..., K], weight[N, K], units=N?)         : [..., N]
//   nn.batch_matmul(x[B, M, K], y[B, N, K])                 : [B, M, N]
//     (transpose_a reads x as [B, K, M]; transpose_b=False reads y as
//      [B, K, N]; a batch of 1 broadcasts)
//   nn.bias_add(data, bias[C], axis=1), C = data.shape[axis] : data
//   nn.softmax(data, axis=-1)                               : data
//
// A `?` dim matches any size; a reduction dim K that is `?` on one side takes
// the other side's size.
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"

using namespace llvm;

namespace hx {

static constexpr int64_t kDyn = TensorType::kDynamic;

/// Two dims that must be equal: equal, or one of them `?`.
static bool dimsAgree(int64_t a, int64_t b) { return a == b || a == kDyn || b == kDyn; }

/// The result dtype: `out_dtype` when set, else `input`.
static std::optional<DType> outDType(TypeRelContext &ctx, DType input) {
  std::optional<DType> out = ctx.getDType("out_dtype");
  if (!out)
    return input;
  if (!ctx.checkAttrDType("out_dtype", *out, ctx.def.dtypes))
    return std::nullopt;
  return out;
}

static TypeRef denseRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  const TensorType *weight = data ? ctx.tensorArg(1) : nullptr;
  if (!weight)
    return nullptr;
  if (data->dtype != weight->dtype) {
    ctx.error("dtypes " + dtypeName(data->dtype) + " and " + dtypeName(weight->dtype) +
                  " do not match",
              {0, 1});
    return nullptr;
  }
  if (data->rank() < 1) {
    ctx.error("data must have rank at least 1", {0});
    return nullptr;
  }
  if (weight->rank() != 2) {
    ctx.error("weight must have rank 2, got shape " + shapeToString(weight->shape), {1});
    return nullptr;
  }
  int64_t k = data->shape.back();
  if (!dimsAgree(k, weight->shape[1])) {
    ctx.error("reduction dimensions differ: data " + shapeToString(data->shape) + " has " +
                  dimToString(k) + ", weight " + shapeToString(weight->shape) + " has " +
                  dimToString(weight->shape[1]),
              {0, 1});
    return nullptr;
  }
  int64_t n = weight->shape[0];
  if (std::optional<int64_t> units = ctx.getOptInt("units")) {
    if (*units <= 0) {
      ctx.attrError("units", "units must be positive, got " + Twine(*units));
      return nullptr;
    }
    if (!dimsAgree(*units, n)) {
      ctx.attrError("units", "units=" + Twine(*units) + " does not match the weight's " +
                                 dimToString(n) + " output rows");
      return nullptr;
    }
    n = *units;
  }
  std::optional<DType> dt = outDType(ctx, data->dtype);
  if (!dt)
    return nullptr;
  Shape out(data->shape);
  out.back() = n;
  return makeTensorType(out, *dt);
}

static TypeRef batchMatmulRel(TypeRelContext &ctx) {
  const TensorType *x = ctx.tensorArg(0);
  const TensorType *y = x ? ctx.tensorArg(1) : nullptr;
  if (!y)
    return nullptr;
  if (x->dtype != y->dtype) {
    ctx.error("dtypes " + dtypeName(x->dtype) + " and " + dtypeName(y->dtype) + " do not match",
              {0, 1});
    return nullptr;
  }
  if (x->rank() != 3 || y->rank() != 3) {
    ctx.error("operands must have rank 3, got shapes " + shapeToString(x->shape) + " and " +
                  shapeToString(y->shape),
              {0, 1});
    return nullptr;
  }
  bool ta = ctx.getBool("transpose_a"), tb = ctx.getBool("transpose_b");
  int64_t m = x->shape[ta ? 2 : 1], kx = x->shape[ta ? 1 : 2];
  int64_t n = y->shape[tb ? 1 : 2], ky = y->shape[tb ? 2 : 1];
  std::optional<Shape> batch = broadcastShapes({x->shape[0]}, {y->shape[0]});
  if (!batch) {
    ctx.error("batch dimensions " + dimToString(x->shape[0]) + " and " + dimToString(y->shape[0]) +
                  " differ",
              {0, 1});
    return nullptr;
  }
  if (!dimsAgree(kx, ky)) {
    ctx.error("reduction dimensions differ: " + shapeToString(x->shape) +
                  (ta ? " (transposed)" : "") + " and " + shapeToString(y->shape) +
                  (tb ? " (transposed)" : ""),
              {0, 1});
    return nullptr;
  }
  std::optional<DType> dt = outDType(ctx, x->dtype);
  if (!dt)
    return nullptr;
  return makeTensorType({(*batch)[0], m, n}, *dt);
}

static TypeRef biasAddRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  const TensorType *bias = data ? ctx.tensorArg(1) : nullptr;
  if (!bias)
    return nullptr;
  if (data->dtype != bias->dtype) {
    ctx.error("dtypes " + dtypeName(data->dtype) + " and " + dtypeName(bias->dtype) +
                  " do not match",
              {0, 1});
    return nullptr;
  }
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis");
  if (!axis)
    return nullptr;
  if (bias->rank() != 1 || !dimsAgree(bias->shape[0], data->shape[*axis])) {
    ctx.error("bias must have shape (" + dimToString(data->shape[*axis]) + ") to match axis " +
                  Twine(*axis) + " of data " + shapeToString(data->shape) + ", got " +
                  shapeToString(bias->shape),
              {0, 1});
    return nullptr;
  }
  return makeTensorType(data->shape, data->dtype);
}

static TypeRef softmaxRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  if (!ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis"))
    return nullptr;
  return makeTensorType(data->shape, data->dtype);
}

/// [d0, d1, ...] -> [d0, d1 * d2 * ...] (a dynamic dim makes the product
/// dynamic).
static TypeRef batchFlattenRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  if (data->rank() < 1) {
    ctx.error("the data must have rank 1 or more, got " + shapeToString(data->shape), {0});
    return nullptr;
  }
  int64_t rest = 1;
  for (size_t d = 1; d < data->rank(); ++d)
    rest = data->shape[d] == TensorType::kDynamic || rest == TensorType::kDynamic
               ? TensorType::kDynamic
               : rest * data->shape[d];
  return makeTensorType({data->shape[0], rest}, data->dtype);
}

/// Checks that operands first..last are 1-D of data's dtype and of size
/// data.shape[axis] (the per-channel vectors of batch_norm and layer_norm).
static bool channelVectors(TypeRelContext &ctx, const TensorType *data, unsigned axis,
                           unsigned first, unsigned last) {
  static const char *names[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  for (unsigned i = first; i <= last; ++i) {
    const TensorType *v = ctx.tensorArg(i);
    if (!v)
      return false;
    if (v->dtype != data->dtype || v->rank() != 1 || !dimsAgree(v->shape[0], data->shape[axis])) {
      ctx.error(Twine(i < 5 ? names[i] : "operand") + " must be " +
                    typeToString(makeTensorType({data->shape[axis]}, data->dtype).get()) +
                    " to match axis " + Twine(axis) + " of the data, got " + typeToString(v),
                {0, i});
      return false;
    }
  }
  return true;
}

/// (data, gamma, beta, moving_mean, moving_var) -> (data's type, [C], [C]).
static TypeRef batchNormRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis");
  if (!axis || !channelVectors(ctx, data, *axis, 1, 4))
    return nullptr;
  TypeRef vec = makeTensorType({data->shape[*axis]}, data->dtype);
  std::vector<TypeRef> fields = {makeTensorType(data->shape, data->dtype), vec, vec};
  return make<TupleType>(std::move(fields));
}

/// (data, gamma, beta) -> data's type.
static TypeRef layerNormRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  std::optional<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data->rank(), "axis");
  if (!axis || !channelVectors(ctx, data, *axis, 1, 2))
    return nullptr;
  return makeTensorType(data->shape, data->dtype);
}

/// (data, mask), both of data's type (TVM's DropoutRel).
static TypeRef dropoutRel(TypeRelContext &ctx) {
  const TensorType *data = ctx.tensorArg(0);
  if (!data)
    return nullptr;
  std::vector<TypeRef> fields = {makeTensorType(data->shape, data->dtype),
                                 makeTensorType(data->shape, data->dtype)};
  return make<TupleType>(std::move(fields));
}

void addNnOps(std::vector<OpDef> &ops) {
  OpDef dense;
  dense.name = "nn.dense";
  dense.summary = "Fully connected layer: data * weight^T";
  dense.numArgs = 2;
  dense.attrs = {noneAttr("units", AttrKind::OptInt), dtypeAttr("out_dtype", "")};
  dense.relation = denseRel;
  dense.pattern = OpPattern::OutElementwiseFusable;
  ops.push_back(std::move(dense));

  OpDef bmm;
  bmm.name = "nn.batch_matmul";
  bmm.summary = "Batched matrix product of two rank-3 tensors";
  bmm.numArgs = 2;
  bmm.attrs = {dtypeAttr("out_dtype", ""), boolAttr("transpose_a", false),
               boolAttr("transpose_b", true)};
  bmm.relation = batchMatmulRel;
  bmm.pattern = OpPattern::OutElementwiseFusable;
  ops.push_back(std::move(bmm));

  OpDef biasAdd;
  biasAdd.name = "nn.bias_add";
  biasAdd.summary = "Adds a 1-D bias along one axis of the data";
  biasAdd.numArgs = 2;
  biasAdd.attrs = {intAttr("axis", 1)};
  biasAdd.relation = biasAddRel;
  biasAdd.pattern = OpPattern::Broadcast;
  ops.push_back(std::move(biasAdd));

  OpDef softmax;
  softmax.name = "nn.softmax";
  softmax.summary = "Softmax along one axis";
  softmax.numArgs = 1;
  softmax.attrs = {intAttr("axis", -1)};
  softmax.relation = softmaxRel;
  OpDef logSoftmax = softmax;
  logSoftmax.name = "nn.log_softmax";
  logSoftmax.summary = "Logarithm of the softmax along one axis";
  ops.push_back(std::move(softmax));
  ops.push_back(std::move(logSoftmax));

  OpDef batchNorm;
  batchNorm.name = "nn.batch_norm";
  batchNorm.summary = "Batch normalization at inference: (data - mean) / sqrt(var + epsilon) * "
                      "gamma + beta along axis; fields 1 and 2 are the moving mean and variance";
  batchNorm.numArgs = 5;
  batchNorm.attrs = {intAttr("axis", 1), floatAttr("epsilon", 1e-5), boolAttr("center", true),
                     boolAttr("scale", true)};
  batchNorm.relation = batchNormRel;
  ops.push_back(std::move(batchNorm));

  OpDef layerNorm;
  layerNorm.name = "nn.layer_norm";
  layerNorm.summary = "Layer normalization along axis: (data - mean) / sqrt(var + epsilon) * "
                      "gamma + beta";
  layerNorm.numArgs = 3;
  layerNorm.attrs = {intAttr("axis", -1), floatAttr("epsilon", 1e-5), boolAttr("center", true),
                     boolAttr("scale", true)};
  layerNorm.relation = layerNormRel;
  ops.push_back(std::move(layerNorm));

  OpDef dropout;
  dropout.name = "nn.dropout";
  dropout.summary = "Dropout at inference: field 0 is the data unchanged, field 1 a mask of ones";
  dropout.numArgs = 1;
  dropout.attrs = {floatAttr("rate", 0.5)};
  dropout.relation = dropoutRel;
  ops.push_back(std::move(dropout));

  OpDef flatten;
  flatten.name = "nn.batch_flatten";
  flatten.summary = "Flattens every dim but the first: [N, ...] -> [N, product of the rest]";
  flatten.numArgs = 1;
  flatten.dtypes = kAnySupported;
  flatten.relation = batchFlattenRel;
  flatten.pattern = OpPattern::Injective;
  ops.push_back(std::move(flatten));
}

} // namespace hx
