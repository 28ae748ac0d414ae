//===- Devices.h - Physical devices for a planned module --------*- C++ -*-===//
//
// Which physical device runs each virtual device of a planned module
// (hx-run --device, --emulate-cuda, --list-devices): the device list in
// order (NAME or NAME:N, NAME a registered target or one of its aliases,
// hx/Targets/Registry.h), or by default a device of each virtual device's
// type, from its default target: a host (cpu) instance per
// virtual_device_id; any other type the device of its virtual_device_id
// where the machine has one (else its device 0), its emulator's device N
// when `emulate` names the type, and a host instance of its own when the
// machine has none (with a note saying why: the target's answer). Nothing
// here names a target.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUN_DEVICES_H
#define HX_RUN_DEVICES_H

#include "hx/IR/Module.h"
#include "hx/Runtime/Backend.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hx {

/// The most worker threads a cpu device takes (DeviceMapOptions::threads).
constexpr unsigned kMaxThreadsPerDevice = 1024;

struct DeviceMapOptions {
  /// --device, in virtual device order.
  std::vector<std::string> devices;
  /// Worker threads per cpu instance (0: one per core; at most
  /// kMaxThreadsPerDevice, else mapDevices fails).
  unsigned threads = 0;
  /// --device-memory-limit (0: none).
  uint64_t memoryLimit = 0;
  /// The device types whose virtual devices run on their emulator
  /// (emulatorFor: hx-run --emulate-cuda) unless --device maps them.
  std::vector<DeviceType> emulate;
  /// The devices named in `devices` get the defaults' policy too (the
  /// Python API): one of an emulated type runs on its emulator, one the
  /// machine has none of on a host instance of its own (with the note), and
  /// virtual devices past the list (the planner's) get a device of their
  /// type. Without it (hx-run) a name means that device: a missing one is an
  /// error.
  bool substituteNamed = false;
};

/// Prints each registered target's devices (the cpu, the GPUs found or why
/// none) and the registered targets.
void listDevices(llvm::raw_ostream &os);

/// Fills `out` with the physical device of each virtual device of `m`
/// (the devices made go to `owned`). An error names the device or the
/// option; `note` (when given) hears the notes and warnings, such as a
/// virtual device that runs on a cpu instance for want of its hardware.
llvm::Error mapDevices(const Module &m, const DeviceMapOptions &opts,
                       std::vector<std::unique_ptr<Device>> &owned, std::vector<Device *> &out,
                       llvm::function_ref<void(const llvm::Twine &)> note = nullptr);

/// The registered backend that compiles each virtual device's code when no
/// device needs to be at hand (hx-compile; CompileOptions::backends): the
/// backend of the device `opts.devices` names for it, else its type's
/// emulator where `opts.emulate` asks, else "" (its own target's default).
/// A name no backend has is an error naming it.
llvm::Expected<std::vector<std::string>> compileBackends(const Module &m,
                                                         const DeviceMapOptions &opts);

} // namespace hx

#endif
