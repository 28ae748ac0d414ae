//===- RecipesShape.cpp - hx-smith: data-movement operators ---------------===//
//
// Recipes for the operators that move data without arithmetic: reshape
// (with 0 and -1 in newshape), transpose, expand_dims, squeeze, concatenate,
// stack, split (sections or indices, then projections), strided_slice
// (strides, backwards, size mode, axes), take (every mode; "fast" gets
// in-range constant indices), gather and gather_nd (constant indices, some
// negative or out of range), scatter_elements and scatter_nd (the same
// indices, fresh updates, every mode but mul), nn.pad (constant, edge,
// reflect), layout_transform (permutations of NCHW, one axis blocked) and
// nn.batch_flatten. Their results are exact when their inputs are.
//
//===----------------------------------------------------------------------===//
#include "Recipes.h"
#include <algorithm>
#include <cmath>
#include <map>

using namespace llvm;

namespace hx::smith {

/// A random factorization of n into `rank` dims.
static Shape factor(Gen &g, int64_t n, unsigned rank) {
  Shape s;
  for (unsigned i = 0; i + 1 < rank; ++i) {
    std::vector<int64_t> divisors;
    for (int64_t k = 1; k <= n; ++k)
      if (n % k == 0)
        divisors.push_back(k);
    int64_t k = g.rng.pick(divisors);
    s.push_back(k);
    n /= k;
  }
  s.push_back(n);
  return s;
}

bool reshapeRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4});
  Shape out = factor(g, a.ty.numel(), unsigned(g.rng.range(1, 4)));
  Shape text = out;
  for (size_t i = 0; i < text.size(); ++i)
    if (i < a.ty.shape.size() && a.ty.shape[i] == out[i] && g.rng.chance(1, 4))
      text[i] = 0;
  if (g.rng.chance(1, 3))
    text[g.rng.below(text.size())] = -1;
  g.use(a);
  g.emit("reshape", call("reshape", {a.ref}, {"newshape=" + list(text)}), {a.ty.dtype, out}, a.lo,
         a.hi, a.exact);
  return true;
}

bool transposeRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 4});
  size_t rank = a.ty.shape.size();
  Shape perm(rank);
  for (size_t i = 0; i < rank; ++i)
    perm[i] = int64_t(rank - 1 - i);
  std::vector<std::string> attrs;
  if (g.rng.chance(2, 3)) {
    for (size_t i = rank; i > 1; --i)
      std::swap(perm[i - 1], perm[g.rng.below(i)]);
    Shape text = perm;
    for (int64_t &p : text)
      p = axisText(g, p, int64_t(rank));
    attrs.push_back("axes=" + list(text));
  }
  Shape out;
  for (int64_t p : perm)
    out.push_back(a.ty.shape[size_t(p)]);
  g.use(a);
  g.emit("transpose", call("transpose", {a.ref}, attrs), {a.ty.dtype, out}, a.lo, a.hi, a.exact);
  return true;
}

bool expandDimsRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 3});
  int64_t rank = int64_t(a.ty.shape.size());
  int64_t axis = g.rng.range(0, rank);
  int64_t n = g.rng.chance(1, 4) ? 2 : 1;
  if (rank + n > 4)
    n = 1;
  Shape out = a.ty.shape;
  out.insert(out.begin() + axis, size_t(n), 1);
  std::vector<std::string> attrs{"axis=" +
                                 std::to_string(g.rng.chance(1, 4) ? axis - rank - 1 : axis)};
  if (n != 1)
    attrs.push_back("num_newaxis=" + std::to_string(n));
  g.use(a);
  g.emit("expand_dims", call("expand_dims", {a.ref}, attrs), {a.ty.dtype, out}, a.lo, a.hi,
         a.exact);
  return true;
}

