//===- MaxFlow.h - s-t maximum flow and minimum cut -------------*- C++ -*-===//
//
// Dinic's algorithm: breadth-first levels from the source (stopping at the
// sink's level), then blocking flows along level-increasing arcs with a
// current-arc pointer per node, all iterative (no recursion on path length:
// placement graphs are chains a million nodes long). Arcs are laid out by
// tail before the first search. Capacities are 64-bit integers; kInfinite
// marks arcs a cut may never cross, and sums saturate there.
//
// After run(), sinkSide() is the *smallest* sink side among all minimum cuts
// (the nodes that still reach the sink through residual arcs): a caller that
// reads "sink side" as "change" changes as little as any optimum allows, so
// ties keep what is.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_MAXFLOW_H
#define HX_SUPPORT_MAXFLOW_H

#include <cstdint>
#include <vector>

namespace hx {

class MaxFlow {
public:
  using Cap = int64_t;
  /// An arc no finite cut crosses. Sums of a few of them still fit.
  static constexpr Cap kInfinite = Cap(1) << 60;

  explicit MaxFlow(unsigned numNodes = 0) : nodes(numNodes) {}

  unsigned addNode() { return nodes++; }
  /// An arc `from` -> `to` (capacity `cap` >= 0); parallel arcs are fine.
  void addArc(unsigned from, unsigned to, Cap cap);

  /// The maximum flow from `s` to `t` (at most kInfinite).
  Cap run(unsigned s, unsigned t);

  /// After run(): whether each node still reaches `t` by residual arcs, the
  /// smallest sink side of a minimum cut.
  std::vector<bool> sinkSide(unsigned t) const;

  unsigned numNodes() const { return nodes; }
  unsigned numArcs() const { return arcs; }
  /// Augmenting paths found by the last run, and its breadth-first phases.
  uint64_t augmentations = 0;
  unsigned phases = 0;

private:
  struct InputArc {
    uint32_t from, to;
    Cap cap;
  };
  /// Lays the arcs out by tail (both directions), so that a node's arcs are
  /// contiguous: the searches then read memory in order.
  void build();
  bool levels(unsigned s, unsigned t);
  Cap blockingFlow(unsigned s, unsigned t);

  unsigned nodes;
  unsigned arcs = 0;
  std::vector<InputArc> input;
  // After build(): node u's arcs are first[u] .. first[u+1]-1; arc a goes to
  // head[a] with residual capacity cap[a], and rev[a] is its reverse.
  std::vector<uint32_t> first, head, rev;
  std::vector<Cap> cap;
  std::vector<int32_t> level;
  std::vector<uint32_t> current;
  /// The nodes the last level search reached, and the source's arcs into
  /// the component being solved (run()).
  std::vector<uint32_t> queue;
  uint32_t sBegin = 0, sEnd = 0;
};

} // namespace hx

#endif
