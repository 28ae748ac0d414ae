//===- CPUDevice.cpp - A cpu device instance and the cpu backend ----------===//
//
// A cpu device instance owns its allocations (so --check-devices can tell two
// instances apart even though both are host memory) and a thread pool for
// the kernels' parallel loops (TVM's TVMBackendParallelLaunch): a kernel
// calls hx_parallel_for with the device as its launch context; the range is
// cut into one chunk per worker (the calling thread takes the first) and the
// call returns when all chunks are done. Small ranges run inline. Copies are
// memcpy; streams and events exist only to satisfy the interface, since
// every operation is complete when it returns. With a memory limit
// (--device-memory-limit), an allocation beyond it fails cleanly, as on a
// cuda device, so a cpu instance standing in for a GPU runs out where the
// GPU would.
//
//===----------------------------------------------------------------------===//
#include "hx/Runtime/AllocationTable.h"
#include "hx/Runtime/Backend.h"
#include "hx/Target/CPU/CPUCompiler.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

using namespace hx;
using namespace llvm;

namespace {
class CPUStream : public Stream {};
/// A cpu event happens when it is recorded: it keeps that time.
class CPUEvent : public Event {
public:
  std::chrono::steady_clock::time_point when = std::chrono::steady_clock::now();
};

class CPUDevice : public Device {
public:
  CPUDevice(unsigned instance, unsigned threads, uint64_t memoryLimit)
      : instance(instance), memoryLimit(memoryLimit) {
    unsigned n = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    workers = n;
    if (n > 1)
      pool = std::make_unique<StdThreadPool>(hardware_concurrency(n - 1));
  }
  ~CPUDevice() override {
    for (auto &[p, size] : blocks)
      std::free(const_cast<void *>(p));
  }

  std::string name() const override { return "cpu:" + std::to_string(instance); }
  DeviceType type() const override { return DeviceType::CPU; }
  bool hostAccessible() const override { return true; }

  Expected<void *> allocate(size_t bytes) override {
    size_t size = std::max<size_t>(bytes, 1);
    if (memoryLimit && (size > memoryLimit || allocated > memoryLimit - size))
      return createStringError(inconvertibleErrorCode(),
                               name() + ": out of memory allocating " + std::to_string(bytes) +
                                   " bytes: the device memory limit is " +
                                   std::to_string(memoryLimit) +
                                   " bytes (--device-memory-limit) and " +
                                   std::to_string(allocated) + " bytes are allocated");
    size_t rounded = (size + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, rounded);
    if (!p)
      return createStringError(inconvertibleErrorCode(), name() + ": out of memory allocating " +
                                                             std::to_string(bytes) + " bytes");
    std::memset(p, 0, rounded);
    blocks.insert(p, rounded);
    sizes[p] = size;
    allocated += size;
    return p;
  }
  void deallocate(void *p) override {
    if (!blocks.erase(p))
      return;
    auto it = sizes.find(p);
    allocated -= it->second;
    sizes.erase(it);
    std::free(p);
  }
  bool owns(const void *p) const override { return blocks.contains(p); }

  Error copyFromHost(void *dst, const void *src, size_t bytes, Stream *) override {
    std::memcpy(dst, src, bytes);
    return Error::success();
  }
  Error copyToHost(void *dst, const void *src, size_t bytes, Stream *) override {
    std::memcpy(dst, src, bytes);
    return Error::success();
  }
  Error copyWithin(void *dst, const void *src, size_t bytes, Stream *) override {
    std::memmove(dst, src, bytes);
    return Error::success();
  }
  std::unique_ptr<Stream> createStream() override { return std::make_unique<CPUStream>(); }
  std::unique_ptr<Event> createEvent(bool) override { return std::make_unique<CPUEvent>(); }
  Error record(Event &e, Stream *) override {
    static_cast<CPUEvent &>(e).when = std::chrono::steady_clock::now();
    return Error::success();
  }
  Error wait(Event &, Stream *) override { return Error::success(); }
  Error hostWait(Event &) override { return Error::success(); }
  Expected<double> elapsed(Event &from, Event &to) override {
    return std::chrono::duration<double>(static_cast<CPUEvent &>(to).when -
                                         static_cast<CPUEvent &>(from).when)
        .count();
  }
  Error synchronize() override { return Error::success(); }
  Expected<const void *> load(const KernelBinary &k) override {
    if (!k.hostEntry)
      return createStringError(name() + ": kernel '" + k.symbol + "' has no host code");
    return reinterpret_cast<const void *>(k.hostEntry);
  }
  Error launch(const void *kernel, void **buffers, unsigned, Stream *) override {
    reinterpret_cast<KernelFn>(const_cast<void *>(kernel))(buffers, static_cast<void *>(this));
    return Error::success();
  }

