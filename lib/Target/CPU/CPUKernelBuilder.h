//===- CPUKernelBuilder.h - KernelBuilder for the host CPU ------*- C++ -*-===//
//
// Private to lib/Target/CPU. Emits one kernel function
//
//   void @name(ptr %buffers, ptr %launch)
//
// and maps the target hooks of KernelBuilder to the CPU:
//  - parallelFor outlines its body into an internal function
//      void @name.parN(ptr %closure, i64 %begin, i64 %end)
//    (the closure is the kernel's buffer array: shapes are static, so the
//    body needs nothing else) and calls the runtime's
//      hx_parallel_for(%launch, @name.parN, %buffers, extent)
//    Loops below `minParallelWork` estimated operations, and loops nested in
//    another parallel loop, run inline instead;
//  - math functions are LLVM intrinsics (exp, log, sqrt, pow) or libm
//    (tanhf), resolved from the process by the JIT;
//  - scratch arrays live on the stack up to 64 KiB, else on the heap
//    (malloc/free; when malloc fails the body is skipped);
//  - float sums accumulate in double, except contractions: float32 and
//    float16 products accumulate in float32, as every BLAS does;
//  - contraction() is a packed GEMM (PackedGemm.cpp) where the shape pays
//    for packing, else the default loop nest.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGET_CPU_CPUKERNELBUILDER_H
#define HX_LIB_TARGET_CPU_CPUKERNELBUILDER_H

#include "hx/CodeGen/KernelBuilder.h"
#include <string>

namespace hx {

/// What the packed GEMM is shaped by: the vector unit the code is compiled
/// for and the host's data caches (bytes; 0 where the host does not say).
struct CPUMachineInfo {
  /// float32 lanes of one vector register (4 SSE, 8 AVX, 16 AVX-512) and
  /// how many such registers there are.
  unsigned lanes = 4;
  unsigned registers = 16;
  /// Whether fused multiply-add is native (else llvm.fmuladd becomes a
  /// multiply and an add).
  bool fma = false;
  int64_t l1 = 0, l2 = 0, l3 = 0;
};

class CPUKernelBuilder : public KernelBuilder {
public:
  /// Creates the kernel function `name` in `m` and positions the builder in
  /// its entry block.
  CPUKernelBuilder(llvm::Module &m, llvm::StringRef name, unsigned numBuffers,
                   int64_t minParallelWork, const CPUMachineInfo &machine = {});

  /// Terminates the kernel function.
  void finish();
  /// Deletes every function this builder created (after an error).
  void discard();
  /// The kernel function and the outlined parallel bodies.
  llvm::ArrayRef<llvm::Function *> functions() const { return fns; }

  llvm::StringRef targetName() const override { return "CPU"; }
  void parallelFor(int64_t extent, int64_t workPerIteration, LoopBody body) override;
  Value *math(MathFn fn, DType t, llvm::ArrayRef<Value *> args) override;
  void withScratch(DType t, int64_t count, llvm::function_ref<void(Value *ptr)> body) override;
  DType accumulatorType(DType t) const override;
  void contraction(const Contraction &c) override;
  /// The shapes the packed GEMM takes.
  bool tilesContraction(const Contraction &c) const override { return packedGemmPays(c); }

  /// Bytes of scratch above which withScratch uses the heap.
  static constexpr int64_t kMaxStackScratch = 64 * 1024;

private:
  /// A parallelFor whose body also receives `captured` (values of the
  /// calling function: pointers and int64s), passed through a closure on
  /// the caller's stack: [buffer pointers..., captured...].
  using CapturedBody = llvm::function_ref<void(Value *i, llvm::ArrayRef<Value *> captured)>;
  void parallelForCaptured(int64_t extent, int64_t workPerIteration,
                           llvm::ArrayRef<Value *> captured, CapturedBody body);
  /// PackedGemm.cpp.
  bool packedGemmPays(const Contraction &c) const;
  void packedGemm(const Contraction &c);
  /// The register micro-kernel: the MR x NR sums over k < kLen of
  /// aPanel[k*MR + r] * bPanel[k*NR + l], as MR * NR/L vectors of L floats.
  llvm::SmallVector<Value *, 32> microKernel(Value *aPanel, Value *bPanel, Value *kLen, int64_t MR,
                                             int64_t NR, int64_t L);

  std::string name;
  CPUMachineInfo machine;
  int64_t minParallelWork;
  llvm::Function *kernel = nullptr;
  llvm::SmallVector<llvm::Function *, 4> fns;
  unsigned parallelDepth = 0;
};

} // namespace hx

#endif
