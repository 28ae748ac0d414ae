//===- CPUBackend.cpp - The cpu backend and its device instances ---------===//
//
// A cpu device instance owns its allocations (so --check-devices can tell two
// instances apart even though both are host memory) and a thread pool for
// the kernels' parallel loops (TVM's TVMBackendParallelLaunch): a kernel
// calls hx_parallel_for with the device as its launch context, and the
// device's ParallelPool (ParallelPool.h: persistent workers, spin then
// sleep, the calling thread takes chunks too) runs the range and returns
// when it is done. The compiler decided that the loop is worth threads
// (minParallelWork); the pool splits any range of two or more. Copies are
// memcpy; streams and events exist only to satisfy the interface, since
// every operation is complete when it returns. With a memory limit
// (--device-memory-limit), an allocation beyond it fails cleanly, as on a
// cuda device, so a cpu instance standing in for a GPU runs out where the
// GPU would.
//
// The backend honours the target: `llvm -mcpu=NAME` compiles for that CPU
// and `-mattr=...` adds or removes features (CPUCompiler checks that the
// host can run the result). A kernel is a CPUKernel: its JIT'd entry point.
//
//===----------------------------------------------------------------------===//
#include "hx/Targets/CPU/CPUBackend.h"
#include "CPUKernel.h"
#include "ParallelPool.h"
#include "hx/Runtime/AllocationTable.h"
#include "hx/Support/LargeVector.h"
#include "hx/Targets/CPU/CPUCompiler.h"
#include "hx/Targets/Registry.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
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
  CPUDevice(unsigned instance, unsigned threads, uint64_t memoryLimit, StringRef backendName)
      : instance(instance), memoryLimit(memoryLimit), backendName(backendName.str()),
        pool(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {}
  ~CPUDevice() override {
    for (auto &[p, size] : blocks)
      release(const_cast<void *>(p), size);
  }

  std::string name() const override { return backendName + ":" + std::to_string(instance); }
  StringRef backend() const override { return backendName; }
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
    void *p = nullptr;
    if (rounded >= hx::detail::kHugePageBytes) {
      // Fresh pages, advised to huge pages: zero already, and 512 times
      // fewer faults when the arena is first written (weights, activations).
      try {
        p = hx::detail::allocateHuge(rounded);
#if !defined(__linux__)
        std::memset(p, 0, rounded);
#endif
      } catch (const std::bad_alloc &) {
        p = nullptr;
      }
    } else if ((p = std::aligned_alloc(64, rounded))) {
      std::memset(p, 0, rounded);
    }
    if (!p)
      return createStringError(inconvertibleErrorCode(), name() + ": out of memory allocating " +
                                                             std::to_string(bytes) + " bytes");
    blocks.insert(p, rounded);
    sizes[p] = size;
    allocated += size;
    return p;
  }
  void deallocate(void *p) override {
    if (!blocks.erase(p))
      return;
    auto it = sizes.find(p);
    size_t size = it->second;
    allocated -= size;
    sizes.erase(it);
    release(p, (size + 63) / 64 * 64);
  }
  bool owns(const void *p) const override { return blocks.contains(p); }

  // An empty tensor's pointer may be null, which memcpy may not be given.
  Error copyFromHost(void *dst, const void *src, size_t bytes, Stream *) override {
    if (bytes)
      std::memcpy(dst, src, bytes);
    return Error::success();
  }
  Error copyToHost(void *dst, const void *src, size_t bytes, Stream *) override {
    if (bytes)
      std::memcpy(dst, src, bytes);
    return Error::success();
  }
  Error copyWithin(void *dst, const void *src, size_t bytes, Stream *) override {
    if (bytes)
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
    const CPUKernel *cpu = kernelAs<CPUKernel>(k);
    if (!cpu || !cpu->entry)
      return createStringError(name() + ": kernel '" + k.symbol() + "' of backend " + k.backend() +
                               " has no host code");
    return reinterpret_cast<const void *>(cpu->entry);
  }
  Error launch(const void *kernel, void **buffers, unsigned, Stream *) override {
    reinterpret_cast<KernelFn>(const_cast<void *>(kernel))(buffers, static_cast<void *>(this));
    return Error::success();
  }

  void parallelFor(ParallelBodyFn body, void *closure, int64_t n) { pool.run(body, closure, n); }

