//===- MaxFlow.cpp - Dinic's maximum flow, iteratively ----------------------===//
//
// See hx/Support/MaxFlow.h. Each phase labels nodes by breadth-first distance
// from the source over residual arcs, then finds augmenting paths that go one
// level up per arc: an explicit path stack advances along each node's current
// arc, retreats from dead ends (which leave the level graph), and after an
// augmentation resumes from the tail of the first saturated arc.
//
//===----------------------------------------------------------------------===//
#include "hx/Support/MaxFlow.h"
#include <algorithm>
#include <cassert>

using namespace hx;

void MaxFlow::addArc(unsigned from, unsigned toNode, Cap c) {
  assert(from < head.size() && toNode < head.size() && c >= 0);
  c = std::min(c, kInfinite);
  uint32_t e = static_cast<uint32_t>(to.size());
  to.push_back(toNode);
  cap.push_back(c);
  next.push_back(head[from]);
  head[from] = e;
  to.push_back(from);
  cap.push_back(0);
  next.push_back(head[toNode]);
  head[toNode] = e + 1;
}

bool MaxFlow::levels(unsigned s, unsigned t) {
  level.assign(head.size(), -1);
  std::vector<uint32_t> queue{s};
  level[s] = 0;
  for (size_t i = 0; i < queue.size(); ++i) {
    uint32_t u = queue[i];
    for (uint32_t e = head[u]; e != kNone; e = next[e])
      if (cap[e] > 0 && level[to[e]] < 0) {
        level[to[e]] = level[u] + 1;
        queue.push_back(to[e]);
      }
  }
  return level[t] >= 0;
}

MaxFlow::Cap MaxFlow::blockingFlow(unsigned s, unsigned t) {
  current = head;
  Cap total = 0;
  std::vector<uint32_t> path; // arcs from s
  uint32_t u = s;
  while (true) {
    if (u == t) {
      Cap b = kInfinite;
      for (uint32_t e : path)
        b = std::min(b, cap[e]);
      size_t firstSaturated = path.size();
      for (size_t i = 0; i < path.size(); ++i) {
        cap[path[i]] -= b;
        cap[path[i] ^ 1] += b;
        if (cap[path[i]] == 0 && firstSaturated == path.size())
          firstSaturated = i;
      }
      ++augmentations;
      total = std::min(kInfinite, total + b);
      if (b >= kInfinite)
        return total; // an uncuttable path: nothing finite separates s and t
      path.resize(firstSaturated);
      u = path.empty() ? s : to[path.back()];
      continue;
    }
    uint32_t &e = current[u];
    while (e != kNone && !(cap[e] > 0 && level[to[e]] == level[u] + 1))
      e = next[e];
    if (e != kNone) {
      path.push_back(e);
      u = to[e];
      continue;
    }
    // A dead end leaves the level graph; retreat past the arc that led here.
    level[u] = -1;
    if (path.empty())
      return total;
    uint32_t back = path.back();
    path.pop_back();
    u = to[back ^ 1];
    current[u] = next[current[u]];
  }
}

MaxFlow::Cap MaxFlow::run(unsigned s, unsigned t) {
  augmentations = 0;
  phases = 0;
  Cap flow = 0;
  while (flow < kInfinite && levels(s, t)) {
    ++phases;
    flow = std::min(kInfinite, flow + blockingFlow(s, t));
  }
  return flow;
}

std::vector<bool> MaxFlow::sinkSide(unsigned t) const {
  // Backwards from t: u reaches v if the arc u -> v (the reverse of one of
  // v's out-arcs) has residual capacity.
  std::vector<bool> reaches(head.size(), false);
  std::vector<uint32_t> queue{t};
  reaches[t] = true;
  for (size_t i = 0; i < queue.size(); ++i) {
    uint32_t v = queue[i];
    for (uint32_t e = head[v]; e != kNone; e = next[e]) {
      uint32_t u = to[e];
      if (!reaches[u] && cap[e ^ 1] > 0) {
        reaches[u] = true;
        queue.push_back(u);
      }
    }
  }
  return reaches;
}
