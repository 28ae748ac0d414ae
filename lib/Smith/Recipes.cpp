//===- Recipes.cpp - hx-smith: elementwise, reduction and data-movement ---===//
//
// One recipe per operator of the registry: it picks operands that fit the
// operator's type relation (dtypes from the OpDef, shapes and attributes
// drawn here), guards them into the operator's numeric domain, binds the
// call and records the result's type, range and exactness (Generator.h).
// The network operators (convolutions, pools, resizing, normalizations,
// matrix products, sorting) are in RecipesNn.cpp, the data-movement ones in
// RecipesShape.cpp; findRecipe maps a name to its recipe.
//
//===----------------------------------------------------------------------===//
#include "Recipes.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace hx::smith {

std::string call(StringRef op, const std::vector<std::string> &args,
                 const std::vector<std::string> &attrs) {
  std::string s = op.str() + "(";
  bool first = true;
  for (const std::string &a : args) {
    s += (first ? "" : ", ") + a;
    first = false;
  }
  for (const std::string &a : attrs) {
    s += (first ? "" : ", ") + a;
    first = false;
  }
  return s + ")";
}

std::string list(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::optional<Shape> broadcast(const Shape &a, const Shape &b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    out[i] = std::max(x, y);
  }
  return out;
}

int64_t axisText(Gen &g, int64_t axis, int64_t rank) {
  return g.rng.chance(1, 4) ? axis - rank : axis;
}

static int64_t numel(const Shape &s) { return TensorTy{DType::Float32, s}.numel(); }

/// The integer range of a dtype's values after an operation.
static double clampInt(double v) { return std::max(-1e9, std::min(1e9, v)); }

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static bool unaryExact(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4});
  g.use(a);
  double lo = a.lo, hi = a.hi;
  StringRef op = d.name;
  if (op == "abs")
    lo = a.lo >= 0 ? a.lo : a.hi <= 0 ? -a.hi : 0, hi = std::max(-a.lo, a.hi);
  else if (op == "negative")
    lo = -a.hi, hi = -a.lo;
  else if (op == "nn.relu")
    lo = std::max(a.lo, 0.0), hi = std::max(a.hi, 0.0);
  g.emit(op, call(op, {a.ref}), a.ty, lo, hi, a.exact);
  return true;
}

static bool unaryFloat(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4});
  StringRef op = d.name;
  double lo, hi;
  std::vector<std::string> attrs;
  if (op == "exp") {
    a = g.tame(a, 4);
    lo = std::exp(a.lo), hi = std::exp(a.hi);
  } else if (op == "log") {
    a = g.positive(a, 0.5);
    lo = std::log(a.lo), hi = std::log(std::max(a.hi, a.lo));
  } else if (op == "sqrt") {
    a = g.positive(a, 0.5);
    lo = std::sqrt(a.lo), hi = std::sqrt(a.hi);
  } else if (op == "rsqrt") {
    a = g.positive(a, 0.5);
    lo = 1 / std::sqrt(std::max(a.hi, a.lo)), hi = 1 / std::sqrt(a.lo);
  } else if (op == "sigmoid") {
    lo = 0, hi = 1;
  } else if (op == "nn.leaky_relu") {
    a = g.tame(a);
    static const char *alphas[] = {"", "0.1f", "0.25f", "0.5f"};
    const char *alpha = alphas[g.rng.below(4)];
    if (*alpha)
      attrs.push_back(std::string("alpha=") + alpha);
    lo = std::min(a.lo * 0.5, a.lo), hi = std::max(a.hi, 0.0);
  } else if (op == "sin" || op == "cos") {
    a = g.tame(a);
    lo = -1, hi = 1;
  } else if (op == "tan") { // away from the poles at +-pi/2
    a = g.tame(a, 1.25);
    lo = std::tan(a.lo), hi = std::tan(a.hi);
  } else if (op == "asin" || op == "acos" || op == "atanh") { // inside (-1, 1)
    a = g.tame(a, 0.75); // (tame's bounds are multiples of 1/4)
    auto f = [&](double x) {
      return op == "asin" ? std::asin(x) : op == "acos" ? std::acos(x) : std::atanh(x);
    };
    lo = std::min(f(a.lo), f(a.hi)), hi = std::max(f(a.lo), f(a.hi));
  } else if (op == "atan" || op == "asinh") {
    a = g.tame(a);
    auto f = [&](double x) { return op == "atan" ? std::atan(x) : std::asinh(x); };
    lo = f(a.lo), hi = f(a.hi);
  } else if (op == "sinh") {
    a = g.tame(a, 4);
    lo = std::sinh(a.lo), hi = std::sinh(a.hi);
  } else if (op == "cosh") {
    a = g.tame(a, 4);
    lo = 1, hi = std::cosh(std::max(-a.lo, a.hi));
  } else if (op == "acosh") { // at least 1
    a = g.positive(a, 1);
    lo = std::acosh(std::max(a.lo, 1.0)), hi = std::acosh(std::max(a.hi, 1.0));
  } else { // tanh, erf
    lo = -1, hi = 1;
  }
  g.use(a);
  g.emit(op, call(op, {a.ref}, attrs), a.ty, lo, hi, false);
  return true;
}

