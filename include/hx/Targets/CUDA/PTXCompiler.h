//===- PTXCompiler.h - The cuda target's kernels as PTX ---------*- C++ -*-===//
//
// The shared GPU lowering (GPUCompiler) with the NVPTX architecture
// (lib/Targets/CUDA/NVPTXArch.h): the operator kernel definitions of
// lib/CodeGen as LLVM IR for nvptx64-nvidia-cuda, kernels with the
// PTX_Kernel calling convention, math from CUDA's libdevice (linking only
// the functions used), optimized at O3 and printed as PTX for one
// architecture (sm_80 by default; the driver JITs it for newer GPUs). No
// GPU and no driver are needed: CI checks the PTX with ptxas.
//
// Each finalize makes one PTX module, which the cuda device loads once.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_CUDA_PTXCOMPILER_H
#define HX_TARGETS_CUDA_PTXCOMPILER_H

#include "hx/Targets/GPU/GPUCompiler.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace hx {

class NVPTXArch;

struct PTXCompilerOptions {
  /// The PTX target architecture, as in `cuda -arch=sm_90`.
  std::string arch = "sm_80";
  /// CUDA's libdevice bitcode; empty: $HX_LIBDEVICE, else the toolkit's
  /// (/usr/local/cuda/nvvm/libdevice/libdevice.10.bc).
  std::string libdevicePath;
  /// Keep each module's optimized LLVM IR for printLLVM.
  bool keepIR = false;
};

class PTXCompiler : public GPUCompiler {
public:
  /// Fails when LLVM has no NVPTX target or the architecture is unknown.
  static llvm::Expected<std::unique_ptr<PTXCompiler>> create(PTXCompilerOptions opts = {});
  ~PTXCompiler() override;

  /// The libdevice a compiler made with the default options links:
  /// $HX_LIBDEVICE, else the toolkit's.
  static std::string defaultLibdevicePath();

  /// Module `module`'s PTX; the reference stays valid for the compiler's
  /// life (later modules do not move it).
  const std::string &ptx(unsigned module) const;
  llvm::StringRef arch() const;
  /// Every module's PTX, in order (--emit=ptx).
  void printPTX(llvm::raw_ostream &os) const;
  /// Every module's optimized LLVM IR (needs keepIR).
  void printLLVM(llvm::raw_ostream &os) const;

private:
  PTXCompiler(std::unique_ptr<NVPTXArch> arch);
  const NVPTXArch &nvptx;
};

} // namespace hx

#endif
