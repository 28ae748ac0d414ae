//===- SimtBackend.cpp - The cuda-emu backend: cuda kernels on the host ---===//
//
// hx-run --device=cuda-emu:N (or --emulate-cuda): the seeds' heterogeneous
// runs without a GPU. The backend is the SIMT emulator's (the cuda code
// generator's kernels, JIT-compiled for the host); each SimtKernel points
// at the emulator that compiled it, so the device needs no code of its own.
// Memory, copies, streams and events are a private cpu device's (one
// thread): the device reports itself as not host-accessible, so the
// executor moves data with copyFromHost / copyToHost exactly where it would
// on a GPU, and --check-devices tells its memory from every other device's.
// A launch gives the emulator each buffer's bytes up to the end of its
// allocation (an arena, a parameter, an output), so an access beyond it
// fails the run as an illegal address would on a GPU.
//
//===----------------------------------------------------------------------===//
#include "hx/Targets/CUDAEmu/SimtBackend.h"
#include "hx/Runtime/AllocationTable.h"
#include "hx/Targets/CPU/CPUBackend.h"
#include "hx/Targets/CUDA/CUDABackend.h"
#include "hx/Targets/CUDAEmu/SimtEmulator.h"
#include "hx/Targets/Registry.h"
#include "llvm/Support/raw_ostream.h"
#include <deque>
#include <limits>

using namespace hx;
using namespace llvm;

namespace {

/// A kernel compiled by an emulator: the emulator and its id there.
struct SimtKernel : KernelBinary {
  static constexpr StringLiteral kBackend = "cuda-emu";
  StringRef backend() const override { return kBackend; }
  StringRef symbol() const override { return symbolName; }

  std::string symbolName;
  SimtEmulator *emulator = nullptr;
  unsigned id = 0;
};

class SimtBackend : public Backend {
public:
  explicit SimtBackend(std::unique_ptr<SimtEmulator> e) : emulator(std::move(e)) {}
  StringRef name() const override { return SimtKernel::kBackend; }
  DeviceType type() const override { return cudaDeviceType(); }
  bool supports(const OpDef &op) const override { return emulator->supports(op); }
  Expected<unsigned> addKernel(const Call &call) override { return emulator->addKernel(call); }
  Error finalize() override {
    if (Error e = emulator->finalize())
      return e;
    for (unsigned id = binaries.size(); id < numKernels(); ++id) {
      const GPUKernelInfo &info = emulator->kernel(id);
      SimtKernel &k = binaries.emplace_back();
      k.symbolName = info.symbol;
      k.emulator = emulator.get();
      k.id = id;
    }
    return Error::success();
  }
  const KernelBinary &binary(unsigned id) const override { return binaries[id]; }
  unsigned numKernels() const override { return emulator->numKernels(); }
  unsigned numPending() const override { return emulator->numPending(); }
  void printCode(raw_ostream &os) const override {}
  Error saveKernels(std::string &out) const override { return emulator->save(out); }

private:
  std::unique_ptr<SimtEmulator> emulator;
  std::deque<SimtKernel> binaries;
};

class SimtDevice : public Device {
public:
  SimtDevice(unsigned ordinal, uint64_t memoryLimit)
      : ordinal(ordinal), memory(createCPUDevice(0, 1, memoryLimit)) {}

  StringRef backend() const override { return SimtKernel::kBackend; }
  std::string name() const override { return "cuda-emu:" + std::to_string(ordinal); }
  DeviceType type() const override { return cudaDeviceType(); }
  bool hostAccessible() const override { return false; }
  bool emulated() const override { return true; }

