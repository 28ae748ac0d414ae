//===- DeviceReport.h - Showing where things run ----------------*- C++ -*-===//
#ifndef HX_TRANSFORMS_DEVICEREPORT_H
#define HX_TRANSFORMS_DEVICEREPORT_H

#include "hx/IR/Module.h"
#include "hx/Support/Diagnostics.h"

namespace llvm {
class raw_ostream;
}

namespace hx {

/// Per function: each operator call's device (and whether it fell back to the
/// cpu), each device_copy with its source, destination and bytes, and the
/// bytes copied per device pair; then module totals. Reads the placement of a
/// planned module (hx/IR/DeviceAware.h), typing it first if needed.
bool printPlacementReport(llvm::raw_ostream &os, Module &m, DiagEngine &diags);

/// A Graphviz digraph of the dataflow: nodes filled by device, copies drawn
/// as bold dashed red edges labelled with their bytes.
bool printDeviceGraph(llvm::raw_ostream &os, Module &m, DiagEngine &diags);

} // namespace hx

#endif
