//===- CUDADriver.h - The CUDA driver, loaded at run time -------*- C++ -*-===//
//
// hx never links libcuda (nor its stub, whose cuInit fails): the driver is
// opened with dlopen at run time, so the same binary runs everywhere and says
// "no CUDA driver" where there is none. Only cuGetProcAddress_v2 is looked up
// with dlsym; every other entry point is fetched through it with a pinned
// CUDA version (12.0), so each pointer has the ABI of that version whatever
// the installed driver is (cuMemAlloc is the _v2 with a 64-bit size,
// cuCtxSynchronize takes no context): plain dlsym("cuMemAlloc") would give
// the CUDA 2.0 ABI.
//
// The types and constants below are declared here rather than taken from
// cuda.h, so hx builds the same with or without the toolkit; where the
// toolkit is installed CUDADriverABI.cpp checks them, and every entry
// point's signature, against cuda.h and cudaTypedefs.h at compile time. The
// opaque handle structs are declared at global scope with cuda.h's names, so
// CUcontext here is the very type cuda.h declares.
//
// Private to lib/Runtime; the public face is hx/Targets/CUDA/CUDABackend.h.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGETS_CUDA_CUDADRIVER_H
#define HX_LIB_TARGETS_CUDA_CUDADRIVER_H

#include "hx/Targets/CUDA/CUDABackend.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Error.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
struct CUmod_st;
struct CUfunc_st;

namespace hx::cu {

/// The subset of cuda.h that hx uses, with cuda.h's names and values. The
/// enums have a fixed underlying type so any value the driver returns is
/// representable (cuda.h's are C enums of the same size).
enum CUresult : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
  CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
  CUDA_ERROR_LAUNCH_FAILED = 719,
};

using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;

enum CUdevice_attribute : int {
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

enum CUjit_option : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

enum CUpointer_attribute : int {
  CU_POINTER_ATTRIBUTE_CONTEXT = 1,
};

enum CUdriverProcAddressQueryResult : int {
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
};

/// cuGetProcAddress flags (CUdriverProcAddress_flags).
constexpr std::uint64_t CU_GET_PROC_ADDRESS_DEFAULT = 0;
/// cuStreamCreate flags (CUstream_flags).
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
/// cuEventCreate flags (CUevent_flags).
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
/// cuMemHostRegister / cuMemHostAlloc flags.
constexpr unsigned CU_MEMHOSTREGISTER_PORTABLE = 0x01;
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x01;

/// cuGetProcAddress_v2, the one symbol taken with dlsym.
using GetProcAddressFn = CUresult (*)(const char *symbol, void **pfn, int cudaVersion,
                                      std::uint64_t flags,
                                      CUdriverProcAddressQueryResult *symbolStatus);

/// The CUDA version whose ABI every entry point has (cuGetProcAddress's
/// cudaVersion: 1000 * major + 10 * minor).
constexpr int kPinnedVersion = 12000;

} // namespace hx::cu

namespace hx {

/// The driver's entry points (CUDAEntryPoints.def), with the driver's
/// version and device count found at load time. Immutable once loaded;
/// shared by every cuda device.
struct CUDADriver {
  // The parameter lists of CUDAEntryPoints.def name these types unqualified.
  using CUresult = cu::CUresult;
  using CUdevice = cu::CUdevice;
  using CUdeviceptr = cu::CUdeviceptr;
  using CUcontext = cu::CUcontext;
  using CUstream = cu::CUstream;
  using CUevent = cu::CUevent;
  using CUmodule = cu::CUmodule;
  using CUfunction = cu::CUfunction;
  using CUdevice_attribute = cu::CUdevice_attribute;
  using CUjit_option = cu::CUjit_option;
  using CUpointer_attribute = cu::CUpointer_attribute;

  // One member per entry point, named as the driver API names it; the
  // optional ones (cuFuncGetParamInfo, cuPointerGetAttribute) may be null.
#define HX_CUDA_ENTRY(name, abi, required, params) CUresult(*name) params = nullptr;
#include "CUDAEntryPoints.def"

  /// The library opened ("libcuda.so.1", or HX_CUDA_DRIVER).
  std::string path;
  /// cuDriverGetVersion: 12080 for CUDA 12.8.
  int driverVersion = 0;
  /// cuDeviceGetCount after cuInit; never 0 in a loaded driver.
  int deviceCount = 0;

  /// Success, or an error "<call>: CUDA_ERROR_NAME (description)": the one
  /// way every driver call's result is checked. `call` says who called what,
  /// e.g. "cuda:0: cuMemAlloc(256 bytes)"; it is only rendered on failure.
  llvm::Error check(cu::CUresult r, const llvm::Twine &call) const {
    if (LLVM_LIKELY(r == cu::CUDA_SUCCESS))
      return llvm::Error::success();
    return fail(r, call);
  }
  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; "CUDA error 9999" for a
  /// code the driver does not know.
  std::string describe(cu::CUresult r) const;

private:
  llvm::Error fail(cu::CUresult r, const llvm::Twine &call) const;
};

/// Opens the driver at `path`, fetches every entry point, runs cuInit and
/// counts the devices: a fresh table each call (tests use it to load a
/// library of their choice). The errors are what probeCUDA reports:
///  - "no CUDA driver (libcuda.so.1 not found)"
///  - "no CUDA driver (cannot load PATH: <dlerror>)"
///  - "no usable CUDA driver: PATH lacks cuGetProcAddress_v2 (...)"
///  - "no usable CUDA driver: PATH is the CUDA toolkit's stub library (...)"
///  - "no usable CUDA driver: PATH has no cuMemAlloc for CUDA 12.0 (...)"
///  - "CUDA driver found, but cuInit failed: CUDA_ERROR_... (...)"
///  - "driver found, no device"
/// The library stays open once cuInit has run (unloading an initialized
/// driver is unsafe); it is closed on the failures before.
llvm::Expected<std::unique_ptr<CUDADriver>> loadCUDADriverFrom(llvm::StringRef path);

/// The library loadCUDADriver opens: $HX_CUDA_DRIVER if set and not empty,
/// else "libcuda.so.1".
std::string cudaDriverPath();

/// The process's driver table: loaded from cudaDriverPath() on the first
/// call and kept (the error too) for the life of the process. This is the
/// one piece of global mutable state in hx's runtime: a function-local
/// static (thread-safe initialization), deliberately never destroyed, so
/// devices destroyed late at exit still find it.
llvm::Expected<const CUDADriver &> loadCUDADriver();

/// probeCUDA and createCUDADevice (CUDA.h) on a given driver table, which
/// must outlive the device and everything it hands out (tests use a table
/// of their own; the public functions use loadCUDADriver's).
llvm::Expected<CUDASystemInfo> probeCUDA(const CUDADriver &driver);
llvm::Expected<std::unique_ptr<Device>> createCUDADevice(const CUDADriver &driver, unsigned ordinal,
                                                         const CUDADeviceOptions &opts = {});

} // namespace hx

#endif
