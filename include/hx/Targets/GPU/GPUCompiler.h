//===- GPUCompiler.h - PTX kernels for NVIDIA GPUs --------------*- C++ -*-===//
//
// Lowers primitive functions (today: one typed operator call each) to PTX
// from the same operator kernel definitions the CPU uses (lib/CodeGen):
// LLVM IR for nvptx64-nvidia-cuda, kernels with the PTX_Kernel calling
// convention, math from CUDA's libdevice (linking only the functions
// used), optimized at O3 and printed as PTX for one architecture (sm_80 by
// default; the driver JITs it for newer GPUs). No GPU and no driver are
// needed: CI checks the PTX with ptxas.
//
// Kernels are cached by signature (KernelDefs.h). Calls are collected
// first (addKernel) and compiled together (finalize): each finalize makes
// one PTX module, which the runtime loads once per device.
//
// With GPUCompilerOptions::emulationTriple the same kernels are emitted for
// the host instead, for the SIMT emulator (hx/Targets/CUDAEmu), which runs them
// thread by thread: CI checks their results without a GPU.
//
// Launch: every kernel runs as a 1-D grid of kBlockDim-thread blocks; the
// kernel's parameters are its buffer pointers, operands then results
// (KernelABI.h's order).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_GPU_GPUCOMPILER_H
#define HX_TARGETS_GPU_GPUCOMPILER_H

#include "hx/IR/Expr.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace hx {

struct GPUCompilerOptions {
  /// The PTX target architecture, as in `cuda -arch=sm_90`.
  std::string arch = "sm_80";
  /// CUDA's libdevice bitcode; empty: $HX_LIBDEVICE, else the toolkit's
  /// (/usr/local/cuda/nvvm/libdevice/libdevice.10.bc).
  std::string libdevicePath;
  /// Keep each module's optimized LLVM IR for printLLVM.
  bool keepIR = false;
  /// Set by the SIMT emulator (hx/Targets/CUDAEmu): emit the kernels as LLVM IR
  /// for the host JIT with this triple and data layout instead of PTX (no
  /// NVPTX target, libdevice or optimization: the JIT optimizes).
  std::string emulationTriple;
  std::string emulationDataLayout;
};

struct GPUKernelInfo {
  /// The PTX module holding the kernel, its symbol, and its grid size in
  /// blocks of GPUCompiler::kBlockDim threads.
  unsigned module = 0;
  std::string symbol;
  unsigned gridDim = 1;
  /// Whether a block synchronizes (__syncthreads) in the kernel.
  bool usesBarrier = false;
  /// Its parameters: buffer pointers, operands then results.
  unsigned numBuffers = 0;
};

class GPUCompiler {
public:
  /// Threads per block of every kernel.
  static constexpr unsigned kBlockDim = 256;

  /// Fails when LLVM has no NVPTX target or the architecture is unknown.
  static llvm::Expected<std::unique_ptr<GPUCompiler>> create(GPUCompilerOptions opts = {});
  ~GPUCompiler();

  /// The libdevice a compiler made with the default options links:
  /// $HX_LIBDEVICE, else the toolkit's.
  static std::string defaultLibdevicePath();

  /// Whether the operator's registry entry says cuda and a kernel
  /// definition exists.
  static bool supports(const OpDef &op);

  /// Registers a typed operator call and returns its kernel's id (calls of
  /// one signature share it). Errors name the operator.
  llvm::Expected<unsigned> addKernel(const Call &call);
  /// Compiles every kernel added since the last finalize into one PTX
  /// module.
  llvm::Error finalize();

  unsigned numKernels() const;
  const GPUKernelInfo &kernel(unsigned id) const;
  unsigned numModules() const;
  /// The PTX text of a finalized module.
  /// Module `module`'s PTX; the reference stays valid for the compiler's
  /// life (later modules do not move it).
  const std::string &ptx(unsigned module) const;
  llvm::StringRef arch() const;

  /// Every module's PTX, in order (--emit=ptx).
  void printPTX(llvm::raw_ostream &os) const;
  /// Every module's optimized LLVM IR (needs keepIR).
  void printLLVM(llvm::raw_ostream &os) const;

  /// Emulation only: the host LLVM module of a finalized module, once. Each
  /// kernel `sym` has a host entry `sym.host` with KernelABI's signature
  /// (buffers, launch), which runs one thread of one block.
  llvm::orc::ThreadSafeModule takeEmulationModule(unsigned module);

private:
  GPUCompiler();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace hx

#endif