bool squeezeRecipe(Gen &g, const OpDef &d) {
  Want w{d.dtypes, 1, 4};
  w.fits = [](const TensorTy &t) {
    return std::find(t.shape.begin(), t.shape.end(), 1) != t.shape.end();
  };
  w.shape = [&g] {
    Shape s = g.shapeOf(1, 4);
    s[g.rng.below(s.size())] = 1;
    return s;
  };
  Val a = g.input(w);
  const Shape &s = a.ty.shape;
  int64_t rank = int64_t(s.size());
  Shape axes;
  for (int64_t i = 0; i < rank; ++i)
    if (s[size_t(i)] == 1 && g.rng.chance(1, 2))
      axes.push_back(i);
  std::vector<std::string> attrs;
  Shape out;
  if (axes.empty()) {
    for (int64_t dim : s)
      if (dim != 1)
        out.push_back(dim);
  } else {
    for (int64_t i = 0; i < rank; ++i)
      if (std::find(axes.begin(), axes.end(), i) == axes.end())
        out.push_back(s[size_t(i)]);
    for (int64_t &ax : axes)
      ax = axisText(g, ax, rank);
    attrs.push_back("axis=" + list(axes));
  }
  g.use(a);
  g.emit("squeeze", call("squeeze", {a.ref}, attrs), {a.ty.dtype, out}, a.lo, a.hi, a.exact);
  return true;
}

/// Two or three values of `a`'s dtype; `same` picks a shape for the others.
static std::vector<Val> fieldsLike(Gen &g, const Val &a, std::function<bool(const Shape &)> fits,
                                   std::function<Shape()> make) {
  std::vector<Val> fields{a};
  unsigned n = 1 + unsigned(g.rng.below(2));
  for (unsigned i = 0; i < n; ++i) {
    Want w{dtypeBit(a.ty.dtype), unsigned(a.ty.shape.size()), unsigned(a.ty.shape.size())};
    w.fits = [fits](const TensorTy &t) { return fits(t.shape); };
    w.shape = make;
    Val b = g.input(w);
    if (b.ref == a.ref && g.rng.chance(1, 2))
      b = g.fresh(b.ty);
    fields.push_back(b);
  }
  return fields;
}

/// `(%a, %b)` inline, or bound first.
static std::string tupleOf(Gen &g, const std::vector<Val> &fields, double &lo, double &hi,
                           bool &exact) {
  std::string t = "(";
  lo = INFINITY, hi = -INFINITY;
  exact = true;
  std::vector<TensorTy> tys;
  for (size_t i = 0; i < fields.size(); ++i) {
    g.use(fields[i]);
    t += (i ? ", " : "") + fields[i].ref;
    lo = std::min(lo, fields[i].lo);
    hi = std::max(hi, fields[i].hi);
    exact = exact && fields[i].exact;
    tys.push_back(fields[i].ty);
  }
  t += ")";
  if (g.rng.chance(1, 3)) {
    Val v = g.emitTuple("", t, tys, lo, hi, exact);
    g.use(v);
    return v.ref;
  }
  return t;
}

bool concatenateRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 4});
  Shape s = a.ty.shape;
  int64_t rank = int64_t(s.size());
  int64_t axis = int64_t(g.rng.below(size_t(rank)));
  std::vector<Val> fields = fieldsLike(
      g, a,
      [s, axis](const Shape &t) {
        for (size_t i = 0; i < s.size(); ++i)
          if (int64_t(i) != axis && s[i] != t[i])
            return false;
        return true;
      },
      [&g, s, axis] {
        Shape t = s;
        t[size_t(axis)] = g.rng.range(1, 4);
        return t;
      });
  Shape out = s;
  out[size_t(axis)] = 0;
  for (const Val &f : fields)
    out[size_t(axis)] += f.ty.shape[size_t(axis)];
  double lo, hi;
  bool exact;
  std::string t = tupleOf(g, fields, lo, hi, exact);
  std::vector<std::string> attrs;
  if (axis != 0 || g.rng.chance(1, 2))
    attrs.push_back("axis=" + std::to_string(axisText(g, axis, rank)));
  g.emit("concatenate", call("concatenate", {t}, attrs), {a.ty.dtype, out}, lo, hi, exact);
  return true;
}