/// floor, ceil, round and sign: a jump at integers (at 0) would turn a last
/// bit's difference into a whole one, so the operand must be exact.
static bool unaryStep(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4, /*exact=*/true});
  if (!a.exact)
    return false;
  g.use(a);
  StringRef op = d.name;
  double lo = std::floor(a.lo), hi = std::ceil(a.hi);
  if (op == "sign")
    lo = a.lo < 0 ? -1 : 0, hi = a.hi > 0 ? 1 : 0;
  g.emit(op, call(op, {a.ref}), a.ty, lo, hi, true);
  return true;
}

/// isnan and isinf: bool results, which feed comparisons, so exact operands.
static bool unaryTest(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4, /*exact=*/true});
  if (!a.exact)
    return false;
  g.use(a);
  g.emit(d.name, call(d.name, {a.ref}), {DType::Bool, a.ty.shape}, 0, 1, true);
  return true;
}

/// logical_not and bitwise_not.
static bool unaryBits(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4, /*exact=*/true});
  if (!a.exact)
    return false;
  g.use(a);
  bool isBool = a.ty.dtype == DType::Bool;
  g.emit(d.name, call(d.name, {a.ref}), a.ty, isBool ? 0 : -a.hi - 1, isBool ? 1 : -a.lo - 1, true);
  return true;
}

static bool clipRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4});
  g.use(a);
  double lo, hi;
  std::string text;
  if (isFloat(a.ty.dtype)) {
    lo = double(g.rng.range(-8, 2)) / 4;
    hi = lo + double(g.rng.range(0, 8)) / 4;
    text =
        "a_min=" + formatNumber(lo, DType::Float32) + ", a_max=" + formatNumber(hi, DType::Float32);
  } else {
    lo = double(g.rng.range(-6, 2));
    hi = lo + double(g.rng.range(0, 6));
    text = "a_min=" + std::to_string(int64_t(lo)) + ", a_max=" + std::to_string(int64_t(hi));
  }
  g.emit("clip", call("clip", {a.ref}, {text}), a.ty, std::max(lo, std::min(a.lo, hi)),
         std::min(hi, std::max(a.hi, lo)), a.exact);
  return true;
}

static bool castRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4});
  DTypeSet targets = d.dtypes;
  // A float computed differently by kernels and interpreter may sit on
  // an integer boundary: cast it to floats only.
  if (isFloat(a.ty.dtype) && !a.exact)
    targets = kFloatOnly;
  DType to = g.dtypeOf(targets & ~dtypeBit(a.ty.dtype));
  if (to == DType::Float16)
    a = g.tame(a, 1000);
  g.castTo(a, to);
  return true;
}

