//===- SimtEmulator.h - cuda kernels run on the host, thread by thread -*- C++ -*-===//
//
// Runs the cuda code generator's kernels without a GPU, so that CI checks
// what they compute and not only that ptxas accepts them. The kernels are
// those of the shared GPU lowering (GPUCompiler), emitted from the very
// same GPUKernelBuilder code and cuda's tuning, with only the hardware
// swapped for the emulator's (lib/Targets/CUDAEmu/SimtArch.h), and
// JIT-compiled for the host (KernelJit).
//
// A launch runs the grid's blocks one after another and, in a block, its
// GPUCompiler::kBlockDim threads:
//  - a kernel without a barrier: each thread to completion, in order;
//  - with barriers: each thread is a fiber (ucontext) with its own stack; a
//    thread reaching a barrier yields, and the block goes on once every
//    thread waits at it. A thread that returns while others wait, or threads
//    waiting at different barriers, are a divergent barrier (undefined on
//    the hardware): the launch fails naming the threads and barriers.
// Buffer accesses are checked against the sizes a launch gives (see
// SimtLaunchOptions::bufferBytes). Threads interleave only at barriers, so a race between threads
// of a block shows only where it crosses a barrier; shared memory is one array per kernel (one
// block runs at a time).
//
// A launch may use fewer blocks than the kernel's grid: every hx kernel's
// loops are grid-stride loops, which must cover their extent with any grid.
// It may also run the blocks, and the threads of a block, in reverse order:
// a kernel whose result depends on the order (two threads writing one
// element, a thread reading what another writes without a barrier between)
// then gives other bits, which is how tests find such races.
//
// State is per emulator (its own JIT and its @hx_simt_state); one emulator
// runs one launch at a time.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_CUDAEMU_SIMTEMULATOR_H
#define HX_TARGETS_CUDAEMU_SIMTEMULATOR_H

#include "hx/IR/Expr.h"
#include "hx/Targets/GPU/GPUCompiler.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/Support/Error.h"
#include <memory>

namespace hx {

struct SimtLaunchOptions {
  /// Blocks to run (0: the kernel's own grid).
  unsigned gridDim = 0;
  /// Blocks and threads in descending order.
  bool reverse = false;
  /// The bytes of each buffer from its pointer on (empty: unchecked). An
  /// access beyond them fails the launch, as an illegal address would on a
  /// GPU (the access itself goes to a sink, not beyond the buffer).
  llvm::ArrayRef<uint64_t> bufferBytes;
};

class SimtEmulator {
public:
  static llvm::Expected<std::unique_ptr<SimtEmulator>> create();
  ~SimtEmulator();

  /// Whether the cuda kernels include one for the operator.
  bool supports(const OpDef &op) const;
  /// As GPUCompiler::addKernel: a typed operator call, cached by signature.
  llvm::Expected<unsigned> addKernel(const Call &call);
  /// Compiles and JITs every kernel added since the last finalize.
  llvm::Error finalize();
  const GPUKernelInfo &kernel(unsigned id) const;
  unsigned numKernels() const;
  /// Kernels added since the last finalize.
  unsigned numPending() const;

  /// Keep the JIT's object code for save (before any kernel is added).
  void keepObjects();
  /// Appends the finalized kernels (the cuda kernel table and the host
  /// code the JIT made of them) to `out`; needs keepObjects.
  llvm::Error save(std::string &out) const;
  /// Takes back what save wrote, into an emulator without kernels.
  llvm::Error restore(llvm::StringRef saved);

  /// Runs a finalized kernel on `buffers` (KernelABI's order: operands,
  /// then results).
  llvm::Error launch(unsigned id, void **buffers, const SimtLaunchOptions &opts = {});

  /// For tests of the emulator itself: a host module whose function
  /// `symbol` has KernelABI's signature and uses the emulator's state and
  /// barrier as SimtArch emits them. Returns its kernel id.
  llvm::Expected<unsigned> addHostKernel(llvm::orc::ThreadSafeModule module, llvm::StringRef symbol,
                                         unsigned gridDim, bool usesBarrier);
  /// The triple and data layout a module for addHostKernel must have.
  std::string triple() const;
  std::string dataLayout() const;

private:
  SimtEmulator();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace hx

#endif
