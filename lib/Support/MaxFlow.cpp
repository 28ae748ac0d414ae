//===- MaxFlow.cpp - Dinic's maximum flow, iteratively ----------------------===//
//
// See hx/Support/MaxFlow.h. Each phase labels nodes by breadth-first distance
// from the source over residual arcs, up to the sink's distance; then it
// finds augmenting paths that go one level up per arc: an explicit path
// stack advances along each node's current arc, retreats from dead ends
// (which leave the level graph), and after an augmentation resumes from the
// tail of the first saturated arc.
//
//===----------------------------------------------------------------------===//
#include "hx/Support/MaxFlow.h"
#include <algorithm>
#include <cassert>

using namespace hx;

void MaxFlow::addArc(unsigned from, unsigned to, Cap c) {
  assert(from < nodes && to < nodes && c >= 0);
  if (from == to)
    return; // a loop carries no flow and crosses no cut
  input.push_back({from, to, std::min(c, kInfinite)});
  ++arcs;
}

void MaxFlow::build() {
  first.assign(size_t(nodes) + 1, 0);
  for (const InputArc &a : input) {
    ++first[a.from + 1];
    ++first[a.to + 1];
  }
  for (unsigned u = 0; u < nodes; ++u)
    first[u + 1] += first[u];
  size_t n = 2 * input.size();
  head.resize(n);
  rev.resize(n);
  cap.resize(n);
  std::vector<uint32_t> fill(first.begin(), first.end() - 1);
  for (const InputArc &a : input) {
    uint32_t f = fill[a.from]++, r = fill[a.to]++;
    head[f] = a.to;
    cap[f] = a.cap;
    rev[f] = r;
    head[r] = a.from;
    cap[r] = 0;
    rev[r] = f;
  }
  input = {};
}

bool MaxFlow::levels(unsigned s, unsigned t) {
  // Only the current component's nodes (and t) were labelled: reset those.
  for (uint32_t u : queue)
    level[u] = -1;
  level[t] = -1;
  queue.assign(1, s);
  level[s] = 0;
  for (size_t i = 0; i < queue.size(); ++i) {
    uint32_t u = queue[i];
    if (level[t] >= 0 && level[u] >= level[t])
      break; // nothing at the sink's level or beyond leads to it
    uint32_t a = u == s ? sBegin : first[u], end = u == s ? sEnd : first[u + 1];
    for (; a < end; ++a)
      if (cap[a] > 0 && level[head[a]] < 0) {
        level[head[a]] = level[u] + 1;
        queue.push_back(head[a]);
      }
  }
  return level[t] >= 0;
}

MaxFlow::Cap MaxFlow::blockingFlow(unsigned s, unsigned t) {
  for (uint32_t u : queue)
    current[u] = first[u];
  current[s] = sBegin;
  Cap total = 0;
  std::vector<uint32_t> path; // arcs from s
  uint32_t u = s;
  while (true) {
    if (u == t) {
      Cap b = kInfinite;
      for (uint32_t a : path)
        b = std::min(b, cap[a]);
      size_t firstSaturated = path.size();
      for (size_t i = 0; i < path.size(); ++i) {
        cap[path[i]] -= b;
        cap[rev[path[i]]] += b;
        if (cap[path[i]] == 0 && firstSaturated == path.size())
          firstSaturated = i;
      }
      ++augmentations;
      total = std::min(kInfinite, total + b);
      if (b >= kInfinite)
        return total; // an uncuttable path: nothing finite separates s and t
      path.resize(firstSaturated);
      u = path.empty() ? s : head[path.back()];
      continue;
    }
    uint32_t &a = current[u];
    uint32_t end = u == s ? sEnd : first[u + 1];
    while (a < end && !(cap[a] > 0 && level[head[a]] == level[u] + 1))
      ++a;
    if (a < end) {
      path.push_back(a);
      u = head[a];
      continue;
    }
    // A dead end leaves the level graph; retreat past the arc that led here.
    level[u] = -1;
    if (path.empty())
      return total;
    uint32_t back = path.back();
    path.pop_back();
    u = head[rev[back]];
    ++current[u];
  }
}

