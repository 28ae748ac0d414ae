//===- OnnxNn.cpp - Converters of ONNX matrix products and normalizations -===//
//
// Gemm and MatMul (nn.dense, its weight transposed at import time when it is
// a constant; nn.batch_matmul for batches), BatchNormalization at inference,
// Softmax, LogSoftmax and Hardmax (before opset 13 the input is read as 2-D
// around the axis; Hardmax is a one-hot of argmax, an equal against a
// constant index range, cast), LayerNormalization (nn.layer_norm over the
// last axis; over more axes, or with its Mean and InvStdDev outputs, a
// composition of mean, subtract, multiply and rsqrt), MeanVarianceNormalization
// and LpNormalization (compositions of mean or sum and elementwise operators).
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include <cstring>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

/// A constant 2-D matrix, transposed at import time.
std::shared_ptr<const HostTensor> transposed2d(const HostTensor &m) {
  int64_t r = m.shape()[0], c = m.shape()[1];
  auto out = std::make_shared<HostTensor>(m.dtype(), ArrayRef<int64_t>{c, r});
  size_t e = dtypeBytes(m.dtype());
  auto *s = static_cast<const char *>(m.data());
  auto *d = static_cast<char *>(out->data());
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j)
      std::memcpy(d + (j * r + i) * e, s + (i * c + j) * e, e);
  return out;
}

/// The expression of `b` transposed as nn.dense wants its weight ([N, K]).
ExprRef denseWeight(const NodeCtx &ctx, OnnxValue &b, bool alreadyNK) {
  if (alreadyNK)
    return ctx.use(b);
  if (b.constant) {
    OnnxValue t;
    t.constant = ctx.imp.derivedConstant(b.constant, "_T", transposed2d);
    t.dtype = b.dtype;
    t.dims = Dims(t.constant->shape().begin(), t.constant->shape().end());
    return ctx.use(t);
  }
  return ctx.call("transpose", {ctx.use(b)}, {{"axes", attrs::ints({1, 0})}});
}

Error gemm(NodeCtx &ctx) {
  TRY(a, ctx.required(0));
  TRY(b, ctx.required(1));
  if (rankOf(*a) != 2 || rankOf(*b) != 2)
    return ctx.error("A and B must have rank 2");
  ExprRef x = ctx.use(*a);
  if (ctx.getInt("transA", 0))
    x = ctx.call("transpose", {x}, {{"axes", attrs::ints({1, 0})}});
  ExprRef out = ctx.call("nn.dense", {x, denseWeight(ctx, *b, ctx.getInt("transB", 0))});
  float alpha = ctx.getFloat("alpha", 1), beta = ctx.getFloat("beta", 1);
  auto scalarOf = [&](float v) { return ctx.scalar(a->dtype, v); };
  if (alpha != 1)
    out = ctx.call("multiply", {out, scalarOf(alpha)});
  if (OnnxValue *c = ctx.input(2); c && beta != 0) {
    ExprRef cx = ctx.use(*c);
    if (beta != 1)
      cx = ctx.call("multiply", {cx, scalarOf(beta)});
    out = ctx.call("add", {out, cx});
  }
  ctx.setOutput(0, out);
  return Error::success();
}

