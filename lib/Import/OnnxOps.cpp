//===- OnnxOps.cpp - One converter per ONNX op type ----------------------===//
//
// Each converter reads the node's inputs and attributes (already checked by
// onnx::checker) and emits the hx calls that compute its outputs, as TVM's
// ONNX frontend maps them:
//
//   Conv           -> nn.conv2d / nn.conv1d (+ nn.bias_add)
//   Gemm           -> nn.dense (+ multiply by alpha, + beta * C)
//   MatMul         -> nn.dense (2-D right side), nn.batch_matmul (batched)
//   BatchNormalization -> nn.batch_norm(...).0
//   Softmax        -> nn.softmax (before opset 13: over the flattened tail)
//   Flatten, Unsqueeze, Reshape with 0 and -1 -> reshape / expand_dims
//
// Pads and auto_pad become hx's explicit (top, left, bottom, right)
// padding; anything hx cannot express is an error naming the attribute.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

#define TRY(decl, expr)                                                                            \
  auto decl##OrErr = (expr);                                                                       \
  if (!decl##OrErr)                                                                                \
    return decl##OrErr.takeError();                                                                \
  auto &decl = *decl##OrErr;

int64_t rankOf(const OnnxValue &v) { return v.dims ? int64_t(v.dims->size()) : -1; }

Error needRank(NodeCtx &ctx, const OnnxValue &v, StringRef what) {
  if (!v.dims)
    return ctx.error(what + " has no known rank (shape inference gave none)");
  return Error::success();
}

int64_t norm(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// ---- elementwise ------------------------------------------------------------

template <const char *Op> Error unaryOp(NodeCtx &ctx) {
  ctx.setOutput(0, ctx.call(Op, {ctx.use(0)}));
  return Error::success();
}
template <const char *Op> Error binaryOp(NodeCtx &ctx) {
  ctx.setOutput(0, ctx.call(Op, {ctx.use(0), ctx.use(1)}));
  return Error::success();
}
/// Max, Min, Sum, Mean take any number of inputs.
template <const char *Op> Error variadicOp(NodeCtx &ctx) {
  ExprRef acc = ctx.use(0);
  for (size_t i = 1; i < ctx.numInputs(); ++i)
    acc = ctx.call(Op, {acc, ctx.use(i)});
  ctx.setOutput(0, acc);
  return Error::success();
}

constexpr char kRelu[] = "nn.relu", kSigmoid[] = "sigmoid", kTanh[] = "tanh", kExp[] = "exp",
               kLog[] = "log", kSqrt[] = "sqrt", kErf[] = "erf", kAbs[] = "abs",
               kNeg[] = "negative", kAdd[] = "add", kSub[] = "subtract", kMul[] = "multiply",
               kDiv[] = "divide", kPow[] = "power", kEqual[] = "equal", kLess[] = "less",
               kGreater[] = "greater", kMax[] = "maximum", kMin[] = "minimum";

Error identity(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ctx.alias(0, *x);
  if (ctx.node.output_size() > 1 && !ctx.node.output(1).empty()) // Dropout's mask
    return ctx.error("the mask output is not supported at inference");
  return Error::success();
}

/// Dropout is the identity at inference. From opset 12 its third input,
/// training_mode, may ask for training: a true or run-time flag would drop
/// values at random, which hx does not do, so it is refused rather than
/// imported as the identity (a silently wrong answer).
Error dropout(NodeCtx &ctx) {
  if (OnnxValue *mode = ctx.input(2)) {
    if (!mode->constant)
      return ctx.error("training_mode is given at run time; hx imports Dropout for inference "
                       "only (training_mode false)");
    if (mode->constant->numElements() != 1 || mode->constant->getDouble(0) != 0)
      return ctx.error("training_mode is true; hx imports Dropout for inference only "
                       "(training_mode false)");
  }
  return identity(ctx);
}

/// A scalar constant of a dtype (a table entry).
ExprRef scalar(NodeCtx &ctx, DType dtype, double v) {
  HostTensor t(dtype, {});
  t.setDouble(0, v);
  return ctx.constant(std::move(t));
}

/// A float attribute: hx's text has no infinity, so one is the largest float.
AttrValue finite(double v) {
  if (std::isinf(v))
    v = v > 0 ? 3.4028234663852886e38 : -3.4028234663852886e38;
  return attrs::real(v);
}

Error reciprocal(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  ctx.setOutput(0, ctx.call("divide", {scalar(ctx, x->dtype, 1), ctx.use(*x)}));
  return Error::success();
}

Error leakyRelu(NodeCtx &ctx) {
  ctx.setOutput(0, ctx.call("nn.leaky_relu", {ctx.use(0)},
                            {{"alpha", attrs::real(ctx.getFloat("alpha", 0.01f))}}));
  return Error::success();
}

Error clip(NodeCtx &ctx) {
  double lo = -INFINITY, hi = INFINITY;
  if (ctx.opset() < 11) {
    lo = ctx.getFloat("min", -INFINITY);
    hi = ctx.getFloat("max", INFINITY);
  }
  for (size_t i : {1, 2}) {
    OnnxValue *v = ctx.input(i);
    if (!v)
      continue;
    if (!v->constant || v->constant->numElements() != 1 || std::isnan(v->constant->getDouble(0)))
      return ctx.error(Twine(i == 1 ? "min" : "max") +
                       " must be a number known at import time (a scalar, not NaN)");
    (i == 1 ? lo : hi) = v->constant->getDouble(0);
  }
  ctx.setOutput(0, ctx.call("clip", {ctx.use(0)}, {{"a_min", finite(lo)}, {"a_max", finite(hi)}}));
  return Error::success();
}

Error cast(NodeCtx &ctx) {
  std::optional<DType> to = dtypeFromOnnx(ctx.getInt("to", 0));
  if (!to)
    return ctx.error("attribute 'to' is " + onnxTypeName(ctx.getInt("to", 0)) +
                     ", which hx has no dtype for");
  ctx.setOutput(0, ctx.call("cast", {ctx.use(0)}, {{"dtype", attrs::str(dtypeName(*to))}}));
  return Error::success();
}

Error where(NodeCtx &ctx) {
  ctx.setOutput(0, ctx.call("where", {ctx.use(0), ctx.use(1), ctx.use(2)}));
  return Error::success();
}

// ---- convolution and pooling ----------------------------------------------

/// hx's padding for a window op: explicit pads, or auto_pad's.
Expected<std::vector<int64_t>> windowPadding(NodeCtx &ctx, const OnnxValue &x,
                                             ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                                             ArrayRef<int64_t> dilations) {
  size_t n = kernel.size();
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  std::vector<int64_t> pads(2 * n, 0);
  if (autoPad == "NOTSET") {
    if (std::optional<std::vector<int64_t>> p = ctx.getInts("pads")) {
      if (p->size() != 2 * n)
        return ctx.error("pads must have " + Twine(2 * n) + " values");
      pads = *p;
    }
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      int64_t in = (*x.dims)[2 + i];
      if (in < 0)
        return ctx.error("auto_pad=" + autoPad + " needs the spatial dims at import time");
      int64_t out = (in + strides[i] - 1) / strides[i];
      int64_t total =
          std::max<int64_t>(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in);
      int64_t small = total / 2, big = total - small;
      pads[i] = autoPad == "SAME_UPPER" ? small : big;
      pads[i + n] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad != "VALID") {
    return ctx.error("auto_pad '" + autoPad + "' is not supported");
  }
  return pads;
}

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;
};

Expected<Window> readWindow(NodeCtx &ctx, const OnnxValue &x, std::vector<int64_t> kernel) {
  size_t n = kernel.size();
  if (n != 1 && n != 2)
    return ctx.error(Twine(n) + "-D windows are not supported (1-D and 2-D are)");
  if (!x.dims || x.dims->size() != n + 2)
    return ctx.error("the input must have rank " + Twine(n + 2));
  Window w;
  w.kernel = kernel;
  w.strides = ctx.getInts("strides").value_or(std::vector<int64_t>(n, 1));
  w.dilations = ctx.getInts("dilations").value_or(std::vector<int64_t>(n, 1));
  if (w.strides.size() != n || w.dilations.size() != n)
    return ctx.error("strides and dilations must have " + Twine(n) + " values");
  for (size_t i = 0; i < n; ++i)
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1)
      return ctx.error("kernel sizes, strides and dilations must be positive");
  TRY(pads, windowPadding(ctx, x, w.kernel, w.strides, w.dilations));
  w.pads = pads;
  return w;
}

