//===- MaxFlow.cpp - Boykov-Kolmogorov maximum flow, iteratively ------------===//
//
// See hx/Support/MaxFlow.h. Each node of a tree keeps the arc to its parent
// (pointing from the node): in the source's tree the residual capacity runs
// parent -> node, in the sink's node -> parent. Active nodes (a FIFO) are
// the trees' frontier: growing one scans its arcs, claims free neighbours,
// and stops at an arc into the other tree, the middle of an augmenting path.
// An augmentation saturates at least one arc (or terminal capacity); the
// nodes below it become orphans. An orphan takes a neighbour of its own tree
// as its new parent if that neighbour still reaches its root (walks up,
// stamped with the augmentation's number so no path is walked twice in one
// adoption round; the nearest root wins); otherwise it is freed, its children
// become orphans and its tree neighbours active again, so the trees keep
// every node that reaches (or is reached from) their terminal.
//
//===----------------------------------------------------------------------===//
#include "hx/Support/MaxFlow.h"
#include <algorithm>
#include <cassert>

using namespace hx;

namespace {
constexpr uint32_t kNoArc = UINT32_MAX;
constexpr uint32_t kTerminal = UINT32_MAX - 1; // parent of a tree's root
constexpr uint32_t kOrphan = UINT32_MAX - 2;   // cut off, not yet adopted

MaxFlow::Cap saturatingAdd(MaxFlow::Cap a, MaxFlow::Cap b) {
  return std::min(MaxFlow::kInfinite, a + b);
}
} // namespace

void MaxFlow::addArc(unsigned from, unsigned to, Cap c) {
  assert(from < nodes && to < nodes && c >= 0);
  if (from == to || c == 0)
    return; // carries no flow and crosses no cut at a cost
  input.push_back({from, to, std::min(c, kInfinite)});
  ++arcs;
}

void MaxFlow::build(unsigned s, unsigned t) {
  // Terminal arcs into per-node capacities; arcs into s or out of t never
  // cross an s-t cut forwards and carry no flow. An arc followed by its
  // exact reverse (a copy term's two directions, as the placement adds
  // them) shares one pair of residual arcs with it: half the arcs to scan.
  constexpr uint32_t kDone = UINT32_MAX;       // `from` of a terminal arc
  constexpr uint32_t kPaired = UINT32_MAX - 1; // `from` of a pair's reverse
  node.assign(size_t(nodes) + 1, Node{0, kNoArc, 0, 0, 0, Free, 0});
  LargeVector<Cap> toT(nodes, 0, HugePageAllocator<Cap>(input.get_allocator()));
  directFlow = 0; // s -> t arcs are in every cut
  size_t n = input.size();
  for (size_t i = 0; i < n; ++i) {
    InputArc &a = input[i];
    bool terminal = a.from == s || a.from == t || a.to == s || a.to == t;
    if (terminal) {
      if (a.from == s && a.to == t)
        directFlow = saturatingAdd(directFlow, a.cap);
      else if (a.from == s)
        node[a.to].term = saturatingAdd(node[a.to].term, a.cap);
      else if (a.to == t)
        toT[a.from] = saturatingAdd(toT[a.from], a.cap);
      a.from = kDone;
      continue;
    }
    ++node[a.from].first;
    ++node[a.to].first;
    if (i + 1 < n && input[i + 1].from == a.to && input[i + 1].to == a.from)
      input[++i].from = kPaired; // its capacity: the pair's reverse
  }
  // Each node's end, then (placing its arcs backwards) its start.
  for (unsigned u = 0; u < nodes; ++u)
    node[u + 1].first += node[u].first;
  arc.resize(node[nodes].first);
  for (size_t i = n; i-- > 0;) {
    const InputArc &a = input[i];
    if (a.from == kDone || a.from == kPaired)
      continue;
    bool paired = i + 1 < n && input[i + 1].from == kPaired;
    uint32_t f = --node[a.from].first, r = --node[a.to].first;
    arc[f] = {a.to, r, a.cap};
    arc[r] = {a.from, f, paired ? input[i + 1].cap : 0};
  }
  LargeVector<InputArc>(input.get_allocator()).swap(input); // frees it
  for (unsigned u = 0; u < nodes; ++u) {
    Cap &fromS = node[u].term;
    // The common part flows s -> u -> t at once; a node with both infinite
    // makes the flow infinite.
    directFlow = saturatingAdd(directFlow, std::min(fromS, toT[u]));
    if (fromS >= kInfinite)
      fromS = toT[u] >= kInfinite ? 0 : kInfinite;
    else if (toT[u] >= kInfinite)
      fromS = -kInfinite;
    else
      fromS -= toT[u];
  }
}

void MaxFlow::activate(uint32_t u) {
  if (!node[u].active) {
    node[u].active = 1;
    activeQueue.push_back(u);
  }
}

uint32_t MaxFlow::grow() {
  while (activeHead < activeQueue.size()) {
    uint32_t u = activeQueue[activeHead];
    Node &n = node[u];
    if (n.tree != Free) {
      bool source = n.tree == Source;
      for (uint32_t a = n.first, end = node[u + 1].first; a < end; ++a) {
        // The residual capacity towards the tree's growth: u -> v from the
        // source's tree, v -> u into the sink's.
        uint32_t toward = source ? a : arc[a].rev;
        if (arc[toward].cap == 0)
          continue;
        Node &v = node[arc[a].head];
        if (v.tree == Free) {
          v.tree = n.tree;
          v.parent = arc[a].rev; // v -> u
          v.stamp = n.stamp;
          v.dist = n.dist + 1;
          activate(arc[a].head);
        } else if (v.tree != n.tree) {
          return toward; // u stays at the front: scanned again after this path
        } else if (v.stamp <= n.stamp && v.dist > n.dist + 1) {
          v.parent = arc[a].rev; // a shorter way to the root
          v.stamp = n.stamp;
          v.dist = n.dist + 1;
        }
      }
    }
    // Scanned (or freed since it was queued): no longer active.
    n.active = 0;
    ++activeHead;
    if (activeHead >= 4096 && 2 * activeHead >= activeQueue.size()) {
      activeQueue.erase(activeQueue.begin(), activeQueue.begin() + activeHead);
      activeHead = 0;
    }
  }
  return kNoArc;
}

