//===- Passes.cpp - Registration of every pass ----------------------------===//
#include "hx/Transforms/Passes.h"

using namespace hx;

void hx::registerAllPasses(PassRegistry &registry) {
  registry.add("infer-type", "Infer and check the type of every expression", createInferTypePass);
  registry.add("plan-devices",
               "Give every expression a device and insert device_copy at device boundaries",
               createPlanDevicesPass);
  registry.add("insert-device-copies",
               "Insert device_copy where fixed devices differ (no planning, no defaults)",
               createInsertDeviceCopiesPass);
}
