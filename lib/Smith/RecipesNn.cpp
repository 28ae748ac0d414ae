//===- RecipesNn.cpp - hx-smith: network operators and sorting ------------===//
//
// Recipes for the operators of real networks: nn.dense, nn.batch_matmul
// (both transposes), nn.bias_add, softmax and log_softmax, batch_norm (a
// positive variance), layer_norm, dropout (tuples, projected), nn.conv1d and
// nn.conv2d (layouts, groups and depthwise, strides, padding of 1, 2 or 4
// values, dilation), the pools (layouts, ceil_mode, count_include_pad),
// nn.upsampling, image.resize2d (every method and coordinate mode) — and
// argsort and topk, which only see exact values so that ties and order are
// the same in the kernels and the interpreter.
//
// A layout is a permutation of its letters; a tensor's physical shape puts
// the logical dim of each letter at that letter's position.
//
//===----------------------------------------------------------------------===//
#include "Recipes.h"
#include <algorithm>
#include <cmath>
#include <map>

using namespace llvm;

namespace hx::smith {

static double mag(const Val &v) { return std::max(std::fabs(v.lo), std::fabs(v.hi)); }

/// A random permutation of `letters`, `dflt` most of the time.
static std::string layoutOf(Gen &g, std::string dflt) {
  if (g.rng.chance(2, 3))
    return dflt;
  for (size_t i = dflt.size(); i > 1; --i)
    std::swap(dflt[i - 1], dflt[g.rng.below(i)]);
  return dflt;
}

/// The physical shape of logical dims (by letter) in `layout`.
static Shape physical(const std::string &layout, std::map<char, int64_t> dims) {
  Shape s;
  for (char c : layout)
    s.push_back(dims[c]);
  return s;
}

static std::map<char, int64_t> logical(const std::string &layout, const Shape &s) {
  std::map<char, int64_t> dims;
  for (size_t i = 0; i < layout.size(); ++i)
    dims[layout[i]] = s[i];
  return dims;
}

/// A float operand of exactly shape `s` (an existing one or fresh).
static Val operandOfShape(Gen &g, DType dt, Shape s) {
  Want w{dtypeBit(dt), unsigned(s.size()), unsigned(s.size())};
  w.fits = [s](const TensorTy &t) { return t.shape == s; };
  w.shape = [s] { return s; };
  return g.tame(g.input(w), 2);
}

static bool denseRecipe(Gen &g, const OpDef &d) {
  Val a = g.tame(g.input({d.dtypes, 1, 3}), 2);
  int64_t k = a.ty.shape.back();
  int64_t n = g.rng.range(1, 6);
  Val w = operandOfShape(g, a.ty.dtype, {n, k});
  std::vector<std::string> attrs;
  if (g.rng.chance(1, 3))
    attrs.push_back("units=" + std::to_string(n));
  Shape out = a.ty.shape;
  out.back() = n;
  double m = double(k) * mag(a) * mag(w);
  g.use(a);
  g.use(w);
  g.emit("nn.dense", call("nn.dense", {a.ref, w.ref}, attrs), {a.ty.dtype, out}, -m, m, false);
  return true;
}

static bool batchMatmulRecipe(Gen &g, const OpDef &d) {
  Val x = g.tame(g.input({d.dtypes, 3, 3}), 2);
  bool ta = g.rng.chance(1, 3), tb = !g.rng.chance(1, 3);
  int64_t b = x.ty.shape[0], m = x.ty.shape[ta ? 2 : 1], k = x.ty.shape[ta ? 1 : 2];
  int64_t n = g.rng.range(1, 5);
  int64_t yb = g.rng.chance(1, 4) ? 1 : b;
  Val y = operandOfShape(g, x.ty.dtype, tb ? Shape{yb, n, k} : Shape{yb, k, n});
  std::vector<std::string> attrs;
  if (ta)
    attrs.push_back("transpose_a=True");
  if (!tb)
    attrs.push_back("transpose_b=False");
  double bound = double(k) * mag(x) * mag(y);
  g.use(x);
  g.use(y);
  g.emit("nn.batch_matmul", call("nn.batch_matmul", {x.ref, y.ref}, attrs),
         {x.ty.dtype, {std::max(b, yb), m, n}}, -bound, bound, false);
  return true;
}

static bool biasAddRecipe(Gen &g, const OpDef &d) {
  Val a = g.tame(g.input({d.dtypes, 1, 4}), 8);
  int64_t rank = int64_t(a.ty.shape.size());
  int64_t axis = rank >= 2 && g.rng.chance(1, 2) ? 1 : int64_t(g.rng.below(size_t(rank)));
  Val bias = operandOfShape(g, a.ty.dtype, {a.ty.shape[size_t(axis)]});
  std::vector<std::string> attrs;
  if (axis != 1)
    attrs.push_back("axis=" + std::to_string(axisText(g, axis, rank)));
  g.use(a);
  g.use(bias);
  g.emit("nn.bias_add", call("nn.bias_add", {a.ref, bias.ref}, attrs), a.ty, a.lo + bias.lo,
         a.hi + bias.hi, false);
  return true;
}

static bool softmaxRecipe(Gen &g, const OpDef &d) {
  Val a = g.tame(g.input({d.dtypes, 1, 4}), 8);
  int64_t rank = int64_t(a.ty.shape.size());
  int64_t axis = int64_t(g.rng.below(size_t(rank)));
  std::vector<std::string> attrs;
  if (axis != rank - 1 || g.rng.chance(1, 3))
    attrs.push_back("axis=" + std::to_string(axisText(g, axis, rank)));
  g.use(a);
  bool log = d.name == "nn.log_softmax";
  double lo = log ? -(a.hi - a.lo) - std::log(double(a.ty.shape[size_t(axis)])) - 1 : 0;
  g.emit(d.name, call(d.name, {a.ref}, attrs), a.ty, lo, log ? 0 : 1, false);
  return true;
}

static bool normRecipe(Gen &g, const OpDef &d) {
  bool batch = d.name == "nn.batch_norm";
  Val a = g.tame(g.input({d.dtypes, batch ? 2u : 1u, 4}), 4);
  int64_t rank = int64_t(a.ty.shape.size());
  int64_t axis = batch ? (g.rng.chance(2, 3) ? 1 : int64_t(g.rng.below(size_t(rank))))
                       : (g.rng.chance(1, 2) ? rank - 1 : int64_t(g.rng.below(size_t(rank))));
  int64_t c = a.ty.shape[size_t(axis)];
  DType dt = a.ty.dtype;
  Val gamma = operandOfShape(g, dt, {c});
  Val beta = operandOfShape(g, dt, {c});
  std::vector<std::string> args{a.ref, gamma.ref, beta.ref};
  std::vector<Val> used{a, gamma, beta};
  if (batch) {
    Val mean = operandOfShape(g, dt, {c});
    Val var = g.positive(operandOfShape(g, dt, {c}), 0.5);
    args.push_back(mean.ref);
    args.push_back(var.ref);
    used.push_back(mean);
    used.push_back(var);
  }
  std::vector<std::string> attrs;
  if ((batch && axis != 1) || (!batch && axis != rank - 1) || g.rng.chance(1, 4))
    attrs.push_back("axis=" + std::to_string(axisText(g, axis, rank)));
  if (g.rng.chance(1, 4))
    attrs.push_back("epsilon=0.001f");
  if (g.rng.chance(1, 5))
    attrs.push_back("center=False");
  if (g.rng.chance(1, 5))
    attrs.push_back("scale=False");
  for (const Val &v : used)
    g.use(v);
  // Normalized values are bounded by sqrt(n) (layer) or |x - mean| / sqrt(0.5).
  double norm = batch ? (mag(a) + 2) / std::sqrt(0.5) : std::sqrt(double(c)) + 1;
  double m = norm * 2 + 2;
  if (!batch) {
    g.emit(d.name, call(d.name, args, attrs), a.ty, -m, m, false);
    return true;
  }
  Val t =
      g.emitTuple(d.name, call(d.name, args, attrs), {a.ty, {dt, {c}}, {dt, {c}}}, -m, m, false);
  g.project(t, 0);
  if (g.rng.chance(1, 4))
    g.project(t, unsigned(1 + g.rng.below(2)));
  return true;
}

static bool dropoutRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4});
  std::vector<std::string> attrs;
  if (g.rng.chance(1, 3))
    attrs.push_back("rate=0.25f");
  g.use(a);
  Val t = g.emitTuple("nn.dropout", call("nn.dropout", {a.ref}, attrs), {a.ty, a.ty},
                      std::min(a.lo, 0.0), std::max(a.hi, 1.0), a.exact);
  g.project(t, g.rng.chance(3, 4) ? 0 : 1);
  return true;
}