Error matmul(NodeCtx &ctx) {
  TRY(a, ctx.required(0));
  TRY(b, ctx.required(1));
  if (Error e = needRank(ctx, *a, "A"))
    return e;
  if (Error e = needRank(ctx, *b, "B"))
    return e;
  int64_t ra = rankOf(*a), rb = rankOf(*b);
  if (rb == 2 && ra >= 1) {
    ctx.setOutput(0, ctx.call("nn.dense", {ctx.use(*a), denseWeight(ctx, *b, false)}));
    return Error::success();
  }
  if (ra < 3 || ra != rb)
    return ctx.error("MatMul of ranks " + Twine(ra) + " and " + Twine(rb) +
                     " is not supported (2-D right sides and equal ranks of 3 or more are)");
  // [..., M, K] x [..., K, N]: fold the batch dims into one.
  const Dims &da = *a->dims, &db = *b->dims;
  Dims batchA(da.begin(), da.end() - 2), batchB(db.begin(), db.end() - 2);
  auto product = [](ArrayRef<int64_t> d) {
    int64_t p = 1;
    for (int64_t v : d)
      p = (v < 0 || p < 0) ? -1 : p * v;
    return p;
  };
  int64_t pa = product(batchA), pb = product(batchB);
  if (batchA != batchB && pa != 1 && pb != 1)
    return ctx.error("batch dims " + listText(batchA) + " and " + listText(batchB) +
                     " differ (only equal batch dims or a batch of 1 broadcast)");
  ExprRef x = ctx.use(*a), y = ctx.use(*b);
  if (ra > 3)
    x = ctx.call("reshape", {x}, {{"newshape", attrs::ints({-1, da[ra - 2], da[ra - 1]})}});
  if (rb > 3)
    y = ctx.call("reshape", {y}, {{"newshape", attrs::ints({-1, db[rb - 2], db[rb - 1]})}});
  ExprRef out =
      ctx.call("nn.batch_matmul", {x, y},
               {{"transpose_a", attrs::boolean(false)}, {"transpose_b", attrs::boolean(false)}});
  if (ra > 3) {
    // The batch dims of the larger batch (the other is equal or 1), then m, n.
    Dims shape = pa == 1 ? batchB : batchA;
    shape.push_back(da[ra - 2]);
    shape.push_back(db[rb - 1]);
    if (llvm::any_of(shape, [](int64_t d) { return d < 0; })) {
      TRY(inferred, outputShape(ctx));
      shape = inferred;
    }
    out = ctx.call("reshape", {out}, {{"newshape", attrs::ints(shape)}});
  }
  ctx.setOutput(0, out);
  return Error::success();
}

Error batchNorm(NodeCtx &ctx) {
  if (ctx.getInt("training_mode", 0))
    return ctx.error("training_mode=1 is not supported (hx runs inference)");
  for (int i = 1; i < ctx.node.output_size(); ++i)
    if (!ctx.node.output(i).empty())
      return ctx.error("the running mean and variance outputs are not supported");
  ExprRef t =
      ctx.call("nn.batch_norm", {ctx.use(0), ctx.use(1), ctx.use(2), ctx.use(3), ctx.use(4)},
               {{"epsilon", attrs::real(ctx.getFloat("epsilon", 1e-5f))}});
  ctx.setOutput(0, ctx.getItem(t, 0));
  return Error::success();
}

/// Softmax-13 and LogSoftmax-13 (`Op`, nn.softmax or nn.log_softmax): over
/// one axis, the last by default.
template <OpName Op> Error softmax(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", -1), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", 0)) + " is out of range for rank " +
                     Twine(r));
  ctx.setOutput(0, ctx.call(Op.name, {ctx.use(*x)}, {{"axis", attrs::integer(axis)}}));
  return Error::success();
}

/// Softmax-11 and LogSoftmax-11: the input is read as 2-D,
/// [prod(dims before axis), prod(the rest)], the axis 1 by default.
template <OpName Op> Error softmaxFlattened(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", 1), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", 0)) + " is out of range for rank " +
                     Twine(r));
  if (axis == r - 1) {
    ctx.setOutput(0, ctx.call(Op.name, {ctx.use(*x)}, {{"axis", attrs::integer(axis)}}));
    return Error::success();
  }
  if (!x->isStatic())
    return ctx.error("Softmax before opset 13 over a non-final axis needs a static shape");
  int64_t inner = 1;
  for (int64_t i = axis; i < r; ++i)
    inner *= (*x->dims)[i];
  ExprRef flat =
      ctx.call("reshape", {ctx.use(*x)}, {{"newshape", attrs::ints({axis == 0 ? 1 : -1, inner})}});
  ExprRef s = ctx.call(Op.name, {flat}, {{"axis", attrs::integer(1)}});
  ctx.setOutput(0, ctx.call("reshape", {s}, {{"newshape", attrs::ints(*x->dims)}}));
  return Error::success();
}

