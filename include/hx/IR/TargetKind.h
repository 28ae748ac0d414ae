//===- TargetKind.h - What each kind of target is and can do ----*- C++ -*-===//
//
// The one table of target kinds, TVM's TargetKind registry in small: for
// each kind a target string may name (`llvm`, `cuda`, ...), the device type
// it runs on (its DLPack number and its names), the operators its code
// generators lack, its roofline figures for the cost model and its copy
// links, and the options a target string may give it — each of which some
// target honours (cpu: -mcpu, -mattr; cuda: -arch). Target::parse rejects an
// unknown kind or option, naming it, so no option is silently ignored.
//
// Device types are the table's too: which exist, how they are named and
// numbered (the parser's `device_type` names and TVM's numbers map through
// here), and the messages that list them. A new kind is one row.
//
// Everything that asks "can this device run that operator?" or "what does
// it cost there?" — plan-devices and its cpu fallback, the cost model, the
// placement report, verify-placement — asks here, not `== cuda`. The
// targets that compile for a kind and make its devices register in
// hx/Targets/Registry.h, a layer above.
//
//===----------------------------------------------------------------------===//
#ifndef HX_IR_TARGETKIND_H
#define HX_IR_TARGETKIND_H

#include "hx/IR/OpDef.h"
#include "hx/IR/VirtualDevice.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace hx {

/// Peak figures of a device for the roofline.
struct DevicePeaks {
  double flopsPerSecond;
  double bytesPerSecond;
  /// Fixed cost of one kernel launch.
  double launchSeconds;
};

/// A copy link between two devices.
struct CopyLink {
  double bytesPerSecond;
  double latencySeconds;
};

struct TargetOptionInfo {
  llvm::StringRef name;
  /// What the option does, for the error that lists the accepted ones.
  llvm::StringRef meaning;
  /// Another option this one is a second name for (cuda's -mcpu is its
  /// -arch); empty when none.
  llvm::StringRef sameAs = {};
};

struct TargetKindInfo {
  /// The kind as target strings name it; `aliases` name it too.
  llvm::StringRef name;
  llvm::ArrayRef<llvm::StringRef> aliases;
  /// The device type it runs on: DLPack's number, and its names (the first
  /// is how devices print; parseDeviceType accepts each, and `name`).
  DeviceType deviceType;
  llvm::ArrayRef<llvm::StringRef> deviceNames;
  /// The operators its code generators lack (plan-devices moves them to the
  /// host); every other operator with a kernel definition they implement.
  /// Operators with a value-dependent shape run on the host whatever the
  /// list says (supports).
  llvm::ArrayRef<llvm::StringRef> lacks;
  DevicePeaks peaks;
  /// Copies between a device of this kind and the host; between two
  /// devices of this kind (peer copies).
  CopyLink hostLink, peerLink;
  llvm::ArrayRef<TargetOptionInfo> options;

  bool supports(const OpDef &op) const;
  /// Whether its devices share the host's memory (a cpu): such a device
  /// takes the operators another kind lacks (plan-devices' cpu fallback).
  bool isHost() const { return deviceType == DeviceType::CPU; }
};

/// Every target kind, in a fixed order.
llvm::ArrayRef<TargetKindInfo> allTargetKinds();
/// The kind `name` names (or an alias of it); null when none does.
const TargetKindInfo *lookupTargetKind(llvm::StringRef name);
/// The kind of `t` (Target::parse accepted it, so there is one); the default
/// kind of `DeviceType::CPU` for a target made by hand with an unknown kind.
const TargetKindInfo &targetKindOf(const Target &t);

/// Whether a device with target `t` runs `op`.
inline bool targetSupportsOp(const Target &t, const OpDef &op) {
  return targetKindOf(t).supports(op);
}
/// Whether every target kind runs `op` (no device can lack it).
bool everyTargetKindSupports(const OpDef &op);
/// Whether some target kind runs `op` (its kernel definition is needed).
bool someTargetKindSupports(const OpDef &op);
/// The kind of the first of `devices` whose target lacks `op`, or null.
const TargetKindInfo *firstKindLacking(llvm::ArrayRef<VirtualDevice> devices, const OpDef &op);

/// The default copy link between devices of targets `from` and `to`.
CopyLink defaultCopyLink(const Target &from, const Target &to);

/// The first kind whose device type is `t` (its target is Target::defaultFor
/// that type); null when no kind runs on `t`.
const TargetKindInfo *defaultKindFor(DeviceType t);
/// Whether `t` is the host's device type (isHost).
bool isHostType(DeviceType t);
/// The first kind that is not the host's (`cuda`): the device that messages,
/// help texts and generated modules name as an example of one.
const TargetKindInfo *firstNonHostKind();

//===--- Device types in messages --------------------------------------------===//

/// The table's device types, each once, in table order (the cpu first).
std::vector<DeviceType> allDeviceTypes();
/// `items` joined by ", ", with `last` before the last one: "a, b or c".
std::string joinChoices(llvm::ArrayRef<std::string> items, llvm::StringRef last = " or ");
/// The printed names of the device types: {"cpu", "cuda"}.
std::vector<std::string> deviceTypeNames();
/// What parseDeviceType accepts, for messages: "cpu, cuda, 1 or 2".
std::string deviceTypeChoices();
/// The same as a value placeholder: "cpu|cuda|N".
std::string deviceTypePlaceholder();

} // namespace hx

#endif