private:
  /// Frees a block of `rounded` bytes as allocate made it.
  static void release(void *p, size_t rounded) {
    if (rounded >= hx::detail::kHugePageBytes)
      hx::detail::freeHuge(p, rounded);
    else
      std::free(p);
  }

  unsigned instance;
  uint64_t memoryLimit;
  std::string backendName;
  /// Bytes allocated (as asked for), and each allocation's, for the limit.
  uint64_t allocated = 0;
  std::map<const void *, size_t> sizes;
  AllocationTable blocks;
  ParallelPool pool;
};

class CPUBackend : public Backend {
public:
  CPUBackend(std::unique_ptr<CPUCompiler> c, StringRef name)
      : compiler(std::move(c)), name_(name.str()) {}
  StringRef name() const override { return name_; }
  DeviceType type() const override { return DeviceType::CPU; }
  bool supports(const OpDef &op) const override { return CPUCompiler::supports(op); }
  Expected<unsigned> addKernel(const Call &call) override { return compiler->addKernel(call); }
  Error finalize() override {
    if (Error e = compiler->finalize())
      return e;
    for (unsigned id = binaries.size(); id < compiler->numKernels(); ++id)
      binaries.emplace_back(compiler->lookup(id), compiler->kernelName(id).str());
    return Error::success();
  }
  const KernelBinary &binary(unsigned id) const override { return binaries[id]; }
  unsigned numKernels() const override { return compiler->numKernels(); }
  unsigned numPending() const override { return compiler->numPending(); }
  void printCode(raw_ostream &os) const override { compiler->printLLVM(os); }
  Error saveKernels(std::string &out) const override { return compiler->save(out); }

private:
  std::unique_ptr<CPUCompiler> compiler;
  std::string name_;
  std::deque<CPUKernel> binaries;
};
} // namespace

std::unique_ptr<Device> hx::createCPUDevice(unsigned instance, unsigned threads,
                                            uint64_t memoryLimit, StringRef backend) {
  return std::make_unique<CPUDevice>(instance, threads, memoryLimit, backend);
}

static void cpuParallelFor(void *launch, ParallelBodyFn body, void *closure, int64_t n) {
  if (n <= 0)
    return;
  if (!launch) {
    body(closure, 0, n);
    return;
  }
  static_cast<CPUDevice *>(launch)->parallelFor(body, closure, n);
}

Expected<std::unique_ptr<Backend>> hx::createCPUBackend(const CPUBackendOptions &o) {
  CPUCompilerOptions opts;
  opts.parallelFor = cpuParallelFor;
  opts.keepIR = o.keepIR;
  opts.keepObjects = o.keepObjects;
  for (const auto &[key, value] : o.target.options) {
    if (key == "mcpu")
      opts.cpu = value;
    else if (key == "mattr")
      opts.extraFeatures = value;
  }
  auto c = CPUCompiler::create(opts);
  if (!c)
    return createStringError("target '" + o.target.str() + "': " + toString(c.takeError()));
  if (!o.saved.empty())
    if (Error e = (*c)->restore(o.saved))
      return e;
  auto b = std::make_unique<CPUBackend>(std::move(*c), o.name);
  if (Error e = b->finalize()) // the restored kernels' binaries
    return e;
  return b;
}

/// --list-devices: the host's CPU, its threads and vector features.
static void listHostCPU(raw_ostream &os) {
  os << "cpu: " << sys::getHostCPUName() << ", " << std::thread::hardware_concurrency()
     << " hardware threads, vector features:";
  StringMap<bool> features = sys::getHostCPUFeatures();
  for (const char *f : {"sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vnni"})
    if (features.lookup(f))
      os << " " << f;
  os << "\n";
}

namespace hx {
BackendInfo cpuBackendInfo() {
  BackendInfo b;
  b.name = "cpu";
  b.summary = "kernels JIT-compiled for the host CPU (llvm -mcpu, -mattr honoured)";
  b.targetKind = "llvm";
  b.codeFormat = "llvm";
  b.codeName = "LLVM IR";
  b.listDevices = listHostCPU;
  b.createBackend = [](const Target &target,
                       const BackendOptions &opts) -> Expected<std::unique_ptr<Backend>> {
    CPUBackendOptions o;
    o.keepIR = opts.keepCode;
    o.keepObjects = opts.keepKernels;
    o.saved = opts.saved;
    o.target = target;
    return createCPUBackend(o);
  };
  b.createDevice = [](unsigned ordinal,
                      const DeviceOptions &opts) -> Expected<std::unique_ptr<Device>> {
    return createCPUDevice(ordinal, opts.threads, opts.memoryLimit);
  };
  return b;
}
} // namespace hx
