//===- Walk.h - Iterative traversals of expression DAGs ---------*- C++ -*-===//
#ifndef HX_IR_WALK_H
#define HX_IR_WALK_H

#include "hx/IR/Expr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <vector>

namespace hx {

/// Every expression reachable from `root` (through getOperands, so nested
/// function bodies included) once, operands before their users. Never
/// recurses: depth is limited only by memory. Uses the Walk slot (see
/// ExprNumbering). `onEdge(user, operand)`, when given, is called once per
/// edge as the walk first reaches `user` (use counts come with the walk); it
/// must not walk.
std::vector<Expr *> postOrder(Expr *root,
                              llvm::function_ref<void(Expr *, Expr *)> onEdge = nullptr);

/// Starts loading the node `ahead` places further in `order`: loops over a
/// post-order touch nodes scattered over the heap, and at a million nodes
/// each touch would otherwise wait for memory.
inline void prefetchAhead(llvm::ArrayRef<Expr *> order, size_t i, size_t ahead = 8) {
  if (i + ahead < order.size()) {
    const char *p = reinterpret_cast<const char *>(order[i + ahead]);
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
  }
}

/// Calls `fn` on each expression of postOrder(root), in that order. The order
/// is computed before the first call, so `fn` may itself walk.
void walkPostOrder(Expr *root, llvm::function_ref<void(Expr *)> fn);

/// The operator calls of a primitive function's body (fuse-ops' groups),
/// operands first, the body's root last when it is one; what is not an
/// operator call is not looked into.
std::vector<const Call *> primitiveCalls(const Function &f);

} // namespace hx

#endif