/// Padding of `spatial` dims as 1, 2 or 4 (conv1d: 1 or 2) values; returns
/// the text and fills before/after per dim.
static std::string paddingOf(Gen &g, unsigned spatial, Shape &before, Shape &after,
                             const Shape &most) {
  before.assign(spatial, 0);
  after.assign(spatial, 0);
  unsigned form = unsigned(g.rng.below(spatial == 2 ? 3 : 2));
  Shape text;
  auto pick = [&](size_t i) { return g.rng.range(0, most[i]); };
  if (form == 0) { // one value for all sides
    int64_t p = pick(0);
    for (size_t i = 1; i < spatial; ++i)
      p = std::min(p, most[i]);
    before.assign(spatial, p);
    after.assign(spatial, p);
    text = {p};
  } else if (spatial == 1 || form == 2) { // every side
    for (size_t i = 0; i < spatial; ++i)
      before[i] = pick(i);
    for (size_t i = 0; i < spatial; ++i)
      after[i] = pick(i);
    text = before;
    text.insert(text.end(), after.begin(), after.end());
  } else { // (top/bottom, left/right)
    for (size_t i = 0; i < spatial; ++i)
      before[i] = after[i] = pick(i);
    text = before;
  }
  return "padding=" + list(text);
}

static bool convRecipe(Gen &g, const OpDef &d) {
  unsigned spatial = d.name == "nn.conv2d" ? 2 : 1;
  std::string dl = layoutOf(g, spatial == 2 ? "NCHW" : "NCW");
  std::string kl = layoutOf(g, spatial == 2 ? "OIHW" : "OIW");
  Val a = g.tame(g.input({d.dtypes, spatial + 2, spatial + 2}), 2);
  std::map<char, int64_t> in = logical(dl, a.ty.shape);
  int64_t c = in['C'];
  std::vector<int64_t> divisors;
  for (int64_t k = 1; k <= c; ++k)
    if (c % k == 0)
      divisors.push_back(k);
  int64_t groups = g.rng.chance(2, 3) ? 1 : g.rng.pick(divisors);
  int64_t o = groups * g.rng.range(1, groups == 1 ? 4 : 2);
  static const char sp[] = {'H', 'W'};
  const char *letters = spatial == 2 ? sp : sp + 1;
  Shape size(spatial), pads = Shape(spatial, 1), before, after, strides(spatial), dil(spatial);
  std::string padText = paddingOf(g, spatial, before, after, pads);
  Shape outDims(spatial);
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t extent = in[letters[i]] + before[i] + after[i];
    size[i] = g.rng.range(1, std::min<int64_t>(3, extent));
    dil[i] = size[i] > 1 && 2 * (size[i] - 1) + 1 <= extent && g.rng.chance(1, 4) ? 2 : 1;
    strides[i] = g.rng.chance(1, 3) ? 2 : 1;
    outDims[i] = (extent - (dil[i] * (size[i] - 1) + 1)) / strides[i] + 1;
  }
  if (spatial == 1) {
    strides.resize(1), dil.resize(1);
  } else if (g.rng.chance(1, 2)) {
    strides.assign(2, strides[0]);
    dil.assign(2, 1);
    for (unsigned i = 0; i < 2; ++i)
      outDims[i] = (in[letters[i]] + before[i] + after[i] - size[i]) / strides[i] + 1;
  }
  std::map<char, int64_t> kdims{{'O', o}, {'I', c / groups}, {'H', size[0]}, {'W', size.back()}};
  Val w = operandOfShape(g, a.ty.dtype, physical(kl, kdims));
  std::string ol = g.rng.chance(1, 4) ? layoutOf(g, spatial == 2 ? "NCHW" : "NCW") : "";
  std::map<char, int64_t> od{{'N', in['N']}, {'C', o}, {'H', outDims[0]}, {'W', outDims.back()}};
  Shape out = physical(ol.empty() ? dl : ol, od);
  std::vector<std::string> attrs;
  if (llvm::any_of(strides, [](int64_t s) { return s != 1; }))
    attrs.push_back("strides=" + list(strides));
  if (llvm::any_of(before, [](int64_t p) { return p; }) ||
      llvm::any_of(after, [](int64_t p) { return p; }) || g.rng.chance(1, 4))
    attrs.push_back(padText);
  if (llvm::any_of(dil, [](int64_t s) { return s != 1; }))
    attrs.push_back("dilation=" + list(dil));
  if (groups != 1)
    attrs.push_back("groups=" + std::to_string(groups));
  if (g.rng.chance(1, 3)) {
    attrs.push_back("channels=" + std::to_string(o));
    attrs.push_back("kernel_size=" + list(size));
  }
  if (dl != (spatial == 2 ? "NCHW" : "NCW"))
    attrs.push_back("data_layout=\"" + dl + "\"");
  if (kl != (spatial == 2 ? "OIHW" : "OIW"))
    attrs.push_back("kernel_layout=\"" + kl + "\"");
  if (!ol.empty())
    attrs.push_back("out_layout=\"" + ol + "\"");
  double m = double(c / groups * size[0] * size.back()) * mag(a) * mag(w);
  g.use(a);
  g.use(w);
  g.emit(d.name, call(d.name, {a.ref, w.ref}, attrs), {a.ty.dtype, out}, -m, m, false);
  return true;
}

