//===- CUDADevice.cpp - A GPU through the CUDA driver API -----------------===//
//
// cuda:N is the primary context of GPU N (cuDevicePrimaryCtxRetain: the
// context the CUDA runtime and libraries such as cuBLAS share), made current
// at the start of every method that calls the driver — a thread may drive
// several devices, and cuCtxSetCurrent is a thread-local store.
//
// Everything is asynchronous and on non-blocking streams: the device creates
// one stream of its own for `Stream *` null, never the legacy NULL stream,
// which would serialize against every other stream. Copies are
// cuMemcpy*Async on the caller's stream (a pageable host buffer still works:
// the driver stages it; pinHost makes it a true DMA), kernels cuLaunchKernel
// with the buffer pointers as the parameters. The executor orders streams
// with events; a fault in a kernel (an illegal address) surfaces at the next
// synchronization, as a clean error naming the call that saw it.
//
// Ownership: the retained context is shared (std::shared_ptr) by the device
// and every stream and event it hands out, so those destroy themselves
// whenever they go, before or after the device; the context is released
// when the last of them does. Allocations, pinned ranges, modules and kernel
// handles belong to the device and end with it. Destructors ignore driver
// errors: after a sticky error every call fails at once, nothing hangs.
//
// PTX modules are loaded once per device, keyed by their text's hash and
// size rather than the KernelBinary's pointer or module index: a device
// outlives executables, and a later one's module 0 is other code, possibly
// at a recycled address.
//
//===----------------------------------------------------------------------===//
#include "CUDADriver.h"
#include "CUDAKernel.h"
#include "hx/Runtime/AllocationTable.h"
#include "hx/Targets/CUDA/CUDABackend.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"
#include <cstdint>
#include <map>
#include <tuple>

using namespace hx;
using namespace hx::cu;
using namespace llvm;