MaxFlow::Cap MaxFlow::run(unsigned s, unsigned t) {
  if (!input.empty() || first.size() != size_t(nodes) + 1)
    build();
  augmentations = 0;
  phases = 0;
  Cap flow = 0;
  // The components of the graph without s and t share nothing but s and t:
  // the flow is the sum of theirs, and each is found with searches over its
  // own nodes only (a million-node graph of small components would
  // otherwise pay a search of all of it per phase of the slowest one).
  std::vector<uint32_t> comp(nodes);
  for (uint32_t u = 0; u < nodes; ++u)
    comp[u] = u;
  auto find = [&](uint32_t x) {
    while (comp[x] != x)
      x = comp[x] = comp[comp[x]];
    return x;
  };
  for (uint32_t u = 0; u < nodes; ++u)
    if (u != s && u != t)
      for (uint32_t a = first[u]; a < first[u + 1]; ++a)
        if (head[a] != s && head[a] != t) {
          uint32_t x = find(u), y = find(head[a]);
          if (x != y)
            comp[std::max(x, y)] = std::min(x, y);
        }
  // s's arcs grouped by component (a stable order within one), then the
  // others (to t, to s, empty); an arc s -> t is a constant part of every cut.
  std::vector<std::pair<uint32_t, uint32_t>> byComp; // (component, arc)
  std::vector<uint32_t> rest;
  for (uint32_t a = first[s]; a < first[s + 1]; ++a) {
    if (head[a] == t) {
      flow = std::min(kInfinite, flow + cap[a]);
      cap[rev[a]] += cap[a];
      cap[a] = 0;
    }
    if (head[a] != t && head[a] != s && cap[a] > 0)
      byComp.push_back({find(head[a]), a});
    else
      rest.push_back(a);
  }
  std::stable_sort(byComp.begin(), byComp.end(),
                   [](auto &x, auto &y) { return x.first < y.first; });
  // Lay s's arcs out in that order, fixing the reverse links.
  std::vector<uint32_t> order;
  for (auto &[c, a] : byComp)
    order.push_back(a);
  order.insert(order.end(), rest.begin(), rest.end());
  uint32_t base = first[s];
  std::vector<uint32_t> oldHead(head.begin() + base, head.begin() + first[s + 1]);
  std::vector<uint32_t> oldRev(rev.begin() + base, rev.begin() + first[s + 1]);
  std::vector<Cap> oldCap(cap.begin() + base, cap.begin() + first[s + 1]);
  for (uint32_t i = 0; i < order.size(); ++i) {
    uint32_t from = order[i] - base;
    head[base + i] = oldHead[from];
    cap[base + i] = oldCap[from];
    rev[base + i] = oldRev[from];
    rev[oldRev[from]] = base + i;
  }
  level.assign(nodes, -1);
  current.assign(nodes, 0);
  queue.clear();
  for (size_t i = 0; i < byComp.size() && flow < kInfinite;) {
    size_t j = i;
    while (j < byComp.size() && byComp[j].first == byComp[i].first)
      ++j;
    sBegin = static_cast<uint32_t>(base + i);
    sEnd = static_cast<uint32_t>(base + j);
    while (flow < kInfinite && levels(s, t)) {
      ++phases;
      flow = std::min(kInfinite, flow + blockingFlow(s, t));
    }
    i = j;
  }
  return flow;
}

std::vector<bool> MaxFlow::sinkSide(unsigned t) const {
  // Backwards from t: u reaches v if the arc u -> v (the reverse of one of
  // v's arcs) has residual capacity.
  std::vector<bool> reaches(nodes, false);
  std::vector<uint32_t> queue{t};
  reaches[t] = true;
  for (size_t i = 0; i < queue.size(); ++i) {
    uint32_t v = queue[i];
    for (uint32_t a = first[v]; a < first[v + 1]; ++a) {
      uint32_t u = head[a];
      if (!reaches[u] && cap[rev[a]] > 0) {
        reaches[u] = true;
        queue.push_back(u);
      }
    }
  }
  return reaches;
}
