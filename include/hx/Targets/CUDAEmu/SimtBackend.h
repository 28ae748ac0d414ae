//===- SimtBackend.h - The cuda-emu backend and its devices -----*- C++ -*-===//
//
// The cuda code generator's kernels run on the host by the SIMT emulator
// (hx/Targets/CUDAEmu): a device of type cuda without a GPU, for correctness.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_CUDAEMU_SIMTBACKEND_H
#define HX_TARGETS_CUDAEMU_SIMTBACKEND_H

#include "hx/Runtime/Backend.h"
#include "llvm/Support/Error.h"
#include <memory>

namespace hx {

/// The cuda code generator's kernels for the SIMT emulator: the backend of
/// a cuda-emu device. `keepKernels`: keep the JIT's code for saveKernels;
/// `saved`: what an earlier saveKernels wrote, taken back without compiling.
llvm::Expected<std::unique_ptr<Backend>> createSimtBackend(bool keepKernels = false,
                                                           llvm::StringRef saved = "");

/// "cuda-emu:N": a device of type cuda without a GPU, which runs the SIMT
/// backend's kernels on the host. Its memory is host memory that the
/// runtime treats as device memory (copies go through copyFromHost and
/// copyToHost, as on a GPU); everything is synchronous. `memoryLimit` as for
/// a cpu device.
std::unique_ptr<Device> createSimtDevice(unsigned ordinal, uint64_t memoryLimit = 0);

} // namespace hx

#endif
