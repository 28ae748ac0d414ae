//===- Compare.cpp - The one rule that compares results -------------------===//
//
// Two passes over each output pair: the scale (the largest finite expected
// magnitude), then each element against atol + rtol * scale, keeping the
// worst and counting the failures, and whether both sides are entirely
// non-finite (a vacuous agreement).
//
//===----------------------------------------------------------------------===//
#include "hx/Run/Compare.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <cstdio>

using namespace llvm;

namespace hx {

std::string Comparison::vacuousList() const {
  std::string s;
  for (unsigned k : vacuousOutputs)
    s += (s.empty() ? "output_" : ", output_") + std::to_string(k);
  return s;
}

static std::string number(double v, int digits = 6) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string Tolerance::describe() const {
  return "rtol " + number(rtol) + ", atol " + number(atol);
}

std::string Tolerance::flagValue() const { return number(rtol, 17) + "," + number(atol, 17); }

std::string Comparison::where() const {
  if (!worst)
    return "";
  // 9 digits tell any two float32 values apart.
  return "output_" + std::to_string(worst->output) + "[" +
         join(map_range(worst->position, [](int64_t i) { return std::to_string(i); }), ", ") +
         "]: " + gotName + " " + number(worst->got, 9) + ", " + wantName + " " +
         number(worst->want, 9);
}

std::string Comparison::ruleAtWorst() const {
  if (!worst)
    return "";
  const WorstElement &w = *worst;
  double diff = std::fabs(w.got - w.want);
  if (std::isnan(w.got) || std::isnan(w.want) || std::isinf(w.got) || std::isinf(w.want))
    return "NaN agrees only with NaN, and an infinity only with the same infinity";
  std::string out = "output_" + std::to_string(w.output);
  if (w.rtol == 0 && w.atol == 0)
    return "|difference| " + number(diff) + "; " + out + " must be equal";
  return "|difference| " + number(diff) + (diff > w.allowed ? " > " : " <= ") + "allowed " +
         number(w.allowed) + " = atol " + number(w.atol) + " + rtol " + number(w.rtol) +
         " * scale " + number(w.scale) + " (the largest |" + wantName + " value| of " + out + ")";
}

std::string Comparison::failingCount() const {
  if (!worst || !worst->failing)
    return "";
  const WorstElement &w = *worst;
  return std::to_string(w.failing) + " of " + std::to_string(w.elements) + " elements of output_" +
         std::to_string(w.output) + (w.failing == 1 ? " is" : " are") + " outside the tolerance";
}

std::string Comparison::explain() const {
  std::string s = ruleAtWorst(), n = failingCount();
  return n.empty() ? s : s + "; " + n;
}

Expected<Tolerance> parseTolerance(StringRef text) {
  auto [r, a] = text.split(',');
  Tolerance t;
  auto value = [](StringRef s, double &out) {
    s = s.trim();
    return !s.empty() && !s.getAsDouble(out) && std::isfinite(out) && out >= 0;
  };
  if (!value(r, t.rtol) || (!a.empty() && !value(a, t.atol)) || (a.empty() && text.contains(',')))
    return createStringError("'" + text + "' is not RTOL or RTOL,ATOL (finite numbers >= 0)");
  return t;
}

Tolerance defaultTolerance(ArrayRef<HostTensor> want, ArrayRef<HostTensor> inputs) {
  auto isHalf = [](const HostTensor &t) {
    return t.dtype() == DType::Float16 || t.dtype() == DType::BFloat16;
  };
  bool half = llvm::any_of(want, isHalf) || llvm::any_of(inputs, isHalf);
  return half ? Tolerance{1e-2, 1e-3} : Tolerance{1e-3, 1e-5};
}

/// The row-major index `i` of `shape` as one index per dim.
static std::vector<int64_t> positionOf(ArrayRef<int64_t> shape, int64_t i) {
  std::vector<int64_t> pos(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    pos[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return pos;
}

Comparison compareResults(ArrayRef<HostTensor> got, ArrayRef<HostTensor> want,
                          ArrayRef<HostTensor> inputs, const CompareOptions &opts) {
  Comparison c;
  c.gotName = opts.gotName;
  c.wantName = opts.wantName;
  c.tolerance = opts.tolerance ? *opts.tolerance : defaultTolerance(want, inputs);
  if (got.size() != want.size()) {
    auto outputs = [](size_t n) { return std::to_string(n) + (n == 1 ? " output" : " outputs"); };
    c.mismatch = "the " + opts.gotName + " module gives " + outputs(got.size()) + ", the " +
                 opts.wantName + " " + std::to_string(want.size());
    return c;
  }
  for (size_t k = 0; k < got.size(); ++k) {
    const HostTensor &g = got[k], &w = want[k];
    // A bfloat16 output compares with float32 values (.npy files hold
    // bfloat16 as float32).
    auto npyDType = [](DType t) { return t == DType::BFloat16 ? DType::Float32 : t; };
    if (npyDType(g.dtype()) != npyDType(w.dtype()) || g.shape() != w.shape()) {
      c.mismatch = "output_" + std::to_string(k) + " is " + g.typeString() + " " + opts.gotName +
                   ", " + w.typeString() + " " + opts.wantName;
      return c;
    }
    bool floating = isFloat(w.dtype());
    Tolerance tol = floating ? c.tolerance : Tolerance{};
    double scale = 0;
    if (floating)
      for (int64_t i = 0; i < w.numElements(); ++i) {
        double b = std::fabs(w.getDouble(i));
        if (std::isfinite(b))
          scale = std::max(scale, b);
      }
    double allowed = tol.atol + tol.rtol * scale;
    bool allNonFinite = g.numElements() > 0;
    int64_t failing = 0;
    double worstRatio = 0;
    int64_t worstIndex = -1;
    for (int64_t i = 0; i < g.numElements(); ++i) {
      double a = g.getDouble(i), b = w.getDouble(i);
      if (std::isfinite(a) || std::isfinite(b))
        allNonFinite = false;
      double ratio;
      if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) {
        // NaN agrees only with NaN, an infinity only with the same one.
        ratio = (std::isnan(a) && std::isnan(b)) || a == b ? 0 : INFINITY;
        if (ratio)
          c.maxError = INFINITY;
      } else if (a == b)
        ratio = 0;
      else {
        double diff = std::fabs(a - b);
        ratio = allowed > 0 ? diff / allowed : INFINITY;
        if (scale > 0)
          c.maxError = std::max(c.maxError, diff / scale);
      }
      if (ratio > 1)
        ++failing;
      if (ratio > worstRatio) {
        worstRatio = ratio;
        worstIndex = i;
      }
    }
    if (allNonFinite)
      c.vacuousOutputs.push_back(unsigned(k));
    if (worstIndex < 0 || (c.worst && worstRatio <= c.worstRatio))
      continue;
    c.worstRatio = worstRatio;
    WorstElement e;
    e.output = unsigned(k);
    e.index = worstIndex;
    e.position = positionOf(w.shape(), worstIndex);
    e.got = g.getDouble(worstIndex);
    e.want = w.getDouble(worstIndex);
    e.scale = scale;
    e.allowed = allowed;
    e.rtol = tol.rtol;
    e.atol = tol.atol;
    e.failing = failing;
    e.elements = g.numElements();
    c.worst = std::move(e);
  }
  return c;
}

} // namespace hx
