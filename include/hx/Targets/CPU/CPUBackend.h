//===- CPUBackend.h - The cpu backend and its devices -----------*- C++ -*-===//
//
// Kernels JIT-compiled for the host through ORC (lib/Targets/CPU), run on
// cpu device instances, each with its own memory and thread pool.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_CPU_CPUBACKEND_H
#define HX_TARGETS_CPU_CPUBACKEND_H

#include "hx/IR/VirtualDevice.h"
#include "hx/Runtime/Backend.h"
#include "llvm/Support/Error.h"
#include <memory>

namespace hx {

struct CPUBackendOptions {
  /// Keep every kernel's LLVM IR for printCode (hx-run --emit=llvm).
  bool keepIR = false;
  /// The target it compiles for: `llvm` (the host), `llvm -mcpu=NAME`
  /// (code for that CPU, which the host must be able to run), `llvm
  /// -mattr=+f,-g` (features added to or removed from the host's or the
  /// named CPU's). Anything the host cannot run is an error naming it.
  Target target = Target::defaultFor(DeviceType::CPU);
  /// The backend's registered name ("cpu"; a test backend over the same
  /// compiler registers another).
  llvm::StringRef name = "cpu";
  /// Keep the kernels' object code for saveKernels.
  bool keepObjects = false;
  /// What an earlier saveKernels wrote: the backend starts with those
  /// kernels (CPUCompiler::restore).
  llvm::StringRef saved;
};

llvm::Expected<std::unique_ptr<Backend>> createCPUBackend(const CPUBackendOptions &opts = {});

/// A cpu device instance with `threads` worker threads (0: one per core)
/// for the kernels' parallel loops; allocations beyond `memoryLimit` bytes
/// in all (0: no limit) fail with an out-of-memory error. `backend` is the
/// name of the backend whose kernels it runs (its name is `backend:N`).
std::unique_ptr<Device> createCPUDevice(unsigned instance, unsigned threads,
                                        uint64_t memoryLimit = 0, llvm::StringRef backend = "cpu");

} // namespace hx

#endif
