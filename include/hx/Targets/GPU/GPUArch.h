//===- GPUArch.h - What the shared GPU lowering asks of a GPU ---*- C++ -*-===//
//
// The GPU targets (cuda, cuda-emu) share one lowering of the kernel
// definitions (lib/Targets/GPU): the grid-stride loops, the tiled
// contraction and its tile choice, the kernel cache and the modules
// (GPUCompiler). What differs per architecture is behind this interface:
//
//  - data the lowering reads (GPUTuning): the tile shapes and the blocks
//    per multiprocessor each asks of the compiler, the blocks a grid should
//    reach, the smallest shape a tile takes, per-thread scratch, the grid's
//    cap, and the contraction schedules to try;
//  - hooks that emit what the hardware does its own way (GPUArch): the
//    special registers, the barrier, shared arrays, the math functions, the
//    buffer accesses, a kernel's calling convention and annotations, a
//    module's triple, and what a finished module becomes (PTX text for
//    NVPTX, a host module for the SIMT emulator).
//
// The cuda target's GPUArch is NVPTX (lib/Targets/CUDA/NVPTXArch.h) with the
// tuning sized for the GPUs hx is measured on (CUDATuning.h); cuda-emu's is
// the SIMT emulator's hooks with that same tuning, so that it runs the very
// kernels the PTX comes from. A second architecture is another GPUArch and
// its tuning; a split-K schedule is another GPUContractionSchedule in a
// tuning's list. Neither edits the shared lowering.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_GPU_GPUARCH_H
#define HX_TARGETS_GPU_GPUARCH_H

#include "hx/CodeGen/KernelBuilder.h"
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"
#include <cstdint>

namespace hx {

class GPUKernelBuilder;
class GPUContractionSchedule;

/// A tiled contraction's shape: each block computes a tileM x tileN tile of
/// C, each thread a threadM x threadN block of sums whose columns come in
/// groups of columnGroup, a warp's width apart (TiledContraction.h).
struct GPUTileShape {
  int64_t tileM, tileN, threadM, threadN, columnGroup;
  /// Blocks that the compiler is asked to fit on one multiprocessor
  /// (`.minnctapersm`), which caps the registers per thread at
  /// 65536 / (blocks * 256).
  unsigned blocksPerSM;
};

/// The numbers the shared lowering reads of one architecture.
struct GPUTuning {
  /// The tiled contraction's shapes, largest first: it takes the largest
  /// that gives the grid `targetBlocks` blocks, else the smallest; a
  /// contraction with m or n below the smallest's tile is not tiled.
  llvm::ArrayRef<GPUTileShape> tiles;
  int64_t targetBlocks = 0;
  /// The depth of the slices of A and B staged in shared memory, and the
  /// bytes between their k-rows beyond the tile's width.
  int64_t tileK = 0, padBytes = 0;
  /// The most bytes of per-thread scratch (local memory) a kernel may use.
  int64_t maxScratchBytes = 0;
  /// The largest grid a kernel asks for (its grid-stride loops cover any).
  unsigned maxGrid = 1;
  /// The ways to lower a contraction, tried in order: the first that takes
  /// it emits it; none: one thread per element of C (KernelBuilder's).
  llvm::ArrayRef<const GPUContractionSchedule *> contractionSchedules;
};

/// One way to lower a contraction onto the grid (the tiled one; a split-K
/// one would be another).
class GPUContractionSchedule {
public:
  virtual ~GPUContractionSchedule() = default;
  /// Whether it lowers `c` with `tuning`.
  virtual bool takes(const KernelBuilder::Contraction &c, const GPUTuning &tuning) const = 0;
  /// Emits `c` as the kernel's parallel work, in `kb`.
  virtual void emit(GPUKernelBuilder &kb, const KernelBuilder::Contraction &c) const = 0;
};

/// The special registers the lowering reads (PTX's names).
enum class GPURegister : unsigned { ThreadIndex, BlockIndex, GridSize }; // tid, ctaid, nctaid .x

/// The hooks of one architecture. One object serves one GPUCompiler, which
/// owns it; what a finished module becomes is kept here.
class GPUArch {
public:
  virtual ~GPUArch();

  /// The code generator's name in messages ("CUDA") and the target kind
  /// whose operators it implements (cuda).
  virtual llvm::StringRef name() const = 0;
  virtual const TargetKindInfo &kind() const = 0;
  virtual const GPUTuning &tuning() const = 0;

  //===--- A module -----------------------------------------------------------===//

  /// Gives a new module its triple and data layout.
  virtual void initModule(llvm::Module &m) const = 0;
  /// Takes a module whose kernels are all added: compiled (PTX) or kept (the
  /// emulator's host JIT compiles it). An error says what failed.
  virtual llvm::Error finishModule(llvm::orc::ThreadSafeModule module) = 0;
  /// What a compiled model file keeps of finished module `module` (PTX
  /// text), and that module taken back in another process, in order; an
  /// architecture whose modules are saved elsewhere (the emulator's JIT
  /// objects) keeps nothing here and takes back a placeholder.
  virtual std::string savedModule(unsigned module) const = 0;
  virtual void restoreModule(llvm::StringRef saved) = 0;

  //===--- A kernel -----------------------------------------------------------===//

  /// The kernel function as created: its calling convention.
  virtual void initKernel(llvm::Function &kernel) const = 0;
  /// The finished kernel, verified: its launch bounds, or a host entry.
  virtual void finishKernel(llvm::Function &kernel, const GPUKernelBuilder &kb) const = 0;

  //===--- In a kernel ----------------------------------------------------------===//

  /// A special register, as i32.
  virtual llvm::Value *specialRegister(llvm::IRBuilder<> &b, llvm::Module &m,
                                       GPURegister r) const = 0;
  /// The block's barrier (__syncthreads); `site` numbers the kernel's
  /// barriers from 0.
  virtual void barrier(llvm::IRBuilder<> &b, llvm::Module &m, unsigned site) const = 0;
  /// A shared array of type `ty`, one per block (the caller aligns it).
  virtual llvm::GlobalVariable *sharedArray(llvm::Module &m, llvm::ArrayType *ty,
                                            const llvm::Twine &name) const = 0;
  /// The function that computes `fn` (Exp, Log, Tanh, Pow, Erf, the
  /// trigonometric and hyperbolic functions and their inverses) in float32
  /// or, `f32` false, float64: libdevice's __nv_expf, or libm's expf.
  virtual llvm::StringRef mathFunction(MathFn fn, bool f32) const = 0;
  /// The address an access of element `offset` (dtype `t`) uses, given its
  /// GEP `addr` (KernelBuilder::accessAddress); `buffer` the kernel
  /// parameter accessed, or -1 (shared memory, scratch). `addr` by default.
  virtual llvm::Value *accessAddress(GPUKernelBuilder &kb, DType t, int buffer, llvm::Value *offset,
                                     llvm::Value *addr, bool write) const {
    return addr;
  }
};

} // namespace hx

#endif
