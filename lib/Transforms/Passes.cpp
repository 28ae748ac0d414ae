//===- Passes.cpp - Registration of every pass ----------------------------===//
#include "hx/Transforms/Passes.h"

using namespace hx;

void hx::registerAllPasses(PassRegistry &registry) {
  registry.add("infer-type", "Infer and check the type of every expression",
               createInferTypePass);
}