  void parallelFor(ParallelBodyFn body, void *closure, int64_t n) {
    // Below this many iterations a chunk is not worth a thread.
    constexpr int64_t kMinPerChunk = 1024;
    int64_t chunks = std::min<int64_t>(workers, n / kMinPerChunk);
    if (!pool || chunks <= 1) {
      body(closure, 0, n);
      return;
    }
    ThreadPoolTaskGroup group(*pool);
    int64_t per = (n + chunks - 1) / chunks;
    for (int64_t c = 1; c < chunks; ++c) {
      int64_t begin = c * per, end = std::min(n, begin + per);
      if (begin < end)
        group.async([=] { body(closure, begin, end); });
    }
    body(closure, 0, std::min(n, per));
    group.wait();
  }

private:
  unsigned instance;
  uint64_t memoryLimit;
  /// Bytes allocated (as asked for), and each allocation's, for the limit.
  uint64_t allocated = 0;
  std::map<const void *, size_t> sizes;
  unsigned workers = 1;
  std::unique_ptr<StdThreadPool> pool;
  AllocationTable blocks;
};

class CPUBackend : public Backend {
public:
  explicit CPUBackend(std::unique_ptr<CPUCompiler> c) : compiler(std::move(c)) {}
  DeviceType type() const override { return DeviceType::CPU; }
  bool supports(const OpDef &op) const override { return CPUCompiler::supports(op); }
  Expected<unsigned> addKernel(const Call &call) override { return compiler->addKernel(call); }
  Error finalize() override {
    if (Error e = compiler->finalize())
      return e;
    for (unsigned id = binaries.size(); id < compiler->numKernels(); ++id) {
      KernelBinary k;
      k.hostEntry = compiler->lookup(id);
      k.symbol = compiler->kernelName(id).str();
      binaries.push_back(std::move(k));
    }
    return Error::success();
  }
  const KernelBinary &binary(unsigned id) const override { return binaries[id]; }
  unsigned numKernels() const override { return compiler->numKernels(); }
  void printCode(raw_ostream &os) const override { compiler->printLLVM(os); }

private:
  std::unique_ptr<CPUCompiler> compiler;
  std::vector<KernelBinary> binaries;
};
} // namespace

std::unique_ptr<Device> hx::createCPUDevice(unsigned instance, unsigned threads,
                                            uint64_t memoryLimit) {
  return std::make_unique<CPUDevice>(instance, threads, memoryLimit);
}

void hx::cpuParallelFor(void *launch, ParallelBodyFn body, void *closure, int64_t n) {
  if (n <= 0)
    return;
  if (!launch) {
    body(closure, 0, n);
    return;
  }
  static_cast<CPUDevice *>(launch)->parallelFor(body, closure, n);
}

Expected<std::unique_ptr<Backend>> hx::createCPUBackend(bool keepIR) {
  CPUCompilerOptions opts;
  opts.parallelFor = cpuParallelFor;
  opts.keepIR = keepIR;
  auto c = CPUCompiler::create(opts);
  if (!c)
    return c.takeError();
  return std::make_unique<CPUBackend>(std::move(*c));
}
