//===- Devices.cpp - Physical devices for a planned module ----------------===//
//
// See Devices.h. Devices come from the backend registry (each backend's
// device factory). Named instances (cpu:N) are made before bare `cpu`s, so
// a bare one takes the lowest instance number not named; any other
// device (a GPU, an emulated GPU) is made once per backend and ordinal and
// shared by the virtual devices mapped to it. The CUDA driver is probed
// only when a cuda virtual device needs a GPU.
//
//===----------------------------------------------------------------------===//
#include "hx/Run/Devices.h"
#include "hx/Targets/CUDA/CUDABackend.h"
#include "hx/Targets/Registry.h"
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

void hx::listDevices(raw_ostream &os) {
  os << "cpu: " << sys::getHostCPUName() << ", " << std::thread::hardware_concurrency()
     << " hardware threads, vector features:";
  StringMap<bool> features = sys::getHostCPUFeatures();
  for (const char *f : {"sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vnni"})
    if (features.lookup(f))
      os << " " << f;
  os << "\n";
  Expected<CUDASystemInfo> cuda = probeCUDA();
  if (!cuda) {
    os << "cuda: none (" << toString(cuda.takeError()) << ")\n";
  } else {
    os << format("cuda: driver %d.%d, %zu device%s\n", cuda->driverVersion / 1000,
                 cuda->driverVersion % 1000 / 10, cuda->devices.size(),
                 cuda->devices.size() == 1 ? "" : "s");
    for (const CUDADeviceInfo &d : cuda->devices)
      os << format("cuda:%u: %s, %.1f GiB, compute capability %d.%d, %d multiprocessors\n",
                   d.ordinal, d.name.c_str(), double(d.totalMemory) / (1ull << 30), d.ccMajor,
                   d.ccMinor, d.multiprocessors);
  }
  os << "backends (--device=NAME:N):\n";
  for (const BackendInfo &b : allBackends())
    os << "  " << b.name << ": " << b.summary << "\n";
}

Error hx::mapDevices(const Module &m, const DeviceMapOptions &c,
                     std::vector<std::unique_ptr<Device>> &owned, std::vector<Device *> &out,
                     function_ref<void(const Twine &)> note) {
  // Each worker is a thread of this process: a count beyond any machine's
  // would start threads until the system refuses them, and hang.
  if (c.threads > kMaxThreadsPerDevice)
    return createStringError("--threads=" + Twine(c.threads) + ": a cpu device takes at most " +
                             Twine(kMaxThreadsPerDevice) + " worker threads (this machine has " +
                             Twine(std::thread::hardware_concurrency()) + " cores)");
  std::vector<VirtualDevice> virt = m.devices;
  if (virt.empty())
    virt.push_back(VirtualDevice{});
  DeviceOptions devOpts;
  devOpts.threads = c.threads;
  devOpts.memoryLimit = c.memoryLimit;
  // Each (backend, ordinal) once: two virtual devices mapped to one GPU
  // share it (and get streams of their own).
  std::map<std::pair<std::string, int64_t>, Device *> made;
  auto device = [&](const BackendInfo &b, int64_t ordinal) -> Expected<Device *> {
    Device *&d = made[{b.name.str(), ordinal}];
    if (!d) {
      Expected<std::unique_ptr<Device>> nd = b.createDevice(unsigned(ordinal), devOpts);
      if (!nd)
        return nd.takeError();
      owned.push_back(std::move(*nd));
      d = owned.back().get();
    }
    return d;
  };
  const BackendInfo &host = *lookupBackend("cpu");
  auto fresh = [&](const BackendInfo &b) { // the lowest instance number not taken
    int64_t id = 0;
    while (made.count({b.name.str(), id}))
      ++id;
    return device(b, id);
  };
  auto planned = [&] {
    std::string s;
    for (size_t i = 0; i < virt.size(); ++i)
      s += (i ? ", " : "") + std::to_string(i) + ": " + virt[i].shortName();
    return s;
  };
  auto expected = [] { return "expected NAME or NAME:N, NAME one of " + backendNames(); };
  if (!c.devices.empty()) {
    if (c.devices.size() < virt.size())
      return createStringError("--device: " + Twine(c.devices.size()) + " given for " +
                               Twine(virt.size()) + " virtual devices (the planned devices are " +
                               planned() + ")");
    if (c.devices.size() > virt.size() && note)
      note("warning: --device: " + Twine(c.devices.size() - virt.size()) + " more than the " +
           Twine(virt.size()) + " planned virtual devices (" + planned() +
           "); the extra ones are ignored");
    // Named instances (cpu:N) first, then each bare cpu-type name a new
    // instance; any other bare name is ordinal 0.
    out.assign(virt.size(), nullptr);
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < virt.size(); ++i) {
        StringRef spec = c.devices[i];
        auto [kind, num] = spec.split(':');
        int64_t n = 0;
        if (!num.empty() && (num.getAsInteger(10, n) || n < 0))
          return createStringError("--device=" + spec + ": " + expected());
        const BackendInfo *b = lookupBackend(kind == "gpu" ? "cuda" : kind);
        if (!b)
          return createStringError("--device=" + spec + ": unknown device '" + kind + "' (" +
                                   expected() + ")");
        bool instances = b->deviceType == DeviceType::CPU && num.empty();
        if (pass != (instances ? 1 : 0))
          continue;
        Expected<Device *> d = instances ? fresh(*b) : device(*b, n);
        if (!d)
          return createStringError("--device: " + toString(d.takeError()));
        out[i] = *d;
      }
    }
    return Error::success();
  }
  // cpu virtual devices first: they name their instances; a cuda one then
  // takes a cpu instance of its own.
  out.assign(virt.size(), nullptr);
  for (size_t i = 0; i < virt.size(); ++i)
    if (virt[i].deviceType == DeviceType::CPU)
      out[i] = cantFail(device(host, virt[i].virtualDeviceId));
  // A cuda virtual device runs on the GPU of its virtual_device_id when
  // there is one, else on cuda:0.
  // The driver is probed only when a cuda virtual device needs it.
  if (llvm::all_of(out, [](Device *d) { return d != nullptr; }))
    return Error::success();
  if (c.emulateCuda) { // cuda-emu:N for virtual_device_id N (or 0), no driver
    const BackendInfo &emu = *lookupBackend("cuda-emu");
    for (size_t i = 0; i < virt.size(); ++i)
      if (!out[i])
        out[i] = cantFail(device(emu, std::max<int64_t>(virt[i].virtualDeviceId, 0)));
    return Error::success();
  }
  Expected<CUDASystemInfo> gpus = probeCUDA();
  std::string noGpu = gpus ? "" : toString(gpus.takeError());
  for (size_t i = 0; i < virt.size(); ++i) {
    if (out[i])
      continue;
    if (gpus) {
      int64_t id = virt[i].virtualDeviceId;
      unsigned ordinal = id >= 0 && uint64_t(id) < gpus->devices.size() ? unsigned(id) : 0;
      Expected<Device *> d = device(*lookupBackend("cuda"), ordinal);
      if (!d)
        return createStringError("virtual device " + Twine(i) + " (" + virt[i].shortName() +
                                 "): " + toString(d.takeError()));
      out[i] = *d;
      continue;
    }
    Device *d = cantFail(fresh(host));
    if (note)
      note("note: virtual device " + Twine(i) + " (" + virt[i].shortName() + ") runs on " +
           d->name() + ": " + noGpu);
    out[i] = d;
  }
  return Error::success();
}
