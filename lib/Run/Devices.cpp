//===- Devices.cpp - Physical devices for a planned module ----------------===//
//
// See Devices.h. Devices come from the target registry (each target's
// device factory). Named instances (cpu:N) are made before bare `cpu`s, so
// a bare one takes the lowest instance number not named; any other
// device (a GPU, an emulated GPU) is made once per backend and ordinal and
// shared by the virtual devices mapped to it. A target is asked how many
// devices the machine has for it (the CUDA driver probed) only when a
// virtual device of its type needs one, and once.
//
//===----------------------------------------------------------------------===//
#include "hx/Run/Devices.h"
#include "hx/IR/TargetKind.h"
#include "hx/Targets/Registry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <thread>

using namespace hx;
using namespace llvm;

void hx::listDevices(raw_ostream &os) {
  for (const BackendInfo &b : allBackends())
    if (b.listDevices)
      b.listDevices(os);
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
  const BackendInfo &host = hostBackend();
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
  // How many devices the machine has for a target, or why none: asked only
  // when a virtual device needs one, and once.
  struct Count {
    unsigned devices = 0;
    /// Why the machine has none (empty when it has some).
    std::string why;
  };
  std::map<const BackendInfo *, Count> counts;
  auto available = [&](const BackendInfo &b) -> const Count & {
    auto [it, first] = counts.try_emplace(&b);
    Count &n = it->second;
    if (first && b.countDevices) {
      Expected<unsigned> got = b.countDevices();
      if (got)
        n.devices = *got;
      else
        n.why = toString(got.takeError());
    } else if (first) {
      n.devices = ~0u; // as many as asked for
    }
    return n;
  };
  // A virtual device that runs on host instance `d` for want of its
  // hardware says so.
  auto substituted = [&](size_t i, Device *d, const std::string &why) {
    if (note)
      note("note: virtual device " + Twine(i) + " (" + virt[i].shortName() + ") runs on " +
           d->name() + ": " + why);
    return d;
  };
  if (!c.devices.empty()) {
    std::vector<std::string> specs = c.devices;
    // substituteNamed: the names get the defaults' policy. Those that run
    // on a host instance for want of their hardware become a bare host
    // name, and say why once mapped.
    std::map<size_t, std::string> wanting;
    if (c.substituteNamed) {
      for (size_t i = specs.size(); i < virt.size(); ++i) {
        const BackendInfo *b = defaultBackendForType(virt[i].deviceType);
        specs.push_back((b ? b : &host)->name.str());
      }
      for (size_t i = 0; i < virt.size(); ++i) {
        auto [kind, num] = StringRef(specs[i]).split(':');
        const BackendInfo *b = lookupBackend(kind);
        if (!b || b->emulated)
          continue;
        DeviceType type = b->deviceType();
        const BackendInfo *emu = emulatorFor(type);
        if (emu && llvm::is_contained(c.emulate, type))
          specs[i] = (emu->name + (num.empty() ? "" : ":" + num)).str();
        else if (const Count &n = available(*b); !n.why.empty()) {
          specs[i] = host.name.str();
          wanting[i] = n.why;
        }
      }
    }
    if (specs.size() < virt.size())
      return createStringError("--device: " + Twine(specs.size()) + " given for " +
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
        StringRef spec = specs[i];
        auto [kind, num] = spec.split(':');
        int64_t n = 0;
        if (!num.empty() && (num.getAsInteger(10, n) || n < 0))
          return createStringError("--device=" + spec + ": " + expected());
        const BackendInfo *b = lookupBackend(kind);
        if (!b)
          return createStringError("--device=" + spec + ": unknown device '" + kind + "' (" +
                                   expected() + ")");
        bool instances = isHostType(b->deviceType()) && num.empty();
        if (pass != (instances ? 1 : 0))
          continue;
        Expected<Device *> d = instances ? fresh(*b) : device(*b, n);
        if (!d)
          return createStringError("--device: " + toString(d.takeError()));
        out[i] = *d;
      }
    }
    for (const auto &[i, why] : wanting)
      substituted(i, out[i], why);
    return Error::success();
  }
  // Host virtual devices first: they name their instances; any other
  // then may take a host instance of its own.
  out.assign(virt.size(), nullptr);
  for (size_t i = 0; i < virt.size(); ++i)
    if (isHostType(virt[i].deviceType))
      out[i] = cantFail(device(host, virt[i].virtualDeviceId));
  // Each other virtual device on its emulator's device N (virtual_device_id
  // N, or 0) where asked for, no hardware needed; else on the device of its
  // virtual_device_id where the machine has one, else on device 0; else on
  // a host instance of its own.
  for (size_t i = 0; i < virt.size(); ++i) {
    if (out[i])
      continue;
    DeviceType type = virt[i].deviceType;
    const BackendInfo *emu = emulatorFor(type);
    if (emu && llvm::is_contained(c.emulate, type)) {
      out[i] = cantFail(device(*emu, std::max<int64_t>(virt[i].virtualDeviceId, 0)));
      continue;
    }
    const BackendInfo *b = defaultBackendForType(type);
    if (!b) {
      out[i] = substituted(i, cantFail(fresh(host)),
                           "no registered target runs " + deviceTypeName(type).str() + " devices");
      continue;
    }
    const Count &n = available(*b);
    if (!n.why.empty()) {
      out[i] = substituted(i, cantFail(fresh(host)), n.why);
      continue;
    }
    int64_t id = virt[i].virtualDeviceId;
    unsigned ordinal = id >= 0 && uint64_t(id) < n.devices ? unsigned(id) : 0;
    Expected<Device *> d = device(*b, ordinal);
    if (!d)
      return createStringError("virtual device " + Twine(i) + " (" + virt[i].shortName() +
                               "): " + toString(d.takeError()));
    out[i] = *d;
  }
  return Error::success();
}

Expected<std::vector<std::string>> hx::compileBackends(const Module &m,
                                                       const DeviceMapOptions &opts) {
  std::vector<std::string> out;
  for (size_t i = 0; i < m.devices.size(); ++i) {
    DeviceType type = m.devices[i].deviceType;
    const BackendInfo *b = nullptr;
    if (i < opts.devices.size()) {
      StringRef name = StringRef(opts.devices[i]).split(':').first;
      if (!(b = lookupBackend(name)))
        return createStringError("--device=" + opts.devices[i] + ": no backend named '" + name +
                                 "' (there are " + backendNames() + ")");
    } else if (llvm::is_contained(opts.emulate, type)) {
      b = emulatorFor(type);
    }
    out.push_back(b ? b->name.str() : "");
  }
  return out;
}