static bool poolRecipe(Gen &g, const OpDef &d) {
  bool avg = d.name == "nn.avg_pool2d";
  std::string layout = g.rng.chance(3, 4) ? "NCHW" : "NHWC";
  Val a = g.input({d.dtypes, 4, 4});
  std::map<char, int64_t> in = logical(layout, a.ty.shape);
  Shape size(2), strides(2), dil(2), out(2), before, after;
  static const char letters[] = {'H', 'W'};
  for (unsigned i = 0; i < 2; ++i)
    size[i] = g.rng.range(1, std::min<int64_t>(3, in[letters[i]]));
  Shape most{size[0] - 1, size[1] - 1};
  std::string padText = paddingOf(g, 2, before, after, most);
  bool ceil = g.rng.chance(1, 5);
  for (unsigned i = 0; i < 2; ++i) {
    strides[i] = g.rng.chance(1, 3) ? 2 : 1;
    int64_t extent = in[letters[i]] + before[i] + after[i];
    dil[i] = size[i] > 1 && 2 * (size[i] - 1) + 1 <= extent && g.rng.chance(1, 6) ? 2 : 1;
    int64_t span = extent - (dil[i] * (size[i] - 1) + 1);
    out[i] = (ceil ? (span + strides[i] - 1) / strides[i] : span / strides[i]) + 1;
  }
  std::map<char, int64_t> od = in;
  od['H'] = out[0];
  od['W'] = out[1];
  std::vector<std::string> attrs{"pool_size=" + list(size)};
  if (strides != Shape{1, 1})
    attrs.push_back("strides=" + list(strides));
  if (dil != Shape{1, 1})
    attrs.push_back("dilation=" + list(dil));
  if (before != Shape{0, 0} || after != Shape{0, 0})
    attrs.push_back(padText);
  if (layout != "NCHW")
    attrs.push_back("layout=\"" + layout + "\"");
  if (ceil)
    attrs.push_back("ceil_mode=True");
  if (avg && g.rng.chance(1, 2))
    attrs.push_back("count_include_pad=True");
  g.use(a);
  g.emit(d.name, call(d.name, {a.ref}, attrs), {a.ty.dtype, physical(layout, od)},
         std::min(a.lo, 0.0), std::max(a.hi, 0.0), !avg && a.exact);
  return true;
}