namespace {

Error makeError(const Twine &msg) { return createStringError(msg); }

CUdeviceptr devicePtr(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

/// A retained primary context, released when the last of the device, its
/// streams and its events lets go of it.
struct Context {
  Context(const CUDADriver &drv, CUdevice dev, CUcontext ctx, std::string name)
      : drv(drv), dev(dev), ctx(ctx), name(std::move(name)) {}
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context() { drv.cuDevicePrimaryCtxRelease(dev); }

  Error makeCurrent() const {
    return drv.check(drv.cuCtxSetCurrent(ctx), Twine(name) + ": cuCtxSetCurrent");
  }

  const CUDADriver &drv;
  const CUdevice dev;
  const CUcontext ctx;
  /// "cuda:0".
  const std::string name;
};
using ContextRef = std::shared_ptr<const Context>;

/// A stream of its own (createStream). If the driver refused to create it,
/// `stream` is null and every use reports why: createStream cannot.
class CUDAStream : public Stream {
public:
  CUDAStream(ContextRef ctx, CUstream stream, std::string failure)
      : ctx(std::move(ctx)), stream(stream), failure(std::move(failure)) {}
  ~CUDAStream() override {
    if (!stream)
      return;
    ctx->drv.cuCtxSetCurrent(ctx->ctx);
    // Returns at once; the driver frees the stream when its work is done.
    ctx->drv.cuStreamDestroy(stream);
  }

  const ContextRef ctx;
  const CUstream stream;
  const std::string failure;
};

/// An event; like a stream, null with the reason if creating it failed.
class CUDAEvent : public Event {
public:
  CUDAEvent(ContextRef ctx, CUevent event, bool timing, std::string failure)
      : ctx(std::move(ctx)), event(event), timing(timing), failure(std::move(failure)) {}
  ~CUDAEvent() override {
    if (!event)
      return;
    ctx->drv.cuCtxSetCurrent(ctx->ctx);
    ctx->drv.cuEventDestroy(event);
  }

  const ContextRef ctx;
  const CUevent event;
  const bool timing;
  const std::string failure;
};

/// What load() hands out and launch() takes.
struct Kernel {
  CUfunction function = nullptr;
  unsigned gridDim = 1, blockDim = 1;
  std::string symbol;
  /// The kernel's parameter count (cuFuncGetParamInfo, CUDA 12.4 drivers);
  /// -1 where the driver cannot tell.
  int numParams = -1;
};

class CUDADevice : public Device {
public:
  CUDADevice(ContextRef context, CUstream defaultStream, const CUDADeviceOptions &opts)
      : drv(context->drv), ctx(std::move(context)), defaultStream(defaultStream), opts(opts) {}

  ~CUDADevice() override {
    // Errors are ignored: a destructor has no one to report them to, and
    // after a sticky error every call below fails at once.
    drv.cuCtxSetCurrent(ctx->ctx);
    drv.cuCtxSynchronize();
    for (auto &[p, bytes] : pinned)
      drv.cuMemHostUnregister(const_cast<char *>(p));
    for (auto &[p, bytes] : blocks)
      drv.cuMemFree(devicePtr(p));
    for (auto &[key, module] : modules)
      drv.cuModuleUnload(module);
    drv.cuStreamDestroy(defaultStream);
    // `ctx` goes last, with the members.
  }

  std::string name() const override { return ctx->name; }
  StringRef backend() const override { return CUDAKernel::kBackend; }
  DeviceType type() const override { return cudaDeviceType(); }
  bool hostAccessible() const override { return false; }
  bool asynchronous() const override { return true; }

  Expected<void *> allocate(size_t bytes) override {
    size_t size = std::max<size_t>(bytes, 1);
    if (opts.memoryLimit && (size > opts.memoryLimit || allocated > opts.memoryLimit - size))
      return makeError(who() + ": out of memory allocating " + Twine(bytes) +
                       " bytes: the device memory limit is " + Twine(opts.memoryLimit) +
                       " bytes (--device-memory-limit) and " + Twine(allocated) +
                       " bytes are allocated");
    if (Error e = ctx->makeCurrent())
      return e;
    CUdeviceptr p = 0;
    CUresult r = drv.cuMemAlloc(&p, size);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      std::string error =
          who().str() + ": cuMemAlloc(" + std::to_string(bytes) + " bytes): " + drv.describe(r);
      size_t free = 0, total = 0;
      if (drv.cuMemGetInfo(&free, &total) == CUDA_SUCCESS)
        error += "; " + std::to_string(free) + " of " + std::to_string(total) +
                 " bytes of the device are free";
      return makeError(error);
    }
    if (Error e = drv.check(r, who() + ": cuMemAlloc(" + Twine(bytes) + " bytes)"))
      return e;
    void *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(p));
    blocks.insert(ptr, size);
    allocated += size;
    return ptr;
  }

  void deallocate(void *p) override {
    std::optional<size_t> size = blocks.erase(p);
    if (!size)
      return;
    allocated -= *size;
    drv.cuCtxSetCurrent(ctx->ctx);
    drv.cuMemFree(devicePtr(p));
  }

  bool owns(const void *p) const override { return blocks.contains(p); }

