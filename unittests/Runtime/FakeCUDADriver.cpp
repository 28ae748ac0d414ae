//===- FakeCUDADriver.cpp - A CUDA driver without a GPU, for tests --------===//
//
// See FakeCUDADriver.h. Every entry point of lib/Targets/CUDA/CUDAEntryPoints.def
// has a fake_<name> here with the very signature hx declares (the table
// below would not compile otherwise). The behaviour follows the driver API's
// documentation where hx relies on it:
//  - a primary context is created by the first retain and destroyed, with
//    everything in it, by the last release;
//  - a fault in a kernel (hx_test_fault) is sticky: every later call in that
//    context returns CUDA_ERROR_ILLEGAL_ADDRESS, and nothing is freed until
//    the context is destroyed;
//  - the JIT writes its error log into CU_JIT_ERROR_LOG_BUFFER, capped at
//    the size given, and returns the size used in the size option's slot;
//  - cuEventElapsedTime fails on events created with
//    CU_EVENT_DISABLE_TIMING; cuMemHostRegister on an overlapping range
//    returns CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED.
// Stricter than the driver where that catches hx bugs: the NULL stream,
// blocking streams and a stream of a context that is not current are
// misuse. Its state is process-global (it is a driver) and not
// thread-safe: the tests are single-threaded.
//
//===----------------------------------------------------------------------===//
#include "FakeCUDADriver.h"
#include "CUDADriver.h"
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace hx::cu;

struct CUctx_st {
  int device = 0;
  int refs = 0;
  bool alive = true;
  CUresult sticky = CUDA_SUCCESS;
};
struct CUstream_st {
  CUctx_st *ctx;
};
struct CUevent_st {
  CUctx_st *ctx;
  unsigned flags;
  long long stamp = -1;
};
struct CUmod_st;
struct CUfunc_st {
  std::string name;
  std::vector<size_t> paramSizes;
};
struct CUmod_st {
  CUctx_st *ctx;
  std::vector<std::unique_ptr<CUfunc_st>> functions;
};