Error conv(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(w, ctx.required(1));
  if (!w->dims || w->dims->size() < 3)
    return ctx.error("the weight must have a known rank of 3 or 4");
  std::vector<int64_t> kernel(w->dims->begin() + 2, w->dims->end());
  if (std::optional<std::vector<int64_t>> ks = ctx.getInts("kernel_shape"))
    kernel = *ks;
  TRY(win, readWindow(ctx, *x, kernel));
  bool is1d = kernel.size() == 1;
  ExprRef out = ctx.call(is1d ? "nn.conv1d" : "nn.conv2d", {ctx.use(*x), ctx.use(*w)},
                         {{"strides", attrs::ints(win.strides)},
                          {"padding", attrs::ints(win.pads)},
                          {"dilation", attrs::ints(win.dilations)},
                          {"groups", attrs::integer(ctx.getInt("group", 1))},
                          {"channels", attrs::integer((*w->dims)[0])},
                          {"kernel_size", attrs::ints(kernel)}});
  if (ctx.input(2))
    out = ctx.call("nn.bias_add", {out, ctx.use(2)});
  ctx.setOutput(0, out);
  return Error::success();
}

Error pool(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  std::optional<std::vector<int64_t>> kernel = ctx.getInts("kernel_shape");
  if (!kernel)
    return ctx.error("kernel_shape is required");
  if (kernel->size() != 2)
    return ctx.error("only 2-D pooling is supported");
  TRY(win, readWindow(ctx, *x, *kernel));
  bool isMax = ctx.node.op_type() == "MaxPool";
  if (isMax && ctx.node.output_size() > 1 && !ctx.node.output(1).empty())
    return ctx.error("the Indices output is not supported");
  if (isMax && ctx.getInt("storage_order", 0))
    return ctx.error("storage_order=1 is not supported");
  Attrs a{{"pool_size", attrs::ints(win.kernel)},
          {"strides", attrs::ints(win.strides)},
          {"dilation", attrs::ints(win.dilations)},
          {"padding", attrs::ints(win.pads)},
          {"ceil_mode", attrs::boolean(ctx.getInt("ceil_mode", 0))}};
  if (!isMax)
    a.set("count_include_pad", attrs::boolean(ctx.getInt("count_include_pad", 0)));
  ctx.setOutput(0,
                ctx.call(isMax ? "nn.max_pool2d" : "nn.avg_pool2d", {ctx.use(*x)}, std::move(a)));
  return Error::success();
}