  // The caller keeps `src` (or `dst`) alive until the stream has passed the
  // copy. From pageable memory the driver stages the data and returns once
  // the source may be reused; into pageable memory the call waits for the
  // copy. Ranges must not overlap (copyWithin is a memcpy, not a memmove).
  Error copyFromHost(void *dst, const void *src, size_t bytes, Stream *stream) override {
    if (bytes == 0)
      return Error::success();
    Expected<CUstream> s = begin(stream);
    if (!s)
      return s.takeError();
    return drv.check(drv.cuMemcpyHtoDAsync(devicePtr(dst), src, bytes, *s),
                     who() + ": cuMemcpyHtoDAsync(" + Twine(bytes) + " bytes)");
  }
  Error copyToHost(void *dst, const void *src, size_t bytes, Stream *stream) override {
    if (bytes == 0)
      return Error::success();
    Expected<CUstream> s = begin(stream);
    if (!s)
      return s.takeError();
    return drv.check(drv.cuMemcpyDtoHAsync(dst, devicePtr(src), bytes, *s),
                     who() + ": cuMemcpyDtoHAsync(" + Twine(bytes) + " bytes)");
  }
  /// `src` may be on another GPU: cuMemcpyAsync finds both by unified
  /// addressing (through the host where the GPUs have no peer access).
  Error copyWithin(void *dst, const void *src, size_t bytes, Stream *stream) override {
    if (bytes == 0)
      return Error::success();
    Expected<CUstream> s = begin(stream);
    if (!s)
      return s.takeError();
    return drv.check(drv.cuMemcpyAsync(devicePtr(dst), devicePtr(src), bytes, *s),
                     who() + ": cuMemcpyAsync(" + Twine(bytes) + " bytes)");
  }

