//===- UnionFind.h - The root of a union-find set ----------------*- C++ -*-===//
//
// plan-devices' device domains and InferType's type variables are
// union-find forests whose links live in their own node records. findRoot
// walks one: up to the root (the node that is its own parent), then along
// the same path again pointing every node straight at the root (path
// compression), without recursion.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_UNIONFIND_H
#define HX_SUPPORT_UNIONFIND_H

namespace hx {

/// The root of x's set; `parent(i)` returns node i's parent link by
/// reference.
template <typename Id, typename ParentOf> Id findRoot(Id x, ParentOf parent) {
  Id root = x;
  while (parent(root) != root)
    root = parent(root);
  while (parent(x) != root) {
    Id next = parent(x);
    parent(x) = root;
    x = next;
  }
  return root;
}

} // namespace hx

#endif