/// GlobalAveragePool and GlobalMaxPool.
Error globalPool(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (rankOf(*x) != 4)
    return ctx.error("only 2-D pooling (a rank-4 input) is supported");
  bool isMax = ctx.node.op_type() == "GlobalMaxPool";
  ctx.setOutput(
      0, isMax ? ctx.call("max", {ctx.use(*x)},
                          {{"axis", attrs::ints({2, 3})}, {"keepdims", attrs::boolean(true)}})
               : ctx.call("nn.global_avg_pool2d", {ctx.use(*x)}));
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

// ---- matrix products --------------------------------------------------------

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
ExprRef denseWeight(NodeCtx &ctx, OnnxValue &b, bool alreadyNK) {
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
  auto scalarOf = [&](float v) { return scalar(ctx, a->dtype, v); };
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
    OnnxValue probe;
    ctx.imp.typeOf(ctx.node.output(0), probe);
    if (!probe.dims)
      return ctx.error("the output has no shape from shape inference");
    out = ctx.call("reshape", {out}, {{"newshape", attrs::ints(*probe.dims)}});
  }
  ctx.setOutput(0, out);
  return Error::success();
}

// ---- shapes -----------------------------------------------------------------

/// The output's static shape from shape inference, for reshape.
Expected<Dims> outputShape(NodeCtx &ctx) {
  OnnxValue probe;
  ctx.imp.typeOf(ctx.node.output(0), probe);
  if (!probe.dims)
    return ctx.error("the output has no shape from shape inference");
  return *probe.dims;
}

