//===- OpConformanceCases.h - The conformance suite's programs --*- C++ -*-===//
//
// The programs the operator conformance suite (OpConformanceTest.cpp) runs
// for each operator: parameter lists and call expressions with `{T}` for the
// dtype under test, and the range of their random inputs.
//
//===----------------------------------------------------------------------===//
#ifndef HX_UNITTESTS_TARGET_OPCONFORMANCECASES_H
#define HX_UNITTESTS_TARGET_OPCONFORMANCECASES_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hx::test {

/// One program for one operator: `{T}` in params and expr stands for the
/// dtype under test.
struct OpCase {
  OpCase(std::string params, std::string expr, double lo = -3, double hi = 3,
         std::optional<std::pair<double, double>> rhs = std::nullopt)
      : params(std::move(params)), expr(std::move(expr)), lo(lo), hi(hi), rhs(rhs) {}
  std::string params;
  std::string expr;
  /// Range of the random inputs; `rhs` overrides it for the second operand.
  double lo, hi;
  std::optional<std::pair<double, double>> rhs;
  /// The case is not defined for bool (scatter's add and mul).
  bool skipBool = false;
};

/// `s` with every `{T}` replaced by `dtype`.
inline std::string subst(std::string s, llvm::StringRef dtype) {
  for (size_t p = s.find("{T}"); p != std::string::npos; p = s.find("{T}"))
    s.replace(p, 3, dtype.str());
  return s;
}

/// The cases of `op` (shapes, attribute sets, input ranges); none for an
/// operator the suite does not know, which CoversEveryOperator reports.
std::vector<OpCase> casesFor(llvm::StringRef op);

} // namespace hx::test

#endif // HX_UNITTESTS_TARGET_OPCONFORMANCECASES_H
