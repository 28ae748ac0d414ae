//===- Passes.h - Factories of the passes in lib/Transforms -----*- C++ -*-===//
#ifndef HX_TRANSFORMS_PASSES_H
#define HX_TRANSFORMS_PASSES_H

#include "hx/Pass/Pass.h"
#include <memory>

namespace hx {

/// `infer-type`: a type for every expression (lib/Transforms/InferType.cpp).
std::unique_ptr<Pass> createInferTypePass();

/// `plan-devices`: a device for every expression, copies at device
/// boundaries (lib/Transforms/PlanDevices/PlanDevices.cpp).
std::unique_ptr<Pass> createPlanDevicesPass();

/// `insert-device-copies`: the copy-insertion step alone, for modules whose
/// devices are already fixed (lib/Transforms/PlanDevices/InsertDeviceCopies.cpp).
std::unique_ptr<Pass> createInsertDeviceCopiesPass();

} // namespace hx

#endif
