//===- OnnxTransform.cpp - Converters of ONNX shape operators -------------===//
//
// Reshape (0 and -1 as hx's reshape reads them; the output's shape from the
// folded one where ONNX's shape inference gave none), Flatten, Transpose,
// Unsqueeze and Squeeze (expand_dims, squeeze), Concat, Split (split and its
// projections), Slice (strided_slice, its bounds clamped), Gather
// (take(mode="wrap")), GatherElements (gather), GatherND (gather_nd, the
// indices' last dim moved first), ScatterElements and ScatterND
// (scatter_elements, scatter_nd; reduction "none" is hx's "update"), Expand (an add of zeros: hx broadcasts as
// Expand does), Pad (nn.pad) and Trilu (a where with a mask over the last
// two dims: a constant, or computed when k is a run-time input). Shapes,
// axes and sizes are attributes in hx, so the inputs that hold them must be
// known at import time (folded, OnnxFold.cpp).
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

Error reshape(NodeCtx &ctx) {
  if (onlyRunKnows(ctx, 1)) {
    ctx.setOutput(0, ctx.call("dyn.reshape", {ctx.use(0), ctx.use(1)},
                              {{"allowzero", attrs::boolean(ctx.getInt("allowzero", 0) != 0)}}));
    return Error::success();
  }
  TRY(shape, ctx.constInts(1));
  if (!shape)
    return ctx.error("the shape input is required");
  bool allowZero = ctx.getInt("allowzero", 0);
  if (allowZero && llvm::is_contained(*shape, 0))
    return ctx.error("allowzero=1 with a 0 in the shape is not supported");
  ctx.setOutput(0, ctx.call("reshape", {ctx.use(0)}, {{"newshape", attrs::ints(*shape)}}));
  // ONNX's shape inference leaves the output unshaped when the shape was a
  // computed value (Shape of the input, say) that hx folded: give it the
  // folded shape, so that later converters know its rank.
  OnnxValue *out = ctx.imp.lookup(ctx.node.output(0));
  const OnnxValue *x = ctx.input(0);
  if (out && !out->dims && x && x->isStatic()) {
    Dims d(shape->begin(), shape->end());
    int64_t known = 1, total = 1, infer = -1;
    for (size_t i = 0; i < d.size(); ++i) {
      if (d[i] == 0 && i < x->dims->size())
        d[i] = (*x->dims)[i];
      if (d[i] == -1 && infer < 0)
        infer = int64_t(i);
      else if (d[i] >= 0)
        known *= d[i];
      else
        return Error::success(); // hx's reshape rejects it
    }
    for (int64_t v : *x->dims)
      total *= v;
    if (infer >= 0 && known > 0 && total % known == 0)
      d[size_t(infer)] = total / known;
    if (llvm::all_of(d, [](int64_t v) { return v >= 0; }))
      out->dims = d;
  }
  return Error::success();
}

Error flatten(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", 1), r);
  if (axis == 1 && r >= 2) {
    ctx.setOutput(0, ctx.call("nn.batch_flatten", {ctx.use(*x)}));
    return Error::success();
  }
  // [prod(dims before axis), prod(the rest)]: a side with a dim only the
  // run knows is -1, inferred from the other.
  const Dims &d = *x->dims;
  auto product = [&](size_t from, size_t to) {
    int64_t p = 1;
    for (size_t i = from; i < to; ++i)
      p = d[i] < 0 || p < 0 ? -1 : p * d[i];
    return p;
  };
  int64_t outer = product(0, size_t(axis)), inner = product(size_t(axis), d.size());
  if (outer < 0 && inner < 0)
    return ctx.error("Flatten at axis " + Twine(axis) + " of " + listText(d) +
                     ": dims only the run knows on both sides");
  ctx.setOutput(
      0, ctx.call("reshape", {ctx.use(*x)},
                  {{"newshape", attrs::ints({outer < 0 ? -1 : outer, inner < 0 ? -1 : inner})}}));
  return Error::success();
}

Error transpose(NodeCtx &ctx) {
  Attrs a;
  if (std::optional<std::vector<int64_t>> perm = ctx.getInts("perm"))
    a.set("axes", attrs::ints(*perm));
  ctx.setOutput(0, ctx.call("transpose", {ctx.use(0)}, std::move(a)));
  return Error::success();
}