  std::unique_ptr<Stream> createStream() override {
    CUstream s = nullptr;
    Error e = ctx->makeCurrent();
    if (!e)
      e = drv.check(drv.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), who() + ": cuStreamCreate");
    if (e)
      return std::make_unique<CUDAStream>(ctx, nullptr, toString(std::move(e)));
    return std::make_unique<CUDAStream>(ctx, s, "");
  }

  std::unique_ptr<Event> createEvent(bool timing) override {
    CUevent ev = nullptr;
    Error e = ctx->makeCurrent();
    if (!e)
      e = drv.check(drv.cuEventCreate(&ev, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING),
                    who() + ": cuEventCreate");
    if (e)
      return std::make_unique<CUDAEvent>(ctx, nullptr, timing, toString(std::move(e)));
    return std::make_unique<CUDAEvent>(ctx, ev, timing, "");
  }

  Error record(Event &e, Stream *stream) override {
    Expected<CUDAEvent *> ev = eventOf(e);
    if (!ev)
      return ev.takeError();
    if ((*ev)->ctx->ctx != ctx->ctx)
      return makeError(who() + ": cannot record an event of " + (*ev)->ctx->name);
    Expected<CUstream> s = begin(stream);
    if (!s)
      return s.takeError();
    return drv.check(drv.cuEventRecord((*ev)->event, *s), who() + ": cuEventRecord");
  }

  /// The event may belong to another GPU: streams wait across contexts.
  Error wait(Event &e, Stream *stream) override {
    Expected<CUDAEvent *> ev = eventOf(e);
    if (!ev)
      return ev.takeError();
    Expected<CUstream> s = begin(stream);
    if (!s)
      return s.takeError();
    return drv.check(drv.cuStreamWaitEvent(*s, (*ev)->event, 0), who() + ": cuStreamWaitEvent");
  }

  Error hostWait(Event &e) override {
    Expected<CUDAEvent *> ev = eventOf(e);
    if (!ev)
      return ev.takeError();
    if (Error err = ctx->makeCurrent())
      return err;
    return drv.check(drv.cuEventSynchronize((*ev)->event), who() + ": cuEventSynchronize");
  }

  Expected<double> elapsed(Event &from, Event &to) override {
    Expected<CUDAEvent *> a = eventOf(from), b = eventOf(to);
    if (!a || !b)
      return joinErrors(a.takeError(), b.takeError());
    if (!(*a)->timing || !(*b)->timing)
      return makeError(who() + ": elapsed time asked of an event created without timing");
    if (Error e = ctx->makeCurrent())
      return e;
    // cuEventElapsedTime needs both events complete.
    for (CUDAEvent *ev : {*a, *b})
      if (Error e = drv.check(drv.cuEventSynchronize(ev->event), who() + ": cuEventSynchronize"))
        return e;
    float ms = 0;
    if (Error e = drv.check(drv.cuEventElapsedTime(&ms, (*a)->event, (*b)->event),
                            who() + ": cuEventElapsedTime"))
      return e;
    return ms / 1e3;
  }

  Error synchronize() override {
    if (Error e = ctx->makeCurrent())
      return e;
    return drv.check(drv.cuCtxSynchronize(), who() + ": cuCtxSynchronize");
  }

  /// cuMemHostRegister is process-wide (PORTABLE: for every context), so a
  /// range another device — or this one — already pinned is skipped, not an
  /// error; only ranges this device registered are unregistered.
  Error pinHost(void *p, size_t bytes) override {
    if (!p || bytes == 0)
      return Error::success();
    auto *start = static_cast<const char *>(p);
    // Our ranges are disjoint: only the last one starting before the new
    // range's end can overlap it.
    auto next = pinned.lower_bound(start + bytes);
    if (next != pinned.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second > start)
        return Error::success();
    }
    if (Error e = ctx->makeCurrent())
      return e;
    CUresult r = drv.cuMemHostRegister(p, bytes, CU_MEMHOSTREGISTER_PORTABLE);
    if (r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
      return Error::success();
    if (Error e = drv.check(r, who() + ": cuMemHostRegister(" + Twine(bytes) + " bytes)"))
      return e;
    pinned[start] = bytes;
    return Error::success();
  }

  /// The caller makes sure no copy using the range is still in flight.
  void unpinHost(void *p) override {
    auto it = pinned.find(static_cast<const char *>(p));
    if (it == pinned.end())
      return;
    pinned.erase(it);
    drv.cuCtxSetCurrent(ctx->ctx);
    drv.cuMemHostUnregister(p);
  }

  Expected<const void *> load(const KernelBinary &binary) override {
    const CUDAKernel *cuda = kernelAs<CUDAKernel>(binary);
    if (!cuda || !cuda->ptx)
      return makeError(who() + ": kernel '" + binary.symbol() + "' of backend " + binary.backend() +
                       " has no PTX");
    const CUDAKernel &k = *cuda;
    if (k.gridDim == 0 || k.blockDim == 0)
      return makeError(who() + ": kernel '" + k.symbolName + "' has an empty launch shape (" +
                       Twine(k.gridDim) + " blocks of " + Twine(k.blockDim) + " threads)");
    if (Error e = ctx->makeCurrent())
      return e;
    Expected<CUmodule> module = loadModule(*k.ptx, k.module);
    if (!module)
      return module.takeError();

    auto key = std::make_tuple(*module, k.symbolName, k.gridDim, k.blockDim);
    auto found = kernels.find(key);
    if (found != kernels.end())
      return static_cast<const void *>(found->second.get());

    auto kernel = std::make_unique<Kernel>();
    kernel->symbol = k.symbolName;
    kernel->gridDim = k.gridDim;
    kernel->blockDim = k.blockDim;
    if (Error e =
            drv.check(drv.cuModuleGetFunction(&kernel->function, *module, k.symbolName.c_str()),
                      who() + ": cuModuleGetFunction(kernel '" + k.symbolName + "' of module " +
                          Twine(k.module) + ")"))
      return e;
    if (Error e = countParams(*kernel))
      return e;
    const void *handle = kernel.get();
    kernels.emplace(std::move(key), std::move(kernel));
    return handle;
  }

  Error launch(const void *handle, void **buffers, unsigned numBuffers, Stream *stream) override {
    const auto &k = *static_cast<const Kernel *>(handle);
    if (k.numParams >= 0 && static_cast<unsigned>(k.numParams) != numBuffers)
      return makeError(who() + ": kernel '" + k.symbol + "' takes " + Twine(k.numParams) +
                       " parameters, launched with " + Twine(numBuffers) + " buffers");
    Expected<CUstream> s = begin(stream);
    if (!s)
      return s.takeError();
    // Each parameter is one 64-bit buffer pointer; the driver copies them
    // during the call.
    SmallVector<void *, 16> params(numBuffers);
    for (unsigned i = 0; i < numBuffers; ++i)
      params[i] = &buffers[i];
    return drv.check(drv.cuLaunchKernel(k.function, k.gridDim, 1, 1, k.blockDim, 1, 1,
                                        /*sharedBytes=*/0, *s, params.data(), nullptr),
                     who() + ": cuLaunchKernel(kernel '" + k.symbol + "', " + Twine(k.gridDim) +
                         " blocks of " + Twine(k.blockDim) + " threads)");
  }

