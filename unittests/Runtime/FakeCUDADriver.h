//===- FakeCUDADriver.h - The test hooks of the fake CUDA driver -*- C++ -*-===//
//
// FakeCUDADriver.cpp builds a shared library that hx's loader takes for
// libcuda.so.1 (it exports cuGetProcAddress_v2), so the cuda Device runs
// without a GPU: device memory is host memory, copies are memcpy, and the
// two test kernels of CUDADriverTest.cpp are emulated. It checks how it is
// used (entry points fetched at the pinned version, the right context
// current, never the legacy NULL stream, no handle used after it died) and
// counts what is alive, so tests can see that a device cleans up after
// itself. A test opens the same library with dlopen and calls these hooks
// (extern "C", found with dlsym).
//
//===----------------------------------------------------------------------===//
#ifndef HX_UNITTESTS_RUNTIME_FAKECUDADRIVER_H
#define HX_UNITTESTS_RUNTIME_FAKECUDADRIVER_H

#include <cstddef>

extern "C" {

struct HxFakeCUDACounts {
  /// Live objects.
  int allocations, streams, events, modules, registeredRanges, contextRefs;
  /// cuModuleLoadDataEx calls that loaded a module.
  int moduleLoads;
  /// Allocations, streams, events and modules that were not freed or
  /// destroyed before their context was (and went with it).
  int reclaimed;
  /// Entry points fetched at another version than the pinned one, or with
  /// flags.
  int badRequests;
  /// Calls the real driver would reject or that show a bug in the caller;
  /// hxFakeCUDALastMisuse says which.
  int misuse;
};

struct HxFakeCUDALaunch {
  unsigned gridDim, blockDim, numParams;
  const void *params[8];
};

/// Forgets everything: `devices` GPUs of `capacity` bytes each; cuInit
/// returns `initResult`.
using HxFakeCUDAResetFn = void (*)(int devices, size_t capacity, int initResult);
/// cuGetProcAddress will not find `symbol` (an older driver).
using HxFakeCUDAHideFn = void (*)(const char *symbol);
using HxFakeCUDACountsFn = HxFakeCUDACounts (*)();
using HxFakeCUDALastMisuseFn = const char *(*)();
using HxFakeCUDALastLaunchFn = HxFakeCUDALaunch (*)();
}

#endif
