//===- Compare.h - The one rule that compares results -----------*- C++ -*-===//
//
// hx-run --check and --check-against, Compiled.check in Python, hx-smith
// --check and the differential tester compare results with expected ones
// (the reference interpreter's, or a reference's .npy outputs) by this rule
// alone. For each floating output k, with b its expected values:
//
//   scale_k = max |b_i| over the finite b_i         (the output's size)
//   pass    iff |a_i - b_i| <= atol + rtol * scale_k for every i
//
// The bound is normwise: an element is held to the size of its output, not
// to its own size. Float32 kernels sum thousands of products, in an order of
// their own, and the rounding error of a sum is proportional to the size of
// its terms, not of the result: an element that cancels to near zero keeps
// an error of the size of its terms. An elementwise relative rule fails
// correct kernels on exactly those elements (docs/testing.md has the
// measurements and the bugs the rule still catches).
//
// Integer and boolean outputs must be equal. NaN agrees only with NaN, and
// an infinity only with the same infinity. The default tolerance of the
// floating outputs is rtol 1e-3, atol 1e-5; rtol 1e-2, atol 1e-3 when an
// output or an input is float16. CompareOptions::tolerance replaces it
// (hx-run --tolerance).
//
// A comparison can be vacuous: an output whose elements are all inf or
// NaN on both sides agrees, but says nothing about the kernels. Such
// outputs are listed so the caller can warn.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUN_COMPARE_H
#define HX_RUN_COMPARE_H

#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace hx {

/// How close a floating output must be: |a - b| <= atol + rtol * scale.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  /// "rtol 0.001, atol 1e-05"
  std::string describe() const;
  /// "0.001,1e-05", exact (what parseTolerance reads back).
  std::string flagValue() const;
};

/// "RTOL" or "RTOL,ATOL" (hx-run --tolerance): both finite and >= 0; a
/// missing ATOL is 0.
llvm::Expected<Tolerance> parseTolerance(llvm::StringRef text);

/// The default tolerance of the floating outputs of results `want` computed
/// from `inputs`.
Tolerance defaultTolerance(llvm::ArrayRef<HostTensor> want, llvm::ArrayRef<HostTensor> inputs);

struct CompareOptions {
  /// Replaces the default tolerance of the floating outputs.
  std::optional<Tolerance> tolerance;
  /// What the compared and the expected values are called in messages.
  std::string gotName = "compiled", wantName = "interpreter";
};

/// The element that decides a comparison: the largest |a - b| measured
/// against what its output allows.
struct WorstElement {
  unsigned output = 0;
  /// Row-major index into the output, and the same as one index per dim.
  int64_t index = 0;
  std::vector<int64_t> position;
  double got = 0, want = 0;
  /// The output's scale and what the rule allows there (atol + rtol * scale;
  /// 0 for an integer output).
  double scale = 0, allowed = 0;
  double rtol = 0, atol = 0;
  /// How many of the output's elements are outside the tolerance.
  int64_t failing = 0, elements = 0;
};

struct Comparison {
  /// The floating outputs' tolerance.
  Tolerance tolerance;
  /// The largest |a - b| / allowed (INFINITY for NaN against a number, or a
  /// difference where nothing is allowed): the check passes when it is at
  /// most 1.
  double worstRatio = 0;
  /// The largest |a - b| / scale over the floating outputs: the normwise
  /// relative error, printed when the check passes.
  double maxError = 0;
  /// Where worstRatio is (set when some element differs).
  std::optional<WorstElement> worst;
  /// A difference in the number, dtype or shape of outputs (then the
  /// comparison fails whatever the values say).
  std::string mismatch;
  /// The outputs (by index) that are entirely non-finite on both sides.
  std::vector<unsigned> vacuousOutputs;
  std::string gotName = "compiled", wantName = "interpreter";

  bool ok() const { return mismatch.empty() && worstRatio <= 1; }
  /// Whether some output was compared vacuously.
  bool vacuous() const { return !vacuousOutputs.empty(); }
  /// "output_0, output_2" for the vacuous outputs.
  std::string vacuousList() const;
  /// "output_0[0, 3, 1]: compiled 1.25, interpreter 1.5" (empty when every
  /// element is equal).
  std::string where() const;
  /// The rule's numbers at the worst element: "|difference| 0.25 > allowed
  /// 0.0015 = atol 1e-05 + rtol 0.001 * scale 1.49 (the largest
  /// |interpreter value| of output_0)".
  std::string ruleAtWorst() const;
  /// "3 of 24 elements of output_0 are outside the tolerance" (empty when
  /// none is).
  std::string failingCount() const;
  /// Both, on one line.
  std::string explain() const;
};

/// Compares `got` with `want`; `inputs` (the inputs of the run) choose the
/// default tolerance.
Comparison compareResults(llvm::ArrayRef<HostTensor> got, llvm::ArrayRef<HostTensor> want,
                          llvm::ArrayRef<HostTensor> inputs, const CompareOptions &opts = {});

} // namespace hx

#endif