/// The second operand of a binary operator: a scalar literal, or a value
/// whose shape broadcasts with `a`'s.
static Val partner(Gen &g, const Val &a, bool exact, bool nonzeroLiteral) {
  if (g.rng.chance(1, 5)) {
    double v = isFloat(a.ty.dtype) ? double(g.rng.range(-8, 8)) / 4 : double(g.rng.range(-3, 3));
    if (a.ty.dtype == DType::Bool)
      v = double(g.rng.below(2));
    if (nonzeroLiteral && v == 0)
      v = 1;
    return g.literal(a.ty.dtype, v);
  }
  Shape as = a.ty.shape;
  Want w{dtypeBit(a.ty.dtype), 0, 4, exact};
  w.fits = [as](const TensorTy &t) {
    std::optional<Shape> b = broadcast(as, t.shape);
    return b && numel(*b) <= 480;
  };
  w.shape = [&g, as] { return g.rng.chance(1, 6) ? g.shapeOf(0, 2) : g.broadcastPartner(as); };
  Val b = g.input(w);
  if (!broadcast(as, b.ty.shape))
    b = g.fresh({a.ty.dtype, g.broadcastPartner(as)});
  return b;
}

static bool binaryRecipe(Gen &g, const OpDef &d) {
  StringRef op = d.name;
  Val a = g.input({d.dtypes, 0, 4});
  bool isInt = !isFloat(a.ty.dtype);
  bool guardDivisor = op == "divide";
  Val b = partner(g, a, false, guardDivisor);
  if (b.ty.dtype != a.ty.dtype)
    return false;
  // Operand ranges for the arithmetic to stay tame.
  if (op == "multiply") {
    a = isInt ? g.tame(a, 100) : g.tame(a, 8);
    b = b.literal ? b : isInt ? g.tame(b, 100) : g.tame(b, 8);
  } else if (op == "add" || op == "subtract") {
    a = g.tame(a, isInt ? 10000 : 16);
    b = b.literal ? b : g.tame(b, isInt ? 10000 : 16);
  } else if (op == "divide") {
    a = g.tame(a, isInt ? 10000 : 16);
    b = b.literal ? b : g.positive(b, isInt ? 1 : 0.5);
  } else if (op == "power") {
    a = g.positive(g.tame(a, 4), 0.5);
    b = b.literal ? b : g.tame(b, 2);
  }
  g.use(a);
  g.use(b);
  std::optional<Shape> shape = broadcast(a.ty.shape, b.ty.shape);
  double lo, hi;
  auto corners = [&](auto f) {
    double c[4] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
    lo = *std::min_element(c, c + 4);
    hi = *std::max_element(c, c + 4);
  };
  bool exact = false;
  if (op == "add")
    lo = a.lo + b.lo, hi = a.hi + b.hi;
  else if (op == "subtract")
    lo = a.lo - b.hi, hi = a.hi - b.lo;
  else if (op == "multiply")
    corners([](double x, double y) { return x * y; });
  else if (op == "divide") {
    // |b| >= its guard: the quotient is at most |a| / min|b|.
    double m = std::max(std::fabs(a.lo), std::fabs(a.hi));
    double minB = b.literal ? std::fabs(b.lo) : std::max(b.lo, 0.5);
    lo = -m / minB, hi = m / minB;
  } else if (op == "power")
    corners([](double x, double y) { return std::pow(x, y); });
  else { // maximum, minimum
    lo = std::min(a.lo, b.lo), hi = std::max(a.hi, b.hi);
    exact = a.exact && b.exact;
  }
  if (isInt)
    lo = clampInt(lo), hi = clampInt(hi);
  g.emit(op, call(op, {a.ref, b.ref}), {a.ty.dtype, *shape}, lo, hi, exact);
  return true;
}