static bool adaptivePoolRecipe(Gen &g, const OpDef &d) {
  bool global = d.name == "nn.global_avg_pool2d";
  std::string layout = g.rng.chance(3, 4) ? "NCHW" : "NHWC";
  Val a = g.input({d.dtypes, 4, 4});
  std::map<char, int64_t> od = logical(layout, a.ty.shape);
  std::vector<std::string> attrs;
  if (global) {
    od['H'] = od['W'] = 1;
  } else {
    switch (g.rng.below(4)) {
    case 0: // the input's size
      break;
    case 1: {
      int64_t k = g.rng.range(1, 4);
      od['H'] = od['W'] = k;
      attrs.push_back("output_size=[" + std::to_string(k) + "]");
      break;
    }
    case 2: {
      od['H'] = g.rng.range(1, 4);
      od['W'] = g.rng.range(1, 4);
      attrs.push_back("output_size=" + list({od['H'], od['W']}));
      break;
    }
    default:
      od['W'] = g.rng.range(1, 4);
      attrs.push_back("output_size=[None, " + std::to_string(od['W']) + "]");
    }
  }
  if (layout != "NCHW")
    attrs.push_back("layout=\"" + layout + "\"");
  g.use(a);
  g.emit(d.name, call(d.name, {a.ref}, attrs), {a.ty.dtype, physical(layout, od)}, a.lo, a.hi,
         false);
  return true;
}