Error reshape(NodeCtx &ctx) {
  TRY(shape, ctx.constInts(1));
  if (!shape)
    return ctx.error("the shape input is required");
  bool allowZero = ctx.getInt("allowzero", 0);
  if (allowZero && llvm::is_contained(*shape, 0))
    return ctx.error("allowzero=1 with a 0 in the shape is not supported");
  ctx.setOutput(0, ctx.call("reshape", {ctx.use(0)}, {{"newshape", attrs::ints(*shape)}}));
  return Error::success();
}

Error flatten(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x), axis = norm(ctx.getInt("axis", 1), r);
  if (axis == 1 && r >= 2) {
    ctx.setOutput(0, ctx.call("nn.batch_flatten", {ctx.use(*x)}));
    return Error::success();
  }
  TRY(out, outputShape(ctx));
  ctx.setOutput(0, ctx.call("reshape", {ctx.use(*x)}, {{"newshape", attrs::ints(out)}}));
  return Error::success();
}

Error transpose(NodeCtx &ctx) {
  Attrs a;
  if (std::optional<std::vector<int64_t>> perm = ctx.getInts("perm"))
    a.set("axes", attrs::ints(*perm));
  ctx.setOutput(0, ctx.call("transpose", {ctx.use(0)}, std::move(a)));
  return Error::success();
}

/// Axes from the attribute (before opset 13) or input 1.
Expected<std::optional<std::vector<int64_t>>> axesOf(NodeCtx &ctx, int64_t inputSince = 13) {
  if (ctx.opset() < inputSince)
    return ctx.getInts("axes");
  return ctx.constInts(1);
}

Error unsqueeze(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(axes, axesOf(ctx));
  if (!axes)
    return ctx.error("axes are required");
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t outRank = rankOf(*x) + axes->size();
  std::vector<int64_t> sorted;
  for (int64_t a : *axes)
    sorted.push_back(norm(a, outRank));
  llvm::sort(sorted);
  ExprRef out = ctx.use(*x);
  for (int64_t a : sorted)
    out = ctx.call("expand_dims", {out}, {{"axis", attrs::integer(a)}});
  ctx.setOutput(0, out);
  return Error::success();
}

Error squeeze(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(axes, axesOf(ctx));
  Attrs a;
  if (axes) {
    if (Error e = needRank(ctx, *x, "the input"))
      return e;
    std::vector<int64_t> n;
    for (int64_t axis : *axes)
      n.push_back(norm(axis, rankOf(*x)));
    a.set("axis", attrs::ints(n));
  }
  ctx.setOutput(0, ctx.call("squeeze", {ctx.use(*x)}, std::move(a)));
  return Error::success();
}

Error concat(NodeCtx &ctx) {
  SmallVector<ExprRef, 4> parts;
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    parts.push_back(ctx.use(i));
  ctx.setOutput(0, ctx.call("concatenate", {ctx.tuple(parts)},
                            {{"axis", attrs::integer(ctx.getInt("axis", 0))}}));
  return Error::success();
}

Error split(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t axis = norm(ctx.getInt("axis", 0), rankOf(*x));
  std::optional<std::vector<int64_t>> sizes;
  if (ctx.opset() < 13) {
    sizes = ctx.getInts("split");
  } else {
    TRY(s, ctx.constInts(1));
    sizes = s;
  }
  int64_t n = ctx.node.output_size();
  AttrValue sections = attrs::integer(n);
  if (sizes && !sizes->empty()) {
    std::vector<int64_t> idx;
    int64_t acc = 0;
    for (size_t i = 0; i + 1 < sizes->size(); ++i) {
      if ((*sizes)[i] < 0 || (*sizes)[i] > INT32_MAX || acc > INT32_MAX)
        return ctx.error("split sizes must be non-negative and fit the dim");
      idx.push_back(acc += (*sizes)[i]);
    }
    sections = attrs::ints(idx);
  }
  ExprRef t = ctx.call("split", {ctx.use(*x)},
                       {{"indices_or_sections", sections}, {"axis", attrs::integer(axis)}});
  for (int64_t i = 0; i < n; ++i)
    if (!ctx.node.output(i).empty())
      ctx.setOutput(i, ctx.getItem(t, unsigned(i)));
  return Error::success();
}

