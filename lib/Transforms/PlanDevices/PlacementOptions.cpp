//===- PlacementOptions.cpp - The options of the placement passes --------===//
//
// plan-devices and insert-device-copies read the same options
// (PlacementOptions, declared by PlacementPass: insert-device-copies only
// default-device and strict-placement; plan-devices also the place pass's
// rules, hx/Transforms/Place.h), and resolveDeviceOptions turns them,
// with the module's PassConfig and devices, into DeviceAnalysisOptions: the
// default device by TVM's CompilationConfig rule, and whether a cpu device
// is needed for operators another device's target lacks.
//
//===----------------------------------------------------------------------===//
#include "DeviceAnalysis.h"
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/StringExtras.h"

using namespace hx;
using namespace llvm;

PlacementPass::PlacementPass(bool planning) {
  addOption("default-device", deviceTypePlaceholder(),
            "The device for unconstrained expressions: " + join(deviceTypeNames(), ", ") +
                " or a DLPack number (overrides the module's PassConfig)",
            [this](StringRef v, std::string &error) {
              options.defaultDevice = parseDeviceType(v);
              if (!options.defaultDevice)
                error = ("unknown device '" + v + "' (expected " + deviceTypeChoices() + ")").str();
              return options.defaultDevice.has_value();
            });
  addFlag("strict-placement",
          "An operator the device's target lacks is an error instead of a cpu fallback",
          options.strictPlacement);
  if (!planning)
    return;
  addFlag("replicate-cheap",
          "Recompute constants and calls of constants on each device instead of copying them",
          options.replicateCheap);
  addFlag("placement-report", "Print each call's device and each copy with its bytes to stderr",
          options.placementReport);
  addOption(
      "placement", "default|min-copy|min-time",
      "Where unconstrained expressions go: TVM's rule (default), the fewest bytes copied "
      "(min-copy) or the least estimated time (min-time)",
      [this](StringRef v, std::string &error) {
        if (v == "default")
          options.placement = PlacementStrategy::Default;
        else if (v == "min-copy")
          options.placement = PlacementStrategy::MinCopy;
        else if (v == "min-time")
          options.placement = PlacementStrategy::MinTime;
        else {
          error = ("unknown placement '" + v + "' (expected default, min-copy or min-time)").str();
          return false;
        }
        return true;
      });
  addOption("cost-table", "FILE",
            "Measured costs for --placement=min-time (hx-run --profile --cost-table-out=FILE)",
            [this](StringRef v, std::string &) {
              options.costTable = v.str();
              return true;
            });
  addOption("verify-optimal-placement", "N",
            "(testing) check the cost-based placement against every placement of up to N free "
            "classes",
            [this](StringRef v, std::string &error) {
              if (v.getAsInteger(10, options.verifyOptimal) || options.verifyOptimal > 24) {
                error = ("expected a number of classes up to 24, not '" + v + "'").str();
                return false;
              }
              return true;
            });
  addOption("force-placement", "DIGITS",
            "(testing) put the free classes of --placement=min-copy|min-time on these devices, "
            "one digit per class in canonical order, instead of cutting",
            [this](StringRef v, std::string &error) {
              if (v.empty() || v.find_first_not_of("0123456789") != StringRef::npos) {
                error = ("expected one device digit per free class, not '" + v + "'").str();
                return false;
              }
              options.forcedPlacement = v.str();
              return true;
            });
  addListOption(
      "place", kPlaceValueName, placeDescription(),
      [this](StringRef v, std::string &error) { return parsePlaceRules(v, options.place, error); });
}

void hx::resolveDeviceOptions(Module &m, const PlacementOptions &o, DeviceAnalysisOptions &out,
                              bool fallback) {
  std::optional<DeviceType> type = o.defaultDevice;
  if (!type && m.fallbackDeviceType) {
    type = m.fallbackDeviceType;
  } else if (!type) {
    // TVM's CompilationConfig: the only device type in use, else the cpu.
    for (const VirtualDevice &d : m.devices) {
      if (!type)
        type = d.deviceType;
      else if (*type != d.deviceType) {
        type = DeviceType::CPU;
        break;
      }
    }
    if (!type)
      type = DeviceType::CPU;
  }
  out.defaultDevice = m.deviceForType(*type);
  out.strictPlacement = o.strictPlacement;
  out.placement = o.placement;
  out.verifyOptimal = o.verifyOptimal;
  out.forcedPlacement = o.forcedPlacement;
  // A cpu device for operators a device's target kind lacks, added only when
  // one is needed.
  bool anyLacking = llvm::any_of(
      m.devices, [](const VirtualDevice &d) { return !targetKindOf(d.target).isHost(); });
  out.cpuFallback = fallback && anyLacking && !o.strictPlacement;
}
