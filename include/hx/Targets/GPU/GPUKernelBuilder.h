//===- GPUKernelBuilder.h - KernelBuilder for the GPU targets ---*- C++ -*-===//
//
// The shared GPU lowering (lib/Targets/GPU). Emits one kernel
//
//   define void @name(ptr %buf0, ..., ptr %bufN)
//
// launched as a 1-D grid of GPUCompiler::kBlockDim-thread blocks, and maps
// KernelBuilder's target hooks to the GPU:
//  - parallelFor is a grid-stride loop: thread t of block b starts at
//    b * kBlockDim + t and steps by gridDim * kBlockDim, so any grid covers
//    any extent; the kernel's grid is the largest its loops want (capped at
//    the tuning's maxGrid). Loops nested in another run serially in their
//    thread. A kernel with no parallel loop runs on thread 0 of block 0
//    alone;
//  - a strided nest's innermost dim is not blocked (innerBlockLength 1):
//    neighbouring threads take neighbouring elements, so accesses coalesce;
//  - contraction() takes the first of the tuning's schedules that takes it
//    (the tiled contraction, TiledContraction.h), else the untiled
//    default: one thread per element of C;
//  - math functions are the architecture's (libdevice's __nv_expf, ...);
//    sqrt, floor, ceil, round and roundeven are LLVM intrinsics;
//  - scratch arrays are per-thread local memory (at most the tuning's
//    maxScratchBytes);
//  - float sums accumulate in double, as on the CPU (reductions are
//    memory-bound, so the wider adds cost little), except inside the tiled
//    contraction, whose products accumulate in the operands' dtype with
//    fused multiply-adds (one rounding each) and are widened for the store.
//
// What the hardware does its own way — the special registers, the barrier,
// shared arrays, the math functions' names, the kernel's calling
// convention, the buffer accesses — is the GPUArch's (GPUArch.h): NVPTX's
// for cuda, the SIMT emulator's for cuda-emu, from the very same code.
//
// The public section under "For the lowering's pieces" is what a
// contraction schedule and an architecture's hooks build with.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_GPU_GPUKERNELBUILDER_H
#define HX_TARGETS_GPU_GPUKERNELBUILDER_H

#include "hx/CodeGen/KernelBuilder.h"
#include "hx/Targets/GPU/GPUArch.h"
#include <string>

namespace hx {

class GPUKernelBuilder : public KernelBuilder {
public:
  /// Creates the kernel function `name` in `m` for `arch` and positions the
  /// builder in its body.
  GPUKernelBuilder(llvm::Module &m, llvm::StringRef name, unsigned numBuffers, const GPUArch &arch);

  /// Terminates the kernel (and guards it when it has no parallel loop).
  void finish();
  /// Deletes the kernel and the shared arrays it created (after an error).
  void discard();
  llvm::Function *function() const { return kernel; }
  /// Blocks of the launch grid.
  unsigned gridDim() const { return grid; }
  /// Whether the kernel synchronizes its block (a tiled contraction).
  bool usesBarrier() const { return barriers > 0; }
  /// For a kernel with a tiled contraction: the blocks per multiprocessor
  /// its tile shape asks of the compiler (the fewest, of several).
  unsigned minBlocksPerSM() const { return blocksPerSM; }
  /// Set by withScratch when a request is too large for local memory.
  const std::string &error() const { return err; }

  llvm::StringRef targetName() const override { return gpu.name(); }
  void parallelFor(int64_t extent, int64_t workPerIteration, LoopBody body) override;
  Value *math(MathFn fn, DType t, llvm::ArrayRef<Value *> args) override;
  void withScratch(DType t, int64_t count, llvm::function_ref<void(Value *ptr)> body) override;
  int64_t innerBlockLength(int64_t innerSize, int64_t workPerPoint) const override { return 1; }
  void contraction(const Contraction &c) override;
  Value *accessAddress(DType t, Value *ptr, Value *offset, Value *addr, bool write) override;
  bool tilesContraction(const Contraction &) const override { return true; }
  DType accumulatorType(DType t) const override { return isFloat(t) ? DType::Float64 : t; }

  //===--- For the lowering's pieces (schedules, an architecture's hooks) ---===//

  const GPUArch &arch() const { return gpu; }
  const GPUTuning &tuning() const { return gpu.tuning(); }
  /// The special registers, int64.
  Value *threadIndex();
  Value *blockIndex();
  Value *gridSize();
  /// Synchronizes the block.
  void barrier();
  /// A shared array of `count` elements of dtype `t`, 16-byte aligned.
  llvm::GlobalVariable *sharedArray(DType t, int64_t count, llvm::StringRef suffix);
  /// x * y + z, one rounding for floats.
  Value *multiplyAdd(DType t, Value *x, Value *y, Value *z);
  /// body(i) for every i in [0, extent), block-stride: block b takes b,
  /// b + gridDim, ...; every thread of the block runs each body (the
  /// kernel's parallel work; loops inside run in each thread). The grid is
  /// sized for `extent`.
  void blockStrideLoop(int64_t extent, LoopBody body);
  /// Asks the compiler to fit `blocks` blocks on a multiprocessor (the
  /// fewest asked for wins).
  void requestBlocksPerSM(unsigned blocks);
  /// The address of element `i` of an array of dtype `t` at `base`.
  Value *elementAddress(DType t, Value *base, Value *i);
  llvm::IRBuilder<> &builder() { return b; }
  llvm::Module &llvmModule() { return module; }

private:
  Value *specialRegister(GPURegister r);
  void wantBlocks(int64_t blocks);

  const GPUArch &gpu;
  std::string name;
  llvm::Function *kernel = nullptr;
  llvm::BasicBlock *body = nullptr;
  std::vector<llvm::GlobalVariable *> shared;
  int parallelDepth = 0;
  bool sawParallel = false;
  unsigned barriers = 0;
  unsigned grid = 1;
  unsigned blocksPerSM = 0;
  std::string err;
};

} // namespace hx

#endif
