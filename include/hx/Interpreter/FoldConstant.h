//===- FoldConstant.h - Constant folding by the reference interpreter -*- C++ -*-===//
#ifndef HX_INTERPRETER_FOLDCONSTANT_H
#define HX_INTERPRETER_FOLDCONSTANT_H

#include "hx/Pass/Pass.h"
#include <memory>

namespace hx {

/// `fold-constant`: every operator call whose operands are all constants
/// becomes the constant the interpreter computes for it
/// (lib/Interpreter/FoldConstant.cpp).
std::unique_ptr<Pass> createFoldConstantPass();

/// Registers the passes of lib/Interpreter (fold-constant).
void registerInterpreterPasses(PassRegistry &registry);

} // namespace hx

#endif
