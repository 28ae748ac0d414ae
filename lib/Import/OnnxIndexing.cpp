//===- OnnxIndexing.cpp - Converters of ONNX rearrangements and indexing ---===//
//
// ONNX operators that move or pick elements, as compositions of hx's
// transform operators on static shapes:
//
//  - DepthToSpace and SpaceToDepth: a reshape to rank 6, a transpose and a
//    reshape back (DCR and CRD orders);
//  - Tile: the input reshaped with a unit dim before each dim, broadcast
//    against zeros of the repeated shape, reshaped to the product;
//  - OneHot: `equal` of the (wrapped) indices against a constant range
//    along the new axis, then `where` between the off and on values;
//  - EyeLike: a constant, the input's shape being static;
//  - GatherND (batch_dims 0): the index tuples folded into row numbers of
//    the data flattened over the indexed dims, then `take`;
//  - TopK with k known at import time: hx's topk.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

ExprRef reshape(const NodeCtx &ctx, ExprRef x, ArrayRef<int64_t> shape) {
  return ctx.call("reshape", {x}, {{"newshape", attrs::ints(shape)}});
}

ExprRef transpose(const NodeCtx &ctx, ExprRef x, ArrayRef<int64_t> perm) {
  return ctx.call("transpose", {x}, {{"axes", attrs::ints(perm)}});
}

/// The static shape of a required input of rank `rank` (-1: any).
Expected<Dims> staticDims(const NodeCtx &ctx, const OnnxValue &v, int64_t rank, StringRef what) {
  if (!v.isStatic())
    return ctx.error(what + " must have a static shape");
  if (rank >= 0 && int64_t(v.dims->size()) != rank)
    return ctx.error(what + " must have rank " + Twine(rank));
  return *v.dims;
}