bool stackRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 3});
  Shape s = a.ty.shape;
  int64_t rank = int64_t(s.size());
  std::vector<Val> fields =
      fieldsLike(g, a, [s](const Shape &t) { return t == s; }, [s] { return s; });
  int64_t axis = g.rng.range(0, rank);
  Shape out = s;
  out.insert(out.begin() + axis, int64_t(fields.size()));
  double lo, hi;
  bool exact;
  std::string t = tupleOf(g, fields, lo, hi, exact);
  g.emit(
      "stack",
      call("stack", {t}, {"axis=" + std::to_string(g.rng.chance(1, 4) ? axis - rank - 1 : axis)}),
      {a.ty.dtype, out}, lo, hi, exact);
  return true;
}

bool splitRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 4});
  Shape s = a.ty.shape;
  int64_t rank = int64_t(s.size());
  int64_t axis = int64_t(g.rng.below(size_t(rank)));
  int64_t dim = s[size_t(axis)];
  std::vector<int64_t> sizes;
  std::string ios;
  if (g.rng.chance(1, 2) || dim == 1) {
    std::vector<int64_t> divisors;
    for (int64_t k = 1; k <= dim; ++k)
      if (dim % k == 0)
        divisors.push_back(k);
    int64_t n = g.rng.pick(divisors);
    sizes.assign(size_t(n), dim / n);
    ios = std::to_string(n);
  } else {
    Shape idx;
    for (int64_t i = 1; i < dim; ++i)
      if (g.rng.chance(1, 2))
        idx.push_back(i);
    if (idx.empty())
      idx.push_back(g.rng.range(1, dim - 1));
    int64_t prev = 0;
    for (int64_t i : idx)
      sizes.push_back(i - prev), prev = i;
    sizes.push_back(dim - prev);
    ios = list(idx);
  }
  std::vector<TensorTy> fields;
  for (int64_t n : sizes) {
    Shape f = s;
    f[size_t(axis)] = n;
    fields.push_back({a.ty.dtype, f});
  }
  std::vector<std::string> attrs{"indices_or_sections=" + ios};
  if (axis != 0 || g.rng.chance(1, 2))
    attrs.push_back("axis=" + std::to_string(axisText(g, axis, rank)));
  g.use(a);
  Val t = g.emitTuple("split", call("split", {a.ref}, attrs), fields, a.lo, a.hi, a.exact);
  for (unsigned i = 0; i < fields.size(); ++i)
    if (g.rng.chance(1, 2))
      g.project(t, i);
  return true;
}

bool stridedSliceRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 4});
  const Shape &s = a.ty.shape;
  size_t rank = s.size();
  bool sizeMode = g.rng.chance(1, 4);
  // Which axes are written: all, a prefix, or a set named by `axes`.
  Shape axes;
  int mode = int(g.rng.below(3));
  for (size_t i = 0; i < rank; ++i)
    if (mode == 0 || (mode == 1 && i < 1 + g.rng.below(rank)) || (mode == 2 && g.rng.chance(1, 2)))
      axes.push_back(int64_t(i));
  if (axes.empty())
    axes.push_back(0);
  if (mode == 1) { // a prefix
    Shape p;
    for (size_t i = 0; i < axes.size() && axes[i] == int64_t(i); ++i)
      p.push_back(int64_t(i));
    axes = p.empty() ? Shape{0} : p;
  }
  Shape begin, end, strides, out = s;
  bool anyStride = false;
  for (int64_t ax : axes) {
    int64_t dim = s[size_t(ax)];
    int64_t b = g.rng.range(0, dim - 1);
    if (sizeMode) {
      int64_t sz = g.rng.chance(1, 4) ? -1 : g.rng.range(1, dim - b);
      begin.push_back(b);
      end.push_back(sz);
      out[size_t(ax)] = sz == -1 ? dim - b : sz;
      continue;
    }
    int64_t st = g.rng.chance(1, 4) ? 2 : 1;
    if (st == 1 && dim > 1 && g.rng.chance(1, 5)) { // backwards
      b = g.rng.range(1, dim - 1);
      int64_t e = g.rng.range(0, b - 1);
      begin.push_back(b);
      end.push_back(e);
      strides.push_back(-1);
      anyStride = true;
      out[size_t(ax)] = b - e;
      continue;
    }
    int64_t e = g.rng.range(b + 1, dim);
    begin.push_back(b > 0 && g.rng.chance(1, 5) ? b - dim : b);
    end.push_back(e == dim && g.rng.chance(1, 4) ? dim + 3 : e);
    strides.push_back(st);
    anyStride = anyStride || st != 1;
    out[size_t(ax)] = (e - b + st - 1) / st;
  }
  std::vector<std::string> attrs{"begin=" + list(begin), "end=" + list(end)};
  if (anyStride)
    attrs.push_back("strides=" + list(strides));
  if (sizeMode)
    attrs.push_back("slice_mode=\"size\"");
  if (mode == 2)
    attrs.push_back("axes=" + list(axes));
  g.use(a);
  g.emit("strided_slice", call("strided_slice", {a.ref}, attrs), {a.ty.dtype, out}, a.lo, a.hi,
         a.exact);
  return true;
}