private:
  /// The device's name as a Twine's first operand (the rest stays lazy).
  Twine who() const { return Twine(ctx->name); }

  /// Makes the context current and resolves `stream` (null: the device's).
  Expected<CUstream> begin(Stream *stream) const {
    if (Error e = ctx->makeCurrent())
      return e;
    if (!stream)
      return defaultStream;
    auto *s = dynamic_cast<CUDAStream *>(stream);
    if (!s)
      return makeError(who() + ": a stream of another kind of device");
    if (!s->stream)
      return makeError(s->failure);
    if (s->ctx->ctx != ctx->ctx)
      return makeError(who() + ": a stream of " + s->ctx->name);
    return s->stream;
  }

  Expected<CUDAEvent *> eventOf(Event &e) const {
    auto *ev = dynamic_cast<CUDAEvent *>(&e);
    if (!ev)
      return makeError(who() + ": an event of another kind of device");
    if (!ev->event)
      return makeError(ev->failure);
    return ev;
  }

  /// The module holding `ptx`, loaded on first use with the JIT's logs kept
  /// for the error message.
  Expected<CUmodule> loadModule(const std::string &ptx, unsigned index) {
    auto key = std::make_pair(xxh3_64bits(ptx), ptx.size());
    auto found = modules.find(key);
    if (found != modules.end())
      return found->second;

    constexpr size_t kLogBytes = 16 * 1024;
    std::string errorLog(kLogBytes, '\0'), infoLog(kLogBytes, '\0');
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    // The sizes are unsigned ints passed in the pointer slots.
    void *values[] = {errorLog.data(), reinterpret_cast<void *>(uintptr_t{kLogBytes}),
                      infoLog.data(), reinterpret_cast<void *>(uintptr_t{kLogBytes})};
    CUmodule module = nullptr;
    CUresult r = drv.cuModuleLoadDataEx(&module, ptx.c_str(), std::size(options), options, values);
    if (r != CUDA_SUCCESS) {
      // Both buffers are NUL-terminated within kLogBytes.
      StringRef log = StringRef(errorLog.c_str()).trim();
      if (log.empty())
        log = StringRef(infoLog.c_str()).trim();
      return makeError(who() + ": the driver rejected the PTX of module " + Twine(index) + ": " +
                       drv.describe(r) + (log.empty() ? "" : ": ") + log);
    }
    modules.emplace(key, module);
    return module;
  }

  /// Checks the kernel takes only 64-bit parameters and records how many,
  /// where the driver can tell (cuFuncGetParamInfo).
  Error countParams(Kernel &k) {
    if (!drv.cuFuncGetParamInfo)
      return Error::success();
    constexpr size_t kMaxParams = 4096;
    for (size_t i = 0; i < kMaxParams; ++i) {
      size_t offset = 0, size = 0;
      CUresult r = drv.cuFuncGetParamInfo(k.function, i, &offset, &size);
      if (r == CUDA_ERROR_INVALID_VALUE) {
        // Past the last parameter. hx makes no kernel without buffers, so
        // none at all is taken for "cannot tell" rather than risk refusing
        // every launch.
        k.numParams = i ? static_cast<int>(i) : -1;
        return Error::success();
      }
      if (r != CUDA_SUCCESS)
        return Error::success();
      if (size != sizeof(void *))
        return makeError(who() + ": kernel '" + k.symbol + "' parameter " + Twine(i) + " is " +
                         Twine(size) + " bytes; kernel parameters must be 64-bit buffer pointers");
    }
    return Error::success();
  }

  const CUDADriver &drv;
  const ContextRef ctx;
  const CUstream defaultStream;
  const CUDADeviceOptions opts;
  /// Allocations: base -> bytes (owns(), the destructor).
  AllocationTable blocks;
  uint64_t allocated = 0;
  /// Host ranges this device registered: base -> bytes.
  std::map<const char *, size_t> pinned;
  /// Modules by the xxh3 hash and size of their PTX.
  std::map<std::pair<uint64_t, size_t>, CUmodule> modules;
  std::map<std::tuple<CUmodule, std::string, unsigned, unsigned>, std::unique_ptr<Kernel>> kernels;
};

} // namespace

