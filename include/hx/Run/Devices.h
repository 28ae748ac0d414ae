//===- Devices.h - Physical devices for a planned module --------*- C++ -*-===//
//
// Which physical device runs each virtual device of a planned module
// (hx-run --device, --emulate-cuda, --list-devices): the device list in
// order (NAME or NAME:N, NAME a registered backend: cpu, cuda, cuda-emu,
// cpu-generic; `gpu` is cuda), or by default a device of each virtual
// device's type: a cpu instance per virtual_device_id, a cuda one the GPU
// of its virtual_device_id (else cuda:0), on a cuda-emu device with
// emulateCuda, and on a cpu instance of its own when there is no GPU (with
// a note saying why).
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
  bool emulateCuda = false;
};

/// Prints the cpu, the GPUs found (or why none) and the registered backends.
void listDevices(llvm::raw_ostream &os);

/// Fills `out` with the physical device of each virtual device of `m`
/// (the devices made go to `owned`). An error names the device or the
/// option; `note` (when given) hears the notes and warnings, such as a cuda
/// virtual device that runs on a cpu instance for want of a GPU.
llvm::Error mapDevices(const Module &m, const DeviceMapOptions &opts,
                       std::vector<std::unique_ptr<Device>> &owned, std::vector<Device *> &out,
                       llvm::function_ref<void(const llvm::Twine &)> note = nullptr);

} // namespace hx

#endif
