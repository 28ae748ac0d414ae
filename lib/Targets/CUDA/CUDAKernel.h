//===- CUDAKernel.h - What the cuda backend makes of a kernel ---*- C++ -*-===//
//
// Private to lib/Targets/CUDA: the PTX of the module holding the kernel
// (the backend's kernels share a few modules), that module's index, the
// kernel's symbol and its launch shape, a 1-D grid of `gridDim` blocks of
// `blockDim` threads. Its parameters are the buffer pointers, operands then
// results. A cuda device loads each module once.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGETS_CUDA_CUDAKERNEL_H
#define HX_LIB_TARGETS_CUDA_CUDAKERNEL_H

#include "hx/Runtime/Backend.h"
#include <string>

namespace hx {

struct CUDAKernel : KernelBinary {
  static constexpr llvm::StringLiteral kBackend = "cuda";
  llvm::StringRef backend() const override { return kBackend; }
  llvm::StringRef symbol() const override { return symbolName; }

  const std::string *ptx = nullptr;
  unsigned module = 0;
  std::string symbolName;
  unsigned gridDim = 1, blockDim = 1;
};

} // namespace hx

#endif
