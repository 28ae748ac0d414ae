//===- ExprNumbering.h - Dense numbers for side tables ----------*- C++ -*-===//
//
// Passes keep per-expression facts (visited, a device domain, a rewritten
// node). Keyed by address in a hash map, a million-node module makes every
// lookup a cache miss in a table that outgrows the cache. An ExprNumbering
// instead gives the expressions it sees dense numbers 0, 1, 2, ... in the
// order it first sees them, stored in one of two slots of the node itself, so
// side tables are plain vectors indexed by number and mostly read in order.
//
// The slot is a sparse set: number k is valid for `e` only if entry k of this
// numbering is `e`. Another numbering on the same slot can overwrite it; then
// lookup() reports `e` as not numbered, never as some other number. So:
//  - code that numbers expressions and runs no foreign code meanwhile (no
//    callbacks that might number the same nodes) can rely on lookup();
//  - code that runs callbacks while it needs numbers must treat a failed
//    lookup of a node it numbered as "overwritten" (see rewritePostOrder).
// The two slots (ExprSlot::Walk and ExprSlot::Analysis) let a long-lived
// analysis number nodes while traversals run inside it.
//
// Expressions a numbering has seen must stay alive while it is used (a freed
// node's address may be reused; a new node starts with slot 0, "none").
//
//===----------------------------------------------------------------------===//
#ifndef HX_IR_EXPRNUMBERING_H
#define HX_IR_EXPRNUMBERING_H

#include "hx/IR/Expr.h"
#include <cstdint>
#include <utility>
#include <vector>

namespace hx {

class ExprNumbering {
public:
  static constexpr uint32_t kNone = ~0u;

  explicit ExprNumbering(ExprSlot slot) : which(slot) {}

  /// The number of `e`, or kNone.
  uint32_t lookup(const Expr *e) const {
    uint32_t k = e->slot(which);
    return k && k <= nodes.size() && nodes[k - 1] == e ? k - 1 : kNone;
  }
  bool contains(const Expr *e) const { return lookup(e) != kNone; }

  /// The number of `e`, numbering it first if it has none; `inserted` says
  /// whether it was new.
  std::pair<uint32_t, bool> insert(const Expr *e) {
    if (uint32_t k = lookup(e); k != kNone)
      return {k, false};
    nodes.push_back(e);
    e->slot(which) = static_cast<uint32_t>(nodes.size());
    return {static_cast<uint32_t>(nodes.size() - 1), true};
  }

  /// Starts loading the entry lookup(e) will check (a hint; `e` must be
  /// alive, numbered or not).
  void prefetch(const Expr *e) const {
    if (uint32_t k = e->slot(which); k && k <= nodes.size())
      __builtin_prefetch(&nodes[k - 1]);
  }

  /// The expression numbered `k`.
  const Expr *operator[](uint32_t k) const { return nodes[k]; }
  size_t size() const { return nodes.size(); }
  void reserve(size_t n) { nodes.reserve(n); }

private:
  std::vector<const Expr *> nodes;
  ExprSlot which;
};

} // namespace hx

#endif
