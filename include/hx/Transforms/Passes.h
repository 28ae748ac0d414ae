//===- Passes.h - Factories of the passes in lib/Transforms -----*- C++ -*-===//
#ifndef HX_TRANSFORMS_PASSES_H
#define HX_TRANSFORMS_PASSES_H

#include "hx/Pass/Pass.h"
#include <memory>

namespace hx {

/// Registers every pass of lib/Transforms.
void registerAllPasses(PassRegistry &registry);

/// Registers the passes that test hx itself (PassInfo::testOnly).
void registerTestPasses(PassRegistry &registry);

/// `test-crash{mode=...}`: fails on purpose, the way a buggy pass would, to
/// exercise the tools' crash reproducers (lib/Transforms/TestCrash.cpp).
std::unique_ptr<Pass> createTestCrashPass();

/// `infer-type`: a type for every expression (lib/Transforms/InferType/).
std::unique_ptr<Pass> createInferTypePass();
/// infer-type as a function: false after reporting errors.
bool inferTypes(Module &m, DiagEngine &diags);

/// infer-type one def at a time, for a pass that works on each def right
/// after typing it, while the def's nodes are in the cache (plan-devices).
/// Call inferDef on the defs in module order, then finish(): the types and
/// diagnostics are those of inferTypes. Between calls the caller may walk and
/// rewrite the defs typed so far (not the ones still to come); a rewrite that
/// replaces a typed def's root (a Function with the same type) reports it
/// with replacedRoot.
class TypeInference {
public:
  TypeInference(Module &m, DiagEngine &diags);
  ~TypeInference();
  TypeInference(const TypeInference &) = delete;
  TypeInference &operator=(const TypeInference &) = delete;

  /// Types `d`, and first the defs without a full signature that it uses,
  /// unless already typed.
  void inferDef(const Module::Def &d);
  void replacedRoot(const Function *old, const Function *now);
  /// Whether an error was reported since construction.
  bool hadError() const;
  /// Gives every global its function's type; false if there were errors.
  bool finish();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// `simplify-inference`: batch_norm with constant statistics becomes a
/// per-channel scale and shift, dropout vanishes
/// (lib/Transforms/SimplifyInference.cpp).
std::unique_ptr<Pass> createSimplifyInferencePass();

/// `fold-scale-axis`: a constant per-channel scale after a convolution with
/// constant weights is folded into them (lib/Transforms/FoldScaleAxis.cpp).
std::unique_ptr<Pass> createFoldScaleAxisPass();

/// `fuse-ops`: operator calls grouped into `Primitive=1` functions by their
/// fusion classes, each run as one kernel (lib/Transforms/FuseOps.cpp).
std::unique_ptr<Pass> createFuseOpsPass();

/// `place`: the operator calls `--place=PATTERN=DEVICE` names wrapped in
/// on_device for that device (lib/Transforms/Place.cpp, hx/Transforms/Place.h).
std::unique_ptr<Pass> createPlacePass();

/// `plan-devices`: a device for every expression, copies at device
/// boundaries (lib/Transforms/PlanDevices/PlanDevices.cpp).
std::unique_ptr<Pass> createPlanDevicesPass();

/// `insert-device-copies`: the copy-insertion step alone, for modules whose
/// devices are already fixed (lib/Transforms/PlanDevices/InsertDeviceCopies.cpp).
std::unique_ptr<Pass> createInsertDeviceCopiesPass();

} // namespace hx

#endif
