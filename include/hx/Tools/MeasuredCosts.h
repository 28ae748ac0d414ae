//===- MeasuredCosts.h - A cost table from a profiled run -------*- C++ -*-===//
#ifndef HX_TOOLS_MEASUREDCOSTS_H
#define HX_TOOLS_MEASUREDCOSTS_H

#include "hx/Runtime/Executable.h"
#include "hx/Transforms/CostModel.h"

namespace hx {
class Module;

/// hx-run --cost-table-out: from the profiled runs of `exe` (the planned
/// module `m`), each kernel's mean seconds per operator signature and device
/// kind, and per pair of device kinds a copy link fitted to the copies'
/// (bytes, seconds): least squares of seconds = latency + bytes / bandwidth
/// when the copies have two sizes or more and the fit is positive, else the
/// mean bandwidth with no latency.
CostModel measuredCosts(const Executable &exe, const RunProfile &profile, const Module &m);

} // namespace hx

#endif
