//===- MaxFlow.h - s-t maximum flow and minimum cut -------------*- C++ -*-===//
//
// Boykov and Kolmogorov's algorithm ("An Experimental Comparison of
// Min-Cut/Max-Flow Algorithms for Energy Minimization in Vision", 2004):
// two search trees, one grown from the source and one from the sink over
// residual arcs; where they touch there is an augmenting path; the arcs an
// augmentation saturates cut subtrees off, and those nodes look for a new
// parent in their own tree before they are freed. The trees survive every
// augmentation, so no phase searches the whole graph again. That is what
// placement graphs need: chains a million nodes long with terminal arcs
// scattered along them, where Dinic's breadth-first phases each walked a
// whole component (1.1 s on the 1M-line bench module, against 0.3 s here).
// Its worst-case bound (O(V^2 E |C|), |C| the cut's cost) is weaker than
// Dinic's; on these graphs it is near-linear (--placement-report prints the
// augmentations and orphans). Everything is iterative (no recursion on path
// length).
//
// Arcs to and from the terminals become one residual capacity per node
// (source minus sink; the common part is flow already); the other arcs are
// laid out by tail before the search, an arc followed by its exact reverse
// sharing one residual pair with it. Capacities are 64-bit integers;
// kInfinite marks arcs a cut may never cross, and sums saturate there.
//
// After run(), sinkSide() is the *smallest* sink side among all minimum cuts
// (the sink's tree: the nodes that still reach the sink through residual
// arcs): a caller that reads "sink side" as "change" changes as little as
// any optimum allows, so ties keep what is.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_MAXFLOW_H
#define HX_SUPPORT_MAXFLOW_H

#include "hx/Support/LargeVector.h"
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hx {

class MaxFlow {
public:
  using Cap = int64_t;
  /// An arc no finite cut crosses. Sums of a few of them still fit.
  static constexpr Cap kInfinite = Cap(1) << 60;

  /// Its arrays come from `recycler` when not null (LargeVector.h).
  explicit MaxFlow(unsigned numNodes = 0, PageRecycler *recycler = nullptr)
      : nodes(numNodes), input(HugePageAllocator<InputArc>(recycler)),
        node(HugePageAllocator<Node>(recycler)), arc(HugePageAllocator<Arc>(recycler)) {}

  unsigned addNode() { return nodes++; }
  /// Room for this many arcs in all (a hint: fewer reallocations).
  void reserveArcs(size_t n) { input.reserve(n); }
  /// An arc `from` -> `to` (capacity `cap` >= 0); parallel arcs are fine.
  void addArc(unsigned from, unsigned to, Cap cap);

  /// The maximum flow from `s` to `t` (at most kInfinite). Once per graph.
  Cap run(unsigned s, unsigned t);

  /// After run(): whether each node still reaches `t` by residual arcs, the
  /// smallest sink side of a minimum cut.
  std::vector<bool> sinkSide(unsigned t) const;

  unsigned numNodes() const { return nodes; }
  unsigned numArcs() const { return arcs; }
  /// Of the last run: augmenting paths, and nodes cut off their tree by a
  /// saturated arc (orphans), the work of repairing the trees.
  uint64_t augmentations = 0, orphans = 0;

private:
  struct InputArc {
    uint32_t from, to;
    Cap cap;
  };
  enum Tree : uint8_t { Free, Source, Sink };
  /// Node u's arcs are node[u].first .. node[u+1].first-1 (none to or from
  /// s and t); arc a goes to arc[a].head with residual capacity arc[a].cap,
  /// and arc[a].rev is its reverse. node[u].term is the residual capacity
  /// from s (> 0) or to t (< 0). One record per node and per arc: the search
  /// jumps around a graph of millions, and each jump costs one cache miss.
  void build(unsigned s, unsigned t);
  /// Grows the trees from the active nodes until they touch: the arc from
  /// the source's tree to the sink's, or UINT32_MAX when no path is left.
  uint32_t grow();
  /// Pushes the path through `middle`; returns the amount (kInfinite: the
  /// path is uncuttable) and leaves the nodes it cut off in `orphanQueue`.
  Cap augment(uint32_t middle);
  void adopt();
  void activate(uint32_t u);
  /// Whether u's path to its root is intact (it reaches a terminal, not an
  /// orphan); `depth` is its distance from the root when it is.
  bool rooted(uint32_t u, uint32_t &depth);

  struct Arc {
    uint32_t head, rev;
    Cap cap;
  };
  struct Node {
    uint32_t first;
    /// The arc to its parent in its tree (from this node), when in one.
    uint32_t parent;
    /// When (the augmentation's number) `dist`, its distance to its root,
    /// was last known to be right.
    uint32_t stamp, dist;
    Cap term;
    Tree tree;
    uint8_t active;
  };

  unsigned nodes;
  unsigned arcs = 0;
  LargeVector<InputArc> input;
  LargeVector<Node> node; // nodes + 1: the last one only ends the arcs
  LargeVector<Arc> arc;
  std::vector<uint32_t> activeQueue, orphanQueue;
  size_t activeHead = 0;
  uint32_t time = 0;
  /// Flow that needs no search: s -> t arcs, and s -> u -> t through one node.
  Cap directFlow = 0;
};

} // namespace hx

#endif
