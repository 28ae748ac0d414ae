//===- CUDABackend.h - The cuda backend and its devices ---------*- C++ -*-===//
//
// The cuda backend (PTX from lib/Targets/GPU), its Device (Backend.h), and
// what the tools ask about the GPUs before they pick devices: is there a
// driver, which devices, and if not, why not.
//
// The driver (libcuda.so.1) is opened at run time, never linked, so every hx
// binary runs on a machine without one and says so: probeCUDA() fails with
// "no CUDA driver (libcuda.so.1 not found)", "driver found, no device", or
// the driver error that stopped it. The environment variable HX_CUDA_DRIVER
// names another library to open instead (read once, at the first use of the
// driver in the process; tests use it).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_CUDA_CUDABACKEND_H
#define HX_TARGETS_CUDA_CUDABACKEND_H

#include "hx/Runtime/Backend.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hx {

struct CUDADeviceInfo {
  /// The ordinal of cuda:N.
  unsigned ordinal = 0;
  /// "NVIDIA H200".
  std::string name;
  /// Bytes of device memory.
  uint64_t totalMemory = 0;
  /// Compute capability (9.0 for an H200).
  int ccMajor = 0, ccMinor = 0;
  int multiprocessors = 0;
};

struct CUDASystemInfo {
  /// cuDriverGetVersion: 1000 * major + 10 * minor (13000 for CUDA 13.0).
  int driverVersion = 0;
  /// Never empty: no device is an error.
  std::vector<CUDADeviceInfo> devices;
};

/// The driver and its devices (hx-run --list-devices); an error saying why
/// no device can be used otherwise.
llvm::Expected<CUDASystemInfo> probeCUDA();

/// Why no cuda device can be used ("no CUDA driver (libcuda.so.1 not
/// found)"); empty when at least one can.
std::string cudaUnavailableReason();

struct CUDADeviceOptions {
  /// --device-memory-limit: the bytes hx may allocate on the device, beyond
  /// which allocate() fails with an out-of-memory error naming the limit;
  /// 0: no limit but the device's.
  uint64_t memoryLimit = 0;
};

/// cuda:`ordinal`, on the device's primary context (shared with any other
/// user of that GPU in the process). Its copies and kernels are
/// asynchronous, issued on non-blocking streams (never the legacy NULL
/// stream); `Stream *` null means the device's own default stream.
///
/// Lifetimes: streams and events it hands out hold the context themselves
/// and may outlive the device; kernel handles (load) and allocations end with
/// it. A host buffer given to copyFromHost/copyToHost must stay alive (and
/// pinned, if pinHost pinned it) until the stream has passed the copy.
///
/// Errors: "cuda:3: no such device (2 found)", and the probeCUDA errors
/// after "cuda:N: ".
llvm::Expected<std::unique_ptr<Device>> createCUDADevice(unsigned ordinal,
                                                         const CUDADeviceOptions &opts = {});

/// The cuda backend: PTX for `arch` (sm_80 when empty) from lib/Targets/GPU.
/// It needs no GPU: the cuda device loads the PTX. `saved`: what an earlier
/// saveKernels of a cuda backend for the same architecture wrote, its
/// kernels taken back without compiling.
llvm::Expected<std::unique_ptr<Backend>> createCUDABackend(llvm::StringRef arch,
                                                           llvm::StringRef saved = "");

/// The type of cuda devices: the target-kind table's `cuda`.
DeviceType cudaDeviceType();

/// The PTX architecture a cuda target asks for (`cuda -arch=sm_90` gives
/// sm_90), or empty.
std::string cudaArchOf(const Target &target);

} // namespace hx

#endif