Error slice(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  TRY(starts, ctx.constInts(1));
  TRY(ends, ctx.constInts(2));
  TRY(axes, ctx.constInts(3));
  TRY(steps, ctx.constInts(4));
  if (!starts || !ends)
    return ctx.error("starts and ends are required");
  int64_t r = rankOf(*x);
  if (ends->size() != starts->size() || (axes && axes->size() != starts->size()) ||
      (steps && steps->size() != starts->size()))
    return ctx.error("starts, ends, axes and steps must have the same length");
  if (!axes && int64_t(starts->size()) > r)
    return ctx.error("more starts than the input has dims");
  std::vector<int64_t> ax = axes ? *axes : std::vector<int64_t>();
  if (!axes)
    for (size_t i = 0; i < starts->size(); ++i)
      ax.push_back(i);
  std::vector<int64_t> st = steps ? *steps : std::vector<int64_t>(starts->size(), 1);
  std::vector<int64_t> b, e;
  for (size_t i = 0; i < ax.size(); ++i) {
    ax[i] = norm(ax[i], r);
    if (ax[i] < 0 || ax[i] >= r)
      return ctx.error("axis " + Twine((*axes)[i]) + " is out of range for rank " + Twine(r));
    if (st[i] == 0)
      return ctx.error("a step is 0");
    int64_t dim = (*x->dims)[ax[i]];
    auto clampEnd = [&](int64_t v) {
      // INT64_MAX and other "to the end" markers.
      if (dim >= 0)
        return std::clamp<int64_t>(v < 0 ? v + dim : v, -1, dim);
      return std::clamp<int64_t>(v, INT32_MIN, INT32_MAX);
    };
    b.push_back(clampEnd((*starts)[i]));
    e.push_back(clampEnd((*ends)[i]));
  }
  ctx.setOutput(0, ctx.call("strided_slice", {ctx.use(*x)},
                            {{"begin", attrs::ints(b)},
                             {"end", attrs::ints(e)},
                             {"strides", attrs::ints(st)},
                             {"axes", attrs::ints(ax)}}));
  return Error::success();
}

Error gather(NodeCtx &ctx) {
  ctx.setOutput(
      0, ctx.call("take", {ctx.use(0), ctx.use(1)},
                  {{"axis", attrs::integer(ctx.getInt("axis", 0))}, {"mode", attrs::str("wrap")}}));
  return Error::success();
}

Error expand(NodeCtx &ctx) {
  // Broadcasting against zeros of the target shape: add broadcasts exactly
  // as Expand does.
  TRY(x, ctx.required(0));
  TRY(shape, ctx.constInts(1));
  if (!shape || elementCount(*shape) < 0)
    return ctx.error("the shape must be known, non-negative and not too large");
  ctx.setOutput(0, ctx.call("add", {ctx.use(*x), ctx.constant(HostTensor(x->dtype, *shape))}));
  return Error::success();
}

Error needsStatic(NodeCtx &ctx) {
  return ctx.error("the value must be known at import time (the input's shape has dims that "
                   "only the run knows, or an input is not a constant)");
}

// ---- normalization and reductions -------------------------------------------

Error softmax(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  bool isLog = ctx.node.op_type() == "LogSoftmax";
  StringRef op = isLog ? "nn.log_softmax" : "nn.softmax";
  int64_t r = rankOf(*x);
  int64_t axis = norm(ctx.getInt("axis", ctx.opset() < 13 ? 1 : -1), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", 0)) + " is out of range for rank " +
                     Twine(r));
  if (ctx.opset() >= 13 || axis == r - 1) {
    ctx.setOutput(0, ctx.call(op, {ctx.use(*x)}, {{"axis", attrs::integer(axis)}}));
    return Error::success();
  }
  if (!x->isStatic())
    return ctx.error("Softmax before opset 13 over a non-final axis needs a static shape");
  // Before opset 13 the input is read as 2-D: [prod(dims before axis), rest].
  int64_t inner = 1;
  for (int64_t i = axis; i < r; ++i)
    inner *= (*x->dims)[i];
  ExprRef flat =
      ctx.call("reshape", {ctx.use(*x)}, {{"newshape", attrs::ints({axis == 0 ? 1 : -1, inner})}});
  ExprRef s = ctx.call(op, {flat}, {{"axis", attrs::integer(1)}});
  ctx.setOutput(0, ctx.call("reshape", {s}, {{"newshape", attrs::ints(*x->dims)}}));
  return Error::success();
}

