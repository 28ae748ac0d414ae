//===- EmulateFlags.cpp - --emulate-<type> per emulated device type -------===//
//
// See EmulateFlags.h: one flag per type in emulatedTypes(), named after the
// type (deviceTypeName), its help from the tool and the emulator's
// BackendInfo.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/EmulateFlags.h"

using namespace llvm;

namespace hx {

EmulateFlags::EmulateFlags(cl::OptionCategory &category,
                           function_ref<std::string(DeviceType, const BackendInfo &)> describe) {
  for (DeviceType t : emulatedTypes()) {
    Flag &f = flags.emplace_back();
    f.type = t;
    f.name = flagFor(t).substr(2);
    f.help = describe(t, *emulatorFor(t));
    f.opt = std::make_unique<cl::opt<bool>>(StringRef(f.name), cl::desc(f.help), cl::cat(category));
  }
}

EmulateFlags::~EmulateFlags() = default;

std::vector<DeviceType> EmulateFlags::given() const {
  std::vector<DeviceType> out;
  for (const Flag &f : flags)
    if (*f.opt)
      out.push_back(f.type);
  return out;
}

std::string EmulateFlags::flagFor(DeviceType t) { return "--emulate-" + deviceTypeName(t).str(); }

} // namespace hx