static bool compareRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 0, 4, /*exact=*/true});
  if (!a.exact)
    return false;
  Val b = partner(g, a, true, false);
  if (!b.exact || b.ty.dtype != a.ty.dtype)
    return false;
  g.use(a);
  g.use(b);
  g.emit(d.name, call(d.name, {a.ref, b.ref}), {DType::Bool, *broadcast(a.ty.shape, b.ty.shape)}, 0,
         1, true);
  return true;
}

/// floor_mod and mod: a divisor away from 0. A float dividend's last bit
/// may move the remainder by a whole divisor, so floats need exact
/// operands.
static bool modRecipe(Gen &g, const OpDef &d) {
  StringRef op = d.name;
  Val a = g.input({d.dtypes, 0, 4, /*exact=*/true});
  bool isInt = !isFloat(a.ty.dtype);
  if (!isInt && !a.exact)
    return false;
  Val b = partner(g, a, !isInt, /*nonzeroLiteral=*/true);
  if (b.ty.dtype != a.ty.dtype || (!isInt && !b.exact))
    return false;
  if (!b.literal) {
    b = g.positive(b, 1);
    if (!isInt && !b.exact)
      return false;
  }
  g.use(a);
  g.use(b);
  double m = std::max(std::fabs(b.lo), std::fabs(b.hi));
  double lo = -m, hi = m;
  if (op == "mod") // a's sign, never beyond a
    lo = std::max(lo, std::min(a.lo, 0.0)), hi = std::min(hi, std::max(a.hi, 0.0));
  g.emit(op, call(op, {a.ref, b.ref}), {a.ty.dtype, *broadcast(a.ty.shape, b.ty.shape)}, lo, hi,
         isInt || op == "mod");
  return true;
}

/// logical_*, bitwise_* and the shifts (shift counts in [-16, 16], negative
/// ones out of range, of operands within +-1000: no result overflows).
static bool bitsRecipe(Gen &g, const OpDef &d) {
  StringRef op = d.name;
  Val a = g.input({d.dtypes, 0, 4, /*exact=*/true});
  if (!a.exact)
    return false;
  bool shift = op == "left_shift" || op == "right_shift";
  if (shift)
    a = g.tame(a, 1000);
  Val b = partner(g, a, true, false);
  if (b.ty.dtype != a.ty.dtype || !b.exact)
    return false;
  if (shift && !b.literal)
    b = g.tame(b, 16);
  g.use(a);
  g.use(b);
  double lo = 0, hi = 1;
  if (a.ty.dtype != DType::Bool) {
    // Every result's bits lie within the operands' widest magnitude.
    double m = std::max({std::fabs(a.lo), std::fabs(a.hi), std::fabs(b.lo), std::fabs(b.hi)});
    double p = std::exp2(std::ceil(std::log2(m + 1)));
    lo = -p, hi = p;
    if (op == "left_shift")
      lo = -std::max(std::fabs(a.lo), std::fabs(a.hi)) * std::exp2(16), hi = -lo;
    else if (op == "right_shift")
      lo = std::min(a.lo, 0.0), hi = std::max(a.hi, 0.0);
  }
  g.emit(op, call(op, {a.ref, b.ref}), {a.ty.dtype, *broadcast(a.ty.shape, b.ty.shape)}, lo, hi,
         true);
  return true;
}

