//===- Walk.cpp - Iterative traversals ------------------------------------===//
//
// The visited set is an ExprNumbering on the Walk slot: entering a node gives
// it the next number, so "seen?" is one load from the node and one from a
// vector that grows in visit order, never a hash of its address.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/Walk.h"
#include "hx/IR/ExprNumbering.h"

using namespace hx;
using namespace llvm;

std::vector<Expr *> hx::postOrder(Expr *root, function_ref<void(Expr *, Expr *)> onEdge) {
  std::vector<Expr *> order;
  ExprNumbering entered(ExprSlot::Walk);
  // (node, operands pushed?)
  SmallVector<std::pair<Expr *, bool>, 64> stack;
  SmallVector<Expr *, 8> ops;
  stack.push_back({root, false});
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    if (expanded) {
      stack.pop_back();
      order.push_back(e);
      continue;
    }
    if (!entered.insert(e).second) {
      stack.pop_back();
      continue;
    }
    stack.back().second = true;
    ops.clear();
    getOperands(e, ops);
    if (onEdge)
      for (Expr *o : ops)
        if (o)
          onEdge(e, o);
    // Operands are checked when popped; meanwhile their loads are under way
    // (a walk over a million nodes is bound by memory latency).
    for (auto it = ops.rbegin(); it != ops.rend(); ++it)
      if (*it) {
        __builtin_prefetch(*it);
        stack.push_back({*it, false});
      }
  }
  return order;
}

void hx::walkPostOrder(Expr *root, function_ref<void(Expr *)> fn) {
  std::vector<Expr *> order = postOrder(root);
  for (size_t i = 0; i < order.size(); ++i) {
    prefetchAhead(order, i);
    fn(order[i]);
  }
}
