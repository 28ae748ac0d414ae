//===- DeviceAware.h - Reading the devices of a planned module --*- C++ -*-===//
//
// plan-devices writes its answer into the IR; this header is the contract
// that later passes (the placement report, the Graphviz view, lowering and
// the runtime) rely on, as TVM's device_aware_visitors.h is for its passes.
// A planned module says where every expression lives by these rules alone:
//
//  1. Every def and every fn literal has a result device
//     (`virtual_device=...`) and every parameter a device; a function's body
//     lives on its result device, and a function value lives there too.
//  2. `on_device(e, virtual_device=D, constrain_result=True)`: it and `e`
//     live on D.
//  3. `device_copy(e, src_virtual_device=S, dst_virtual_device=T)`: `e` lives
//     on S, the copy on T. Every edge between two devices goes through one.
//  4. `let %x = v; b`: %x and v live where v says (rule 2 or 3, a variable's
//     device, a function's result device), `b` and the let where the let's
//     consumer expects.
//  5. The arguments of a call of a function known at compile time (a global,
//     a fn literal, a let-bound fn) live on that function's parameter
//     devices; any other call's arguments live on the call's device.
//  6. Everything else — an operator call's arguments, tuple fields, the
//     tuple of a projection, an if's condition and branches, a let's body —
//     lives where its consumer expects it.
//  7. A variable lives where its binding puts it (rules 1 and 4).
//
// readPlannedDevices applies these rules top down, iteratively (no recursion
// on depth), in linear time, and reports a module that is not planned
// (a parameter or function without a device) as a located error.
//
//===----------------------------------------------------------------------===//
#ifndef HX_IR_DEVICEAWARE_H
#define HX_IR_DEVICEAWARE_H

#include "hx/IR/Module.h"
#include "hx/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"

namespace hx {

/// The device of every expression of a planned module.
class PlannedDevices {
public:
  /// The device of a value (of a function value: its result device);
  /// kNoDevice for globals and operators.
  DeviceIndex deviceOf(const Expr *e) const {
    auto it = devices.find(e);
    return it == devices.end() ? kNoDevice : it->second;
  }
  /// The device of a parameter or let-bound variable.
  DeviceIndex varDevice(const Var *v) const { return deviceOf(v); }
  /// The function a call calls when it is known at compile time (a global's
  /// def, a fn literal, a let-bound fn), else null.
  const Function *knownCallee(const Call &c) const;

private:
  friend bool readPlannedDevices(const Module &m, DiagEngine &diags, PlannedDevices &out,
                                 llvm::StringRef who);
  const Module *mod = nullptr;
  llvm::DenseMap<const Expr *, DeviceIndex> devices;
  llvm::DenseMap<const Var *, const Function *> letFunctions;
};

/// Reads the devices of `m` by the rules above. A parameter or function
/// without a device is an error at it ("<who> needs a planned module: ...
/// (run -plan-devices first)"); returns false then.
bool readPlannedDevices(const Module &m, DiagEngine &diags, PlannedDevices &out,
                        llvm::StringRef who);

} // namespace hx

#endif
