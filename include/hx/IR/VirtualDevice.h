//===- VirtualDevice.h - Devices and targets --------------------*- C++ -*-===//
//
// A VirtualDevice names where a value lives: a device type (DLPack numbering),
// a virtual device id, a compilation target and a memory scope. A module keeps
// them in one table (the `#[metadata]` "VirtualDevice" array); IR refers to
// devices by their index in that table, printed as meta[VirtualDevice][i].
//
//===----------------------------------------------------------------------===//
#ifndef HX_IR_VIRTUALDEVICE_H
#define HX_IR_VIRTUALDEVICE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hx {

/// A device type: its number in DLPack's DLDeviceType. Which types exist,
/// their names and numbers, is the target-kind table's (hx/IR/TargetKind.h),
/// where a new type is a row. Only the host's type is named here: the type
/// of the devices that take what another lacks (plan-devices' cpu fallback).
enum class DeviceType : int32_t { CPU = 1 };

/// The type's printed name in the target-kind table ("cpu", "cuda");
/// "unknown" for a number no kind runs on.
llvm::StringRef deviceTypeName(DeviceType t);
/// Accepts a name of a type in the table ("cpu", "cuda", "gpu", or a kind's
/// name: "llvm") or its DLPack number ("1", "2").
std::optional<DeviceType> parseDeviceType(llvm::StringRef s);
/// The type numbered `n` in the table, if any.
std::optional<DeviceType> deviceTypeFromNumber(int64_t n);

/// A TVM-style target string: `llvm`, `llvm -mcpu=native`, `cuda -arch=sm_90`.
struct Target {
  std::string kind;
  /// Options in input order: {"mcpu", "native"}; a bare flag has an empty value.
  std::vector<std::pair<std::string, std::string>> options;

  /// Parses a target string; on failure returns nullopt and sets `error`.
  static std::optional<Target> parse(llvm::StringRef s, std::string &error);
  /// The target of the first kind that runs on `t` (`llvm` for the cpu).
  static Target defaultFor(DeviceType t);
  std::string str() const;
  /// The device type a target of this kind runs on.
  DeviceType deviceType() const;
  bool operator==(const Target &o) const { return kind == o.kind && options == o.options; }
};

struct VirtualDevice {
  DeviceType deviceType = DeviceType::CPU;
  int64_t virtualDeviceId = 0;
  Target target;
  std::string memoryScope;
  /// Where it was defined (the metadata entry), for diagnostics.
  llvm::SMLoc loc;

  bool operator==(const VirtualDevice &o) const {
    return sameDeviceAs(o) && memoryScope == o.memoryScope;
  }
  /// The same device (type, id and target), whatever the memory scope.
  bool sameDeviceAs(const VirtualDevice &o) const {
    return deviceType == o.deviceType && virtualDeviceId == o.virtualDeviceId && target == o.target;
  }
  /// A short human name: "cpu", "cuda", "cuda:1", "cpu(global)".
  std::string shortName() const;
};

/// Index into a module's device table; -1 when no device is given.
using DeviceIndex = int32_t;
constexpr DeviceIndex kNoDevice = -1;

/// TVM's VirtualDevice::Join over a device table: two entries for the same
/// device (type, id and target) of which one leaves the memory scope open
/// join to the one that names it; equal indices join to themselves; any
/// other pair (different devices, or two different scopes) is kNoDevice.
DeviceIndex joinDevices(llvm::ArrayRef<VirtualDevice> table, DeviceIndex a, DeviceIndex b);

} // namespace hx

#endif
