//===- CUDADriverABI.cpp - hx's CUDA declarations checked against cuda.h --===//
//
// CUDADriver.h declares the driver's types, constants and entry points
// itself, so hx builds without the toolkit. Where the toolkit is installed
// this file (built only then, and the only one that sees cuda.h) proves at
// compile time that they are cuda.h's: every constant's value, every
// type's size, and every entry point's signature against cudaTypedefs.h's
// PFN_<name>_v<abi> — the ABI CUDAEntryPoints.def claims cuGetProcAddress
// returns at the pinned version. It generates no code.
//
// cuda.h renames the API with macros (cuMemAlloc -> cuMemAlloc_v2, and
// CU_MEMHOSTREGISTER_PORTABLE is a macro), so everything hx declares is
// captured under other names before cuda.h is included.
//
//===----------------------------------------------------------------------===//
#include "CUDADriver.h"
#include <type_traits>

// The constants compared, by name.
#define HX_CUDA_CONSTANTS(X)                                                                       \
  X(CUDA_SUCCESS)                                                                                  \
  X(CUDA_ERROR_INVALID_VALUE)                                                                      \
  X(CUDA_ERROR_OUT_OF_MEMORY)                                                                      \
  X(CUDA_ERROR_NOT_INITIALIZED)                                                                    \
  X(CUDA_ERROR_STUB_LIBRARY)                                                                       \
  X(CUDA_ERROR_NO_DEVICE)                                                                          \
  X(CUDA_ERROR_INVALID_CONTEXT)                                                                    \
  X(CUDA_ERROR_INVALID_PTX)                                                                        \
  X(CUDA_ERROR_INVALID_HANDLE)                                                                     \
  X(CUDA_ERROR_NOT_FOUND)                                                                          \
  X(CUDA_ERROR_NOT_READY)                                                                          \
  X(CUDA_ERROR_ILLEGAL_ADDRESS)                                                                    \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)                                                     \
  X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)                                                         \
  X(CUDA_ERROR_LAUNCH_FAILED)                                                                      \
  X(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)                                                      \
  X(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING)                                                        \
  X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)                                                  \
  X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)                                                  \
  X(CU_JIT_INFO_LOG_BUFFER)                                                                        \
  X(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)                                                             \
  X(CU_JIT_ERROR_LOG_BUFFER)                                                                       \
  X(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)                                                            \
  X(CU_POINTER_ATTRIBUTE_CONTEXT)                                                                  \
  X(CU_GET_PROC_ADDRESS_SUCCESS)                                                                   \
  X(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)                                                          \
  X(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)                                                    \
  X(CU_GET_PROC_ADDRESS_DEFAULT)                                                                   \
  X(CU_STREAM_NON_BLOCKING)                                                                        \
  X(CU_EVENT_DEFAULT)                                                                              \
  X(CU_EVENT_DISABLE_TIMING)                                                                       \
  X(CU_MEMHOSTREGISTER_PORTABLE)                                                                   \
  X(CU_MEMHOSTALLOC_PORTABLE)

namespace hx_abi {
// hx's side, captured before cuda.h's macros exist.
#define HX_CAPTURE_CONSTANT(c) constexpr long long hx_##c = static_cast<long long>(hx::cu::c);
HX_CUDA_CONSTANTS(HX_CAPTURE_CONSTANT)
#undef HX_CAPTURE_CONSTANT

#define HX_CUDA_ENTRY(name, abi, required, params) using hx_##name = decltype(hx::CUDADriver::name);
#include "CUDAEntryPoints.def"

using hx_GetProcAddress = hx::cu::GetProcAddressFn;
} // namespace hx_abi

#include <cuda.h>
#include <cudaTypedefs.h>

namespace hx_abi {

/// A cuda.h type with hx::cu's types in place of cuda.h's enums.
template <class T> struct FromCUDA {
  using type = T;
};
template <class T> using FromCUDAT = typename FromCUDA<T>::type;
template <class T> struct FromCUDA<T *> {
  using type = FromCUDAT<T> *;
};
template <class T> struct FromCUDA<const T> {
  using type = const FromCUDAT<T>;
};
template <class R, class... A> struct FromCUDA<R (*)(A...)> {
  using type = FromCUDAT<R> (*)(FromCUDAT<A>...);
};
#define HX_SAME_ENUM(cudaType, hxType)                                                             \
  template <> struct FromCUDA<::cudaType> {                                                        \
    using type = hx::cu::hxType;                                                                   \
  };                                                                                               \
  static_assert(sizeof(::cudaType) == sizeof(hx::cu::hxType), #cudaType " has another size");
HX_SAME_ENUM(CUresult, CUresult)
HX_SAME_ENUM(CUdevice_attribute, CUdevice_attribute)
HX_SAME_ENUM(CUjit_option, CUjit_option)
HX_SAME_ENUM(CUpointer_attribute, CUpointer_attribute)
HX_SAME_ENUM(CUdriverProcAddressQueryResult, CUdriverProcAddressQueryResult)
#undef HX_SAME_ENUM

static_assert(std::is_same_v<::CUdevice, hx::cu::CUdevice>);
static_assert(std::is_same_v<::CUdeviceptr, hx::cu::CUdeviceptr>);
static_assert(std::is_same_v<::CUcontext, hx::cu::CUcontext>);
static_assert(std::is_same_v<::CUstream, hx::cu::CUstream>);
static_assert(std::is_same_v<::CUevent, hx::cu::CUevent>);
static_assert(std::is_same_v<::CUmodule, hx::cu::CUmodule>);
static_assert(std::is_same_v<::CUfunction, hx::cu::CUfunction>);

#define HX_CHECK_CONSTANT(c)                                                                       \
  static_assert(hx_##c == static_cast<long long>(c), #c " differs from cuda.h");
HX_CUDA_CONSTANTS(HX_CHECK_CONSTANT)
#undef HX_CHECK_CONSTANT

// Each entry point against the PFN typedef of the ABI it claims.
#define HX_CUDA_ENTRY(name, abi, required, params)                                                 \
  static_assert(std::is_same_v<FromCUDAT<PFN_##name##_v##abi>, hx_##name>,                         \
                "CUDADriver::" #name " is not cudaTypedefs.h's PFN_" #name "_v" #abi);
#include "CUDAEntryPoints.def"

static_assert(std::is_same_v<FromCUDAT<PFN_cuGetProcAddress_v12000>, hx_GetProcAddress>);
static_assert(hx::cu::kPinnedVersion <= CUDA_VERSION);

} // namespace hx_abi