/// Unsqueeze: the axes an attribute before opset 13, input 1 from it.
template <ListArg Axes> Error unsqueeze(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(axes, listArg<Axes>(ctx, "axes", 1));
  if (!axes)
    return ctx.error("axes are required");
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t outRank = rankOf(*x) + axes->size();
  std::vector<int64_t> sorted;
  for (int64_t a : *axes)
    sorted.push_back(normAxis(a, outRank));
  llvm::sort(sorted);
  ExprRef out = ctx.use(*x);
  for (int64_t a : sorted)
    out = ctx.call("expand_dims", {out}, {{"axis", attrs::integer(a)}});
  ctx.setOutput(0, out);
  return Error::success();
}

/// Squeeze: the axes as Unsqueeze's.
template <ListArg Axes> Error squeeze(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(axes, listArg<Axes>(ctx, "axes", 1));
  Attrs a;
  if (axes) {
    if (Error e = needRank(ctx, *x, "the input"))
      return e;
    std::vector<int64_t> n;
    for (int64_t axis : *axes)
      n.push_back(normAxis(axis, rankOf(*x)));
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

/// Split: the sizes attribute `split` before opset 13, input 1 from it;
/// without sizes, equal parts, one per output.
template <ListArg Sizes> Error split(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t axis = normAxis(ctx.getInt("axis", 0), rankOf(*x));
  TRY(sizes, listArg<Sizes>(ctx, "split", 1));
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

/// Split from opset 18: the sizes an input, or `num_outputs` parts of
/// ceil(dim / num_outputs), the last one smaller when the dim does not
/// divide.
Error splitNumOutputs(NodeCtx &ctx) {
  const onnx::AttributeProto *parts = ctx.attr("num_outputs");
  if (!parts || ctx.input(1))
    return split<ListArg::Input>(ctx);
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t axis = normAxis(ctx.getInt("axis", 0), rankOf(*x));
  int64_t n = parts->i(), outputs = ctx.node.output_size();
  if (n != outputs)
    return ctx.error("num_outputs is " + Twine(n) + " but the node has " + Twine(outputs) +
                     " outputs");
  int64_t d = axis >= 0 && axis < rankOf(*x) ? (*x->dims)[axis] : -1;
  if (d < 0)
    return ctx.error("splitting a dim only the run knows into num_outputs parts is not supported");
  int64_t chunk = (d + n - 1) / n;
  std::vector<int64_t> idx;
  for (int64_t i = 1; i < n; ++i)
    idx.push_back(std::min(d, i * chunk));
  ExprRef t = ctx.call("split", {ctx.use(*x)},
                       {{"indices_or_sections", n == 1 ? attrs::integer(1) : attrs::ints(idx)},
                        {"axis", attrs::integer(axis)}});
  for (int64_t i = 0; i < n; ++i)
    if (!ctx.node.output(i).empty())
      ctx.setOutput(i, ctx.getItem(t, unsigned(i)));
  return Error::success();
}

Error slice(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  if (onlyRunKnows(ctx, 1) || onlyRunKnows(ctx, 2) || onlyRunKnows(ctx, 3) || onlyRunKnows(ctx, 4))
    return dynamicSlice(ctx);
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
    ax[i] = normAxis(ax[i], r);
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

/// GatherElements: hx's gather (negative indices count from the end).
Error gatherElements(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", 0), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", 0)) + " is out of range for rank " +
                     Twine(r));
  ctx.setOutput(0, ctx.call("gather", {ctx.use(*x), ctx.use(1)}, {{"axis", attrs::integer(axis)}}));
  return Error::success();
}

/// GatherND's and ScatterND's indices (input 1) as hx's gather_nd and
/// scatter_nd read them: the tuples along the first dim, where ONNX holds
/// them along the last (a transpose).
Expected<ExprRef> tuplesFirst(NodeCtx &ctx) {
  TRY(idx, ctx.required(1));
  if (Error e = needRank(ctx, *idx, "the indices"))
    return std::move(e);
  int64_t r = rankOf(*idx);
  if (r < 1)
    return ctx.error("the indices must have rank 1 or more");
  ExprRef i = ctx.use(*idx);
  if (r == 1)
    return i;
  std::vector<int64_t> perm{r - 1};
  for (int64_t d = 0; d + 1 < r; ++d)
    perm.push_back(d);
  return transposeBy(ctx, i, perm);
}

Error gatherNd(NodeCtx &ctx) {
  TRY(i, tuplesFirst(ctx));
  ctx.setOutput(0, ctx.call("gather_nd", {ctx.use(0), i},
                            {{"batch_dims", attrs::integer(ctx.getInt("batch_dims", 0))}}));
  return Error::success();
}

/// ScatterElements' and ScatterND's reduction as hx's mode (absent before
/// opset 16; min and max since 18).
Expected<std::string> scatterMode(const NodeCtx &ctx) {
  std::string r = ctx.getString("reduction", "none");
  if (r == "none")
    return std::string("update");
  if (r == "add" || r == "mul" || r == "min" || r == "max")
    return r;
  return ctx.error("reduction '" + r + "' is not one of none, add, mul, min, max");
}

Error scatterElements(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the data"))
    return e;
  int64_t r = rankOf(*x), axis = normAxis(ctx.getInt("axis", 0), r);
  if (axis < 0 || axis >= r)
    return ctx.error("axis " + Twine(ctx.getInt("axis", 0)) + " is out of range for rank " +
                     Twine(r));
  TRY(mode, scatterMode(ctx));
  ctx.setOutput(0, ctx.call("scatter_elements", {ctx.use(*x), ctx.use(1), ctx.use(2)},
                            {{"axis", attrs::integer(axis)}, {"reduction", attrs::str(mode)}}));
  return Error::success();
}

Error scatterNd(NodeCtx &ctx) {
  TRY(i, tuplesFirst(ctx));
  TRY(mode, scatterMode(ctx));
  ctx.setOutput(0,
                ctx.call("scatter_nd", {ctx.use(0), i, ctx.use(2)}, {{"mode", attrs::str(mode)}}));
  return Error::success();
}

Error expand(NodeCtx &ctx) {
  // Broadcasting against zeros of the target shape: add broadcasts exactly
  // as Expand does.
  TRY(x, ctx.required(0));
  if (onlyRunKnows(ctx, 1)) {
    ctx.setOutput(0, ctx.call("dyn.expand", {ctx.use(*x), ctx.use(1)}));
    return Error::success();
  }
  TRY(shape, ctx.constInts(1));
  if (!shape || elementCount(*shape) < 0)
    return ctx.error("the shape must be known, non-negative and not too large");
  ctx.setOutput(0, ctx.call("add", {ctx.use(*x), zerosOf(ctx, x->dtype, *shape)}));
  return Error::success();
}

/// Pad-11 and on: nn.pad, the pads (begins, then ends) known at import
/// time and non-negative, over the dims axes names (opset 18) or all;
/// constant_value, a scalar, may be a run-time input.
Error pad(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x);
  TRY(given, ctx.constInts(1));
  if (!given)
    return ctx.error("the pads input is required");
  std::optional<std::vector<int64_t>> pads = given;
  // Opset 18: the pads may cover only the dims input 3 (axes) names.
  TRY(axes, ctx.constInts(3));
  if (axes) {
    if (given->size() != 2 * axes->size())
      return ctx.error("pads must have two values per axis");
    pads = std::vector<int64_t>(size_t(2 * r), 0);
    for (size_t k = 0; k < axes->size(); ++k) {
      int64_t a = normAxis((*axes)[k], r);
      if (a < 0 || a >= r)
        return ctx.error("axis " + Twine((*axes)[k]) + " is out of range");
      (*pads)[size_t(a)] = (*given)[k];
      (*pads)[size_t(a + r)] = (*given)[k + axes->size()];
    }
  }
  if (int64_t(pads->size()) != 2 * r)
    return ctx.error("pads has " + Twine(pads->size()) + " values; the input's rank " + Twine(r) +
                     " needs " + Twine(2 * r));
  if (llvm::any_of(*pads, [](int64_t p) { return p < 0 || p > INT32_MAX; }))
    return ctx.error("negative pads (cropping) are not supported: " + listText(*pads));
  std::string mode = ctx.getString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return ctx.error("mode '" + mode + "' is not one of constant, edge, reflect");
  std::vector<AttrValue> widths;
  for (int64_t d = 0; d < r; ++d)
    widths.push_back(attrs::ints({(*pads)[size_t(d)], (*pads)[size_t(d + r)]}));
  ExprRef value;
  if (OnnxValue *v = ctx.input(2)) {
    if (v->dtype != x->dtype)
      return ctx.error("constant_value's dtype " + dtypeName(v->dtype) + " is not the input's");
    value = ctx.use(*v);
    if (rankOf(*v) != 0)
      value = ctx.call("reshape", {value}, {{"newshape", attrs::ints({})}});
  } else {
    value = ctx.scalar(x->dtype, 0);
  }
  ctx.setOutput(0, ctx.call("nn.pad", {ctx.use(*x), value},
                            {{"pad_width", AttrValue::ofList(std::move(widths))},
                             {"pad_mode", attrs::str(mode)}}));
  return Error::success();
}