bool takeRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 3});
  const Shape &s = a.ty.shape;
  int64_t rank = int64_t(s.size());
  bool flat = g.rng.chance(1, 4);
  int64_t axis = flat ? -1 : int64_t(g.rng.below(size_t(rank)));
  int64_t n = flat ? a.ty.numel() : s[size_t(axis)];
  static const char *modes[] = {"clip", "wrap", "fast"};
  std::string mode = modes[g.rng.below(3)];
  TensorTy it{g.rng.chance(1, 3) ? DType::Int64 : DType::Int32, g.shapeOf(0, 2, 4)};
  Val idx;
  if (mode == "fast") {
    idx = g.intConstant(it, 0, n - 1);
  } else {
    Want w{kIndexTypes, 0, 2};
    w.shape = [&g] { return g.shapeOf(0, 2, 4); };
    idx = g.input(w);
  }
  Shape out;
  if (flat) {
    out = idx.ty.shape;
  } else {
    out.assign(s.begin(), s.begin() + axis);
    out.insert(out.end(), idx.ty.shape.begin(), idx.ty.shape.end());
    out.insert(out.end(), s.begin() + axis + 1, s.end());
  }
  if (out.size() > 5)
    return false;
  std::vector<std::string> attrs;
  if (!flat)
    attrs.push_back("axis=" + std::to_string(axisText(g, axis, rank)));
  if (mode != "clip" || g.rng.chance(1, 4))
    attrs.push_back("mode=\"" + mode + "\"");
  g.use(a);
  g.use(idx);
  g.emit("take", call("take", {a.ref, idx.ref}, attrs), {a.ty.dtype, out}, a.lo, a.hi, a.exact);
  return true;
}

/// Indices into `a` along a random axis, for gather and scatter_elements:
/// no dim beyond a's, 1 to 3 along the axis, constants some of them
/// negative or out of range; and the call's axis attribute (now and then
/// left out at 0). nullopt for an axis of size 0.
struct AxisIndices {
  int64_t axis;
  Val idx;
  std::vector<std::string> attrs;
};
static std::optional<AxisIndices> axisIndices(Gen &g, const Val &a) {
  const Shape &s = a.ty.shape;
  int64_t rank = int64_t(s.size()), axis = int64_t(g.rng.below(s.size())), n = s[size_t(axis)];
  if (n == 0)
    return std::nullopt;
  Shape is;
  for (int64_t dim : s)
    is.push_back(dim == 0 ? 0 : g.rng.range(1, dim));
  is[size_t(axis)] = g.rng.range(1, 4);
  TensorTy it{g.rng.chance(1, 3) ? DType::Int64 : DType::Int32, is};
  AxisIndices out{axis, g.intConstant(it, -n - 1, n), {}};
  if (axis != 0 || g.rng.chance(1, 4))
    out.attrs.push_back("axis=" + std::to_string(axisText(g, axis, rank)));
  return out;
}

