//===- TestUtil.h - Helpers for the interpreter tests -----------*- C++ -*-===//
//
// Tensors from literal values, and whole modules run through the parser,
// InferType and the interpreter, with every diagnostic turned into the error
// message, so a test reads as "this program on these inputs gives these
// values".
//
//===----------------------------------------------------------------------===//
#ifndef HX_UNITTESTS_INTERPRETER_TESTUTIL_H
#define HX_UNITTESTS_INTERPRETER_TESTUTIL_H

#include "hx/Interpreter/Interpreter.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "gtest/gtest.h"
#include <string>
#include <vector>

namespace hx::test {

using llvm::Expected;
using llvm::toString;

/// A tensor holding `values` (converted with setDouble) in row-major order.
HostTensor makeTensor(DType dtype, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<double> values);
/// An int64 tensor with exact values (beyond 2^53).
HostTensor makeInt64(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> values);
inline HostTensor f32(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<double> values) {
  return makeTensor(DType::Float32, shape, values);
}
inline HostTensor i32(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<double> values) {
  return makeTensor(DType::Int32, shape, values);
}
std::vector<double> valuesOf(const HostTensor &t);

/// Parses `text`, runs InferType, interprets @main on `inputs`.
llvm::Expected<std::vector<HostTensor>> runModule(const std::string &text,
                                                  llvm::ArrayRef<HostTensor> inputs);
/// `def @main(<params>) { <body> }` with the version header.
std::string mainModule(const std::string &params, const std::string &body);
/// runModule(mainModule(params, body)), expecting exactly one result.
llvm::Expected<HostTensor> runOne(const std::string &params, const std::string &body,
                                  llvm::ArrayRef<HostTensor> inputs);

/// Type and values (within `tol`, relative to max(1, |expected|)).
::testing::AssertionResult tensorIs(const HostTensor &t, DType dtype, llvm::ArrayRef<int64_t> shape,
                                    llvm::ArrayRef<double> expected, double tol = 1e-6);
/// Same, for an Expected result (its error message on failure).
::testing::AssertionResult tensorIs(llvm::Expected<HostTensor> t, DType dtype,
                                    llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<double> expected,
                                    double tol = 1e-6);
/// The error's message, or "" (and a test failure) when there is none.
template <typename T> std::string errorOf(llvm::Expected<T> v) {
  if (v) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(v.takeError());
}
inline std::string errorOf(llvm::Error e) { return llvm::toString(std::move(e)); }

} // namespace hx::test

#endif
