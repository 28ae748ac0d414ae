//===- VerifyPlacement.h - A static check of a planned module ---*- C++ -*-===//
//
// What plan-devices promises (hx/IR/DeviceAware.h), checked on its output:
//
//  1. every edge between two devices goes through a `device_copy`: each
//     expression's own device (an on_device's, a copy's destination, a
//     variable's binding, a function's result device, a known callee's
//     result device) is the device its consumer expects, and a node shared
//     by several consumers is expected on one device by all of them;
//  2. every call's arguments live on its device (an operator call's on the
//     call's device, a known function's on its parameter devices);
//  3. no operator runs on a device whose target lacks it (argsort on cuda).
//
// Used by the differential tester (hx-smith --check) after every plan, and
// reusable by the fuzzers; `hx-opt -verify-placement` runs it as a pass.
// Violations are located errors; no recursion on the IR's depth.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TRANSFORMS_VERIFYPLACEMENT_H
#define HX_TRANSFORMS_VERIFYPLACEMENT_H

#include <memory>

namespace hx {

class DiagEngine;
class Module;
class Pass;

/// Checks a planned module; false after reporting the violations.
bool verifyPlacement(const Module &m, DiagEngine &diags);

/// `verify-placement`: verifyPlacement as a pass (it changes nothing).
std::unique_ptr<Pass> createVerifyPlacementPass();

} // namespace hx

#endif
