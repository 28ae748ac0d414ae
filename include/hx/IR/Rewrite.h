//===- Rewrite.h - Rebuilding expression DAGs bottom-up ---------*- C++ -*-===//
#ifndef HX_IR_REWRITE_H
#define HX_IR_REWRITE_H

#include "hx/IR/Expr.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <vector>

namespace hx {

/// A copy of `e` whose operands (in getOperands order) are `ops`, with `e`'s
/// location, attributes and checked type; `e` itself when nothing changed.
ExprRef withOperands(Expr *e, llvm::ArrayRef<ExprRef> ops);

/// withOperands for rewrites that replace the old DAG (rewritePostOrder
/// callbacks): when `e` has a single owner (its one user, which is rebuilt
/// too), `e` itself is changed and returned, so neither it nor its users are
/// copied. Never use it on a node that something else still needs unchanged
/// through a plain pointer.
ExprRef replaceOperands(Expr *e, llvm::ArrayRef<ExprRef> ops);

/// Gives `e` the operands `ops` (getOperands order) in place, whoever owns
/// it: for rewrites that know every owner of `e` sees the change as meant
/// (all its users are in the DAG being rewritten). Atomic nodes are unchanged.
void setOperands(Expr *e, llvm::ArrayRef<ExprRef> ops);

/// Rebuilds the DAG under `root` bottom-up without recursion. `fn` gets each
/// node once, operands first, with its operands already rewritten, and
/// returns its replacement (often `withOperands(old, ops)`). Returns the
/// replacement of `root`.
ExprRef rewritePostOrder(Expr *root,
                         llvm::function_ref<ExprRef(Expr *old, llvm::ArrayRef<ExprRef> ops)> fn);

/// rewritePostOrder over an order computed before (postOrder(root), root
/// last; the DAG unchanged since): one sequential, prefetched pass instead of
/// a walk that chases pointers.
ExprRef rewriteInOrder(llvm::ArrayRef<Expr *> order,
                       llvm::function_ref<ExprRef(Expr *old, llvm::ArrayRef<ExprRef> ops)> fn);

} // namespace hx

#endif
