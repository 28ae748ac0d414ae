//===- Place.h - Putting chosen operator calls on chosen devices -*- C++ -*-===//
//
// `--place=PATTERN=DEVICE,...` names operator calls by hx's operator, by the
// operator type or the name of the framework node they came from
// (hx/Support/SourceNames.h), and puts them on a device by wrapping
// them in `on_device` before plan-devices runs (lib/Transforms/Place.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TRANSFORMS_PLACE_H
#define HX_TRANSFORMS_PLACE_H

#include "hx/IR/Module.h"
#include "hx/Support/Diagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hx {

/// One `PATTERN=DEVICE` rule.
struct PlaceRule {
  /// The rule as written, for messages: "Softmax=cpu".
  std::string text;
  /// "nn.softmax", "Softmax" or a glob over node names, "/layer4/*".
  std::string pattern;
  DeviceType deviceType = DeviceType::CPU;
  /// `cuda:1`: the virtual device id; none for a bare device type.
  std::optional<int64_t> virtualDeviceId;
};

/// The value placeholder and the description the `place` option has in every
/// pass that declares it (place, plan-devices).
inline constexpr llvm::StringLiteral kPlaceValueName = "PATTERN=DEVICE,...";
/// "Put the operator calls that PATTERN names on DEVICE (cpu, cuda, cuda:1):
/// ...", the devices those of the target-kind table.
std::string placeDescription();

/// Parses `PATTERN=DEVICE[,PATTERN=DEVICE]...` (each rule split at its last
/// '='), replacing `rules`. An empty text gives no rules. On a missing '=',
/// an empty pattern or rule, an invalid glob or an unknown device, sets
/// `error` and returns false.
bool parsePlaceRules(llvm::StringRef text, std::vector<PlaceRule> &rules, std::string &error);

/// What one rule placed: the calls it put on its device (or found there
/// already), and that device (kNoDevice when none).
struct PlacedByRule {
  unsigned calls = 0;
  DeviceIndex device = kNoDevice;
};

/// Wraps every operator call a rule matches (the last matching rule wins) in
/// `on_device(call, virtual_device=D)`, D the rule's device in `m`'s table
/// (appended when absent). Calls already under an on_device, device
/// annotations themselves and the bodies of primitive functions are left
/// alone. Warns about a rule that matches no call and about a matched call
/// annotated for another device. Idempotent and deterministic. Returns what
/// each rule placed.
std::vector<PlacedByRule> placeCalls(Module &m, llvm::ArrayRef<PlaceRule> rules, DiagEngine &diags);

} // namespace hx

#endif
