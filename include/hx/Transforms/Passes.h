//===- Passes.h - Factories of the passes in lib/Transforms -----*- C++ -*-===//
#ifndef HX_TRANSFORMS_PASSES_H
#define HX_TRANSFORMS_PASSES_H

#include "hx/Pass/Pass.h"
#include <memory>

namespace hx {

/// `infer-type`: a type for every expression (lib/Transforms/InferType.cpp).
std::unique_ptr<Pass> createInferTypePass();
/// infer-type as a function: false after reporting errors. `numExprs`, when
/// given, receives how many expressions it typed (a size hint for passes
/// that build per-expression tables next).
bool inferTypes(Module &m, DiagEngine &diags, size_t *numExprs = nullptr);

/// `plan-devices`: a device for every expression, copies at device
/// boundaries (lib/Transforms/PlanDevices/PlanDevices.cpp).
std::unique_ptr<Pass> createPlanDevicesPass();

/// `insert-device-copies`: the copy-insertion step alone, for modules whose
/// devices are already fixed (lib/Transforms/PlanDevices/InsertDeviceCopies.cpp).
std::unique_ptr<Pass> createInsertDeviceCopiesPass();

} // namespace hx

#endif
