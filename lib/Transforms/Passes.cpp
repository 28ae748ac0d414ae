//===- Passes.cpp - Registration of every pass ----------------------------===//
#include "hx/Transforms/Passes.h"

using namespace hx;

void hx::registerAllPasses(PassRegistry &registry) {
  (void)registry; // TEMP until InferType.cpp lands
}
