//===- Compare.cpp - The one rule that compares results -------------------===//
//
// One pass over each output pair: the worst error and where it is, and
// whether both sides are entirely non-finite (a vacuous agreement).
//
//===----------------------------------------------------------------------===//
#include "hx/Run/Compare.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace llvm;

namespace hx {

std::string Comparison::vacuousList() const {
  std::string s;
  for (unsigned k : vacuousOutputs)
    s += (s.empty() ? "output_" : ", output_") + std::to_string(k);
  return s;
}

double comparisonTolerance(ArrayRef<HostTensor> want, ArrayRef<HostTensor> inputs) {
  auto isHalf = [](const HostTensor &t) { return t.dtype() == DType::Float16; };
  bool exact = llvm::all_of(want, [](const HostTensor &t) { return !isFloat(t.dtype()); });
  bool half = llvm::any_of(want, isHalf) || llvm::any_of(inputs, isHalf);
  return exact ? 0.0 : half ? 1e-2 : 1e-4;
}

Comparison compareResults(ArrayRef<HostTensor> got, ArrayRef<HostTensor> want,
                          ArrayRef<HostTensor> inputs) {
  Comparison c;
  c.tolerance = comparisonTolerance(want, inputs);
  if (got.size() != want.size()) {
    c.mismatch = "the compiled module gives " + std::to_string(got.size()) +
                 " outputs, the interpreter " + std::to_string(want.size());
    return c;
  }
  for (size_t k = 0; k < got.size(); ++k) {
    if (got[k].dtype() != want[k].dtype() || got[k].shape() != want[k].shape()) {
      c.mismatch = "output_" + std::to_string(k) + " is " + got[k].typeString() + " compiled, " +
                   want[k].typeString() + " interpreted";
      return c;
    }
    bool allNonFinite = got[k].numElements() > 0;
    for (int64_t i = 0; i < got[k].numElements(); ++i) {
      double a = got[k].getDouble(i), b = want[k].getDouble(i);
      if (std::isfinite(a) || std::isfinite(b))
        allNonFinite = false;
      double err;
      if (std::isnan(a) || std::isnan(b))
        err = std::isnan(a) == std::isnan(b) ? 0 : INFINITY;
      else if (std::isinf(a) || std::isinf(b))
        err = a == b ? 0 : INFINITY; // an infinity agrees only with itself
      else
        err = a == b ? 0 : std::fabs(a - b) / std::max(1.0, std::fabs(b));
      if (err > c.maxError) {
        c.maxError = err;
        c.where = "output_" + std::to_string(k) + "[" + std::to_string(i) + "]: compiled " +
                  formatv("{0}", a).str() + ", interpreter " + formatv("{0}", b).str();
      }
    }
    if (allNonFinite)
      c.vacuousOutputs.push_back(unsigned(k));
  }
  return c;
}

} // namespace hx
