//===- EmulateFlags.h - --emulate-<type> per emulated device type -*- C++ -*-===//
//
// hx-run and hx-smith take one flag per device type that a registered
// target emulates on the host (hx/Targets/Registry.h): `--emulate-cuda`
// puts the cuda virtual devices on cuda-emu. The flags come from the
// registry, so no tool names a target. An EmulateFlags object lives in a
// tool's main, as CommonFlags does.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_EMULATEFLAGS_H
#define HX_TOOLS_EMULATEFLAGS_H

#include "hx/IR/VirtualDevice.h"
#include "hx/Targets/Registry.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CommandLine.h"
#include <list>
#include <memory>
#include <string>
#include <vector>

namespace hx {

class EmulateFlags {
public:
  /// `describe(type, emulator)` gives each flag's help.
  EmulateFlags(llvm::cl::OptionCategory &category,
               llvm::function_ref<std::string(DeviceType, const BackendInfo &)> describe);
  ~EmulateFlags();

  /// The types whose flag was given, in registration order.
  std::vector<DeviceType> given() const;
  /// `--emulate-<type>` ("--emulate-cuda"), for messages and reproducers.
  static std::string flagFor(DeviceType t);

private:
  struct Flag {
    DeviceType type;
    /// cl::opt keeps StringRefs: the name and help live here.
    std::string name, help;
    std::unique_ptr<llvm::cl::opt<bool>> opt;
  };
  std::list<Flag> flags;
};

} // namespace hx

#endif
