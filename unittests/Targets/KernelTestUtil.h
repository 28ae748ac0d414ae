//===- KernelTestUtil.h - Parse, compile, run one call ----------*- C++ -*-===//
//
// Shared by the hx-target-tests: a typed call parsed from text, host
// buffers of any supported dtype, seeded random inputs, and a runner that
// compiles a call with a CPUCompiler and calls the kernel.
//
//===----------------------------------------------------------------------===//
#ifndef HX_UNITTESTS_TARGET_KERNELTESTUTIL_H
#define HX_UNITTESTS_TARGET_KERNELTESTUTIL_H

#include "hx/IR/Module.h"
#include "hx/Ops/ShapeUtils.h"
#include "hx/Support/Diagnostics.h"
#include "hx/Targets/CPU/CPUCompiler.h"
#include "llvm/Support/SourceMgr.h"
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace hx::test {

/// `@main(params) { expr }` parsed and typed; `call()` is the body's call.
class TypedCall {
public:
  /// Null (with the diagnostics in `errors`) when parsing or typing fails or
  /// the body is not a call.
  /// `trailer` follows the def (a `#[metadata]` section).
  static std::unique_ptr<TypedCall> parse(const std::string &params, const std::string &expr,
                                          std::string *errors = nullptr,
                                          const std::string &trailer = "");
  const Call &call() const { return *callExpr; }

private:
  llvm::SourceMgr sm;
  std::unique_ptr<DiagEngine> diags;
  std::unique_ptr<Module> module;
  const Call *callExpr = nullptr;
};

/// A dense, row-major host buffer.
class Buffer {
public:
  Buffer() = default;
  Buffer(DType dtype, llvm::ArrayRef<int64_t> shape);

  DType dtype() const { return type; }
  const Shape &shape() const { return dims; }
  int64_t size() const { return count; }
  void *data() { return storage.data(); }

  /// Element i as a double / int64 (bool: 0 or 1).
  double get(int64_t i) const;
  int64_t getInt(int64_t i) const;
  /// Stores v converted as C does (bool: v != 0).
  void set(int64_t i, double v);
  void setInt(int64_t i, int64_t v);

private:
  DType type = DType::Float32;
  Shape dims;
  int64_t count = 0;
  std::vector<uint64_t> storage; // 8-byte aligned
};

/// Uniform values in [lo, hi] (integers and bool: whole numbers).
void fillRandom(Buffer &b, std::mt19937 &rng, double lo = -2, double hi = 2);

/// The flattened tensor types of a call's result.
std::vector<const TensorType *> resultTypes(const Call &call);

/// Compiles `call` (with `compiler`), allocates its results and runs the
/// kernel on `inputs`. Fails the current test on a compile error.
std::vector<Buffer> runKernel(CPUCompiler &compiler, const Call &call,
                              std::vector<Buffer *> inputs);

/// A compiler with default options; fails the test if it cannot be created.
std::unique_ptr<CPUCompiler> makeCompiler(CPUCompilerOptions opts = {});

/// The product of the dims.
int64_t numElementsOf(llvm::ArrayRef<int64_t> shape);
/// Row-major coordinates of flat index i in shape, and back.
Shape unflattenIndex(int64_t i, llvm::ArrayRef<int64_t> shape);
int64_t flattenIndex(llvm::ArrayRef<int64_t> coords, llvm::ArrayRef<int64_t> shape);
/// The flat index in `in` (broadcast NumPy-style to `out`) of out's point.
int64_t broadcastIndex(llvm::ArrayRef<int64_t> outCoords, llvm::ArrayRef<int64_t> in);

/// `Tensor[(2, 3), float32]`.
std::string tensorType(llvm::ArrayRef<int64_t> shape, DType t);

/// Checks every element: exact for integers and bool, |a - e| <= tol *
/// max(1, |e|) for floats. Reports the first few mismatches.
void expectNear(const Buffer &actual, const std::vector<double> &expected, double tol,
                const std::string &what);

} // namespace hx::test

#endif
