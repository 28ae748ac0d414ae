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
//  - float sums accumulate in double.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGET_CPU_CPUKERNELBUILDER_H
#define HX_LIB_TARGET_CPU_CPUKERNELBUILDER_H

#include "hx/CodeGen/KernelBuilder.h"
#include <string>

namespace hx {

class CPUKernelBuilder : public KernelBuilder {
public:
  /// Creates the kernel function `name` in `m` and positions the builder in
  /// its entry block.
  CPUKernelBuilder(llvm::Module &m, llvm::StringRef name, unsigned numBuffers,
                   int64_t minParallelWork);

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

  /// Bytes of scratch above which withScratch uses the heap.
  static constexpr int64_t kMaxStackScratch = 64 * 1024;

private:
  std::string name;
  int64_t minParallelWork;
  llvm::Function *kernel = nullptr;
  llvm::SmallVector<llvm::Function *, 4> fns;
  unsigned parallelDepth = 0;
};

} // namespace hx

#endif
