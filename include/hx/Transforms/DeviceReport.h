//===- DeviceReport.h - Showing where things run ----------------*- C++ -*-===//
#ifndef HX_TRANSFORMS_DEVICEREPORT_H
#define HX_TRANSFORMS_DEVICEREPORT_H

#include "hx/IR/Module.h"
#include "hx/Support/Diagnostics.h"
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace hx {

/// One operator call of a planned module, as the placement report and the
/// Python API's placement() show it.
struct PlacedCall {
  std::string function; ///< "main"
  std::string op;       ///< hx's operator, "nn.conv2d"
  std::string device;   ///< the virtual device's short name, "cuda"
  llvm::SMLoc loc;
  std::string where; ///< "12:5" in the source ("?" if none)
  /// The framework node the call came from (hx/Support/SourceNames.h):
  /// "/layer1/0/conv1/Conv" and "Conv"; empty for hand-written text.
  std::string node, nodeOpType;
  /// The node's framework, "onnx" (empty with the node).
  std::string framework;
  /// Why the cpu runs it when another device was asked for ("" if it does
  /// not fall back): "no cuda implementation".
  std::string fallback;
  /// The index of `device` in the module's table (kNoDevice if unknown).
  DeviceIndex deviceIndex = kNoDevice;
  /// Position in the module's walk, shared with the copies: the report
  /// interleaves calls and copies by it.
  unsigned order = 0;
};

/// One device_copy: what it copies, between which devices, how many bytes.
struct PlacedCopy {
  std::string function;
  std::string what; ///< "%b", "nn.relu at 7:8 (/relu/Relu)"
  std::string from, to;
  uint64_t bytes = 0;
  /// `from` and `to` as indices into the module's table.
  DeviceIndex fromIndex = kNoDevice, toIndex = kNoDevice;
  unsigned order = 0; ///< as PlacedCall::order
};

/// One definition: its result device and its parameters' devices.
struct PlacedFunction {
  std::string name; ///< "main"
  std::string resultDevice;
  /// Each parameter's name (without '%') and device, in order.
  std::vector<std::pair<std::string, std::string>> params;
};

/// What one virtual device does (or the copies between devices): calls,
/// the bytes of their results, and the time the roofline cost model
/// (hx/Transforms/CostModel.h, what --placement=min-time minimizes without
/// a cost table) estimates for them.
struct PlacedTotals {
  std::string device; ///< "cuda"; "copies" for the copies
  unsigned calls = 0;
  uint64_t bytes = 0;
  double seconds = 0;
};

struct PlacementData {
  std::vector<PlacedCall> calls;
  std::vector<PlacedCopy> copies;
  /// Per virtual device that runs a call, in device order; then the copies.
  std::vector<PlacedTotals> devices;
  PlacedTotals copyTotals;
  /// The module's defs in module order; calls and copies follow the same
  /// order (each def's in program order).
  std::vector<PlacedFunction> functions;
};

/// The placement of a planned module as data, in program order (typing it
/// first if needed); false after a diagnostic.
bool collectPlacement(Module &m, DiagEngine &diags, PlacementData &out);

/// A per-device summary (PlacementData::devices); then per function: each
/// operator call's device (and whether it fell back to the
/// cpu) and the framework node it came from, each device_copy with its
/// source, destination and bytes, and the bytes copied per device pair; then
/// module totals. Prints what collectPlacement reads.
bool printPlacementReport(llvm::raw_ostream &os, Module &m, DiagEngine &diags);

/// A Graphviz digraph of the dataflow: nodes filled by device, copies drawn
/// as bold dashed red edges labelled with their bytes.
bool printDeviceGraph(llvm::raw_ostream &os, Module &m, DiagEngine &diags);

} // namespace hx

#endif