/// round(x / 2), halves to even.
static int64_t halfToEven(int64_t twice) {
  int64_t q = twice / 2;
  return twice % 2 == 0 ? q : (q % 2 == 0 ? q : q + 1);
}

static bool upsamplingRecipe(Gen &g, const OpDef &d) {
  std::string layout = g.rng.chance(3, 4) ? "NCHW" : "NHWC";
  Val a = g.input({d.dtypes, 4, 4});
  std::map<char, int64_t> od = logical(layout, a.ty.shape);
  static const int64_t twiceScales[] = {1, 2, 3, 4};
  int64_t sh = twiceScales[g.rng.below(4)], sw = twiceScales[g.rng.below(4)];
  int64_t h = halfToEven(od['H'] * sh), w = halfToEven(od['W'] * sw);
  if (h < 1 || w < 1)
    return false;
  od['H'] = h;
  od['W'] = w;
  static const char *methods[] = {"nearest_neighbor", "bilinear", "bicubic"};
  std::string method = methods[g.rng.below(3)];
  std::vector<std::string> attrs{"scale_h=" + formatNumber(double(sh) / 2, DType::Float32),
                                 "scale_w=" + formatNumber(double(sw) / 2, DType::Float32)};
  if (layout != "NCHW")
    attrs.push_back("layout=\"" + layout + "\"");
  if (method != "nearest_neighbor")
    attrs.push_back("method=\"" + method + "\"");
  if (g.rng.chance(1, 3))
    attrs.push_back("align_corners=True");
  double m = mag(a) * (method == "bicubic" ? 2 : 1);
  g.use(a);
  g.emit(d.name, call(d.name, {a.ref}, attrs), {a.ty.dtype, physical(layout, od)}, -m, m,
         method == "nearest_neighbor" && a.exact);
  return true;
}