static bool whereRecipe(Gen &g, const OpDef &d) {
  Val x = g.input({d.dtypes, 0, 4});
  Val y = partner(g, x, false, false);
  if (y.ty.dtype != x.ty.dtype)
    return false;
  Shape xy = *broadcast(x.ty.shape, y.ty.shape);
  Want w{d.dtypes, 0, 4, /*exact=*/true};
  w.fits = [xy](const TensorTy &t) {
    std::optional<Shape> b = broadcast(xy, t.shape);
    return b && numel(*b) <= 480;
  };
  w.shape = [&g, xy] { return g.broadcastPartner(xy); };
  Val c = g.input(w);
  std::optional<Shape> all = broadcast(xy, c.ty.shape);
  if (!c.exact || !all)
    return false;
  g.use(c);
  g.use(x);
  g.use(y);
  g.emit("where", call("where", {c.ref, x.ref, y.ref}), {x.ty.dtype, *all}, std::min(x.lo, y.lo),
         std::max(x.hi, y.hi), x.exact && y.exact);
  return true;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// sum, mean, max, min, prod; argmax and argmin (of exact operands only: an
/// index flips on a rounding difference).
static bool reduceRecipe(Gen &g, const OpDef &d) {
  StringRef op = d.name;
  bool arg = op == "argmax" || op == "argmin";
  Val a = g.input({d.dtypes, 1, 4, /*exact=*/arg});
  if (arg && !a.exact)
    return false;
  size_t rank = a.ty.shape.size();
  std::vector<bool> reduced(rank, false);
  std::vector<std::string> attrs;
  if (g.rng.chance(1, 4)) {
    reduced.assign(rank, true);
  } else {
    Shape axes;
    for (size_t i = 0; i < rank; ++i)
      if (g.rng.chance(1, 2))
        axes.push_back(int64_t(i));
    if (axes.empty())
      axes.push_back(int64_t(g.rng.below(rank)));
    for (int64_t ax : axes)
      reduced[size_t(ax)] = true;
    bool exclude = g.rng.chance(1, 5);
    if (exclude)
      reduced.flip(), attrs.push_back("exclude=True");
    for (int64_t &ax : axes)
      ax = axisText(g, ax, int64_t(rank));
    attrs.insert(
        attrs.begin(),
        "axis=" + (axes.size() == 1 && g.rng.chance(1, 2) ? std::to_string(axes[0]) : list(axes)));
  }
  bool keep = g.rng.chance(1, 3);
  if (keep)
    attrs.push_back("keepdims=True");
  if (arg && g.rng.chance(1, 3))
    attrs.push_back("select_last_index=True");
  Shape out;
  int64_t n = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      out.push_back(a.ty.shape[i]);
    else {
      n *= a.ty.shape[i];
      if (keep)
        out.push_back(1);
    }
  }
  if (op == "sum")
    a = g.tame(a, isFloat(a.ty.dtype) ? 8 : 1000);
  if (op == "prod") // a product of factors in [-1, 1] stays there
    a = g.tame(a, 1);
  g.use(a);
  if (arg) {
    g.emit(op, call(op, {a.ref}, attrs), {DType::Int32, out}, 0,
           double(std::max<int64_t>(n, 1) - 1), true);
    return true;
  }
  double lo = a.lo, hi = a.hi;
  if (op == "sum")
    lo = std::min(a.lo * double(n), a.lo), hi = std::max(a.hi * double(n), a.hi);
  if (op == "prod") // an empty product is 1
    lo = a.lo < 0 ? -1 : 0, hi = 1;
  bool exact = op == "max" || op == "min" ? a.exact : false;
  g.emit(op, call(op, {a.ref}, attrs), {a.ty.dtype, out}, lo, hi, exact);
  return true;
}

/// cumsum along an axis or over the flattened data, its operand tamed as
/// sum's (a running sum of n elements stays within n times the bound).
static bool cumsumRecipe(Gen &g, const OpDef &d) {
  Val a = g.input({d.dtypes, 1, 4});
  a = g.tame(a, isFloat(a.ty.dtype) ? 8 : 1000);
  size_t rank = a.ty.shape.size();
  std::vector<std::string> attrs;
  Shape out = a.ty.shape;
  int64_t n = a.ty.numel();
  if (g.rng.chance(1, 4)) {
    out = {n};
  } else {
    int64_t axis = int64_t(g.rng.below(rank));
    n = a.ty.shape[size_t(axis)];
    attrs.push_back("axis=" + std::to_string(axisText(g, axis, int64_t(rank))));
  }
  if (g.rng.chance(1, 3))
    attrs.push_back("exclusive=True");
  g.use(a);
  double lo = std::min(a.lo * double(n), 0.0), hi = std::max(a.hi * double(n), 0.0);
  g.emit("cumsum", call("cumsum", {a.ref}, attrs), {a.ty.dtype, out}, std::min(lo, a.lo),
         std::max(hi, a.hi), false);
  return true;
}