/// Trilu: where(mask, x, 0) over the last two dims (which must be static).
/// With k known at import time the mask is a constant; with k given at run
/// time it is computed from a constant of j - i: less(j - i, k) marks what
/// the upper triangle drops, greater(j - i, k) what the lower one drops.
Error trilu(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t r = rankOf(*x);
  if (r < 2)
    return ctx.error("the input must have rank 2 or more, not " + Twine(r));
  int64_t rows = (*x->dims)[r - 2], cols = (*x->dims)[r - 1];
  if (rows < 0 || cols < 0 || elementCount({rows, cols}) < 0)
    return ctx.error("the last two dims must be static and not too large");
  bool upper = ctx.getInt("upper", 1);
  ExprRef zero = ctx.scalar(x->dtype, 0);
  if (OnnxValue *kv = ctx.input(1); kv && !kv->constant) {
    if (kv->dtype != DType::Int64 || (kv->dims && elementCount(*kv->dims) != 1))
      return ctx.error("k must be one int64");
    HostTensor diff(DType::Int64, {rows, cols});
    auto *d = diff.as<int64_t>();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        d[i * cols + j] = j - i;
    ExprRef k = ctx.use(*kv);
    if (rankOf(*kv) != 0)
      k = ctx.call("reshape", {k}, {{"newshape", attrs::ints({})}});
    ExprRef drop = ctx.call(upper ? "less" : "greater", {ctx.constant(std::move(diff)), k});
    ctx.setOutput(0, ctx.call("where", {drop, zero, ctx.use(*x)}));
    return Error::success();
  }
  TRY(k, ctx.constInts(1));
  if (k && k->size() != 1)
    return ctx.error("k must be one integer");
  int64_t diag = k ? k->front() : 0;
  HostTensor mask(DType::Bool, {rows, cols});
  auto *m = mask.as<bool>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      m[i * cols + j] = upper ? j - i >= diag : j - i <= diag;
  ctx.setOutput(0, ctx.call("where", {ctx.constant(std::move(mask)), ctx.use(*x), zero}));
  return Error::success();
}

} // namespace