namespace {

struct Allocation {
  size_t bytes;
  CUctx_st *ctx;
};

struct State {
  int devices = 1;
  size_t capacity = 64 << 20;
  CUresult initResult = CUDA_SUCCESS;
  std::set<std::string> hidden;
  /// The primary context of each device, null when none is retained.
  std::map<int, CUctx_st *> primary;
  /// Destroyed contexts, kept (dead) so a stale handle is seen as misuse
  /// rather than a crash; owned here, so they are not leaks.
  std::vector<std::unique_ptr<CUctx_st>> destroyed;
  std::map<uintptr_t, Allocation> allocations;
  std::map<uintptr_t, size_t> registered;
  std::set<CUstream_st *> streams;
  std::set<CUevent_st *> events;
  std::set<CUmod_st *> modules;
  long long clock = 0;
  HxFakeCUDACounts counts = {};
  std::string lastMisuse;
  HxFakeCUDALaunch lastLaunch = {};
};

State &state() {
  static State *s = new State;
  return *s;
}
thread_local CUctx_st *current = nullptr;

CUresult misuse(const std::string &what, CUresult r = CUDA_ERROR_INVALID_VALUE) {
  ++state().counts.misuse;
  state().lastMisuse = what;
  return r;
}

/// The current context, alive and without a sticky error.
CUresult needContext(const char *call) {
  if (!current)
    return misuse(std::string(call) + " with no current context", CUDA_ERROR_INVALID_CONTEXT);
  if (!current->alive)
    return misuse(std::string(call) + " with a destroyed context current",
                  CUDA_ERROR_INVALID_CONTEXT);
  return current->sticky;
}

CUresult needStream(const char *call, CUstream s) {
  if (CUresult r = needContext(call))
    return r;
  if (!s)
    return misuse(std::string(call) + " on the legacy NULL stream", CUDA_ERROR_INVALID_HANDLE);
  if (!state().streams.count(s))
    return misuse(std::string(call) + " on a dead stream", CUDA_ERROR_INVALID_HANDLE);
  if (s->ctx != current)
    return misuse(std::string(call) + " on a stream of a context that is not current",
                  CUDA_ERROR_INVALID_HANDLE);
  return CUDA_SUCCESS;
}

size_t usedBy(int device) {
  size_t used = 0;
  for (auto &[p, a] : state().allocations)
    if (a.ctx->device == device)
      used += a.bytes;
  return used;
}

/// Whether [p, p + bytes) lies in one allocation.
bool isDeviceRange(uintptr_t p, size_t bytes) {
  auto &allocs = state().allocations;
  auto it = allocs.upper_bound(p);
  if (it == allocs.begin())
    return false;
  --it;
  return p + bytes <= it->first + it->second.bytes;
}

/// The driver destroys everything in a context with it.
void destroyContext(CUctx_st *ctx) {
  State &s = state();
  for (auto it = s.allocations.begin(); it != s.allocations.end();)
    if (it->second.ctx == ctx) {
      std::free(reinterpret_cast<void *>(it->first));
      it = s.allocations.erase(it);
      ++s.counts.reclaimed;
    } else {
      ++it;
    }
  auto reclaim = [&](auto *x) {
    if (x->ctx != ctx)
      return false;
    delete x;
    ++s.counts.reclaimed;
    return true;
  };
  std::erase_if(s.streams, reclaim);
  std::erase_if(s.events, reclaim);
  std::erase_if(s.modules, reclaim);
  // Kept, dead, so that a stale handle is seen as misuse rather than a crash.
  ctx->alive = false;
  s.destroyed.emplace_back(ctx);
}

const std::map<int, std::pair<const char *, const char *>> &errorTable() {
  static const std::map<int, std::pair<const char *, const char *>> table = {
      {CUDA_SUCCESS, {"CUDA_SUCCESS", "no error"}},
      {CUDA_ERROR_INVALID_VALUE, {"CUDA_ERROR_INVALID_VALUE", "invalid argument"}},
      {CUDA_ERROR_OUT_OF_MEMORY, {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"}},
      {CUDA_ERROR_NOT_INITIALIZED, {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"}},
      {CUDA_ERROR_STUB_LIBRARY, {"CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"}},
      {CUDA_ERROR_NO_DEVICE, {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"}},
      {CUDA_ERROR_INVALID_CONTEXT, {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"}},
      {CUDA_ERROR_INVALID_PTX, {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"}},
      {CUDA_ERROR_INVALID_HANDLE, {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"}},
      {CUDA_ERROR_NOT_FOUND, {"CUDA_ERROR_NOT_FOUND", "named symbol not found"}},
      {CUDA_ERROR_NOT_READY, {"CUDA_ERROR_NOT_READY", "device not ready"}},
      {CUDA_ERROR_ILLEGAL_ADDRESS,
       {"CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"}},
      {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
       {"CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
        "part or all of the requested memory range is already mapped"}},
      {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
       {"CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
        "pointer does not correspond to a registered memory region"}},
  };
  return table;
}

// ---- the entry points ------------------------------------------------------

CUresult fake_cuInit(unsigned flags) {
  return flags ? CUDA_ERROR_INVALID_VALUE : state().initResult;
}
CUresult fake_cuDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}
CUresult fake_cuGetErrorName(CUresult error, const char **str) {
  auto it = errorTable().find(error);
  *str = it == errorTable().end() ? nullptr : it->second.first;
  return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult fake_cuGetErrorString(CUresult error, const char **str) {
  auto it = errorTable().find(error);
  *str = it == errorTable().end() ? nullptr : it->second.second;
  return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult fake_cuDeviceGetCount(int *count) {
  *count = state().devices;
  return CUDA_SUCCESS;
}
CUresult fake_cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= state().devices)
    return misuse("cuDeviceGet of a device that does not exist");
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult fake_cuDeviceGetName(char *name, int len, CUdevice dev) {
  std::snprintf(name, len, "hx fake GPU %d", dev);
  return CUDA_SUCCESS;
}
CUresult fake_cuDeviceTotalMem(size_t *bytes, CUdevice) {
  *bytes = state().capacity;
  return CUDA_SUCCESS;
}
CUresult fake_cuDeviceGetAttribute(int *value, CUdevice_attribute attr, CUdevice) {
  switch (attr) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    *value = 1;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult fake_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  CUctx_st *&p = state().primary[dev];
  if (!p) {
    p = new CUctx_st;
    p->device = dev;
  }
  ++p->refs;
  ++state().counts.contextRefs;
  *ctx = p;
  return CUDA_SUCCESS;
}
CUresult fake_cuDevicePrimaryCtxRelease(CUdevice dev) {
  CUctx_st *&p = state().primary[dev];
  if (!p)
    return misuse("cuDevicePrimaryCtxRelease without a retain");
  --state().counts.contextRefs;
  if (--p->refs == 0) {
    destroyContext(p);
    p = nullptr;
  }
  return CUDA_SUCCESS;
}
CUresult fake_cuCtxSetCurrent(CUcontext ctx) {
  if (ctx && !ctx->alive)
    return misuse("cuCtxSetCurrent of a destroyed context", CUDA_ERROR_INVALID_CONTEXT);
  current = ctx;
  return CUDA_SUCCESS;
}
CUresult fake_cuCtxSynchronize() { return needContext("cuCtxSynchronize"); }

CUresult fake_cuMemAlloc(CUdeviceptr *dptr, size_t bytes) {
  if (CUresult r = needContext("cuMemAlloc"))
    return r;
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (usedBy(current->device) + bytes > state().capacity)
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *p = std::malloc(bytes);
  *dptr = reinterpret_cast<uintptr_t>(p);
  state().allocations[*dptr] = {bytes, current};
  return CUDA_SUCCESS;
}
CUresult fake_cuMemFree(CUdeviceptr dptr) {
  if (CUresult r = needContext("cuMemFree"))
    return r;
  auto it = state().allocations.find(dptr);
  if (it == state().allocations.end())
    return misuse("cuMemFree of memory not allocated");
  std::free(reinterpret_cast<void *>(dptr));
  state().allocations.erase(it);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemGetInfo(size_t *free, size_t *total) {
  if (CUresult r = needContext("cuMemGetInfo"))
    return r;
  *total = state().capacity;
  *free = state().capacity - usedBy(current->device);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemHostAlloc(void **p, size_t bytes, unsigned) {
  *p = std::malloc(bytes);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult fake_cuMemFreeHost(void *p) {
  std::free(p);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemHostRegister(void *p, size_t bytes, unsigned flags) {
  if (CUresult r = needContext("cuMemHostRegister"))
    return r;
  if (!p || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (flags != CU_MEMHOSTREGISTER_PORTABLE)
    return misuse("cuMemHostRegister without CU_MEMHOSTREGISTER_PORTABLE");
  auto start = reinterpret_cast<uintptr_t>(p);
  for (auto &[q, n] : state().registered)
    if (q < start + bytes && start < q + n)
      return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  state().registered[start] = bytes;
  return CUDA_SUCCESS;
}
CUresult fake_cuMemHostUnregister(void *p) {
  if (CUresult r = needContext("cuMemHostUnregister"))
    return r;
  if (!state().registered.erase(reinterpret_cast<uintptr_t>(p)))
    return misuse("cuMemHostUnregister of a range not registered",
                  CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream) {
  if (CUresult r = needStream("cuMemcpyHtoDAsync", stream))
    return r;
  if (!isDeviceRange(dst, bytes))
    return misuse("cuMemcpyHtoDAsync to memory not allocated");
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  if (CUresult r = needStream("cuMemcpyDtoHAsync", stream))
    return r;
  if (!isDeviceRange(src, bytes))
    return misuse("cuMemcpyDtoHAsync from memory not allocated");
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  if (CUresult r = needStream("cuMemcpyDtoDAsync", stream))
    return r;
  if (!isDeviceRange(dst, bytes) || !isDeviceRange(src, bytes))
    return misuse("cuMemcpyDtoDAsync of memory not allocated");
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  if (CUresult r = needStream("cuMemcpyAsync", stream))
    return r;
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult fake_cuPointerGetAttribute(void *, CUpointer_attribute, CUdeviceptr) {
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult fake_cuStreamCreate(CUstream *stream, unsigned flags) {
  if (CUresult r = needContext("cuStreamCreate"))
    return r;
  if (!(flags & CU_STREAM_NON_BLOCKING))
    return misuse("a blocking stream (it would synchronize with the NULL stream)");
  *stream = new CUstream_st{current};
  state().streams.insert(*stream);
  return CUDA_SUCCESS;
}
CUresult fake_cuStreamDestroy(CUstream stream) {
  if (CUresult r = needContext("cuStreamDestroy"))
    return r;
  if (!state().streams.erase(stream))
    return misuse("cuStreamDestroy of a dead stream", CUDA_ERROR_INVALID_HANDLE);
  delete stream;
  return CUDA_SUCCESS;
}
CUresult fake_cuStreamSynchronize(CUstream stream) {
  return needStream("cuStreamSynchronize", stream);
}
CUresult fake_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags) {
  if (CUresult r = needStream("cuStreamWaitEvent", stream))
    return r;
  if (!state().events.count(event) || flags)
    return misuse("cuStreamWaitEvent on a dead event", CUDA_ERROR_INVALID_HANDLE);
  return CUDA_SUCCESS;
}
CUresult fake_cuEventCreate(CUevent *event, unsigned flags) {
  if (CUresult r = needContext("cuEventCreate"))
    return r;
  *event = new CUevent_st{current, flags};
  state().events.insert(*event);
  return CUDA_SUCCESS;
}
CUresult fake_cuEventDestroy(CUevent event) {
  if (CUresult r = needContext("cuEventDestroy"))
    return r;
  if (!state().events.erase(event))
    return misuse("cuEventDestroy of a dead event", CUDA_ERROR_INVALID_HANDLE);
  delete event;
  return CUDA_SUCCESS;
}
CUresult fake_cuEventRecord(CUevent event, CUstream stream) {
  if (CUresult r = needStream("cuEventRecord", stream))
    return r;
  if (!state().events.count(event) || event->ctx != stream->ctx)
    return misuse("cuEventRecord of an event of another context", CUDA_ERROR_INVALID_HANDLE);
  event->stamp = ++state().clock;
  return CUDA_SUCCESS;
}
CUresult fake_cuEventSynchronize(CUevent event) {
  if (CUresult r = needContext("cuEventSynchronize"))
    return r;
  if (!state().events.count(event))
    return misuse("cuEventSynchronize of a dead event", CUDA_ERROR_INVALID_HANDLE);
  return CUDA_SUCCESS;
}
CUresult fake_cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  if (CUresult r = needContext("cuEventElapsedTime"))
    return r;
  if (!state().events.count(start) || !state().events.count(end))
    return misuse("cuEventElapsedTime of a dead event", CUDA_ERROR_INVALID_HANDLE);
  if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING || start->stamp < 0 || end->stamp < 0)
    return CUDA_ERROR_INVALID_HANDLE;
  *ms = 0.5f * static_cast<float>(end->stamp - start->stamp);
  return CUDA_SUCCESS;
}

/// The `.entry` kernels of a PTX text and their parameters' sizes.
std::vector<std::unique_ptr<CUfunc_st>> parseEntries(const std::string &ptx) {
  std::vector<std::unique_ptr<CUfunc_st>> entries;
  for (size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at + 1)) {
    size_t open = ptx.find('(', at), close = ptx.find(')', open);
    if (open == std::string::npos || close == std::string::npos)
      break;
    auto f = std::make_unique<CUfunc_st>();
    f->name = ptx.substr(at + 7, open - at - 7);
    f->name.erase(std::remove_if(f->name.begin(), f->name.end(),
                                 [](unsigned char ch) { return std::isspace(ch) != 0; }),
                  f->name.end());
    std::string params = ptx.substr(open, close - open);
    for (size_t p = params.find(".param "); p != std::string::npos;
         p = params.find(".param ", p + 1))
      f->paramSizes.push_back(
          params.compare(p + 7, 4, ".u64") == 0 || params.compare(p + 7, 4, ".b64") == 0 ? 8 : 4);
    entries.push_back(std::move(f));
  }
  return entries;
}

CUresult fake_cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned numOptions,
                                 CUjit_option *options, void **optionValues) {
  if (CUresult r = needContext("cuModuleLoadDataEx"))
    return r;
  char *errorLog = nullptr;
  size_t errorLogSlot = 0;
  for (unsigned i = 0; i < numOptions; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      errorLog = static_cast<char *>(optionValues[i]);
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      errorLogSlot = i + 1;
  }
  std::string ptx = static_cast<const char *>(image);
  if (ptx.find("frobnicate") != std::string::npos) {
    if (errorLog && errorLogSlot) {
      auto size =
          static_cast<unsigned>(reinterpret_cast<uintptr_t>(optionValues[errorLogSlot - 1]));
      std::string log = "ptxas application ptx input, line 6; error   : Not a name of any "
                        "known instruction: 'frobnicate'\nptxas fatal   : Ptx assembly aborted "
                        "due to errors\n";
      size_t n = std::min<size_t>(log.size(), size ? size - 1 : 0);
      std::memcpy(errorLog, log.data(), n);
      if (size)
        errorLog[n] = 0;
      optionValues[errorLogSlot - 1] = reinterpret_cast<void *>(uintptr_t{n});
    }
    return CUDA_ERROR_INVALID_PTX;
  }
  if (ptx.find(".target") == std::string::npos)
    return CUDA_ERROR_INVALID_PTX;
  auto *m = new CUmod_st{current, parseEntries(ptx)};
  state().modules.insert(m);
  ++state().counts.moduleLoads;
  *module = m;
  return CUDA_SUCCESS;
}
CUresult fake_cuModuleUnload(CUmodule module) {
  if (CUresult r = needContext("cuModuleUnload"))
    return r;
  if (!state().modules.erase(module))
    return misuse("cuModuleUnload of a dead module", CUDA_ERROR_INVALID_HANDLE);
  delete module;
  return CUDA_SUCCESS;
}
CUresult fake_cuModuleGetFunction(CUfunction *f, CUmodule module, const char *name) {
  if (CUresult r = needContext("cuModuleGetFunction"))
    return r;
  if (!state().modules.count(module))
    return misuse("cuModuleGetFunction of a dead module", CUDA_ERROR_INVALID_HANDLE);
  for (auto &fn : module->functions)
    if (fn->name == name) {
      *f = fn.get();
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}
CUresult fake_cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size) {
  if (!f || index >= f->paramSizes.size())
    return CUDA_ERROR_INVALID_VALUE;
  *offset = 0;
  for (size_t i = 0; i < index; ++i)
    *offset += f->paramSizes[i];
  if (size)
    *size = f->paramSizes[index];
  return CUDA_SUCCESS;
}
CUresult fake_cuLaunchKernel(CUfunction f, unsigned gridX, unsigned gridY, unsigned gridZ,
                             unsigned blockX, unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream, void **params, void **extra) {
  if (CUresult r = needStream("cuLaunchKernel", stream))
    return r;
  if (!f)
    return misuse("cuLaunchKernel of no function", CUDA_ERROR_INVALID_HANDLE);
  if (!gridX || !gridY || !gridZ || !blockX || !blockY || !blockZ ||
      uint64_t{blockX} * blockY * blockZ > 1024 || gridY != 1 || gridZ != 1)
    return CUDA_ERROR_INVALID_VALUE;
  if (extra || sharedBytes)
    return misuse("cuLaunchKernel with extra parameters or shared memory");
  HxFakeCUDALaunch &last = state().lastLaunch;
  last = {};
  last.gridDim = gridX;
  last.blockDim = blockX;
  last.numParams = f->paramSizes.size();
  for (size_t i = 0; i < f->paramSizes.size() && i < 8; ++i)
    last.params[i] = *static_cast<void **>(params[i]);
  // The two kernels of CUDADriverTest.cpp's PTX.
  if (f->name == "hx_test_add") {
    auto *a = static_cast<const float *>(last.params[0]);
    auto *b = static_cast<const float *>(last.params[1]);
    auto *c = static_cast<float *>(const_cast<void *>(last.params[2]));
    for (uint64_t i = 0, n = std::min<uint64_t>(1000, uint64_t{gridX} * blockX); i < n; ++i)
      c[i] = a[i] + b[i];
  } else if (f->name == "hx_test_fault") {
    current->sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
  }
  return CUDA_SUCCESS;
}

// ---- cuGetProcAddress ------------------------------------------------------

struct Entry {
  const char *name;
  int abi;
  void *fn;
};

const std::vector<Entry> &entries() {
  // The static_cast proves each fake has hx's signature.
  static const std::vector<Entry> table = {
#define HX_CUDA_ENTRY(name, abi, required, params)                                                 \
  {#name, abi, reinterpret_cast<void *>(static_cast<decltype(hx::CUDADriver::name)>(&fake_##name))},
#include "CUDAEntryPoints.def"
  };
  return table;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, std::uint64_t flags,
                    CUdriverProcAddressQueryResult *status) {
  *pfn = nullptr;
  if (status)
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (state().hidden.count(symbol))
    return CUDA_SUCCESS;
  for (const Entry &e : entries()) {
    if (std::strcmp(e.name, symbol) != 0)
      continue;
    if (cudaVersion != std::max(kPinnedVersion, e.abi) || flags != CU_GET_PROC_ADDRESS_DEFAULT)
      ++state().counts.badRequests;
    if (cudaVersion < e.abi) {
      if (status)
        *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
      return CUDA_SUCCESS;
    }
    *pfn = e.fn;
    if (status)
      *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) void hxFakeCUDAReset(int devices, size_t capacity,
                                                            int initResult) {
  // The old objects are leaked: a driver table of an earlier test may still
  // point at them.
  State &s = state();
  s = State();
  s.devices = devices;
  s.capacity = capacity;
  s.initResult = static_cast<CUresult>(initResult);
  current = nullptr;
}

__attribute__((visibility("default"))) void hxFakeCUDAHide(const char *symbol) {
  state().hidden.insert(symbol);
}

__attribute__((visibility("default"))) HxFakeCUDACounts hxFakeCUDACounts() {
  State &s = state();
  HxFakeCUDACounts c = s.counts;
  c.allocations = s.allocations.size();
  c.streams = s.streams.size();
  c.events = s.events.size();
  c.modules = s.modules.size();
  c.registeredRanges = s.registered.size();
  return c;
}

__attribute__((visibility("default"))) const char *hxFakeCUDALastMisuse() {
  return state().lastMisuse.c_str();
}

__attribute__((visibility("default"))) HxFakeCUDALaunch hxFakeCUDALastLaunch() {
  return state().lastLaunch;
}
}