Recipe findRecipe(StringRef op) {
  static const std::pair<StringRef, Recipe> table[] = {
      {"abs", unaryExact},
      {"negative", unaryExact},
      {"nn.relu", unaryExact},
      {"copy", unaryExact},
      {"exp", unaryFloat},
      {"log", unaryFloat},
      {"sqrt", unaryFloat},
      {"rsqrt", unaryFloat},
      {"tanh", unaryFloat},
      {"sigmoid", unaryFloat},
      {"erf", unaryFloat},
      {"nn.leaky_relu", unaryFloat},
      {"sin", unaryFloat},
      {"cos", unaryFloat},
      {"tan", unaryFloat},
      {"asin", unaryFloat},
      {"acos", unaryFloat},
      {"atan", unaryFloat},
      {"sinh", unaryFloat},
      {"cosh", unaryFloat},
      {"asinh", unaryFloat},
      {"acosh", unaryFloat},
      {"atanh", unaryFloat},
      {"floor", unaryStep},
      {"ceil", unaryStep},
      {"round", unaryStep},
      {"sign", unaryStep},
      {"isnan", unaryTest},
      {"isinf", unaryTest},
      {"logical_not", unaryBits},
      {"bitwise_not", unaryBits},
      {"clip", clipRecipe},
      {"cast", castRecipe},
      {"add", binaryRecipe},
      {"subtract", binaryRecipe},
      {"multiply", binaryRecipe},
      {"divide", binaryRecipe},
      {"maximum", binaryRecipe},
      {"minimum", binaryRecipe},
      {"power", binaryRecipe},
      {"equal", compareRecipe},
      {"less", compareRecipe},
      {"greater", compareRecipe},
      {"less_equal", compareRecipe},
      {"greater_equal", compareRecipe},
      {"floor_mod", modRecipe},
      {"mod", modRecipe},
      {"logical_and", bitsRecipe},
      {"logical_or", bitsRecipe},
      {"logical_xor", bitsRecipe},
      {"bitwise_and", bitsRecipe},
      {"bitwise_or", bitsRecipe},
      {"bitwise_xor", bitsRecipe},
      {"left_shift", bitsRecipe},
      {"right_shift", bitsRecipe},
      {"where", whereRecipe},
      {"sum", reduceRecipe},
      {"mean", reduceRecipe},
      {"max", reduceRecipe},
      {"min", reduceRecipe},
      {"prod", reduceRecipe},
      {"argmax", reduceRecipe},
      {"argmin", reduceRecipe},
      {"cumsum", cumsumRecipe},
      {"reshape", reshapeRecipe},
      {"transpose", transposeRecipe},
      {"expand_dims", expandDimsRecipe},
      {"squeeze", squeezeRecipe},
      {"concatenate", concatenateRecipe},
      {"stack", stackRecipe},
      {"split", splitRecipe},
      {"strided_slice", stridedSliceRecipe},
      {"take", takeRecipe},
      {"gather", gatherRecipe},
      {"gather_nd", gatherNdRecipe},
      {"scatter_elements", scatterElementsRecipe},
      {"scatter_nd", scatterNdRecipe},
      {"nn.pad", padRecipe},
      {"layout_transform", layoutTransformRecipe},
      {"nn.batch_flatten", batchFlattenRecipe},
  };
  for (const auto &[name, r] : table)
    if (name == op)
      return r;
  return findNnRecipe(op);
}

} // namespace hx::smith
