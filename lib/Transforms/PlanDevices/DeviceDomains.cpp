//===- DeviceDomains.cpp - Union-find over device domains ----------------===//
#include "DeviceDomains.h"
#include "hx/Support/UnionFind.h"

using namespace hx;
using namespace llvm;

DeviceDomains::Id DeviceDomains::makeFree() {
  Id id = static_cast<Id>(nodes.size());
  Node n;
  n.parent = id;
  n.tag = tag;
  nodes.push_back(n);
  return id;
}

DeviceDomains::Id DeviceDomains::makeBound(DeviceIndex d, Reason why) {
  Id id = makeFree();
  nodes[id].device = d;
  nodes[id].reason = static_cast<uint32_t>(reasons.size());
  reasons.push_back(why);
  return id;
}

DeviceDomains::Id DeviceDomains::makeFunction(ArrayRef<Id> paramsAndResult) {
  Id id = makeFree();
  nodes[id].isFunction = true;
  nodes[id].firstChild = static_cast<uint32_t>(childPool.size());
  nodes[id].numChildren = static_cast<uint32_t>(paramsAndResult.size());
  childPool.insert(childPool.end(), paramsAndResult.begin(), paramsAndResult.end());
  return id;
}

DeviceDomains::Id DeviceDomains::find(Id x) {
  return findRoot(x, [&](Id i) -> Id & { return nodes[i].parent; });
}

DeviceDomains::Id DeviceDomains::firstOrder(Id x) {
  x = find(x);
  while (nodes[x].isFunction)
    x = find(childrenOf(nodes[x]).back());
  return x;
}

// Merges two distinct roots. A free first-order root takes on the shape or the
// device of the other; a bound first-order root and a function root merge by
// collapsing the function onto the device.
std::optional<DeviceDomains::Conflict>
DeviceDomains::link(Id a, Id b, SmallVectorImpl<std::pair<Id, Id>> &work) {
  Node &na = nodes[a], &nb = nodes[b];
  if (na.isFunction && nb.isFunction) {
    if (na.numChildren != nb.numChildren)
      return Conflict{kNoDevice, kNoDevice, nullptr, nullptr};
    for (size_t i = 0; i < na.numChildren; ++i)
      work.push_back({childPool[na.firstChild + i], childPool[nb.firstChild + i]});
  } else if (na.isFunction != nb.isFunction) {
    Id fn = na.isFunction ? a : b, fo = na.isFunction ? b : a;
    if (nodes[fo].device != kNoDevice) {
      // Collapse: every component lives on the first-order device.
      for (Id c : childrenOf(nodes[fn]))
        work.push_back({c, fo});
      return std::nullopt; // the classes stay apart; components are merged
    }
  } else if (na.device != kNoDevice && nb.device != kNoDevice && na.device != nb.device) {
    DeviceIndex j = join(na.device, nb.device);
    if (j == kNoDevice)
      return Conflict{na.device, nb.device, &reasons[na.reason], &reasons[nb.reason]};
    // Both take the join (with the reason of the side that named it).
    Node &from = na.device == j ? na : nb, &to = na.device == j ? nb : na;
    to.device = j;
    to.reason = from.reason;
  }
  // Link by rank; the new root keeps the device (and reason) and the shape.
  Id root = a, child = b;
  if (nodes[a].rank < nodes[b].rank)
    std::swap(root, child);
  Node &r = nodes[root], &c = nodes[child];
  bool bothFunctions = r.isFunction && c.isFunction;
  c.parent = root;
  if (r.rank == c.rank)
    ++r.rank;
  if (r.device == kNoDevice && c.device != kNoDevice) {
    r.device = c.device;
    r.reason = c.reason;
  }
  if (!r.isFunction && c.isFunction) {
    r.isFunction = true;
    r.firstChild = c.firstChild;
    r.numChildren = c.numChildren;
  }
  // A free class (or a first-order one turned function-shaped) now holds
  // both tags. Two function shapes merge their components, which are
  // classes of their own.
  if (r.tag != c.tag && !bothFunctions && r.device == kNoDevice) {
    noteMixed(r.tag, root);
    noteMixed(c.tag, root);
    r.tag = kMixed;
  }
  return std::nullopt;
}

void DeviceDomains::noteMixed(uint32_t t, Id x) {
  if (t >= kMixed) // a mixed class: its tags were noted when it mixed
    return;
  if (t >= mixed.size())
    mixed.resize(t + 1);
  mixed[t].push_back(x);
}

void DeviceDomains::markShared(uint32_t t) { noteMixed(t, kAlways); }

bool DeviceDomains::sharesFreeClass(uint32_t t) {
  if (t >= kMixed)
    return true;
  if (t >= mixed.size())
    return false;
  for (Id x : mixed[t])
    if (x == kAlways || isFunction(x) || device(x) == kNoDevice)
      return true;
  return false;
}

std::optional<DeviceDomains::Conflict> DeviceDomains::unify(Id a, Id b) {
  SmallVector<std::pair<Id, Id>, 8> work{{a, b}};
  while (!work.empty()) {
    auto [x, y] = work.pop_back_val();
    x = find(x);
    y = find(y);
    if (x == y)
      continue;
    if (auto c = link(x, y, work))
      return c;
  }
  return std::nullopt;
}

std::optional<DeviceDomains::Conflict> DeviceDomains::bind(Id x, DeviceIndex d, Reason why) {
  Id r = find(x);
  if (nodes[r].isFunction)
    return unify(r, makeBound(d, why));
  // A first-order class is bound in place, as unify with a new bound domain
  // would, without adding that domain.
  // (Ranks as after that link, so later links pick the same roots.)
  if (nodes[r].device == kNoDevice) {
    nodes[r].device = d;
    nodes[r].reason = static_cast<uint32_t>(reasons.size());
    reasons.push_back(why);
  }
  if (DeviceIndex j = join(nodes[r].device, d); j != kNoDevice) {
    if (j != nodes[r].device) { // the class refines to d's memory scope
      nodes[r].device = j;
      nodes[r].reason = static_cast<uint32_t>(reasons.size());
      reasons.push_back(why);
    }
    if (nodes[r].rank == 0)
      nodes[r].rank = 1;
    return std::nullopt;
  }
  reasons.push_back(why);
  return Conflict{nodes[r].device, d, &reasons[nodes[r].reason], &reasons.back()};
}

std::optional<DeviceDomains::Conflict> DeviceDomains::collapse(Id fnDomain, Id fo) {
  SmallVector<Id, 8> work{fnDomain};
  while (!work.empty()) {
    Id x = find(work.pop_back_val());
    if (nodes[x].isFunction) {
      for (Id c : childrenOf(nodes[x]))
        work.push_back(c);
      continue;
    }
    if (auto c = unify(x, fo))
      return c;
  }
  return std::nullopt;
}