static bool resizeRecipe(Gen &g, const OpDef &d) {
  std::string layout = g.rng.chance(3, 4) ? "NCHW" : "NHWC";
  Val a = g.input({d.dtypes, 4, 4});
  std::map<char, int64_t> od = logical(layout, a.ty.shape);
  od['H'] = g.rng.range(1, 7);
  od['W'] = g.rng.range(1, 7);
  static const char *methods[] = {"nearest_neighbor", "linear", "cubic"};
  static const char *coords[] = {"half_pixel",           "align_corners",
                                 "asymmetric",           "pytorch_half_pixel",
                                 "half_pixel_symmetric", "tf_half_pixel_for_nn"};
  static const char *roundings[] = {"round", "floor", "ceil", "round_prefer_floor",
                                    "round_prefer_ceil"};
  std::string method = methods[g.rng.below(3)];
  std::string coord = coords[g.rng.below(method == "nearest_neighbor" ? 6 : 5)];
  std::vector<std::string> attrs{"size=" + list({od['H'], od['W']})};
  if (layout != "NCHW")
    attrs.push_back("layout=\"" + layout + "\"");
  if (method != "linear")
    attrs.push_back("method=\"" + method + "\"");
  if (coord != "half_pixel")
    attrs.push_back("coordinate_transformation_mode=\"" + coord + "\"");
  if (method == "nearest_neighbor")
    attrs.push_back("rounding_method=\"" + std::string(roundings[g.rng.below(5)]) + "\"");
  if (method == "cubic" && g.rng.chance(1, 3))
    attrs.push_back("cubic_alpha=-0.75f");
  if (method == "cubic" && g.rng.chance(1, 3))
    attrs.push_back("cubic_exclude=1");
  // ONNX's scales (their product with the input a little above the size).
  if (g.rng.chance(1, 4)) {
    auto scale = [&](char dim) {
      return std::to_string(double(od[dim]) / double(a.ty.shape[layout.find(dim)]) + 0.05) + "f";
    };
    attrs.push_back("scales=[" + scale('H') + ", " + scale('W') + "]");
  }
  double m = mag(a) * (method == "cubic" ? 2 : 1);
  g.use(a);
  g.emit(d.name, call(d.name, {a.ref}, attrs), {a.ty.dtype, physical(layout, od)}, -m, m, false);
  return true;
}

static bool sortRecipe(Gen &g, const OpDef &d) {
  bool topk = d.name == "topk";
  Val a = g.input({d.dtypes, 1, 3, /*exact=*/true});
  if (!a.exact)
    return false;
  int64_t rank = int64_t(a.ty.shape.size());
  int64_t axis = g.rng.chance(1, 2) ? rank - 1 : int64_t(g.rng.below(size_t(rank)));
  int64_t dim = a.ty.shape[size_t(axis)];
  std::vector<std::string> attrs;
  if (axis != rank - 1 || g.rng.chance(1, 4))
    attrs.push_back("axis=" + std::to_string(axisText(g, axis, rank)));
  DType it = g.rng.chance(1, 3) ? DType::Int64 : DType::Int32;
  bool ascend = g.rng.chance(1, 2);
  g.use(a);
  if (!topk) {
    if (!ascend)
      attrs.push_back("is_ascend=False");
    if (it == DType::Int64)
      attrs.push_back("dtype=\"int64\"");
    g.emit("argsort", call("argsort", {a.ref}, attrs), {it, a.ty.shape}, 0, double(dim - 1), true);
    return true;
  }
  int64_t k = g.rng.chance(1, 5) ? 0 : g.rng.range(1, dim);
  if (k != 1)
    attrs.push_back("k=" + std::to_string(k));
  Shape out = a.ty.shape;
  out[size_t(axis)] = k < 1 ? dim : k;
  static const char *rets[] = {"both", "values", "indices"};
  std::string ret = rets[g.rng.below(3)];
  if (ret != "both")
    attrs.push_back("ret_type=\"" + ret + "\"");
  if (ascend)
    attrs.push_back("is_ascend=True");
  if (it == DType::Int64)
    attrs.push_back("dtype=\"int64\"");
  std::string text = call("topk", {a.ref}, attrs);
  if (ret == "values") {
    g.emit("topk", text, {a.ty.dtype, out}, a.lo, a.hi, true);
  } else if (ret == "indices") {
    g.emit("topk", text, {it, out}, 0, double(dim - 1), true);
  } else {
    Val t = g.emitTuple("topk", text, {{a.ty.dtype, out}, {it, out}}, std::min(a.lo, 0.0),
                        std::max(a.hi, double(dim)), true);
    g.project(t, unsigned(g.rng.below(2)));
  }
  return true;
}

