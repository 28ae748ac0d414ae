//===- InsertDeviceCopies.cpp - Copies on a module whose devices are fixed ===//
//
// insert-device-copies is PlanDevices' capture step on its own: for a module
// whose devices are already fixed (every parameter and function result has a
// device, or every call sits under a fixed on_device), it checks that the
// devices determine every expression's place (anything left open is an error:
// nothing is defaulted) and inserts a device_copy on every edge that crosses
// devices, one per value and destination device.
//
//   def @main(%x {cpu}, virtual_device=cuda) {
//     %0 = on_device(negative(%x), cpu, fixed);
//     exp(%0)
//   }
//
//   ==>
//
//   def @main(%x {cpu}, virtual_device=cuda) {
//     %0 = negative(%x);
//     %1 = on_device(%0, cpu, constrain_result=True);
//     %2 = device_copy(%1, cpu, cuda);
//     exp(%2)
//   }
//
// Idempotent; linear in the module.
//
//===----------------------------------------------------------------------===//
#include "Capture.h"
#include "DeviceAnalysis.h"
#include "hx/Transforms/Passes.h"

using namespace hx;
using namespace llvm;

namespace {
class InsertDeviceCopiesPass : public PlacementPass {
public:
  InsertDeviceCopiesPass() : PlacementPass(/*planning=*/false) {}
  StringRef getArgument() const override { return "insert-device-copies"; }
  StringRef getDescription() const override {
    return "Insert device_copy where fixed devices differ (no planning, no defaults)";
  }

  bool run(Module &m, PassContext &ctx) override {
    return placeDevices(m, ctx, options, /*plan=*/false);
  }
};
} // namespace

std::unique_ptr<Pass> hx::createInsertDeviceCopiesPass() {
  return std::make_unique<InsertDeviceCopiesPass>();
}
