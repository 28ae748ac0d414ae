//===- Walk.cpp - Iterative traversals ------------------------------------===//
#include "hx/IR/Walk.h"
#include "llvm/ADT/DenseSet.h"

using namespace hx;
using namespace llvm;

void hx::walkPostOrder(Expr *root, function_ref<void(Expr *)> fn) {
  DenseSet<Expr *> seen;
  // (node, operands pushed?)
  SmallVector<std::pair<Expr *, bool>, 64> stack;
  SmallVector<Expr *, 8> ops;
  stack.push_back({root, false});
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    if (expanded) {
      stack.pop_back();
      fn(e);
      continue;
    }
    if (!seen.insert(e).second) {
      stack.pop_back();
      continue;
    }
    stack.back().second = true;
    ops.clear();
    getOperands(e, ops);
    for (auto it = ops.rbegin(); it != ops.rend(); ++it)
      if (*it && !seen.count(*it))
        stack.push_back({*it, false});
  }
}
