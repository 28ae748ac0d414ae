//===- MaxFlow.h - s-t maximum flow and minimum cut -------------*- C++ -*-===//
//
// Dinic's algorithm: breadth-first levels from the source, then blocking
// flows along level-increasing arcs with a current-arc pointer per node, all
// iterative (no recursion on path length: placement graphs are chains a
// million nodes long). Capacities are 64-bit integers; kInfinite marks arcs
// a cut may never cross, and sums saturate there.
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

  explicit MaxFlow(unsigned numNodes = 0) : head(numNodes, kNone) {}

  unsigned addNode() {
    head.push_back(kNone);
    return static_cast<unsigned>(head.size() - 1);
  }
  /// An arc `from` -> `to` (capacity `cap` >= 0); parallel arcs are fine.
  void addArc(unsigned from, unsigned to, Cap cap);

  /// The maximum flow from `s` to `t` (at most kInfinite).
  Cap run(unsigned s, unsigned t);

  /// After run(): whether each node still reaches `t` by residual arcs, the
  /// smallest sink side of a minimum cut.
  std::vector<bool> sinkSide(unsigned t) const;

  unsigned numNodes() const { return static_cast<unsigned>(head.size()); }
  unsigned numArcs() const { return static_cast<unsigned>(to.size() / 2); }
  /// Augmenting paths found by the last run, and its breadth-first phases.
  uint64_t augmentations = 0;
  unsigned phases = 0;

private:
  static constexpr uint32_t kNone = UINT32_MAX;
  bool levels(unsigned s, unsigned t);
  Cap blockingFlow(unsigned s, unsigned t);

  // Arc e and its reverse e^1; out-arcs of a node form a list through next.
  std::vector<uint32_t> head, next, to;
  std::vector<Cap> cap;
  std::vector<int32_t> level;
  std::vector<uint32_t> current;
};

} // namespace hx

#endif
