//===- Walk.cpp - Iterative traversals ------------------------------------===//
//
// The visited set is an ExprNumbering on the Walk slot: entering a node gives
// it the next number, so "seen?" is one load from the node and one from a
// vector that grows in visit order, never a hash of its address.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/Walk.h"
#include "hx/IR/ExprNumbering.h"
#include "llvm/ADT/DenseSet.h"

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

std::vector<const Call *> hx::primitiveCalls(const Function &f) {
  std::vector<const Call *> out;
  llvm::SmallVector<std::pair<const Expr *, bool>, 16> stack{{f.body.get(), false}};
  llvm::DenseSet<const Expr *> seen;
  while (!stack.empty()) {
    auto [e, expanded] = stack.pop_back_val();
    const auto *c = llvm::dyn_cast<Call>(e);
    if (expanded) {
      out.push_back(c);
      continue;
    }
    if (!c || !c->getOp() || !seen.insert(e).second)
      continue;
    stack.push_back({e, true});
    for (auto it = c->args.rbegin(); it != c->args.rend(); ++it)
      stack.push_back({it->get(), false});
  }
  return out;
}
