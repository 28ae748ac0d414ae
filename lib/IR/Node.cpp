//===- Node.cpp - Iterative release of reference-counted nodes -----------===//
#include "hx/IR/Node.h"

using namespace hx;

void Node::release(const Node *n) {
  if (!n->releaseNoDelete())
    return;
  // Delete `n` and every child it was the last owner of, without recursion:
  // each node moves its child references to the worklist before it dies.
  NodeWorklist dead;
  dead.push_back(const_cast<Node *>(n));
  while (!dead.empty()) {
    Node *cur = dead.back();
    dead.pop_back();
    cur->dropChildren(dead);
    delete cur;
  }
}