/// Hardmax over `axis` of `x` (rank r, that dim static): 1 where
/// argmax(x) along it (the first maximum), else 0.
Expected<ExprRef> hardmaxAlong(NodeCtx &ctx, ExprRef x, DType dtype, ArrayRef<int64_t> dims,
                               int64_t axis) {
  int64_t n = dims[axis];
  if (n < 0)
    return ctx.error("the dim Hardmax runs along must be static");
  Dims shape(dims.size(), 1);
  shape[axis] = n;
  std::vector<int64_t> ids(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    ids[size_t(i)] = i;
  ExprRef idx =
      ctx.call("argmax", {x}, {{"axis", attrs::ints({axis})}, {"keepdims", attrs::boolean(true)}});
  ExprRef hot = ctx.call("equal", {idx, ctx.constant(intTensor(ids, DType::Int32, shape))});
  return ctx.call("cast", {hot}, {{"dtype", attrs::str(dtypeName(dtype))}});
}

/// Hardmax-13: along one axis, the last by default.
Error hardmax(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", -1), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", -1)) + " is out of range for rank " +
                     Twine(r));
  TRY(y, hardmaxAlong(ctx, ctx.use(*x), x->dtype, *x->dims, axis));
  ctx.setOutput(0, y);
  return Error::success();
}

/// Hardmax-11: the input read as 2-D around `axis` (1 by default), as
/// Softmax-11 reads it.
Error hardmaxFlattened(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", 1), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", 1)) + " is out of range for rank " +
                     Twine(r));
  if (!x->isStatic())
    return ctx.error("Hardmax before opset 13 needs a static shape");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i)
    (i < axis ? outer : inner) *= (*x->dims)[i];
  ExprRef flat = ctx.call("reshape", {ctx.use(*x)}, {{"newshape", attrs::ints({outer, inner})}});
  TRY(y, hardmaxAlong(ctx, flat, x->dtype, {outer, inner}, 1));
  ctx.setOutput(0, ctx.call("reshape", {y}, {{"newshape", attrs::ints(*x->dims)}}));
  return Error::success();
}

/// The node asks for output i.
bool wantsOutput(const NodeCtx &ctx, int i) {
  return ctx.node.output_size() > i && !ctx.node.output(i).empty();
}

/// LayerNormalization over the axes from `axis` on: nn.layer_norm for the
/// last axis alone, else (or when the Mean and InvStdDev outputs are asked
/// for) mean, subtract, multiply and rsqrt over the axes, their dims kept.
/// stash_type 1 (the default) computes a float16 input in float32.
Error layerNorm(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(scale, ctx.required(1));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", -1), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", -1)) + " is out of range for rank " +
                     Twine(r));
  if (!isFloat(x->dtype))
    return ctx.error("the input must be a float tensor, not " + dtypeName(x->dtype));
  float eps = ctx.getFloat("epsilon", 1e-5f);
  bool stats = wantsOutput(ctx, 1) || wantsOutput(ctx, 2);
  if (axis == r - 1 && !stats) {
    if (!scale->dims)
      return ctx.error("the scale has no known shape");
    ExprRef beta;
    if (ctx.input(2)) {
      beta = ctx.use(2);
    } else {
      if (elementCount(*scale->dims) < 0)
        return ctx.error("the scale's shape must be static and not too large");
      beta = ctx.constant(HostTensor(scale->dtype, *scale->dims));
    }
    ctx.setOutput(0, ctx.call("nn.layer_norm", {ctx.use(*x), ctx.use(*scale), beta},
                              {{"axis", attrs::integer(axis)}, {"epsilon", attrs::real(eps)}}));
    return Error::success();
  }
  int64_t stash = ctx.getInt("stash_type", 1);
  if (stash != 1 && stash != 0)
    return ctx.error("stash_type " + Twine(stash) + " is not supported (1, float32, is)");
  DType t = stash == 1 ? DType::Float32 : x->dtype;
  auto asT = [&](ExprRef e, DType from) {
    return from == t ? e : ctx.call("cast", {e}, {{"dtype", attrs::str(dtypeName(t))}});
  };
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < r; ++a)
    axes.push_back(a);
  Attrs over{{"axis", attrs::ints(axes)}, {"keepdims", attrs::boolean(true)}};
  ExprRef in = asT(ctx.use(*x), x->dtype);
  ExprRef mean = ctx.call("mean", {in}, over);
  ExprRef d = ctx.call("subtract", {in, mean});
  ExprRef var = ctx.call("mean", {ctx.call("multiply", {d, d})}, over);
  ExprRef inv = ctx.call("rsqrt", {ctx.call("add", {var, ctx.scalar(t, eps)})});
  ExprRef y =
      ctx.call("multiply", {ctx.call("multiply", {d, inv}), asT(ctx.use(*scale), scale->dtype)});
  if (OnnxValue *b = ctx.input(2))
    y = ctx.call("add", {y, asT(ctx.use(*b), b->dtype)});
  if (t != x->dtype)
    y = ctx.call("cast", {y}, {{"dtype", attrs::str(dtypeName(x->dtype))}});
  ctx.setOutput(0, y);
  if (wantsOutput(ctx, 1))
    ctx.setOutput(1, mean);
  if (wantsOutput(ctx, 2))
    ctx.setOutput(2, inv);
  return Error::success();
}

/// MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9) over
/// `axes` (0, 2, 3 by default), the variance mean((x - mean)^2).
Error meanVarianceNorm(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  if (!isFloat(x->dtype))
    return ctx.error("the input must be a float tensor, not " + dtypeName(x->dtype));
  std::vector<int64_t> axes = ctx.getInts("axes").value_or(std::vector<int64_t>{0, 2, 3});
  for (int64_t &a : axes) {
    int64_t n = normAxis(a, rankOf(*x));
    if (n < 0 || n >= rankOf(*x))
      return ctx.error("axis " + Twine(a) + " is out of range for rank " + Twine(rankOf(*x)));
    a = n;
  }
  Attrs over{{"axis", attrs::ints(axes)}, {"keepdims", attrs::boolean(true)}};
  ExprRef in = ctx.use(*x);
  ExprRef d = ctx.call("subtract", {in, ctx.call("mean", {in}, over)});
  ExprRef sd = ctx.call("sqrt", {ctx.call("mean", {ctx.call("multiply", {d, d})}, over)});
  ctx.setOutput(0, ctx.call("divide", {d, ctx.call("add", {sd, ctx.scalar(x->dtype, 1e-9)})}));
  return Error::success();
}

/// LpNormalization: x divided by its L1 (p=1) or L2 (p=2) norm along `axis`.
Error lpNormalization(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  if (!isFloat(x->dtype))
    return ctx.error("the input must be a float tensor, not " + dtypeName(x->dtype));
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", -1), r), p = ctx.getInt("p", 2);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", -1)) + " is out of range for rank " +
                     Twine(r));
  if (p != 1 && p != 2)
    return ctx.error("p=" + Twine(p) + " is not supported (1 and 2 are)");
  Attrs over{{"axis", attrs::ints({axis})}, {"keepdims", attrs::boolean(true)}};
  ExprRef in = ctx.use(*x);
  ExprRef norm = p == 1
                     ? ctx.call("sum", {ctx.call("abs", {in})}, over)
                     : ctx.call("sqrt", {ctx.call("sum", {ctx.call("multiply", {in, in})}, over)});
  ctx.setOutput(0, ctx.call("divide", {in, norm}));
  return Error::success();
}

} // namespace

void onnximport::addNnConverters(ConverterTable &t) {
  t.add("Gemm", {11, 21}, gemm);
  t.add("MatMul", {11, 21}, matmul);
  t.add("BatchNormalization", {11, 21}, batchNorm);
  t.add("Softmax", {11, 12}, softmaxFlattened<"nn.softmax">);
  t.add("Softmax", {13, 21}, softmax<"nn.softmax">);
  t.add("LogSoftmax", {11, 12}, softmaxFlattened<"nn.log_softmax">);
  t.add("LogSoftmax", {13, 21}, softmax<"nn.log_softmax">);
  t.add("Hardmax", {11, 12}, hardmaxFlattened); // input read as 2-D
  t.add("Hardmax", {13, 21}, hardmax);
  t.add("LayerNormalization", {17, 21}, layerNorm);
  // Opset 13 only added bfloat16 (MeanVarianceNormalization's 9 is hx's 11).
  t.add("MeanVarianceNormalization", {11, 21}, meanVarianceNorm);
  t.add("LpNormalization", {11, 21}, lpNormalization);
}
