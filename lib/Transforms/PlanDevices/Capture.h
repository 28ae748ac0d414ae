//===- Capture.h - Writing a device placement back into the IR --*- C++ -*-===//
#ifndef HX_LIB_TRANSFORMS_PLANDEVICES_CAPTURE_H
#define HX_LIB_TRANSFORMS_PLANDEVICES_CAPTURE_H

#include "DeviceAnalysis.h"

namespace hx {

/// Phase 1 of PlanDevices, on one def whose postOrder() is `order`:
/// on_device(e, D).i becomes on_device(e.i, D); a normal on_device that is
/// let-bound or a whole function body becomes fixed. `order` is stale after.
void rewriteOnDevices(Module::Def &d, llvm::ArrayRef<Expr *> order);

/// Phase 4 of PlanDevices, on one def whose devices are final (see
/// DeviceAnalysis::solve): every parameter and function gets its device, user
/// on_devices are removed, let-bound values are wrapped in a fixed on_device,
/// and a device_copy is inserted on every edge whose two ends are on
/// different devices: one copy per value and destination device, shared by
/// all its consumers there. With `replicateCheap`, constants and calls of
/// constants are recomputed on the destination instead of copied. With
/// `keepPins` (a cost strategy), a user's on_device that needs no copy stays
/// as a fixed one instead of being dropped.
void captureDef(Module &m, Module::Def &d, DeviceAnalysis &analysis, bool replicateCheap,
                bool keepPins = false);

/// What plan-devices and insert-device-copies share: types, (when planning)
/// the on_device rewrite, the analysis and the capture. Planning defaults
/// unconstrained expressions and moves operators cuda lacks to the cpu; the
/// copy-insertion step alone does neither. Returns false after diagnostics.
/// `costs`: what min-time minimizes (null: the roofline). With `estimate`,
/// the placement is only solved, not written back: `estimate` gets what it
/// costs and `stats` what the cut solved (the IR keeps its types and the
/// on_device rewrite, which planning does anyway).
bool placeDevices(Module &m, PassContext &ctx, const PlacementOptions &options, bool plan,
                  const CostModel *costs = nullptr, PlacementCost *estimate = nullptr,
                  PlacementStats *stats = nullptr);

} // namespace hx

#endif
