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
//  - TopK with k known at import time: hx's topk;
//  - Einsum of one or two operands: a broadcast product over every label,
//    summed over those the output drops (a label repeated within an
//    operand first takes the diagonal: times an identity mask, summed);
//  - AffineGrid (opset 20): a constant grid of the output's normalized
//    coordinates (and a 1) times each theta, one nn.dense for the batch;
//  - MaxUnpool: scatter_elements of the flattened input into zeros of the
//    flattened output at the indices (MaxPool's, which count over the
//    whole output tensor), reshaped to the output.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include "llvm/ADT/StringExtras.h"
#include <map>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

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
      out = transposeBy(ctx, reshapeTo(ctx, in, {n, b, b, c / (b * b), h, w}), {0, 3, 4, 1, 5, 2});
    else if (mode == "CRD")
      out = transposeBy(ctx, reshapeTo(ctx, in, {n, c / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3});
    else
      return ctx.error("mode must be DCR or CRD, not '" + mode + "'");
    out = reshapeTo(ctx, out, {n, c / (b * b), h * b, w * b});
  } else {
    if (h % b || w % b)
      return ctx.error("the spatial dims must be multiples of blocksize");
    out = transposeBy(ctx, reshapeTo(ctx, in, {n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
    out = reshapeTo(ctx, out, {n, c * b * b, h / b, w / b});
  }
  ctx.setOutput(0, out);
  return Error::success();
}

Error tile(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (onlyRunKnows(ctx, 1)) {
    ctx.setOutput(0, ctx.call("dyn.tile", {ctx.use(*x), ctx.use(1)}));
    return Error::success();
  }
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
  ExprRef zeros = zerosOf(ctx, x->dtype, big);
  ExprRef t = ctx.call("add", {reshapeTo(ctx, ctx.use(*x), spread), zeros});
  ctx.setOutput(0, reshapeTo(ctx, t, out));
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

/// TopK with k known at import time: hx's topk (values, then int64
/// indices), the largest or the smallest, sorted.
Error topK(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  if (Error e = needRank(ctx, *x, "the input"))
    return e;
  int64_t axis = normAxis(ctx.getInt("axis", -1), rankOf(*x));
  AttrValue ascend = attrs::boolean(ctx.getInt("largest", 1) == 0);
  ExprRef both;
  if (onlyRunKnows(ctx, 1)) { // k from a run-time shape
    both = ctx.call(
        "dyn.topk", {ctx.use(*x), ctx.use(1)},
        {{"axis", attrs::integer(axis)}, {"is_ascend", ascend}, {"dtype", attrs::str("int64")}});
  } else {
    TRY(kT, ctx.known(1));
    if (!kT || kT->numElements() != 1)
      return ctx.error("k must be a single value known at import time");
    int64_t k = int64_t(kT->getDouble(0));
    if (k < 1)
      return ctx.error("k must be positive");
    both = ctx.call("topk", {ctx.use(*x)},
                    {{"k", attrs::integer(k)},
                     {"axis", attrs::integer(axis)},
                     {"ret_type", attrs::str("both")},
                     {"is_ascend", ascend},
                     {"dtype", attrs::str("int64")}});
  }
  ctx.setOutput(0, ctx.getItem(both, 0));
  if (ctx.node.output_size() > 1 && !ctx.node.output(1).empty())
    ctx.setOutput(1, ctx.getItem(both, 1));
  return Error::success();
}

/// Einsum of one or two operands without a label repeated within one: each
/// operand transposed to a common label order and given unit dims for the
/// labels it lacks, the product broadcast over every label, summed over
/// the labels the output drops. The product holds every label's dim at
/// once, so it is bounded (2^26 elements).
Error einsum(NodeCtx &ctx) {
  std::string eq = ctx.getString("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (StringRef t : split(StringRef(lhs), ','))
    terms.push_back(t.str());
  size_t nIn = ctx.numInputs();
  if (terms.size() != nIn || nIn < 1 || nIn > 2)
    return ctx.error("only equations of one or two operands are supported, each term matching "
                     "an input");
  // Labels per operand; "..." becomes labels '0', '1', ... right-aligned.
  std::vector<std::vector<char>> labels(nIn);
  std::vector<Dims> dims(nIn);
  int64_t ellipsisRank = 0;
  for (size_t i = 0; i < nIn; ++i) {
    TRY(v, ctx.required(i));
    if (!v->isStatic())
      return ctx.error("the operands must have static shapes");
    dims[i] = *v->dims;
    int64_t explicitLabels = 0;
    for (char c : terms[i])
      explicitLabels += isAlpha(c);
    if (terms[i].find("...") != std::string::npos)
      ellipsisRank = std::max(ellipsisRank, int64_t(dims[i].size()) - explicitLabels);
  }
  auto expand = [&](const std::string &term, int64_t rank) -> std::optional<std::vector<char>> {
    std::vector<char> out;
    for (size_t k = 0; k < term.size();) {
      if (term.compare(k, 3, "...") == 0) {
        int64_t explicitLabels = 0;
        for (char c : term)
          explicitLabels += isAlpha(c);
        int64_t e = rank < 0 ? ellipsisRank : rank - explicitLabels;
        for (int64_t j = ellipsisRank - e; j < ellipsisRank; ++j)
          out.push_back(char('0' + j));
        k += 3;
      } else if (isAlpha(term[k])) {
        out.push_back(term[k++]);
      } else {
        return std::nullopt;
      }
    }
    return out;
  };
  std::vector<ExprRef> operands;
  for (size_t i = 0; i < nIn; ++i) {
    std::optional<std::vector<char>> l = expand(terms[i], int64_t(dims[i].size()));
    if (!l || l->size() != dims[i].size())
      return ctx.error("term '" + terms[i] + "' does not match its operand's rank");
    labels[i] = *l;
    operands.push_back(ctx.use(i));
    // A label repeated within the operand takes its diagonal: the operand
    // times an identity mask over the two dims, summed over the second.
    for (size_t a = 0; a < labels[i].size(); ++a)
      for (size_t b = a + 1; b < labels[i].size();) {
        if (labels[i][a] != labels[i][b]) {
          ++b;
          continue;
        }
        int64_t n = dims[i][a];
        if (dims[i][b] != n)
          return ctx.error("label '" + std::string(1, labels[i][a]) + "' has dims " + Twine(n) +
                           " and " + Twine(dims[i][b]) + " within one operand");
        std::vector<int64_t> maskShape(labels[i].size(), 1);
        maskShape[a] = maskShape[b] = n;
        HostTensor mask(ctx.input(i)->dtype, maskShape);
        for (int64_t k = 0; k < n; ++k)
          mask.setDouble(k * n + k, 1);
        operands[i] =
            ctx.call("sum", {ctx.call("multiply", {operands[i], ctx.constant(std::move(mask))})},
                     {{"axis", attrs::ints({int64_t(b)})}});
        labels[i].erase(labels[i].begin() + int64_t(b));
        dims[i].erase(dims[i].begin() + int64_t(b));
      }
  }
  // The output's labels: given, or those used once, in order (ellipsis first).
  std::vector<char> outLabels;
  if (arrow != std::string::npos) {
    std::optional<std::vector<char>> l = expand(eq.substr(arrow + 2), -1);
    if (!l)
      return ctx.error("the output term is not valid");
    outLabels = *l;
  } else {
    for (int64_t j = 0; j < ellipsisRank; ++j)
      outLabels.push_back(char('0' + j));
    std::map<char, int> count;
    for (const auto &l : labels)
      for (char c : l)
        ++count[c];
    for (auto [c, n] : count)
      if (isAlpha(c) && n == 1)
        outLabels.push_back(c);
  }
  // Every label, the output's first; each label's dim (1 broadcasts).
  std::vector<char> all = outLabels;
  std::map<char, int64_t> size;
  for (size_t i = 0; i < nIn; ++i)
    for (size_t a = 0; a < labels[i].size(); ++a) {
      char c = labels[i][a];
      if (!llvm::is_contained(all, c))
        all.push_back(c);
      int64_t d = dims[i][a], &s = size[c];
      if (s > 1 && d > 1 && s != d)
        return ctx.error("label '" + std::string(1, c) + "' has dims " + Twine(s) + " and " +
                         Twine(d));
      s = std::max(s, d);
    }
  for (char c : outLabels)
    if (!size.count(c))
      return ctx.error("output label '" + std::string(1, c) + "' is in no input");
  Dims full;
  for (char c : all)
    full.push_back(size[c]);
  if (elementCount(full) < 0 || elementCount(full) > (int64_t(1) << 26))
    return ctx.error("the product over every label is too large for hx's Einsum (2^26 elements)");
  ExprRef prod;
  for (size_t i = 0; i < nIn; ++i) {
    std::vector<int64_t> perm, shape;
    for (char c : all) {
      auto it = llvm::find(labels[i], c);
      if (it != labels[i].end()) {
        perm.push_back(it - labels[i].begin());
        shape.push_back(dims[i][size_t(it - labels[i].begin())]);
      } else {
        shape.push_back(1);
      }
    }
    ExprRef x = transposeBy(ctx, operands[i], perm);
    x = reshapeTo(ctx, x, shape);
    prod = prod ? ctx.call("multiply", {prod, x}) : x;
  }
  if (all.size() > outLabels.size()) {
    std::vector<int64_t> axes;
    for (size_t a = outLabels.size(); a < all.size(); ++a)
      axes.push_back(int64_t(a));
    prod = ctx.call("sum", {prod}, {{"axis", attrs::ints(axes)}});
  }
  Dims outShape;
  for (char c : outLabels)
    outShape.push_back(size[c]);
  ctx.setOutput(0, reshapeTo(ctx, prod, outShape));
  return Error::success();
}

/// AffineGrid: the normalized coordinates of every output point, (x, y, 1)
/// in 2-D and (x, y, z, 1) in 3-D, the last dim first in each tuple as
/// ONNX orders them; -1 and 1 are the corner pixels' centres with
/// align_corners, else their outer edges.
Error affineGrid(NodeCtx &ctx) {
  TRY(theta, ctx.required(0));
  TRY(size, ctx.constInts(1));
  if (!size || (size->size() != 4 && size->size() != 5))
    return ctx.error("size must be known at import time, (N, C, H, W) or (N, C, D, H, W)");
  size_t nsp = size->size() - 2;
  std::vector<int64_t> spatial(size->begin() + 2, size->end());
  int64_t n = (*size)[0], points = elementCount(spatial);
  if (points <= 0 || n < 0 || llvm::any_of(spatial, [](int64_t d) { return d < 1; }))
    return ctx.error("size " + listText(*size) + " must be positive");
  if (points * int64_t(nsp + 1) > (int64_t(1) << 26))
    return ctx.error("the grid of " + Twine(points) + " points is too large to build");
  TRY(td, staticDims(ctx, *theta, 3, "theta"));
  if (td[0] != n || td[1] != int64_t(nsp) || td[2] != int64_t(nsp + 1))
    return ctx.error("theta " + listText(td) + " does not fit size " + listText(*size));
  bool align = ctx.getInt("align_corners", 0);
  auto coord = [&](int64_t i, int64_t dim) {
    if (align)
      return dim == 1 ? 0.0 : -1.0 + 2.0 * double(i) / double(dim - 1);
    return (2.0 * double(i) + 1.0) / double(dim) - 1.0;
  };
  HostTensor base(theta->dtype, std::vector<int64_t>{points, int64_t(nsp + 1)});
  std::vector<int64_t> at(nsp, 0);
  for (int64_t p = 0; p < points; ++p) {
    // Tuple (x, y[, z], 1): the last spatial dim's coordinate first.
    for (size_t k = 0; k < nsp; ++k)
      base.setDouble(p * int64_t(nsp + 1) + int64_t(k),
                     coord(at[nsp - 1 - k], spatial[nsp - 1 - k]));
    base.setDouble(p * int64_t(nsp + 1) + int64_t(nsp), 1.0);
    for (size_t k = nsp; k-- > 0;) {
      if (++at[k] < spatial[k])
        break;
      at[k] = 0;
    }
  }
  // (points, nsp + 1) x (n * nsp, nsp + 1)^T -> (points, n, nsp) -> (n, ..., nsp).
  ExprRef t = reshapeTo(ctx, ctx.use(*theta), {n * int64_t(nsp), int64_t(nsp + 1)});
  ExprRef g = ctx.call("nn.dense", {ctx.constant(std::move(base)), t});
  g = transposeBy(ctx, reshapeTo(ctx, g, {points, n, int64_t(nsp)}), {1, 0, 2});
  std::vector<int64_t> out{n};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(int64_t(nsp));
  ctx.setOutput(0, reshapeTo(ctx, g, out));
  return Error::success();
}

/// MaxUnpool: the indices count over the inferred output, per spatial dim
/// (in - 1) * stride - pads + kernel; output_shape (input 2, known at
/// import time) may only add zeros after that, at the end of each dim (as
/// ONNX's test data place the values).
Error maxUnpool(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(d, staticDims(ctx, *x, -1, "the input"));
  size_t n = d.size() < 3 ? 0 : d.size() - 2;
  std::vector<int64_t> kernel = ctx.getInts("kernel_shape").value_or(std::vector<int64_t>{});
  std::vector<int64_t> strides = ctx.getInts("strides").value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = ctx.getInts("pads").value_or(std::vector<int64_t>(2 * n, 0));
  if (n == 0 || kernel.size() != n || strides.size() != n || pads.size() != 2 * n)
    return ctx.error("kernel_shape, strides and pads must match the input's " + Twine(n) +
                     " spatial dims");
  std::vector<int64_t> out{d[0], d[1]};
  for (size_t i = 0; i < n; ++i)
    out.push_back((d[2 + i] - 1) * strides[i] - pads[i] - pads[n + i] + kernel[i]);
  int64_t total = elementCount(out);
  if (total < 0 || llvm::any_of(out, [](int64_t v) { return v < 0; }))
    return ctx.error("the output shape " + listText(out) + " is negative or too large");
  ExprRef flat = ctx.call("scatter_elements",
                          {zerosOf(ctx, x->dtype, {total}), reshapeTo(ctx, ctx.use(1), {-1}),
                           reshapeTo(ctx, ctx.use(*x), {-1})});
  ExprRef y = reshapeTo(ctx, flat, out);
  TRY(given, ctx.constInts(2));
  if (given && *given != out) {
    bool fits = given->size() == out.size();
    std::vector<AttrValue> widths;
    for (size_t i = 0; fits && i < out.size(); ++i) {
      fits = (*given)[i] >= out[i] && (i >= 2 || (*given)[i] == out[i]);
      widths.push_back(attrs::ints({0, fits ? (*given)[i] - out[i] : 0}));
    }
    if (!fits)
      return ctx.error("output_shape " + listText(*given) + " is smaller than the inferred " +
                       listText(out) + " or changes its batch or channels");
    y = ctx.call("nn.pad", {y, ctx.scalar(x->dtype, 0)},
                 {{"pad_width", AttrValue::ofList(std::move(widths))}});
  }
  ctx.setOutput(0, y);
  return Error::success();
}

} // namespace

void onnximport::addIndexingConverters(ConverterTable &t) {
  t.add("Einsum", {12, 21}, einsum);
  // TopK: k an input from opset 10, largest and sorted from 11.
  t.add("TopK", {11, 21}, topK);
  // DepthToSpace's mode came at opset 11; Tile, OneHot and EyeLike changed
  // only in the dtypes they take.
  t.add("DepthToSpace", {11, 21}, depthSpace<true>);
  t.add("SpaceToDepth", {11, 21}, depthSpace<false>);
  t.add("Tile", {11, 21}, tile);
  t.add("OneHot", {11, 21}, oneHot);
  t.add("EyeLike", {11, 21}, eyeLike);
  // MaxUnpool took output_shape at opset 9; 11 widened the index dtypes.
  t.add("MaxUnpool", {11, 21}, maxUnpool);
  t.add("AffineGrid", {20, 21}, affineGrid);
}