/// vision.roi_align over a fresh feature map and constant boxes in it.
static bool roiAlignRecipe(Gen &g, const OpDef &d) {
  int64_t c = g.rng.range(1, 3), h = g.rng.range(2, 6), w = g.rng.range(2, 6),
          r = g.rng.range(1, 3);
  Val data = g.fresh({DType::Float32, {1, c, h, w}});
  g.use(data);
  Val batch = g.intConstant({DType::Float32, {r, 1}}, 0, 0);
  Val corners = g.intConstant({DType::Float32, {r, 4}}, 0, std::min(h, w));
  // One draw per statement: the order of a call's operands is unspecified,
  // and the module must be the same bytes whatever the compiler.
  int64_t ph = g.rng.range(1, 3);
  int64_t pw = g.rng.range(1, 3);
  std::vector<std::string> attrs{"pooled_size=[" + std::to_string(ph) + ", " + std::to_string(pw) +
                                 "]"};
  if (g.rng.chance(1, 2))
    attrs.push_back("sample_ratio=" + std::to_string(g.rng.range(1, 2)));
  if (g.rng.chance(1, 2))
    attrs.push_back("aligned=True");
  if (g.rng.chance(1, 3))
    attrs.push_back("mode=\"max\"");
  std::string rois = call("concatenate", {"(" + batch.ref + ", " + corners.ref + ")"}, {"axis=1"});
  double hi = double(r * c * 9) * std::max(std::abs(data.lo), std::abs(data.hi));
  g.emit(d.name, call("sum", {call(d.name, {data.ref, rois}, attrs)}), {DType::Float32, {}}, -hi,
         hi, false);
  return true;
}

/// shape_of, unique and the dyn.* operators, their shape operands computed from
/// shape_of of the operand (so that they are valid for any shape), the
/// result summed in the same binding as for nonzero below.
static bool shapeRecipe(Gen &g, const OpDef &d) {
  // unique compares values: they must be the same on every path.
  Val a = g.input({DTypeSet(d.dtypes & (kFloats | kIntegers)), 1, 3, d.name == "unique"});
  g.use(a);
  int64_t rank = int64_t(a.ty.shape.size()), n = a.ty.numel();
  DType dt = a.ty.dtype;
  std::string shape = call("shape_of", {a.ref}, {"dtype=\"int64\""});
  auto one = [](int64_t v) { return "reshape(" + std::to_string(v) + "i64, newshape=[1])"; };
  double m = std::max(std::abs(a.lo), std::abs(a.hi));
  bool exact = a.exact && isInteger(dt);
  if (d.name == "shape_of") {
    int64_t most = *std::max_element(a.ty.shape.begin(), a.ty.shape.end());
    g.emit(d.name, shape, {DType::Int64, {rank}}, 1, double(most), true);
    return true;
  }
  std::string expr;
  double hi = double(n) * m;
  if (d.name == "dyn.reshape") {
    expr = call(d.name, {a.ref, g.rng.chance(1, 2) ? shape : one(-1)});
  } else if (d.name == "dyn.topk") {
    int64_t k = std::min<int64_t>(a.ty.shape.back(), g.rng.range(1, 3));
    expr = call(d.name, {a.ref, std::to_string(k) + "i64"}) + ".0";
  } else if (d.name == "dyn.slice") {
    int64_t axis = int64_t(g.rng.below(size_t(rank)));
    expr = call(d.name,
                {a.ref, one(0), one(g.rng.range(1, a.ty.shape[size_t(axis)])), one(axis), one(1)});
  } else if (d.name == "dyn.expand") {
    expr = call(d.name, {a.ref, shape});
  } else if (d.name == "dyn.tile") {
    expr = call(d.name, {a.ref, call("clip", {shape}, {"a_min=1f", "a_max=2f"})});
    hi *= double(1 << rank);
  } else if (d.name == "dyn.full") {
    expr = call(d.name, {shape, g.literal(dt, 2).ref});
    hi = 2 * double(n);
  } else if (d.name == "unique") {
    if (!a.exact)
      return false;
    std::vector<std::string> attrs;
    if (g.rng.chance(1, 2))
      attrs.push_back("sorted=False");
    if (g.rng.chance(1, 2)) {
      int64_t axis = int64_t(g.rng.below(size_t(rank)));
      attrs.push_back("axis=" + std::to_string(axis));
    }
    // The distinct values summed, and each element's index among them.
    std::string all = call(d.name, {a.ref}, attrs);
    g.emit(d.name, call("sum", {all + ".2"}), {DType::Int64, {}}, 0, double(n * n), true);
    expr = all + ".0";
  } else if (d.name == "dyn.arange") {
    expr = call(d.name, {"0i64", std::to_string(n) + "i64", "1i64"});
    g.emit(d.name, call("sum", {expr}), {DType::Int64, {}}, 0, double(n * n), true);
    return true;
  } else {
    return false;
  }
  g.emit(d.name, call("sum", {expr}), {dt, {}}, -hi, hi, exact);
  return true;
}