bool gatherRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 3});
  std::optional<AxisIndices> ai = axisIndices(g, a);
  if (!ai)
    return false;
  g.use(a);
  g.use(ai->idx);
  g.emit("gather", call("gather", {a.ref, ai->idx.ref}, ai->attrs), {a.ty.dtype, ai->idx.ty.shape},
         a.lo, a.hi, a.exact);
  return true;
}

bool gatherNdRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 3});
  const Shape &s = a.ty.shape;
  int64_t rank = int64_t(s.size());
  int64_t b = rank >= 2 && g.rng.chance(1, 4) ? 1 : 0;
  int64_t m = g.rng.range(1, rank - b), n = INT64_MAX;
  for (int64_t k = b; k < b + m; ++k)
    n = std::min(n, s[size_t(k)]);
  if (n == 0)
    return false;
  Shape is{m};
  is.insert(is.end(), s.begin(), s.begin() + b);
  for (int64_t y = g.rng.range(0, 2); y > 0; --y)
    is.push_back(g.rng.range(1, 3));
  Shape out(is.begin() + 1, is.end());
  out.insert(out.end(), s.begin() + b + m, s.end());
  if (out.size() > 5)
    return false;
  TensorTy it{g.rng.chance(1, 3) ? DType::Int64 : DType::Int32, is};
  Val idx = g.intConstant(it, -n - 1, n);
  std::vector<std::string> attrs;
  if (b)
    attrs.push_back("batch_dims=1");
  g.use(a);
  g.use(idx);
  g.emit("gather_nd", call("gather_nd", {a.ref, idx.ref}, attrs), {a.ty.dtype, out}, a.lo, a.hi,
         a.exact);
  return true;
}

/// A scatter's call: fresh updates of shape `us` written into `a` at `idx`
/// by a random mode but mul (whose products would leave the range); k
/// updates at most reach one element.
static void emitScatter(Gen &g, StringRef op, const Val &a, const Val &idx, const Shape &us,
                        int64_t k, std::vector<std::string> attrs) {
  Val u = g.fresh({a.ty.dtype, us});
  // "" leaves the default (update); add is not defined for bool.
  static const char *modes[] = {"", "update", "min", "max", "add"};
  std::string mode = modes[g.rng.below(a.ty.dtype == DType::Bool ? 4 : 5)];
  if (!mode.empty())
    attrs.push_back((op == "scatter_nd" ? "mode=\"" : "reduction=\"") + mode + "\"");
  double lo = std::min(a.lo, u.lo), hi = std::max(a.hi, u.hi);
  if (mode == "add")
    lo = a.lo + double(k) * std::min(0.0, u.lo), hi = a.hi + double(k) * std::max(0.0, u.hi);
  g.use(a);
  g.use(idx);
  g.use(u);
  g.emit(op, call(op, {a.ref, idx.ref, u.ref}, attrs), a.ty, lo, hi, a.exact && u.exact);
}

bool scatterElementsRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 3});
  std::optional<AxisIndices> ai = axisIndices(g, a);
  if (!ai)
    return false;
  const Shape &is = ai->idx.ty.shape;
  emitScatter(g, "scatter_elements", a, ai->idx, is, is[size_t(ai->axis)], ai->attrs);
  return true;
}

bool scatterNdRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 3});
  const Shape &s = a.ty.shape;
  int64_t rank = int64_t(s.size()), m = g.rng.range(1, rank), n = INT64_MAX;
  for (int64_t k = 0; k < m; ++k)
    n = std::min(n, s[size_t(k)]);
  if (n == 0)
    return false;
  Shape is{m};
  for (int64_t y = g.rng.range(0, 2); y > 0; --y)
    is.push_back(g.rng.range(1, 3));
  Shape us(is.begin() + 1, is.end());
  us.insert(us.end(), s.begin() + m, s.end());
  if (us.size() > 5)
    return false;
  Val idx = g.intConstant({g.rng.chance(1, 3) ? DType::Int64 : DType::Int32, is}, -n - 1, n);
  int64_t tuples = 1;
  for (size_t i = 1; i < is.size(); ++i)
    tuples *= is[i];
  emitScatter(g, "scatter_nd", a, idx, us, tuples, {});
  return true;
}

