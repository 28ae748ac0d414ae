//===- VirtualDevice.cpp - Devices and TVM-style target strings ----------===//
#include "hx/IR/VirtualDevice.h"
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace hx;
using namespace llvm;

StringRef hx::deviceTypeName(DeviceType t) {
  const TargetKindInfo *k = defaultKindFor(t);
  return k && !k->deviceNames.empty() ? k->deviceNames.front() : "unknown";
}

std::optional<DeviceType> hx::deviceTypeFromNumber(int64_t n) {
  for (DeviceType t : allDeviceTypes())
    if (int64_t(t) == n)
      return t;
  return std::nullopt;
}

std::optional<DeviceType> hx::parseDeviceType(StringRef s) {
  for (const TargetKindInfo &k : allTargetKinds())
    if (k.name == s || is_contained(k.deviceNames, s))
      return k.deviceType;
  int64_t n;
  if (!s.getAsInteger(10, n))
    return deviceTypeFromNumber(n);
  return std::nullopt;
}

std::optional<Target> Target::parse(StringRef s, std::string &error) {
  SmallVector<StringRef, 4> words;
  SplitString(s, words, " \t");
  if (words.empty()) {
    error = "empty target string";
    return std::nullopt;
  }
  Target t;
  t.kind = words[0].str();
  const TargetKindInfo *kind = lookupTargetKind(t.kind);
  if (!kind) {
    std::vector<StringRef> names;
    for (const TargetKindInfo &k : allTargetKinds()) {
      names.push_back(k.name);
      names.insert(names.end(), k.aliases.begin(), k.aliases.end());
    }
    std::string list;
    for (size_t i = 0; i < names.size(); ++i)
      list += (i == 0 ? "'" : i + 1 == names.size() ? " or '" : ", '") + names[i].str() + "'";
    error = "unknown target kind '" + t.kind + "' (expected " + list + ")";
    return std::nullopt;
  }
  for (StringRef w : ArrayRef(words).drop_front()) {
    if (!w.starts_with("-") || w.size() < 2) {
      error = ("malformed target option '" + w + "' (expected -key=value)").str();
      return std::nullopt;
    }
    w = w.ltrim('-');
    auto [key, value] = w.split('=');
    if (key.empty() || (w.contains('=') && value.empty())) {
      error = ("malformed target option '" + w + "' (expected -key=value)").str();
      return std::nullopt;
    }
    if (!llvm::any_of(kind->options, [&](const TargetOptionInfo &o) { return o.name == key; })) {
      std::string accepted;
      for (const TargetOptionInfo &o : kind->options)
        accepted += (accepted.empty() ? "-" : ", -") + o.name.str();
      error = ("target option '-" + key + "' is not one target kind '" + kind->name +
               "' takes (it takes " + accepted + ")")
                  .str();
      return std::nullopt;
    }
    t.options.emplace_back(key.str(), value.str());
  }
  return t;
}

Target Target::defaultFor(DeviceType t) {
  const TargetKindInfo *k = defaultKindFor(t);
  Target r;
  r.kind = (k ? k : &allTargetKinds().front())->name.str();
  return r;
}

std::string Target::str() const {
  std::string s = kind;
  for (auto &[k, v] : options) {
    s += " -" + k;
    if (!v.empty())
      s += "=" + v;
  }
  return s;
}

DeviceType Target::deviceType() const { return targetKindOf(*this).deviceType; }

std::string VirtualDevice::shortName() const {
  std::string s = deviceTypeName(deviceType).str();
  if (virtualDeviceId != 0)
    s += (":" + Twine(virtualDeviceId)).str();
  if (!memoryScope.empty())
    s += "(" + memoryScope + ")";
  return s;
}

DeviceIndex hx::joinDevices(ArrayRef<VirtualDevice> table, DeviceIndex a, DeviceIndex b) {
  if (a == b)
    return a;
  if (a < 0 || b < 0 || static_cast<size_t>(a) >= table.size() ||
      static_cast<size_t>(b) >= table.size())
    return kNoDevice;
  const VirtualDevice &x = table[a], &y = table[b];
  if (!x.sameDeviceAs(y) || x.memoryScope == y.memoryScope)
    return kNoDevice;
  if (x.memoryScope.empty())
    return b;
  return y.memoryScope.empty() ? a : kNoDevice;
}
