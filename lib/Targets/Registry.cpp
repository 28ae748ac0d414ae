//===- Registry.cpp - The backends hx can compile for and run on ----------===//
//
// The registrations: one line per backend folder. The table is built once,
// on first use, and never changes (no mutable global state).
//
//===----------------------------------------------------------------------===//
#include "hx/Targets/Registry.h"
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace hx {

// Each backend folder defines its registration.
BackendInfo cpuBackendInfo();        // CPU/
BackendInfo cudaBackendInfo();       // CUDA/
BackendInfo cudaEmuBackendInfo();    // CUDAEmu/
BackendInfo genericCPUBackendInfo(); // GenericCPU/

ArrayRef<BackendInfo> allBackends() {
  static const std::vector<BackendInfo> backends = {
      cpuBackendInfo(),
      cudaBackendInfo(),
      cudaEmuBackendInfo(),
      genericCPUBackendInfo(),
  };
  return backends;
}

const BackendInfo *lookupBackend(StringRef name) {
  for (const BackendInfo &b : allBackends())
    if (b.name == name)
      return &b;
  return nullptr;
}

std::string backendNames() {
  std::string s;
  for (const BackendInfo &b : allBackends())
    s += (s.empty() ? "" : ", ") + b.name.str();
  return s;
}

const BackendInfo *defaultBackendFor(StringRef kind) {
  for (const BackendInfo &b : allBackends())
    if (b.targetKind == kind && !b.testOnly && !b.emulated)
      return &b;
  return nullptr;
}

std::string BackendCache::key(const BackendInfo &b, const Target &target) {
  if (!b.usesTarget)
    return "";
  const TargetKindInfo &kind = targetKindOf(target);
  std::vector<std::pair<std::string, std::string>> options;
  for (auto [k, v] : target.options) {
    if (k == "keys" || (k == "mcpu" && v == "native"))
      continue;
    if (kind.deviceType == DeviceType::CUDA && k == "mcpu")
      k = "arch"; // cuda's -mcpu is its -arch
    options.emplace_back(k, v);
  }
  llvm::sort(options);
  std::string s = kind.name.str();
  for (const auto &[k, v] : options)
    s += " -" + k + "=" + v;
  return s;
}

Expected<Backend *> BackendCache::get(StringRef name, const Target &target) {
  const BackendInfo *info = lookupBackend(name);
  if (!info)
    return createStringError("no backend named '" + name + "' (there are " + backendNames() + ")");
  std::unique_ptr<Backend> &slot = backends[{name.str(), key(*info, target)}];
  if (!slot) {
    Expected<std::unique_ptr<Backend>> b = info->createBackend(target, opts);
    if (!b)
      return b.takeError();
    slot = std::move(*b);
    order.push_back(slot.get());
  }
  return slot.get();
}

Expected<Backend *> BackendCache::backendFor(const VirtualDevice &vd, const Device &device) {
  // A device standing in for another type (a cpu instance for a cuda
  // virtual device on a machine without a GPU) runs code for itself: the
  // virtual device's target names the other type's options.
  if (vd.deviceType != device.type())
    return get(device.backend(), Target::defaultFor(device.type()));
  return get(device.backend(), vd.target);
}

} // namespace hx
