//===- Walk.h - Iterative traversals of expression DAGs ---------*- C++ -*-===//
#ifndef HX_IR_WALK_H
#define HX_IR_WALK_H

#include "hx/IR/Expr.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace hx {

/// Calls `fn` once for every expression reachable from `root` (through
/// getOperands, so nested function bodies included), operands before their
/// users. Never recurses: depth is limited only by memory.
void walkPostOrder(Expr *root, llvm::function_ref<void(Expr *)> fn);

} // namespace hx

#endif
