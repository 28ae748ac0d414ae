//===- Compare.h - The one rule that compares results -----------*- C++ -*-===//
//
// hx-run --check, hx-smith --check, the differential tester and the
// conformance suite compare a compiled run with the reference interpreter
// by this rule alone:
//
//   error(a, b) = |a - b| / max(1, |b|)    (b: the interpreter's value)
//
// NaN agrees only with NaN, and an infinity only with the same infinity.
// The tolerance is 0 when every result is an integer or boolean, 1e-2
// when a result or an input is float16 (a kernel's float32 arithmetic and
// the interpreter's double may round to neighbouring halves, and later
// operators scale that), 1e-4 otherwise.
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
#include <string>
#include <vector>

namespace hx {

struct Comparison {
  /// The largest error(a, b) over every output (INFINITY for NaN against
  /// a number).
  double maxError = 0;
  double tolerance = 0;
  /// Where maxError is: "output_K[I]: compiled A, interpreter B" (empty
  /// when every element is equal).
  std::string where;
  /// A difference in the number, dtype or shape of outputs (then the
  /// comparison fails whatever maxError says).
  std::string mismatch;
  /// The outputs (by index) that are entirely non-finite on both sides.
  std::vector<unsigned> vacuousOutputs;

  bool ok() const { return mismatch.empty() && maxError <= tolerance; }
  /// Whether some output was compared vacuously.
  bool vacuous() const { return !vacuousOutputs.empty(); }
  /// "output_0, output_2" for the vacuous outputs.
  std::string vacuousList() const;
};

/// The tolerance for results `want` computed from `inputs`.
double comparisonTolerance(llvm::ArrayRef<HostTensor> want, llvm::ArrayRef<HostTensor> inputs);

/// Compares `got` (compiled) with `want` (the interpreter's).
Comparison compareResults(llvm::ArrayRef<HostTensor> got, llvm::ArrayRef<HostTensor> want,
                          llvm::ArrayRef<HostTensor> inputs);

} // namespace hx

#endif
