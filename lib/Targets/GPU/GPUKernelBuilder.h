//===- GPUKernelBuilder.h - KernelBuilder for NVIDIA GPUs -------*- C++ -*-===//
//
// Private to lib/Targets/GPU. Emits one kernel
//
//   define ptx_kernel void @name(ptr %buf0, ..., ptr %bufN)
//
// launched as a 1-D grid of GPUCompiler::kBlockDim-thread blocks, and maps
// KernelBuilder's target hooks to the GPU:
//  - parallelFor is a grid-stride loop: thread t of block b starts at
//    b * kBlockDim + t and steps by gridDim * kBlockDim, so any grid covers
//    any extent; the kernel's grid is the largest its loops want (capped).
//    Loops nested in another run serially in their thread. A kernel with
//    no parallel loop runs on thread 0 of block 0 alone;
//  - a strided nest's innermost dim is not blocked (innerBlockLength 1):
//    neighbouring threads take neighbouring elements, so accesses coalesce;
//  - contraction() is tiled: each block computes a tileM x tileN tile of
//    C (128, 64 or 32 square: the largest that still gives the grid enough
//    blocks), staging kTileK-deep slices of A and B in shared memory (the
//    next slice's global loads in flight while this one is summed), and
//    each thread keeps a threadM x threadN block of sums in registers;
//  - math functions are libdevice's (__nv_expf, ...), sqrt is llvm.sqrt;
//  - scratch arrays are per-thread local memory (at most 64 KiB);
//  - float sums accumulate in double, as on the CPU (reductions are
//    memory-bound, so the wider adds cost little), except inside the tiled
//    contraction, whose products accumulate in the operands' dtype with
//    fused multiply-adds (one rounding each) and are widened for the store.
//
// Emulation (hx/Targets/CUDAEmu): the same kernel for the host, the hardware
// replaced by the emulator's: the special registers are loads from the
// external i32 array @hx_simt_state ({tid.x, ctaid.x, nctaid.x}), a barrier
// is a call of hx_simt_barrier(@hx_simt_state, i32 site), shared arrays are
// ordinary external globals (one block runs at a time), libdevice's
// __nv_expf is libm's expf, and the kernel has the C calling convention.
// Every access to a buffer is checked against the launch's sizes
// (@hx_simt_sizes, bytes per buffer): one beyond them calls
// hx_simt_fault(@hx_simt_state, i32 buffer, i64 byte, i1 write) and goes to
// @hx_simt_sink instead, so the emulator reports what a GPU would fault on.
// Everything else, the loops, tiles and index arithmetic under test, is
// emitted by the very same code.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGETS_GPU_GPUKERNELBUILDER_H
#define HX_LIB_TARGETS_GPU_GPUKERNELBUILDER_H

#include "hx/CodeGen/KernelBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include <string>

namespace hx {

class GPUKernelBuilder : public KernelBuilder {
public:
  /// Creates the kernel function `name` in `m` and positions the builder in
  /// its body; `emulate`: for the host's SIMT emulator (see above).
  GPUKernelBuilder(llvm::Module &m, llvm::StringRef name, unsigned numBuffers,
                   bool emulate = false);

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
  /// its tile shape asks of ptxas (the fewest, of several contractions).
  unsigned minBlocksPerSM() const { return blocksPerSM; }
  /// Set by withScratch when a request is too large for local memory.
  const std::string &error() const { return err; }

  llvm::StringRef targetName() const override { return "CUDA"; }
  void parallelFor(int64_t extent, int64_t workPerIteration, LoopBody body) override;
  Value *math(MathFn fn, DType t, llvm::ArrayRef<Value *> args) override;
  void withScratch(DType t, int64_t count, llvm::function_ref<void(Value *ptr)> body) override;
  int64_t innerBlockLength(int64_t innerSize, int64_t workPerPoint) const override { return 1; }
  void contraction(const Contraction &c) override;
  Value *accessAddress(DType t, Value *ptr, Value *offset, Value *addr, bool write) override;
  bool tilesContraction(const Contraction &) const override { return true; }
  DType accumulatorType(DType t) const override { return isFloat(t) ? DType::Float64 : t; }

  /// A tiled contraction's shape: each block computes a tileM x tileN tile
  /// of C (tileM == tileN), each thread a threadM x threadN block of sums
  /// whose columns come in groups of columnGroup, a warp's width apart.
  struct Tiles {
    int64_t tileM, tileN, threadM, threadN, columnGroup;
    /// Blocks that ptxas is asked to fit on one multiprocessor
    /// (`.minnctapersm`), which caps the registers per thread at
    /// 65536 / (blocks * 256).
    unsigned blocksPerSM;
  };
  /// The three tile shapes, largest first: 128 (8 x 8 sums per thread), 64
  /// (4 x 4) and 32 (2 x 2).
  static constexpr Tiles kTiles[3] = {
      {128, 128, 8, 8, 4, 2}, {64, 64, 4, 4, 4, 3}, {32, 32, 2, 2, 2, 4}};
  /// Blocks a contraction should launch to fill a large GPU: two per
  /// multiprocessor of an H100 or H200 (132), rounded.
  static constexpr int64_t kTargetBlocks = 256;
  /// The largest tile shape that gives `batch` x m x n at least
  /// kTargetBlocks blocks, else the smallest.
  static const Tiles &tilesFor(int64_t batch, int64_t m, int64_t n);
  static constexpr int64_t kTileK = 8;
  /// Bytes between the k-rows of the shared tiles beyond the tile's width.
  static constexpr int64_t kPadBytes = 16;
  static constexpr int64_t kMaxScratchBytes = 64 * 1024;
  static constexpr unsigned kMaxGrid = 1u << 16;

private:
  /// int64 special registers.
  Value *specialRegister(llvm::Intrinsic::ID id, unsigned emulatedSlot);
  Value *threadIndex();
  Value *blockIndex();
  Value *gridSize();
  void barrier();
  /// x * y + z, one rounding for floats.
  Value *multiplyAdd(DType t, Value *x, Value *y, Value *z);
  void wantBlocks(int64_t blocks);
  llvm::GlobalVariable *sharedArray(DType t, int64_t count, llvm::StringRef suffix);

  std::string name;
  llvm::Function *kernel = nullptr;
  llvm::BasicBlock *body = nullptr;
  std::vector<llvm::GlobalVariable *> shared;
  int parallelDepth = 0;
  bool sawParallel = false;
  bool emulate = false;
  unsigned barriers = 0;
  unsigned grid = 1;
  unsigned blocksPerSM = 0;
  std::string err;
};

} // namespace hx

#endif
