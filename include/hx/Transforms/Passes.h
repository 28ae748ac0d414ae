//===- Passes.h - Factories of the passes in lib/Transforms -----*- C++ -*-===//
#ifndef HX_TRANSFORMS_PASSES_H
#define HX_TRANSFORMS_PASSES_H

#include "hx/Pass/Pass.h"
#include <memory>

namespace hx {

/// `infer-type`: a type for every expression (lib/Transforms/InferType.cpp).
std::unique_ptr<Pass> createInferTypePass();

} // namespace hx

#endif