/// nonzero and vision.non_max_suppression: their value-dependent counts
/// summed away in the same binding, so the value in scope has a static
/// type (the generator knows every shape) while the module still runs in
/// stages: the sum is a kernel of the stage after the host's count.
static bool valueDependentRecipe(Gen &g, const OpDef &d) {
  if (d.name == "vision.roi_align")
    return roiAlignRecipe(g, d);
  if (d.name != "nonzero" && d.name != "vision.non_max_suppression")
    return shapeRecipe(g, d);
  if (d.name == "nonzero") {
    Val a = g.input({d.dtypes, 1, 3, /*exact=*/true});
    if (!a.exact)
      return false;
    g.use(a);
    int64_t rank = int64_t(a.ty.shape.size());
    int64_t maxDim = *std::max_element(a.ty.shape.begin(), a.ty.shape.end());
    g.emit("nonzero", call("sum", {call("nonzero", {a.ref})}, {"axis=[1]"}), {DType::Int64, {rank}},
           0, double(a.ty.numel() * (maxDim - 1)), true);
    return true;
  }
  int64_t batches = g.rng.range(1, 2), classes = g.rng.range(1, 3), boxes = g.rng.range(1, 6);
  Val b = g.fresh({DType::Float32, {batches, boxes, 4}});
  Val sc = g.fresh({DType::Float32, {batches, classes, boxes}});
  g.use(b);
  g.use(sc);
  std::vector<std::string> attrs;
  if (g.rng.chance(1, 2))
    attrs.push_back("center_point_box=1");
  std::string nms = call(d.name,
                         {b.ref, sc.ref, g.literal(DType::Int64, double(g.rng.range(0, 4))).ref,
                          g.literal(DType::Float32, double(g.rng.range(0, 4)) / 4).ref,
                          g.literal(DType::Float32, double(g.rng.range(-4, 2)) / 4).ref},
                         attrs);
  int64_t most = std::max({batches, classes, boxes});
  g.emit(d.name, call("sum", {nms}, {"axis=[0]"}), {DType::Int64, {3}}, 0,
         double(batches * classes * boxes * most), true);
  return true;
}

Recipe findNnRecipe(StringRef op) {
  static const std::pair<StringRef, Recipe> table[] = {
      {"nn.dense", denseRecipe},
      {"nn.batch_matmul", batchMatmulRecipe},
      {"nn.bias_add", biasAddRecipe},
      {"nn.softmax", softmaxRecipe},
      {"nn.log_softmax", softmaxRecipe},
      {"nn.batch_norm", normRecipe},
      {"nn.layer_norm", normRecipe},
      {"nn.dropout", dropoutRecipe},
      {"nn.conv1d", convRecipe},
      {"nn.conv2d", convRecipe},
      {"nn.max_pool2d", poolRecipe},
      {"nn.avg_pool2d", poolRecipe},
      {"nn.adaptive_avg_pool2d", adaptivePoolRecipe},
      {"nn.global_avg_pool2d", adaptivePoolRecipe},
      {"nn.upsampling", upsamplingRecipe},
      {"image.resize2d", resizeRecipe},
      {"argsort", sortRecipe},
      {"topk", sortRecipe},
      {"nonzero", valueDependentRecipe},
      {"vision.non_max_suppression", valueDependentRecipe},
      {"shape_of", valueDependentRecipe},
      {"dyn.reshape", valueDependentRecipe},
      {"dyn.topk", valueDependentRecipe},
      {"dyn.slice", valueDependentRecipe},
      {"dyn.expand", valueDependentRecipe},
      {"dyn.tile", valueDependentRecipe},
      {"dyn.full", valueDependentRecipe},
      {"dyn.arange", valueDependentRecipe},
      {"unique", valueDependentRecipe},
      {"vision.roi_align", valueDependentRecipe},
  };
  for (const auto &[name, r] : table)
    if (name == op)
      return r;
  return nullptr;
}

} // namespace hx::smith