void onnximport::addTransformConverters(ConverterTable &t) {
  t.add("Reshape", {11, 21}, reshape);
  t.add("Flatten", {11, 21}, flatten);
  t.add("Transpose", {11, 21}, transpose);
  t.add("Unsqueeze", {11, 12}, unsqueeze<ListArg::Attribute>);
  t.add("Unsqueeze", {13, 21}, unsqueeze<ListArg::Input>);
  t.add("Squeeze", {11, 12}, squeeze<ListArg::Attribute>);
  t.add("Squeeze", {13, 21}, squeeze<ListArg::Input>);
  t.add("Concat", {11, 21}, concat);
  t.add("Split", {11, 12}, split<ListArg::Attribute>);
  t.add("Split", {13, 17}, split<ListArg::Input>);
  t.add("Split", {18, 21}, splitNumOutputs); // or the attribute `num_outputs`
  t.add("Slice", {11, 21}, slice);
  t.add("Gather", {11, 21}, gather);
  t.add("GatherElements", {11, 21}, gatherElements);
  // Opset 12 added batch_dims (0 before: one converter); 13 bfloat16.
  t.add("GatherND", {11, 21}, gatherNd);
  // Opset 13 added bfloat16, 16 the reductions add and mul, 18 min and max.
  t.add("ScatterElements", {11, 21}, scatterElements);
  t.add("ScatterND", {11, 21}, scatterNd);
  t.add("Expand", {11, 21}, expand);
  t.add("Trilu", {14, 21}, trilu);
  // Opset 11 made pads and constant_value inputs; 13 added bfloat16; 18 axes.
  t.add("Pad", {11, 21}, pad); // 18: axes; 19: mode wrap (refused)
}
