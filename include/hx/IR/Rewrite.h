//===- Rewrite.h - Rebuilding expression DAGs bottom-up ---------*- C++ -*-===//
#ifndef HX_IR_REWRITE_H
#define HX_IR_REWRITE_H

#include "hx/IR/Expr.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace hx {

/// A copy of `e` whose operands (in getOperands order) are `ops`, with `e`'s
/// location, attributes and checked type; `e` itself when nothing changed.
ExprRef withOperands(Expr *e, llvm::ArrayRef<ExprRef> ops);

/// Rebuilds the DAG under `root` bottom-up without recursion. `fn` gets each
/// node once, operands first, with its operands already rewritten, and
/// returns its replacement (often `withOperands(old, ops)`). Returns the
/// replacement of `root`.
ExprRef rewritePostOrder(Expr *root,
                         llvm::function_ref<ExprRef(Expr *old, llvm::ArrayRef<ExprRef> ops)> fn);

} // namespace hx

#endif
