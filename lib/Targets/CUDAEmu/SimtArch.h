//===- SimtArch.h - The shared GPU lowering's hooks for the emulator -*- C++ -*-===//
//
// Private to lib/Targets/CUDAEmu. The GPUArch of cuda-emu: the cuda
// target's kernels, with its tuning (cudaTuning), emitted for the host,
// the hardware replaced by the SIMT emulator's (SimtEmulator.cpp):
//  - the special registers are loads from the external i32 array
//    @hx_simt_state ({tid.x, ctaid.x, nctaid.x});
//  - a barrier is a call of hx_simt_barrier(@hx_simt_state, i32 site), an
//    opaque call, so the optimizer keeps shared-memory accesses on their
//    side;
//  - shared arrays are ordinary external globals (one block runs at a time;
//    external, so that the barrier call may touch them);
//  - libdevice's __nv_expf is libm's expf, and kernels have the C calling
//    convention;
//  - every access to a buffer is checked against the launch's sizes
//    (@hx_simt_sizes, bytes per buffer): one beyond them calls
//    hx_simt_fault(@hx_simt_state, i32 buffer, i64 byte, i1 write) and goes
//    to @hx_simt_sink instead, so the emulator reports what a GPU would
//    fault on;
//  - each kernel `sym` gets a host entry `sym.host` with KernelABI's
//    signature (buffers, launch), which runs one thread of one block;
//  - a finished module is kept for the emulator's host JIT (takeModule).
// Everything else, the loops, tiles and index arithmetic under test, is
// emitted by the very code that emits the PTX.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGETS_CUDAEMU_SIMTARCH_H
#define HX_LIB_TARGETS_CUDAEMU_SIMTARCH_H

#include "hx/Targets/GPU/GPUArch.h"
#include <string>
#include <vector>

namespace hx {

class SimtArch : public GPUArch {
public:
  /// Modules for the host JIT with this triple and data layout.
  SimtArch(std::string triple, std::string dataLayout)
      : triple(std::move(triple)), dataLayout(std::move(dataLayout)) {}

  llvm::StringRef name() const override { return "CUDA"; }
  const TargetKindInfo &kind() const override;
  const GPUTuning &tuning() const override;
  void initModule(llvm::Module &m) const override;
  llvm::Error finishModule(llvm::orc::ThreadSafeModule module) override;
  void initKernel(llvm::Function &kernel) const override {}
  void finishKernel(llvm::Function &kernel, const GPUKernelBuilder &kb) const override;
  llvm::Value *specialRegister(llvm::IRBuilder<> &b, llvm::Module &m, GPURegister r) const override;
  void barrier(llvm::IRBuilder<> &b, llvm::Module &m, unsigned site) const override;
  llvm::GlobalVariable *sharedArray(llvm::Module &m, llvm::ArrayType *ty,
                                    const llvm::Twine &name) const override;
  llvm::StringRef mathFunction(MathFn fn, bool f32) const override;
  llvm::Value *accessAddress(GPUKernelBuilder &kb, DType t, int buffer, llvm::Value *offset,
                             llvm::Value *addr, bool write) const override;

  /// Finished module `module`, once.
  llvm::orc::ThreadSafeModule takeModule(unsigned module) { return std::move(modules[module]); }
  /// The emulator saves its JIT's objects instead: nothing here, and an
  /// empty module in the place of a restored one.
  std::string savedModule(unsigned) const override { return ""; }
  void restoreModule(llvm::StringRef) override { modules.emplace_back(); }

private:
  std::string triple, dataLayout;
  std::vector<llvm::orc::ThreadSafeModule> modules;
};

} // namespace hx

#endif
