//===- CUDABackend.cpp - The cuda backend over lib/Targets/GPU ------------===//
//
// Compiles kernels to PTX with PTXCompiler and describes each as a
// CUDAKernel (its module's PTX, symbol and grid) for the cuda device,
// which loads each module once. printCode is the PTX; codeModules gives
// one text per module for hx-run --emit=ptx --output-dir. saveKernels
// keeps the architecture, the kernel table and each module's PTX: a
// compiled model file's cuda code, which the device loads as it would
// freshly compiled PTX.
//
//===----------------------------------------------------------------------===//
#include "hx/Targets/CUDA/CUDABackend.h"
#include "CUDAKernel.h"
#include "hx/IR/TargetKind.h"
#include "hx/Support/ByteStream.h"
#include "hx/Targets/CUDA/PTXCompiler.h"
#include "hx/Targets/Registry.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <deque>

using namespace hx;
using namespace llvm;

namespace {
class CUDABackend : public Backend {
public:
  explicit CUDABackend(std::unique_ptr<PTXCompiler> c) : compiler(std::move(c)) {}
  StringRef name() const override { return CUDAKernel::kBackend; }
  DeviceType type() const override { return cudaDeviceType(); }
  bool supports(const OpDef &op) const override { return compiler->supports(op); }
  Expected<unsigned> addKernel(const Call &call) override { return compiler->addKernel(call); }
  Error finalize() override {
    if (Error e = compiler->finalize())
      return e;
    for (unsigned id = binaries.size(); id < compiler->numKernels(); ++id) {
      const GPUKernelInfo &info = compiler->kernel(id);
      CUDAKernel &k = binaries.emplace_back();
      k.ptx = &compiler->ptx(info.module);
      k.module = info.module;
      k.symbolName = info.symbol;
      k.gridDim = info.gridDim;
      k.blockDim = GPUCompiler::kBlockDim;
    }
    return Error::success();
  }
  const KernelBinary &binary(unsigned id) const override { return binaries[id]; }
  unsigned numKernels() const override { return compiler->numKernels(); }
  unsigned numPending() const override { return compiler->numPending(); }
  void printCode(raw_ostream &os) const override { compiler->printPTX(os); }
  Error saveKernels(std::string &out) const override {
    ByteWriter w(out);
    w.bytes(kSaveTag);
    w.bytes(compiler->arch());
    return compiler->save(out);
  }
  Error restoreKernels(StringRef saved) {
    ByteReader r(saved);
    if (r.bytes() != kSaveTag)
      return createStringError("the saved cuda kernels are truncated or corrupted");
    if (StringRef arch = r.bytes(); r.ok() && arch != compiler->arch())
      return createStringError("the saved cuda kernels are for " + arch + ", not " +
                               compiler->arch());
    if (!compiler->restore(r) || !r.atEnd())
      return createStringError("the saved cuda kernels are truncated or corrupted");
    return finalize();
  }
  static constexpr StringLiteral kSaveTag = "hx cuda kernels 1";

  std::vector<std::string> codeModules() const override {
    std::vector<std::string> out;
    for (unsigned m = 0; m < compiler->numModules(); ++m)
      out.push_back(compiler->ptx(m));
    return out;
  }

private:
  std::unique_ptr<PTXCompiler> compiler;
  std::deque<CUDAKernel> binaries;
};
} // namespace

Expected<std::unique_ptr<Backend>> hx::createCUDABackend(StringRef arch, StringRef saved) {
  PTXCompilerOptions opts;
  if (!arch.empty())
    opts.arch = arch.str();
  auto c = PTXCompiler::create(opts);
  if (!c)
    return c.takeError();
  auto b = std::make_unique<CUDABackend>(std::move(*c));
  if (!saved.empty())
    if (Error e = b->restoreKernels(saved))
      return e;
  return b;
}

DeviceType hx::cudaDeviceType() { return lookupTargetKind("cuda")->deviceType; }

std::string hx::cudaArchOf(const Target &target) {
  for (const auto &[key, value] : target.options)
    if (key == "arch" || key == "mcpu")
      return value;
  return "";
}

/// --list-devices: the driver and each GPU, or why there is none.
static void listGPUs(raw_ostream &os) {
  Expected<CUDASystemInfo> cuda = probeCUDA();
  if (!cuda) {
    os << "cuda: none (" << toString(cuda.takeError()) << ")\n";
    return;
  }
  os << format("cuda: driver %d.%d, %zu device%s\n", cuda->driverVersion / 1000,
               cuda->driverVersion % 1000 / 10, cuda->devices.size(),
               cuda->devices.size() == 1 ? "" : "s");
  for (const CUDADeviceInfo &d : cuda->devices)
    os << format("cuda:%u: %s, %.1f GiB, compute capability %d.%d, %d multiprocessors\n", d.ordinal,
                 d.name.c_str(), double(d.totalMemory) / (1ull << 30), d.ccMajor, d.ccMinor,
                 d.multiprocessors);
}

/// The GPUs a cuda virtual device may run on, or why there are none.
static Expected<unsigned> countGPUs() {
  Expected<CUDASystemInfo> cuda = probeCUDA();
  if (!cuda)
    return cuda.takeError();
  return unsigned(cuda->devices.size());
}

namespace hx {
BackendInfo cudaBackendInfo() {
  static constexpr StringRef kAliases[] = {"gpu"};
  BackendInfo b;
  b.name = "cuda";
  b.aliases = kAliases;
  b.summary = "PTX for NVIDIA GPUs (cuda -arch honoured), run through the CUDA driver";
  b.targetKind = "cuda";
  b.codeFormat = "ptx";
  b.codeName = "PTX";
  b.countDevices = countGPUs;
  b.listDevices = listGPUs;
  b.createBackend = [](const Target &target,
                       const BackendOptions &opts) -> Expected<std::unique_ptr<Backend>> {
    return createCUDABackend(cudaArchOf(target), opts.saved);
  };
  b.createDevice = [](unsigned ordinal,
                      const DeviceOptions &opts) -> Expected<std::unique_ptr<Device>> {
    CUDADeviceOptions o;
    o.memoryLimit = opts.memoryLimit;
    return createCUDADevice(ordinal, o);
  };
  return b;
}
} // namespace hx
