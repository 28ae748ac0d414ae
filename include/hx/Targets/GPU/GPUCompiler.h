//===- GPUCompiler.h - Kernels for a GPU from the kernel definitions -*- C++ -*-===//
//
// The shared GPU lowering's driver: lowers primitive functions (one typed
// operator call, or a fused group) to GPU kernels from the same operator
// kernel definitions the CPU uses (lib/CodeGen), with GPUKernelBuilder, for
// one architecture (GPUArch.h), which it owns. The cuda target's is NVPTX
// (PTXCompiler.h: PTX text); cuda-emu's the SIMT emulator's (the same
// kernels for the host).
//
// Kernels are cached by signature (KernelDefs.h). Calls are collected
// first (addKernel) and compiled together (finalize): each finalize makes
// one module, which the architecture finishes (GPUArch::finishModule) and
// the runtime loads once per device.
//
// Launch: every kernel runs as a 1-D grid of kBlockDim-thread blocks; the
// kernel's parameters are its buffer pointers, operands then results
// (KernelABI.h's order).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_GPU_GPUCOMPILER_H
#define HX_TARGETS_GPU_GPUCOMPILER_H

#include "hx/IR/Expr.h"
#include "hx/IR/OpDef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace hx {

class ByteReader;
class GPUArch;

struct GPUKernelInfo {
  /// The module holding the kernel, its symbol, and its grid size in
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

  /// A compiler for `arch`.
  static std::unique_ptr<GPUCompiler> create(std::unique_ptr<GPUArch> arch);
  virtual ~GPUCompiler();

  /// Whether the architecture's target kind runs the operator and a kernel
  /// definition exists.
  bool supports(const OpDef &op) const;

  /// Registers a typed operator call and returns its kernel's id (calls of
  /// one signature share it). Errors name the operator.
  llvm::Expected<unsigned> addKernel(const Call &call);
  /// Compiles every kernel added since the last finalize into one module.
  llvm::Error finalize();

  unsigned numKernels() const;
  /// Kernels added since the last finalize.
  unsigned numPending() const;
  const GPUKernelInfo &kernel(unsigned id) const;

  /// Appends the finalized kernels (each one's info and signature) and the
  /// architecture's saved modules to `out`, for restore.
  llvm::Error save(std::string &out) const;
  /// Takes back what save wrote (read from `r`) into a compiler without
  /// kernels: a later call with one of their signatures gets its id, other
  /// calls compile as usual. False: `r` failed (truncated or corrupted).
  bool restore(ByteReader &r);
  /// The modules finished so far.
  unsigned numModules() const;
  const GPUArch &architecture() const;
  GPUArch &architecture();

protected:
  explicit GPUCompiler(std::unique_ptr<GPUArch> arch);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace hx

#endif