bool padRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 4});
  const Shape &s = a.ty.shape;
  static const char *modes[] = {"constant", "constant", "edge", "reflect"};
  std::string mode = modes[g.rng.below(4)];
  std::string widths = "[";
  Shape out = s;
  for (size_t i = 0; i < s.size(); ++i) {
    int64_t most = mode == "reflect" ? std::min<int64_t>(2, s[i] - 1) : 2;
    int64_t before = g.rng.chance(1, 2) ? g.rng.range(0, most) : 0;
    int64_t after = g.rng.chance(1, 2) ? g.rng.range(0, most) : 0;
    widths += (i ? ", [" : "[") + std::to_string(before) + ", " + std::to_string(after) + "]";
    out[i] += before + after;
  }
  widths += "]";
  Val v;
  if (g.rng.chance(1, 3)) {
    v = g.input({dtypeBit(a.ty.dtype), 0, 0});
  } else {
    double x = isFloat(a.ty.dtype) ? double(g.rng.range(-4, 4)) / 4 : double(g.rng.range(-3, 3));
    v = g.literal(a.ty.dtype, a.ty.dtype == DType::Bool ? double(g.rng.below(2)) : x);
  }
  std::vector<std::string> attrs{"pad_width=" + widths};
  if (mode != "constant")
    attrs.push_back("pad_mode=\"" + mode + "\"");
  g.use(a);
  g.use(v);
  g.emit("nn.pad", call("nn.pad", {a.ref, v.ref}, attrs), {a.ty.dtype, out}, std::min(a.lo, v.lo),
         std::max(a.hi, v.hi), a.exact && v.exact);
  return true;
}

bool layoutTransformRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 4, 4});
  std::string src = "NCHW", dst = "NCHW";
  for (size_t i = 4; i > 1; --i)
    std::swap(src[i - 1], src[g.rng.below(i)]);
  for (size_t i = 4; i > 1; --i)
    std::swap(dst[i - 1], dst[g.rng.below(i)]);
  // Logical dims by letter.
  std::map<char, int64_t> dim;
  for (size_t i = 0; i < 4; ++i)
    dim[src[i]] = a.ty.shape[i];
  // Maybe split one axis of dst into a block.
  std::vector<char> splittable;
  for (char c : dst)
    if (dim[c] % 2 == 0)
      splittable.push_back(c);
  char split = 0;
  int64_t factor = 0;
  if (!splittable.empty() && g.rng.chance(1, 2)) {
    split = g.rng.pick(splittable);
    factor = dim[split] % 4 == 0 && g.rng.chance(1, 2) ? 4 : 2;
  }
  Shape out;
  for (char c : dst)
    out.push_back(c == split ? dim[c] / factor : dim[c]);
  std::string dstText = dst;
  if (split) {
    out.push_back(factor);
    dstText += std::to_string(factor) + char(split - 'A' + 'a');
  }
  if (src == dstText)
    return false;
  g.use(a);
  g.emit("layout_transform",
         call("layout_transform", {a.ref},
              {"src_layout=\"" + src + "\"", "dst_layout=\"" + dstText + "\""}),
         {a.ty.dtype, out}, a.lo, a.hi, a.exact);
  return true;
}

bool batchFlattenRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 4});
  int64_t rest = a.ty.numel() / a.ty.shape[0];
  g.use(a);
  g.emit("nn.batch_flatten", call("nn.batch_flatten", {a.ref}), {a.ty.dtype, {a.ty.shape[0], rest}},
         a.lo, a.hi, a.exact);
  return true;
}

} // namespace hx::smith
