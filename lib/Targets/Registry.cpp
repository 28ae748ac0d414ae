//===- Registry.cpp - The targets hx can compile for and run on -----------===//
//
// The registrations come from the build: RegisteredTargets.def has one
// HX_TARGET(<function>) line per target folder that declares itself with
// hx_target(... REGISTER <function>) (lib/Targets/CMakeLists.txt), in
// folder order. The table is built once, on first use, and never changes
// (no mutable global state).
//
//===----------------------------------------------------------------------===//
#include "hx/Targets/Registry.h"
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace hx {

// Each target folder defines its registration.
#define HX_TARGET(registration) BackendInfo registration();
#include "RegisteredTargets.def"
#undef HX_TARGET

ArrayRef<BackendInfo> allBackends() {
  static const std::vector<BackendInfo> backends = {
#define HX_TARGET(registration) registration(),
#include "RegisteredTargets.def"
#undef HX_TARGET
  };
  return backends;
}

DeviceType BackendInfo::deviceType() const {
  const TargetKindInfo *k = lookupTargetKind(targetKind);
  return k ? k->deviceType : DeviceType::CPU;
}

const BackendInfo *lookupBackend(StringRef name) {
  for (const BackendInfo &b : allBackends())
    if (b.name == name || is_contained(b.aliases, name))
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

const BackendInfo *defaultBackendForType(DeviceType t) {
  const TargetKindInfo *k = defaultKindFor(t);
  return k ? defaultBackendFor(k->name) : nullptr;
}

const BackendInfo &hostBackend() { return *defaultBackendForType(DeviceType::CPU); }

const BackendInfo *emulatorFor(DeviceType t) {
  for (const BackendInfo &b : allBackends())
    if (b.emulated && b.deviceType() == t)
      return &b;
  return nullptr;
}

std::vector<DeviceType> emulatedTypes() {
  std::vector<DeviceType> out;
  for (const BackendInfo &b : allBackends())
    if (b.emulated && !is_contained(out, b.deviceType()))
      out.push_back(b.deviceType());
  return out;
}

std::string BackendCache::key(const BackendInfo &b, const Target &target) {
  if (!b.usesTarget)
    return "";
  const TargetKindInfo &kind = targetKindOf(target);
  std::vector<std::pair<std::string, std::string>> options;
  for (auto [k, v] : target.options) {
    if (k == "keys" || (k == "mcpu" && v == "native"))
      continue;
    // An option that is another's second name (cuda's -mcpu is its -arch).
    for (const TargetOptionInfo &o : kind.options)
      if (o.name == k && !o.sameAs.empty())
        k = o.sameAs.str();
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
  std::pair<std::string, std::string> id{info->name.str(), key(*info, target)};
  std::unique_ptr<Backend> &slot = backends[id];
  if (!slot) {
    BackendOptions o = opts;
    if (auto it = preloaded.find(id); it != preloaded.end())
      o.saved = it->second;
    Expected<std::unique_ptr<Backend>> b = info->createBackend(target, o);
    if (!b)
      return b.takeError();
    slot = std::move(*b);
    if (!o.saved.empty())
      loaded[slot.get()] = slot->numKernels();
    order.push_back(slot.get());
  }
  return slot.get();
}

void BackendCache::preload(StringRef name, StringRef targetKey, StringRef saved) {
  preloaded[{name.str(), targetKey.str()}] = saved;
}

std::optional<unsigned> BackendCache::loadedKernels(const Backend *b) const {
  auto it = loaded.find(b);
  if (it == loaded.end())
    return std::nullopt;
  return it->second;
}

std::optional<std::pair<std::string, std::string>> BackendCache::idOf(const Backend *b) const {
  for (const auto &[id, backend] : backends)
    if (backend.get() == b)
      return id;
  return std::nullopt;
}

Expected<std::vector<BackendCache::SavedKernels>> BackendCache::savedKernels() const {
  std::vector<SavedKernels> out;
  for (const auto &[id, backend] : backends) {
    if (!backend) // its creation failed
      continue;
    SavedKernels &s = out.emplace_back();
    s.backend = id.first;
    s.targetKey = id.second;
    if (Error e = backend->saveKernels(s.bytes))
      return std::move(e);
  }
  return out;
}

Expected<Backend *> BackendCache::backendFor(const VirtualDevice &vd, const Device &device) {
  // A device standing in for another type (a cpu instance for a virtual
  // device whose hardware the machine lacks) runs code for itself: the
  // virtual device's target names the other type's options.
  if (vd.deviceType != device.type())
    return get(device.backend(), Target::defaultFor(device.type()));
  return get(device.backend(), vd.target);
}

} // namespace hx