MaxFlow::Cap MaxFlow::augment(uint32_t middle) {
  uint32_t x = arc[arc[middle].rev].head, y = arc[middle].head;
  Cap b = arc[middle].cap;
  uint32_t v = x;
  for (; node[v].parent != kTerminal; v = arc[node[v].parent].head)
    b = std::min(b, arc[arc[node[v].parent].rev].cap);
  b = std::min(b, node[v].term);
  for (v = y; node[v].parent != kTerminal; v = arc[node[v].parent].head)
    b = std::min(b, arc[node[v].parent].cap);
  b = std::min(b, -node[v].term);
  if (b >= kInfinite)
    return kInfinite;
  arc[middle].cap -= b;
  arc[arc[middle].rev].cap += b;
  auto orphan = [&](uint32_t u) {
    node[u].parent = kOrphan;
    orphanQueue.push_back(u);
  };
  // Along each half to its root: the capacity used runs towards the sink
  // (parent -> v in the source's tree, v -> parent in the sink's).
  auto push = [&](uint32_t w, bool sourceTree) {
    for (; node[w].parent != kTerminal;) {
      Arc &up = arc[node[w].parent], &down = arc[up.rev];
      Arc &used = sourceTree ? down : up, &back = sourceTree ? up : down;
      uint32_t next = up.head;
      used.cap -= b;
      back.cap += b;
      if (used.cap == 0)
        orphan(w);
      w = next;
    }
    node[w].term += sourceTree ? -b : b;
    if (node[w].term == 0)
      orphan(w);
  };
  push(x, true);
  push(y, false);
  return b;
}

bool MaxFlow::rooted(uint32_t u, uint32_t &depth) {
  uint32_t steps = 0;
  for (uint32_t w = u;; ++steps) {
    Node &n = node[w];
    if (n.stamp == time) {
      depth = steps + n.dist;
      break;
    }
    if (n.parent == kTerminal) {
      n.stamp = time;
      n.dist = 1;
      depth = steps + 1;
      break;
    }
    if (n.parent == kOrphan || n.parent == kNoArc)
      return false;
    w = arc[n.parent].head;
  }
  // Stamp the path walked, so later walks this round stop early.
  for (uint32_t d = depth; node[u].stamp != time; u = arc[node[u].parent].head, --d) {
    node[u].stamp = time;
    node[u].dist = d;
  }
  return true;
}

void MaxFlow::adopt() {
  for (size_t i = 0; i < orphanQueue.size(); ++i) {
    uint32_t v = orphanQueue[i];
    ++orphans;
    Tree own = node[v].tree;
    bool source = own == Source;
    uint32_t first = node[v].first, end = node[v + 1].first;
    uint32_t best = kNoArc, bestDepth = UINT32_MAX;
    for (uint32_t a = first; a < end; ++a) {
      // In the source's tree the capacity must run w -> v, in the sink's
      // v -> w.
      uint32_t w = arc[a].head, depth;
      if (node[w].tree == own && arc[source ? arc[a].rev : a].cap > 0 && rooted(w, depth) &&
          depth < bestDepth) {
        best = a;
        bestDepth = depth;
      }
    }
    if (best != kNoArc) {
      node[v].parent = best;
      node[v].stamp = time;
      node[v].dist = bestDepth + 1;
      continue;
    }
    for (uint32_t a = first; a < end; ++a) {
      uint32_t w = arc[a].head;
      if (node[w].tree != own)
        continue;
      if (arc[source ? arc[a].rev : a].cap > 0)
        activate(w); // it may grow into v again
      uint32_t p = node[w].parent;
      if (p != kTerminal && p != kOrphan && p != kNoArc && arc[p].head == v) {
        node[w].parent = kOrphan;
        orphanQueue.push_back(w);
      }
    }
    node[v].tree = Free;
    node[v].parent = kNoArc;
  }
  orphanQueue.clear();
}

MaxFlow::Cap MaxFlow::run(unsigned s, unsigned t) {
  assert(s < nodes && t < nodes && s != t);
  build(s, t);
  augmentations = 0;
  orphans = 0;
  activeQueue.clear();
  activeHead = 0;
  time = 0;
  for (uint32_t u = 0; u < nodes; ++u) {
    Node &n = node[u];
    if (u == s || u == t || n.term == 0)
      continue;
    n.tree = n.term > 0 ? Source : Sink;
    n.parent = kTerminal;
    n.dist = 1;
    activate(u);
  }
  Cap flow = directFlow;
  while (flow < kInfinite) {
    uint32_t middle = grow();
    if (middle == kNoArc)
      break;
    ++time;
    Cap b = augment(middle);
    ++augmentations;
    flow = saturatingAdd(flow, b);
    adopt();
  }
  return flow;
}

std::vector<bool> MaxFlow::sinkSide(unsigned t) const {
  std::vector<bool> sink(nodes, false);
  for (uint32_t u = 0; u < nodes && u < node.size(); ++u)
    sink[u] = node[u].tree == Sink;
  sink[t] = true;
  return sink;
}