  Expected<void *> allocate(size_t bytes) override {
    Expected<void *> p = memory->allocate(bytes);
    if (!p) // the message names the private cpu device: name this one
      return createStringError(
          name() + StringRef(toString(p.takeError())).drop_front(memory->name().size()));
    sizes.insert(*p, bytes);
    return p;
  }
  void deallocate(void *p) override {
    sizes.erase(p);
    memory->deallocate(p);
  }
  bool owns(const void *p) const override { return memory->owns(p); }
  Error copyFromHost(void *dst, const void *src, size_t bytes, Stream *s) override {
    return memory->copyFromHost(dst, src, bytes, s);
  }
  Error copyToHost(void *dst, const void *src, size_t bytes, Stream *s) override {
    return memory->copyToHost(dst, src, bytes, s);
  }
  Error copyWithin(void *dst, const void *src, size_t bytes, Stream *s) override {
    return memory->copyWithin(dst, src, bytes, s);
  }
  std::unique_ptr<Stream> createStream() override { return memory->createStream(); }
  std::unique_ptr<Event> createEvent(bool timing) override { return memory->createEvent(timing); }
  Error record(Event &e, Stream *s) override { return memory->record(e, s); }
  Error wait(Event &e, Stream *s) override { return memory->wait(e, s); }
  Error hostWait(Event &e) override { return memory->hostWait(e); }
  Expected<double> elapsed(Event &from, Event &to) override { return memory->elapsed(from, to); }
  Error synchronize() override { return Error::success(); }

  Expected<const void *> load(const KernelBinary &binary) override {
    const SimtKernel *k = kernelAs<SimtKernel>(binary);
    if (!k || !k->emulator)
      return createStringError(name() + ": kernel '" + binary.symbol() + "' of backend " +
                               binary.backend() + " was not compiled for the SIMT emulator");
    loaded.push_back({k->emulator, k->id});
    return static_cast<const void *>(&loaded.back());
  }
  Error launch(const void *kernel, void **buffers, unsigned numBuffers, Stream *) override {
    const auto &[emulator, id] = *static_cast<const Loaded *>(kernel);
    SimtLaunchOptions opts;
    std::vector<uint64_t> bytes;
    for (unsigned i = 0; i < numBuffers; ++i)
      bytes.push_back(sizes.bytesFrom(buffers[i]).value_or(std::numeric_limits<uint64_t>::max()));
    opts.bufferBytes = bytes;
    if (Error e = emulator->launch(id, buffers, opts))
      return createStringError(name() + ": " + toString(std::move(e)));
    return Error::success();
  }

private:
  unsigned ordinal;
  /// Each allocation's bytes as asked for (a buffer's limit runs to the
  /// end of its allocation; outside them, none).
  AllocationTable sizes;
  std::unique_ptr<Device> memory;
  /// The handles load returns (a deque: they never move).
  using Loaded = std::pair<SimtEmulator *, unsigned>;
  std::deque<Loaded> loaded;
};

} // namespace

Expected<std::unique_ptr<Backend>> hx::createSimtBackend(bool keepKernels, StringRef saved) {
  Expected<std::unique_ptr<SimtEmulator>> e = SimtEmulator::create();
  if (!e)
    return e.takeError();
  if (keepKernels)
    (*e)->keepObjects();
  if (!saved.empty())
    if (Error err = (*e)->restore(saved))
      return err;
  auto b = std::make_unique<SimtBackend>(std::move(*e));
  if (Error err = b->finalize()) // the restored kernels' binaries
    return err;
  return b;
}

std::unique_ptr<Device> hx::createSimtDevice(unsigned ordinal, uint64_t memoryLimit) {
  return std::make_unique<SimtDevice>(ordinal, memoryLimit);
}

namespace hx {
BackendInfo cudaEmuBackendInfo() {
  BackendInfo b;
  b.name = "cuda-emu";
  b.summary = "the cuda kernels run on the host by the SIMT emulator (no GPU needed)";
  b.targetKind = "cuda";
  b.emulated = true;
  b.emulation = "the cuda kernels run on the host by the SIMT emulator; no GPU or driver needed";
  b.usesTarget = false;
  // The emulator runs the cuda code generator's kernels whatever the PTX
  // architecture: -arch selects nothing here.
  b.createBackend = [](const Target &,
                       const BackendOptions &opts) -> Expected<std::unique_ptr<Backend>> {
    return createSimtBackend(opts.keepKernels, opts.saved);
  };
  b.createDevice = [](unsigned ordinal,
                      const DeviceOptions &opts) -> Expected<std::unique_ptr<Device>> {
    return createSimtDevice(ordinal, opts.memoryLimit);
  };
  return b;
}
} // namespace hx
