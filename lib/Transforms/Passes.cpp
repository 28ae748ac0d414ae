//===- Passes.cpp - Registration of every pass ----------------------------===//
//
// Each pass names and describes itself (getArgument, getDescription); the
// registry asks a probe instance once, so the text lives in one place.
//
//===----------------------------------------------------------------------===//
#include "hx/Transforms/Passes.h"
#include "hx/Transforms/VerifyPlacement.h"

using namespace hx;

void hx::registerAllPasses(PassRegistry &registry) {
  for (auto create : {createInferTypePass, createPlacePass, createPlanDevicesPass,
                      createInsertDeviceCopiesPass, createVerifyPlacementPass,
                      createSimplifyInferencePass, createFoldScaleAxisPass, createFuseOpsPass}) {
    std::unique_ptr<Pass> probe = create();
    registry.add(probe->getArgument(), probe->getDescription(), create);
  }
}

void hx::registerTestPasses(PassRegistry &registry) {
  std::unique_ptr<Pass> probe = createTestCrashPass();
  registry.add(probe->getArgument(), probe->getDescription(), createTestCrashPass,
               /*testOnly=*/true);
}
