//===- RunDevices.cpp - hx-run's physical devices -------------------------===//
//
// See RunDevices.h. Named instances (cpu:N) are made before bare `cpu`s, so
// a bare one takes the lowest instance number not named; a GPU or an
// emulated GPU is made once per ordinal and shared by the virtual devices
// mapped to it. The CUDA driver is probed only when a cuda virtual device
// needs a GPU.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/RunDevices.h"
#include "hx/Runtime/CUDA.h"
#include "hx/Tools/OptMain.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include <map>
#include <thread>

using namespace hx;
using namespace llvm;

static void userError(const Twine &msg) { errs() << "hx-run: error: " << msg << "\n"; }

int hx::listDevices() {
  outs() << "cpu: " << sys::getHostCPUName() << ", " << std::thread::hardware_concurrency()
         << " hardware threads, vector features:";
  StringMap<bool> features = sys::getHostCPUFeatures();
  for (const char *f : {"sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vnni"})
    if (features.lookup(f))
      outs() << " " << f;
  outs() << "\n";
  Expected<CUDASystemInfo> cuda = probeCUDA();
  if (!cuda) {
    outs() << "cuda: none (" << toString(cuda.takeError()) << ")\n";
    return kExitSuccess;
  }
  outs() << format("cuda: driver %d.%d, %zu device%s\n", cuda->driverVersion / 1000,
                   cuda->driverVersion % 1000 / 10, cuda->devices.size(),
                   cuda->devices.size() == 1 ? "" : "s");
  for (const CUDADeviceInfo &d : cuda->devices)
    outs() << format("cuda:%u: %s, %.1f GiB, compute capability %d.%d, %d multiprocessors\n",
                     d.ordinal, d.name.c_str(), double(d.totalMemory) / (1ull << 30), d.ccMajor,
                     d.ccMinor, d.multiprocessors);
  return kExitSuccess;
}

bool hx::mapDevices(const Module &m, const DeviceMapOptions &c,
                    std::vector<std::unique_ptr<Device>> &owned, std::vector<Device *> &out) {
  std::vector<VirtualDevice> virt = m.devices;
  if (virt.empty())
    virt.push_back(VirtualDevice{});
  std::map<int64_t, Device *> cpuInstances;
  auto cpu = [&](int64_t instance) {
    Device *&d = cpuInstances[instance];
    if (!d) {
      owned.push_back(createCPUDevice(unsigned(instance), c.threads, c.memoryLimit));
      d = owned.back().get();
    }
    return d;
  };
  std::map<unsigned, Device *> cudaDevices, emulatedDevices;
  // cuda:N once per ordinal: two virtual devices on one GPU share it (and
  // get streams of their own). The same for cuda-emu:N.
  auto cudaDevice = [&](unsigned ordinal, bool emulated) -> Expected<Device *> {
    if (emulated) {
      Device *&d = emulatedDevices[ordinal];
      if (!d) {
        owned.push_back(createSimtDevice(ordinal, c.memoryLimit));
        d = owned.back().get();
      }
      return d;
    }
    Device *&d = cudaDevices[ordinal];
    if (!d) {
      CUDADeviceOptions opts;
      opts.memoryLimit = c.memoryLimit;
      Expected<std::unique_ptr<Device>> nd = createCUDADevice(ordinal, opts);
      if (!nd)
        return nd.takeError();
      owned.push_back(std::move(*nd));
      d = owned.back().get();
    }
    return d;
  };
  auto freshCpu = [&] { // the lowest instance number not taken
    int64_t id = 0;
    while (cpuInstances.count(id))
      ++id;
    return cpu(id);
  };
  auto planned = [&] {
    std::string s;
    for (size_t i = 0; i < virt.size(); ++i)
      s += (i ? ", " : "") + std::to_string(i) + ": " + virt[i].shortName();
    return s;
  };
  if (!c.devices.empty()) {
    if (c.devices.size() < virt.size()) {
      userError("--device: " + Twine(c.devices.size()) + " given for " + Twine(virt.size()) +
                " virtual devices (the planned devices are " + planned() + ")");
      return false;
    }
    if (c.devices.size() > virt.size())
      errs() << "hx-run: warning: --device: " << c.devices.size() - virt.size() << " more than the "
             << virt.size() << " planned virtual devices (" << planned()
             << "); the extra ones are ignored\n";
    // Named instances (cpu:N) first, then each bare `cpu` a new instance.
    out.assign(virt.size(), nullptr);
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < virt.size(); ++i) {
        StringRef spec = c.devices[i];
        auto [kind, num] = spec.split(':');
        int64_t n = 0;
        if (!num.empty() && (num.getAsInteger(10, n) || n < 0)) {
          userError("--device=" + spec + ": expected cpu, cpu:N, cuda, cuda:N or cuda-emu:N");
          return false;
        }
        if (kind == "cpu") {
          if (pass == 0 && !num.empty())
            out[i] = cpu(n);
          else if (pass == 1 && num.empty())
            out[i] = freshCpu();
        } else if (kind == "cuda" || kind == "gpu" || kind == "cuda-emu") {
          if (pass == 1)
            continue;
          Expected<Device *> d = cudaDevice(unsigned(n), kind == "cuda-emu");
          if (!d) {
            userError("--device: " + toString(d.takeError()));
            return false;
          }
          out[i] = *d;
        } else {
          userError("--device=" + spec + ": unknown device '" + kind +
                    "' (expected cpu, cpu:N, cuda, cuda:N or cuda-emu:N)");
          return false;
        }
      }
    }
    return true;
  }
  // cpu virtual devices first: they name their instances; a cuda one then
  // takes a cpu instance of its own.
  out.assign(virt.size(), nullptr);
  for (size_t i = 0; i < virt.size(); ++i)
    if (virt[i].deviceType == DeviceType::CPU)
      out[i] = cpu(virt[i].virtualDeviceId);
  // A cuda virtual device runs on the GPU of its virtual_device_id when
  // there is one, else on cuda:0.
  // The driver is probed only when a cuda virtual device needs it.
  if (llvm::all_of(out, [](Device *d) { return d != nullptr; }))
    return true;
  if (c.emulateCuda) { // cuda-emu:N for virtual_device_id N (or 0), no driver
    for (size_t i = 0; i < virt.size(); ++i)
      if (!out[i])
        out[i] =
            cantFail(cudaDevice(unsigned(std::max<int64_t>(virt[i].virtualDeviceId, 0)), true));
    return true;
  }
  Expected<CUDASystemInfo> gpus = probeCUDA();
  std::string noGpu = gpus ? "" : toString(gpus.takeError());
  for (size_t i = 0; i < virt.size(); ++i) {
    if (out[i])
      continue;
    if (gpus) {
      int64_t id = virt[i].virtualDeviceId;
      unsigned ordinal = id >= 0 && uint64_t(id) < gpus->devices.size() ? unsigned(id) : 0;
      Expected<Device *> d = cudaDevice(ordinal, false);
      if (!d) {
        userError("virtual device " + Twine(i) + " (" + virt[i].shortName() +
                  "): " + toString(d.takeError()));
        return false;
      }
      out[i] = *d;
      continue;
    }
    Device *d = freshCpu();
    errs() << "hx-run: note: virtual device " << i << " (" << virt[i].shortName() << ") runs on "
           << d->name() << ": " << noGpu << "\n";
    out[i] = d;
  }
  return true;
}