Expected<CUDASystemInfo> hx::probeCUDA(const CUDADriver &drv) {
  CUDASystemInfo info;
  info.driverVersion = drv.driverVersion;
  for (int i = 0; i < drv.deviceCount; ++i) {
    std::string who = "cuda:" + std::to_string(i);
    CUDADeviceInfo d;
    d.ordinal = i;
    CUdevice dev = 0;
    if (Error e = drv.check(drv.cuDeviceGet(&dev, i), who + ": cuDeviceGet"))
      return e;
    char name[256] = {};
    if (Error e =
            drv.check(drv.cuDeviceGetName(name, sizeof(name) - 1, dev), who + ": cuDeviceGetName"))
      return e;
    d.name = name;
    size_t total = 0;
    if (Error e = drv.check(drv.cuDeviceTotalMem(&total, dev), who + ": cuDeviceTotalMem"))
      return e;
    d.totalMemory = total;
    std::pair<CUdevice_attribute, int *> attributes[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d.ccMajor},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d.ccMinor},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d.multiprocessors}};
    for (auto [attribute, value] : attributes)
      if (Error e = drv.check(drv.cuDeviceGetAttribute(value, attribute, dev),
                              who + ": cuDeviceGetAttribute(" + Twine(attribute) + ")"))
        return e;
    info.devices.push_back(std::move(d));
  }
  return info;
}

Expected<CUDASystemInfo> hx::probeCUDA() {
  Expected<const CUDADriver &> drv = loadCUDADriver();
  if (!drv)
    return drv.takeError();
  return probeCUDA(*drv);
}

std::string hx::cudaUnavailableReason() {
  Expected<CUDASystemInfo> info = probeCUDA();
  return info ? "" : toString(info.takeError());
}

Expected<std::unique_ptr<Device>> hx::createCUDADevice(const CUDADriver &drv, unsigned ordinal,
                                                       const CUDADeviceOptions &opts) {
  std::string name = "cuda:" + std::to_string(ordinal);
  if (ordinal >= static_cast<unsigned>(drv.deviceCount))
    return makeError(name + ": no such device (" + Twine(drv.deviceCount) + " found)");
  CUdevice dev = 0;
  if (Error e = drv.check(drv.cuDeviceGet(&dev, ordinal), name + ": cuDeviceGet"))
    return e;
  CUcontext c = nullptr;
  if (Error e =
          drv.check(drv.cuDevicePrimaryCtxRetain(&c, dev), name + ": cuDevicePrimaryCtxRetain"))
    return e;
  // From here on the context is released on every way out.
  auto ctx = std::make_shared<const Context>(drv, dev, c, name);
  if (Error e = ctx->makeCurrent())
    return e;
  CUstream stream = nullptr;
  if (Error e =
          drv.check(drv.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), name + ": cuStreamCreate"))
    return e;
  return std::make_unique<CUDADevice>(std::move(ctx), stream, opts);
}

Expected<std::unique_ptr<Device>> hx::createCUDADevice(unsigned ordinal,
                                                       const CUDADeviceOptions &opts) {
  Expected<const CUDADriver &> drv = loadCUDADriver();
  if (!drv)
    return makeError("cuda:" + Twine(ordinal) + ": " + toString(drv.takeError()));
  return createCUDADevice(*drv, ordinal, opts);
}
