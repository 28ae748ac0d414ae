//===- RunDevices.h - hx-run's physical devices -----------------*- C++ -*-===//
//
// Which physical device runs each virtual device of a planned module
// (hx-run --device, --emulate-cuda, --list-devices): the --device list in
// order (cpu, cpu:N, cuda:N, cuda-emu:N), or by default a device of each
// virtual device's type: a cpu instance per virtual_device_id, a cuda one
// the GPU of its virtual_device_id (else cuda:0), on a cuda-emu device with
// --emulate-cuda, and on a cpu instance of its own when there is no GPU
// (with a note saying why).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_RUNDEVICES_H
#define HX_TOOLS_RUNDEVICES_H

#include "hx/IR/Module.h"
#include "hx/Runtime/Backend.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hx {

struct DeviceMapOptions {
  /// --device, in virtual device order.
  std::vector<std::string> devices;
  /// Worker threads per cpu instance (0: one per core).
  unsigned threads = 0;
  /// --device-memory-limit (0: none).
  uint64_t memoryLimit = 0;
  bool emulateCuda = false;
};

/// Prints the cpu and the GPUs found (or why none); returns the exit status.
int listDevices();

/// Fills `out` with the physical device of each virtual device of `m`
/// (the devices made go to `owned`); false after printing an error.
bool mapDevices(const Module &m, const DeviceMapOptions &opts,
                std::vector<std::unique_ptr<Device>> &owned, std::vector<Device *> &out);

} // namespace hx

#endif
