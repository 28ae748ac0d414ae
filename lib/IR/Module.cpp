//===- Module.cpp - Modules -----------------------------------------------===//
#include "hx/IR/Module.h"

using namespace hx;
using namespace llvm;

const Module::Def *Module::lookupDef(StringRef name) const {
  auto it = defIndex.find(name);
  return it == defIndex.end() ? nullptr : &defs[it->second];
}

Function *Module::lookup(StringRef name) const {
  const Def *d = lookupDef(name);
  return d ? d->fn.get() : nullptr;
}

Ref<GlobalVar> Module::getGlobal(StringRef name, SMLoc loc) {
  auto &slot = globals[name];
  if (!slot)
    slot = make<GlobalVar>(name.str(), loc);
  return slot;
}

void Module::addDef(StringRef name, Ref<Function> fn, SMLoc loc) {
  defIndex[name] = defs.size();
  defs.push_back({getGlobal(name, loc), std::move(fn)});
}

Op *Module::getOp(StringRef name) {
  auto &slot = ops[name];
  if (!slot)
    slot = make<Op>(name.str(), SMLoc());
  return slot.get();
}

DeviceIndex Module::addDevice(const VirtualDevice &d) {
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices[i] == d)
      return static_cast<DeviceIndex>(i);
  devices.push_back(d);
  return static_cast<DeviceIndex>(devices.size() - 1);
}

DeviceIndex Module::deviceForType(DeviceType t) {
  DeviceIndex any = kNoDevice;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].deviceType != t)
      continue;
    if (devices[i].virtualDeviceId == 0)
      return static_cast<DeviceIndex>(i);
    if (any == kNoDevice)
      any = static_cast<DeviceIndex>(i);
  }
  if (any != kNoDevice)
    return any;
  VirtualDevice d;
  d.deviceType = t;
  d.target = Target::defaultFor(t);
  return addDevice(d);
}