template <bool ToSpace> Error depthSpace(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(d, staticDims(ctx, *x, 4, "the input"));
  int64_t b = ctx.getInt("blocksize", 0);
  if (b < 1)
    return ctx.error("blocksize must be positive");
  int64_t n = d[0], c = d[1], h = d[2], w = d[3];
  ExprRef in = ctx.use(*x), out;
  if (ToSpace) {
    if (c % (b * b))
      return ctx.error("the channels (" + Twine(c) + ") must be a multiple of blocksize^2");
    std::string mode = ctx.getString("mode", "DCR");
    if (mode == "DCR")
      out = transpose(ctx, reshape(ctx, in, {n, b, b, c / (b * b), h, w}), {0, 3, 4, 1, 5, 2});
    else if (mode == "CRD")
      out = transpose(ctx, reshape(ctx, in, {n, c / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3});
    else
      return ctx.error("mode must be DCR or CRD, not '" + mode + "'");
    out = reshape(ctx, out, {n, c / (b * b), h * b, w * b});
  } else {
    if (h % b || w % b)
      return ctx.error("the spatial dims must be multiples of blocksize");
    out = transpose(ctx, reshape(ctx, in, {n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
    out = reshape(ctx, out, {n, c * b * b, h / b, w / b});
  }
  ctx.setOutput(0, out);
  return Error::success();
}

Error tile(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(d, staticDims(ctx, *x, -1, "the input"));
  TRY(reps, ctx.constInts(1));
  if (!reps || reps->size() != d.size())
    return ctx.error("repeats must have one value per dim of the input");
  std::vector<int64_t> spread, big, out;
  for (size_t i = 0; i < d.size(); ++i) {
    if ((*reps)[i] < 0)
      return ctx.error("repeats must be non-negative");
    spread.insert(spread.end(), {1, d[i]});
    big.insert(big.end(), {(*reps)[i], d[i]});
    out.push_back((*reps)[i] * d[i]);
  }
  if (elementCount(big) < 0)
    return ctx.error("the tiled tensor is too large");
  ExprRef zeros = ctx.constant(HostTensor(x->dtype, big));
  ExprRef t = ctx.call("add", {reshape(ctx, ctx.use(*x), spread), zeros});
  ctx.setOutput(0, reshape(ctx, t, out));
  return Error::success();
}

Error oneHot(NodeCtx &ctx) {
  TRY(idx, ctx.required(0));
  TRY(depthT, ctx.known(1));
  TRY(values, ctx.required(2));
  if (!depthT || depthT->numElements() != 1)
    return ctx.error("depth must be a scalar known at import time");
  double dv = depthT->getDouble(0);
  if (!(dv >= 1) || dv > double(1 << 24))
    return ctx.error("depth must be between 1 and 2^24");
  int64_t depth = int64_t(dv);
  if (Error e = needRank(ctx, *idx, "the indices"))
    return e;
  int64_t r = rankOf(*idx) + 1, axis = normAxis(ctx.getInt("axis", -1), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis is out of range");
  ExprRef i = ctx.use(*idx);
  if (idx->dtype != DType::Int64)
    i = ctx.call("cast", {i}, {{"dtype", attrs::str("int64")}});
  // Negative indices count from the end of the depth.
  i = ctx.call("where", {ctx.call("less", {i, ctx.scalar(DType::Int64, 0)}),
                         ctx.call("add", {i, ctx.scalar(DType::Int64, double(depth))}), i});
  i = ctx.call("expand_dims", {i}, {{"axis", attrs::integer(axis)}});
  Dims rangeShape(size_t(r), 1);
  rangeShape[size_t(axis)] = depth;
  std::vector<int64_t> range(static_cast<size_t>(depth));
  for (int64_t k = 0; k < depth; ++k)
    range[size_t(k)] = k;
  ExprRef hot = ctx.call("equal", {i, ctx.constant(intTensor(range, DType::Int64, rangeShape))});
  ExprRef vals = ctx.use(*values);
  auto pick = [&](int64_t k) {
    return ctx.call("take", {vals, ctx.constant(intTensor({k}, DType::Int64, Dims{}))},
                    {{"axis", attrs::integer(0)}, {"mode", attrs::str("clip")}});
  };
  ctx.setOutput(0, ctx.call("where", {hot, pick(1), pick(0)}));
  return Error::success();
}

Error eyeLike(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(d, staticDims(ctx, *x, 2, "the input"));
  DType dt = x->dtype;
  if (ctx.attr("dtype")) {
    std::optional<DType> t = dtypeFromOnnx(ctx.getInt("dtype", 0));
    if (!t)
      return ctx.error("dtype is " + onnxTypeName(ctx.getInt("dtype", 0)) +
                       ", which hx has no dtype for");
    dt = *t;
  }
  if (elementCount(d) < 0)
    return ctx.error("the output is too large");
  int64_t k = ctx.getInt("k", 0);
  HostTensor eye(dt, d);
  for (int64_t i = 0; i < d[0]; ++i)
    if (i + k >= 0 && i + k < d[1])
      eye.setDouble(i * d[1] + i + k, 1);
  ctx.setConstant(0, std::move(eye));
  return Error::success();
}

Error gatherND(NodeCtx &ctx) {
  TRY(data, ctx.required(0));
  TRY(idx, ctx.required(1));
  if (ctx.getInt("batch_dims", 0) != 0)
    return ctx.error("batch_dims other than 0 is not supported");
  TRY(d, staticDims(ctx, *data, -1, "the data"));
  TRY(id, staticDims(ctx, *idx, -1, "the indices"));
  if (id.empty() || id.back() < 1 || id.back() > int64_t(d.size()))
    return ctx.error("the indices' last dim must be between 1 and the data's rank");
  int64_t m = id.back();
  // Row numbers of the data flattened over its first m dims.
  std::vector<int64_t> dims(d.begin(), d.begin() + m), strides(static_cast<size_t>(m), 1);
  for (int64_t k = m - 1; k > 0; --k)
    strides[size_t(k - 1)] = strides[size_t(k)] * d[size_t(k)];
  ExprRef i = ctx.use(*idx);
  if (idx->dtype != DType::Int64)
    i = ctx.call("cast", {i}, {{"dtype", attrs::str("int64")}});
  ExprRef dimsT = ctx.constant(intTensor(dims, DType::Int64, Dims{m}));
  i = ctx.call("where", {ctx.call("less", {i, ctx.scalar(DType::Int64, 0)}),
                         ctx.call("add", {i, dimsT}), i});
  ExprRef rows = ctx.call(
      "sum", {ctx.call("multiply", {i, ctx.constant(intTensor(strides, DType::Int64, Dims{m}))})},
      {{"axis", attrs::ints({int64_t(id.size()) - 1})}});
  std::vector<int64_t> flat = {-1};
  flat.insert(flat.end(), d.begin() + m, d.end());
  ctx.setOutput(0, ctx.call("take", {reshape(ctx, ctx.use(*data), flat), rows},
                            {{"axis", attrs::integer(0)}, {"mode", attrs::str("clip")}}));
  return Error::success();
}

/// TopK with k known at import time: hx's topk (values, then int64
/// indices), the largest or the smallest, sorted.
Error topK(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(kT, ctx.known(1));
  if (!kT || kT->numElements() != 1)
    return ctx.error("k must be a single value known at import time");
  int64_t k = int64_t(kT->getDouble(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t axis = normAxis(ctx.getInt("axis", -1), rankOf(*x));
  if (k < 1)
    return ctx.error("k must be positive");
  ExprRef both = ctx.call("topk", {ctx.use(*x)},
                          {{"k", attrs::integer(k)},
                           {"axis", attrs::integer(axis)},
                           {"ret_type", attrs::str("both")},
                           {"is_ascend", attrs::boolean(ctx.getInt("largest", 1) == 0)},
                           {"dtype", attrs::str("int64")}});
  ctx.setOutput(0, ctx.getItem(both, 0));
  if (ctx.node.output_size() > 1 && !ctx.node.output(1).empty())
    ctx.setOutput(1, ctx.getItem(both, 1));
  return Error::success();
}

} // namespace

void onnximport::addIndexingConverters(ConverterTable &t) {
  // TopK: k an input from opset 10, largest and sorted from 11.
  t.add("TopK", {11, 21}, topK);
  // DepthToSpace's mode came at opset 11; Tile, OneHot, EyeLike and
  // GatherND changed only in the dtypes they take (GatherND's batch_dims at
  // 12 defaults to the opset-11 meaning).
  t.add("DepthToSpace", {11, 21}, depthSpace<true>);
  t.add("SpaceToDepth", {11, 21}, depthSpace<false>);
  t.add("Tile", {11, 21}, tile);
  t.add("OneHot", {11, 21}, oneHot);
  t.add("EyeLike", {11, 21}, eyeLike);
  t.add("GatherND", {11, 21}, gatherND);
}