Error layerNorm(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(scale, ctx.required(1));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t axis = norm(ctx.getInt("axis", -1), rankOf(*x));
  if (axis != rankOf(*x) - 1)
    return ctx.error("normalizing over more than the last axis is not supported");
  if (ctx.node.output_size() > 1)
    for (int i = 1; i < ctx.node.output_size(); ++i)
      if (!ctx.node.output(i).empty())
        return ctx.error("the Mean and InvStdDev outputs are not supported");
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
                            {{"axis", attrs::integer(axis)},
                             {"epsilon", attrs::real(ctx.getFloat("epsilon", 1e-5f))}}));
  return Error::success();
}

Error reduce(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  StringRef t = ctx.node.op_type();
  StringRef op = t == "ReduceMean"  ? "mean"
                 : t == "ReduceSum" ? "sum"
                 : t == "ReduceMax" ? "max"
                                    : "min";
  TRY(axes, axesOf(ctx, t == "ReduceSum" ? 13 : 18));
  bool keep = ctx.getInt("keepdims", 1);
  Attrs a;
  if (axes && !axes->empty()) {
    if (Error e = needRank(ctx, *x, "the input"))
      return e;
    std::vector<int64_t> n;
    for (int64_t axis : *axes)
      n.push_back(norm(axis, rankOf(*x)));
    a.set("axis", attrs::ints(n));
  } else if (axes && ctx.getInt("noop_with_empty_axes", 0)) {
    ctx.alias(0, *x);
    return Error::success();
  }
  a.set("keepdims", attrs::boolean(keep));
  ctx.setOutput(0, ctx.call(op, {ctx.use(*x)}, std::move(a)));
  return Error::success();
}

} // namespace

const StringMap<Converter> &onnximport::converters() {
  static const StringMap<Converter> table = {
      {"Abs", unaryOp<kAbs>},
      {"Add", binaryOp<kAdd>},
      {"AveragePool", pool},
      {"BatchNormalization", batchNorm},
      {"Cast", cast},
      {"Clip", clip},
      {"Concat", concat},
      {"Constant", needsStatic},
      {"ConstantOfShape", needsStatic},
      {"Conv", conv},
      {"Div", binaryOp<kDiv>},
      {"Dropout", dropout},
      {"Equal", binaryOp<kEqual>},
      {"Erf", unaryOp<kErf>},
      {"Exp", unaryOp<kExp>},
      {"Expand", expand},
      {"Flatten", flatten},
      {"Gather", gather},
      {"Gemm", gemm},
      {"GlobalAveragePool", globalPool},
      {"GlobalMaxPool", globalPool},
      {"Greater", binaryOp<kGreater>},
      {"Identity", identity},
      {"LayerNormalization", layerNorm},
      {"LeakyRelu", leakyRelu},
      {"Less", binaryOp<kLess>},
      {"Log", unaryOp<kLog>},
      {"LogSoftmax", softmax},
      {"MatMul", matmul},
      {"Max", variadicOp<kMax>},
      {"MaxPool", pool},
      {"Min", variadicOp<kMin>},
      {"Mul", binaryOp<kMul>},
      {"Neg", unaryOp<kNeg>},
      {"Pow", binaryOp<kPow>},
      {"Range", needsStatic},
      {"Reciprocal", reciprocal},
      {"ReduceMax", reduce},
      {"ReduceMean", reduce},
      {"ReduceMin", reduce},
      {"ReduceSum", reduce},
      {"Relu", unaryOp<kRelu>},
      {"Reshape", reshape},
      {"Shape", needsStatic},
      {"Sigmoid", unaryOp<kSigmoid>},
      {"Size", needsStatic},
      {"Slice", slice},
      {"Softmax", softmax},
      {"Split", split},
      {"Sqrt", unaryOp<kSqrt>},
      {"Squeeze", squeeze},
      {"Sub", binaryOp<kSub>},
      {"Tanh", unaryOp<kTanh>},
      {"Transpose", transpose},
      {"Unsqueeze", unsqueeze},
      {"Where", where},
  };
  return table;
}
