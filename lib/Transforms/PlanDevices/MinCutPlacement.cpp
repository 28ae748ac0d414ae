//===- MinCutPlacement.cpp - Place by cost: minimum cuts -----------------===//
//
// --placement=min-copy|min-time (beyond TVM). TVM, and hx's default, put
// every unconstrained expression where its constraints pull it, then on the
// default device, and copy wherever a constraint disagrees. Here the devices
// of the unconstrained classes are chosen to minimize a cost instead, while
// every constraint still holds:
//
//   E(L) = Σ_class unary(class, L(class))
//        + Σ_value Σ_{device d among L(uses of the value), d ≠ L(value)}
//            copy(L(value) -> d, bytes of the value)
//
// A class is a union-find class of the constraints (DeviceAnalysis): what
// must share a device. Under a cost strategy every tensor an operator or a
// function call reads is a soft edge (DeviceAnalysis::edge), so a class is
// an operator with what it cannot be separated from; the soft uses of each
// value are its possible copies. The second sum is hx's sharing rule: a
// value copied to a device once serves every consumer there, a hyperedge.
// min-copy: copy = bytes, unary = 0. min-time: unary = the operator's time
// on the device (CostModel), copy = latency + bytes / bandwidth, in
// picoseconds. An operator whose target lacks it costs kInfinite there, so
// no strategy puts it where --strict-placement would reject it.
//
// Moves. A move towards device α lets each free class keep its device or
// switch to α (a binary choice y), and is solved exactly by an s–t minimum
// cut (MaxFlow.h): the source side keeps, the sink side switches. Each term
// of E decomposes per destination device d:
//   - d = α:  cost c·[value keeps]·[some use switches]       (P1)
//   - d ≠ α:  c0·[some use at d keeps]                       (Q)
//             + (c1 − c0)·[value switches]·[some use at d keeps]   (P2)
//     with c0 = copy(L(value) -> d) (0 if equal), c1 = copy(α -> d).
// P1, P2 and Q are submodular; a term over several uses gets one auxiliary
// node (arcs of kInfinite to or from the uses), one use is a single arc.
// When c1 < c0 (only possible with three or more devices and asymmetric
// links) c1 is raised to c0: the move then minimizes an upper bound that is
// exact at "no change", so the true cost still never rises.
//
// Guarantees. Two devices: the free classes start on the default device and
// one move towards the other device ranges over every placement, so the
// result is exactly optimal. More devices: α-expansion, moves towards each
// device in table order, repeated until a round changes nothing; each move
// is an optimal expansion, the cost never rises (so never above "every free
// class on the default device"), and the result is a local optimum for
// expansion moves; no constant-factor bound is claimed. Ties keep the
// current device (the smallest sink side, MaxFlow::sinkSide), so among equal
// optima the default device wins and the output is deterministic: classes
// are numbered in canonical def order, then post-order.
//
// Cost: one pass over the soft uses and operators to build the terms, and
// per move a graph with a node per free class and multi-use term, an arc per
// single-use term (a term's two directions share one residual pair); the
// max-flow's search trees (Boykov-Kolmogorov, MaxFlow.h) survive each
// augmentation, so chains a million nodes long are searched about once.
// The side tables are flat arrays on huge pages (LargeVector.h): on the
// 1M-line bench module they hold a million classes and terms, and page
// faults cost more than the work, so the collection's tables, once the terms
// are built, give their pages to the cut graph (PageRecycler), and each
// class's location for its binding is read while its node is in the cache.
// `--placement-report` prints the sizes.
//
//===----------------------------------------------------------------------===//
#include "DeviceAnalysis.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Support/LargeVector.h"
#include "hx/Support/MaxFlow.h"
#include "hx/Transforms/CostModel.h"
#include <cmath>

using namespace hx;
using namespace llvm;
using namespace hx::plan;

namespace {
using Cap = MaxFlow::Cap;
constexpr Cap kInf = MaxFlow::kInfinite;

Cap saturatingAdd(Cap a, Cap b) { return std::min(kInf, a + b); }

/// The placement problem: classes, their unary costs, the copy terms.
struct Problem {
  explicit Problem(HugePageAllocator<char> pages)
      : fixed(pages), unary(pages), terms(pages), uses(pages) {}
  unsigned numLabels = 0;
  LargeVector<DeviceIndex> fixed; // per class: its device, or kNoDevice
  LargeVector<Cap> unary;         // class * numLabels + label (empty: none)
  struct Term {
    uint32_t value;
    uint32_t usesBegin, usesEnd;
    uint64_t bytes;
  };
  LargeVector<Term> terms;
  LargeVector<uint32_t> uses; // distinct use classes, none the value's
  /// copy[a * numLabels + b] per byte and fixed part (picoseconds or bytes).
  std::vector<double> perByte, fixedPart;

  Cap copyCost(unsigned a, unsigned b, uint64_t bytes) const {
    if (a == b)
      return 0;
    size_t k = size_t(a) * numLabels + b;
    double c = fixedPart[k] + perByte[k] * static_cast<double>(bytes);
    return c >= double(kInf) ? kInf : std::max<Cap>(1, static_cast<Cap>(std::llround(c)));
  }
  Cap unaryCost(uint32_t cls, unsigned label) const {
    return unary.empty() ? 0 : unary[size_t(cls) * numLabels + label];
  }

  /// E(labels), saturating at kInf.
  Cap energy(ArrayRef<DeviceIndex> labels) const {
    Cap e = 0;
    if (!unary.empty())
      for (uint32_t c = 0; c < labels.size(); ++c)
        e = saturatingAdd(e, unaryCost(c, labels[c]));
    SmallVector<bool, 8> seen(numLabels);
    for (const Term &t : terms) {
      std::fill(seen.begin(), seen.end(), false);
      unsigned a = labels[t.value];
      for (uint32_t k = t.usesBegin; k < t.usesEnd; ++k) {
        unsigned d = labels[uses[k]];
        if (d != a && !seen[d]) {
          seen[d] = true;
          e = saturatingAdd(e, copyCost(a, d, t.bytes));
        }
      }
    }
    return e;
  }
};

/// One expansion move's graph: nodes 0 (source: keeps) and 1 (sink:
/// switches to α), then the classes that may switch, then auxiliaries.
class MoveGraph {
public:
  static constexpr unsigned S = 0, T = 1;
  explicit MoveGraph(PageRecycler &r) : flow(2, &r) {}
  MaxFlow flow;

  /// c·[a keeps]·[some of us switches].
  void p1(unsigned a, ArrayRef<unsigned> us, Cap c) { term(a, us, c, /*reversed=*/false); }
  /// c·[a switches]·[some of us keeps].
  void p2(unsigned a, ArrayRef<unsigned> us, Cap c) { term(a, us, c, /*reversed=*/true); }
  /// c·[some of us keeps]: P2 with a node that always switches.
  void q(ArrayRef<unsigned> us, Cap c) { p2(T, us, c); }

private:
  SmallVector<unsigned, 8> picked;
  bool forced = false;
  /// c·[a on one side]·[some of us on the other]: S then T (P1: arcs from a
  /// towards the uses), or with `reversed` T then S (P2: arcs the other way).
  /// One use is an arc; several share an auxiliary node.
  void term(unsigned a, ArrayRef<unsigned> us, Cap c, bool reversed) {
    unsigned sideA = reversed ? T : S, sideB = reversed ? S : T;
    auto arc = [&](unsigned x, unsigned y, Cap k) {
      reversed ? flow.addArc(y, x, k) : flow.addArc(x, y, k);
    };
    if (c <= 0 || a == sideB)
      return; // a never meets the condition
    pick(us, /*drop=*/sideA, /*force=*/sideB);
    if (forced) {
      if (a != sideA)
        arc(a, sideB, c); // only a's side matters
      return;
    }
    if (picked.empty())
      return;
    if (picked.size() == 1) {
      arc(a, picked[0], c);
      return;
    }
    unsigned z = flow.addNode();
    arc(a, z, c);
    for (unsigned b : picked)
      arc(z, b, kInf);
  }
  /// The uses that are real nodes; `forced` if one is the terminal that
  /// makes the term's condition true whatever the others do.
  void pick(ArrayRef<unsigned> us, unsigned drop, unsigned force) {
    picked.clear();
    forced = false;
    for (unsigned b : us) {
      if (b == force)
        forced = true;
      else if (b != drop && !llvm::is_contained(picked, b))
        picked.push_back(b);
    }
  }
};
} // namespace

const Expr *DeviceAnalysis::copyOwner(const Expr *v, bool settled) {
  // A fixed on_device (and, under a cost strategy, a normal one of a tensor,
  // which the capture fixes) holds its body's value on its device, when the
  // body is there: an annotated call or tensor is (a hard edge under a cost
  // strategy, so the body shares its class or its bound device); once
  // settled, the devices say.
  while (auto *c = dyn_cast<Call>(v)) {
    if (!c->isOp(kOnDevice) || deviceAttr(*c, "virtual_device") == kNoDevice ||
        !boolAttr(*c, "constrain_body"))
      break;
    bool pins = isFixedOnDevice(c) || (opts.placement != PlacementStrategy::Default &&
                                       isa_and_nonnull<TensorType>(c->checkedType.get()));
    const Expr *body = c->args[0].get();
    bool there;
    if (settled) {
      there = deviceOf(body) == deviceOf(c);
    } else {
      Id b = domains.firstOrder(domainOf(body)), r = domains.firstOrder(domainOf(c)); // roots
      there = b == r || (domains.device(b) != kNoDevice && domains.device(b) == domains.device(r));
    }
    if (!pins || !there)
      break;
    v = body;
  }
  return v;
}

bool DeviceAnalysis::placeByCost(ArrayRef<DefWalk *> order) {
  stats = {};
  unsigned numLabels = static_cast<unsigned>(mod.devices.size());
  DeviceIndex initial = opts.defaultDevice;
  if (numLabels < 2 || initial < 0 || static_cast<unsigned>(initial) >= numLabels)
    return true; // one device: nothing to choose
  bool time = opts.placement == PlacementStrategy::MinTime;
  CostModel roofline;
  const CostModel &costs = opts.costs ? *opts.costs : roofline;

  // Each phase's tables reuse the pages of the last one's (LargeVector.h).
  PageRecycler recycler;
  HugePageAllocator<char> pages(&recycler);
  Problem p(pages);
  p.numLabels = numLabels;
  p.perByte.assign(size_t(numLabels) * numLabels, 0);
  p.fixedPart.assign(size_t(numLabels) * numLabels, 0);
  for (unsigned a = 0; a < numLabels; ++a)
    for (unsigned b = 0; b < numLabels; ++b) {
      if (a == b)
        continue;
      size_t k = size_t(a) * numLabels + b;
      if (!time) {
        p.perByte[k] = 1;
        continue;
      }
      CopyLink l = costs.link(mod.devices[a], mod.devices[b]);
      p.fixedPart[k] = l.latencySeconds * 1e12;
      p.perByte[k] = 1e12 / l.bytesPerSecond;
    }

  // Classes in canonical order: by def, then post-order.
  // (Side tables are vectors indexed by domain and by slot: a million
  // classes do not fit a hash table in the cache.)
  constexpr uint32_t kNone = UINT32_MAX;
  LargeVector<uint32_t> classOf(domains.size(), kNone, pages);
  LargeVector<Id> roots(pages);
  LargeVector<const Expr *> where(pages); // a node of each class, for its reason
  LargeVector<SMLoc> whereLoc(pages);     // its location (read while it is in the cache)
  roots.reserve(domains.size() + 1);
  where.reserve(domains.size() + 1);
  whereLoc.reserve(domains.size() + 1);
  p.fixed.reserve(domains.size() + 1);
  auto classFor = [&](Id id, const Expr *at) {
    Id r = domains.find(domains.firstOrder(id));
    if (r >= classOf.size()) // a domain made since (domainOf)
      classOf.resize(domains.size(), kNone);
    uint32_t &k = classOf[r];
    if (k == kNone) {
      k = static_cast<uint32_t>(roots.size());
      roots.push_back(r);
      where.push_back(at);
      whereLoc.push_back(at->loc);
      p.fixed.push_back(domains.device(r));
    }
    return k;
  };
  // A class for "bound to device d", for terms whose value is a constraint.
  DenseMap<DeviceIndex, uint32_t> deviceClass;
  auto classOnDevice = [&](DeviceIndex d, const Expr *at) {
    auto [it, inserted] = deviceClass.try_emplace(d, static_cast<uint32_t>(roots.size()));
    if (inserted) {
      roots.push_back(kNoDomain);
      where.push_back(at);
      whereLoc.push_back(at->loc);
      p.fixed.push_back(d);
    }
    return it->second;
  };
  auto addTerm = [&](uint32_t a, ArrayRef<uint32_t> us, uint64_t bytes) {
    uint32_t begin = static_cast<uint32_t>(p.uses.size());
    p.uses.insert(p.uses.end(), us.begin(), us.end());
    p.terms.push_back({a, begin, static_cast<uint32_t>(p.uses.size()), bytes});
  };
  // The values copies may be of (copyOwner), each with its distinct use
  // classes in a list through `links` (flat: a million owners).
  struct Owner {
    uint64_t bytes; // of the value (read while its node is in the cache)
    uint32_t cls, firstLink;
  };
  struct Link {
    uint32_t cls, next;
  };
  size_t numShared = 0;
  for (DefWalk *w : order)
    numShared += w->sharedValues.size() + w->onDevices.size();
  LargeVector<Owner> owners(pages);
  LargeVector<Link> links(pages);
  owners.reserve(numShared);
  links.reserve(softUses.size() + numShared);
  LargeVector<uint32_t> ownerOfSlot(pages);
  auto ownerFor = [&](const Expr *v) -> uint32_t {
    const Expr *owner = copyOwner(v, /*settled=*/false);
    Id domain = domainOf(owner); // numbers the owner
    uint32_t slot = slotOf(owner);
    if (slot >= ownerOfSlot.size())
      ownerOfSlot.resize(info.size(), kNone);
    if (ownerOfSlot[slot] == kNone) {
      ownerOfSlot[slot] = static_cast<uint32_t>(owners.size());
      owners.push_back({bytesOf(owner), classFor(domain, owner), kNone});
    }
    return ownerOfSlot[slot];
  };
  // Whether use class b is on owner o's list already: seenBy[b] == o. An
  // owner's uses mostly arrive together (its soft uses); the few that come
  // later (on_devices) may repeat one, which the terms drop below.
  LargeVector<uint32_t> seenBy(pages);
  auto addUse = [&](uint32_t o, uint32_t b) {
    if (b == owners[o].cls)
      return;
    if (b >= seenBy.size())
      seenBy.resize(std::max<size_t>(roots.size(), b + 1), kNone);
    if (seenBy[b] == o)
      return;
    seenBy[b] = o;
    links.push_back({b, owners[o].firstLink});
    owners[o].firstLink = static_cast<uint32_t>(links.size() - 1);
  };
  // Unary costs of operators: the class, then one cost per device.
  std::vector<uint32_t> unaryClasses;
  std::vector<Cap> unaryCosts;
  SmallVector<Cap, 4> cost(numLabels);
  for (DefWalk *w : order) {
    llvm::sort(w->sharedValues);
    for (auto [pos, slot] : w->sharedValues) {
      // The uses of a pinned wrapper are uses of the value it pins: the
      // capture copies them once per device (copyOwner).
      uint32_t o = ownerFor(w->order[pos]);
      for (uint32_t u = info[slot].firstSoft; u != kNoUse; u = softUses[u].next)
        addUse(o, classFor(softUses[u].expected, consumerOf(softUses[u])));
    }
    // An on_device that does not fix its result is a copy where its result
    // and its body are on different devices. The copy is of the body's value: one more use of it
    // (shared with its other copies to that device), or of the device a normal one puts it on.
    for (Call *c : w->onDevices) {
      if (isFixedOnDevice(c) || isFunctionTyped(c))
        continue;
      uint32_t result = classFor(domainOf(c), c);
      if (p.fixed[result] != kNoDevice)
        continue;
      DeviceIndex d = deviceAttr(*c, "virtual_device");
      if (d != kNoDevice && boolAttr(*c, "constrain_body")) {
        addTerm(classOnDevice(d, c), {result}, bytesOf(c));
        continue;
      }
      addUse(ownerFor(c->args[0].get()), result);
    }
    for (Expr *e : w->order) {
      auto *c = dyn_cast<Call>(e);
      if (!c || !c->getOp() || isAnnotation(c))
        continue;
      uint32_t x = classFor(domainOf(c), c);
      if (p.fixed[x] != kNoDevice)
        continue;
      bool any = false;
      for (unsigned l = 0; l < numLabels; ++l) {
        cost[l] = 0;
        if (!targetSupports(*c, l))
          cost[l] = kInf;
        else if (time)
          cost[l] = static_cast<Cap>(std::llround(costs.opSeconds(*c, mod.devices[l]) * 1e12));
        any |= cost[l] != 0;
      }
      if (any) {
        unaryClasses.push_back(x);
        unaryCosts.insert(unaryCosts.end(), cost.begin(), cost.end());
      }
    }
  }
  p.terms.reserve(p.terms.size() + owners.size());
  p.uses.reserve(p.uses.size() + links.size());
  SmallVector<uint32_t, 8> us;
  for (const Owner &o : owners) {
    if (o.firstLink == kNone)
      continue;
    us.clear();
    for (uint32_t l = o.firstLink; l != kNone; l = links[l].next)
      us.push_back(links[l].cls);
    std::reverse(us.begin(), us.end());                             // first use first
    uint32_t mark = ~static_cast<uint32_t>(&o - owners.data() + 1); // no owner's
    llvm::erase_if(us, [&](uint32_t b) { return std::exchange(seenBy[b], mark) == mark; });
    addTerm(o.cls, us, o.bytes);
  }
  // The collection's tables are done with: their pages go to the graph.
  for (auto *v : {&classOf, &ownerOfSlot, &seenBy})
    LargeVector<uint32_t>(pages).swap(*v);
  LargeVector<Owner>(pages).swap(owners);
  LargeVector<Link>(pages).swap(links);
  uint32_t numClasses = static_cast<uint32_t>(roots.size());
  if (!unaryClasses.empty()) {
    p.unary.assign(size_t(numClasses) * numLabels, 0);
    for (size_t i = 0; i < unaryClasses.size(); ++i)
      for (unsigned l = 0; l < numLabels; ++l) {
        Cap &u = p.unary[size_t(unaryClasses[i]) * numLabels + l];
        u = saturatingAdd(u, unaryCosts[i * numLabels + l]);
      }
  }
  LargeVector<DeviceIndex> labels(numClasses, 0, pages);
  LargeVector<uint32_t> freeClasses(pages);
  for (uint32_t x = 0; x < numClasses; ++x) {
    labels[x] = p.fixed[x] != kNoDevice ? p.fixed[x] : initial;
    if (p.fixed[x] == kNoDevice)
      freeClasses.push_back(x);
  }
  stats.classes = freeClasses.size();
  stats.terms = p.terms.size();
  stats.initialEnergy = p.energy(labels);

  // Expansion moves. Two devices: one move towards the other is exact.
  LargeVector<unsigned> nodeOf(numClasses, 0, pages);
  SmallVector<SmallVector<unsigned, 4>, 4> byLabel(numLabels);
  SmallVector<unsigned, 8> all;
  auto move = [&](unsigned alpha) {
    MoveGraph g(recycler);
    bool anySwitchable = false;
    for (uint32_t x = 0; x < numClasses; ++x) {
      if (labels[x] == static_cast<DeviceIndex>(alpha))
        nodeOf[x] = MoveGraph::T;
      else if (p.fixed[x] != kNoDevice)
        nodeOf[x] = MoveGraph::S;
      else {
        nodeOf[x] = g.flow.addNode();
        anySwitchable = true;
      }
    }
    if (!anySwitchable)
      return false;
    // At most two arcs per free class (unary), and per term and destination
    // one arc per use plus one (p1 and p2; q too when there are more devices).
    size_t groups = numLabels == 2 ? 2 : 3;
    g.flow.reserveArcs((p.unary.empty() ? 0 : 2 * freeClasses.size()) +
                       groups * (p.terms.size() + p.uses.size()));
    if (!p.unary.empty())
      for (uint32_t x : freeClasses) {
        unsigned n = nodeOf[x];
        if (n == MoveGraph::T)
          continue;
        Cap keep = p.unaryCost(x, labels[x]), sw = p.unaryCost(x, alpha);
        Cap low = std::min(keep, sw); // a constant part
        if (sw - low > 0)
          g.flow.addArc(MoveGraph::S, n, sw - low);
        if (keep - low > 0)
          g.flow.addArc(n, MoveGraph::T, keep - low);
      }
    for (const Problem::Term &t : p.terms) {
      unsigned a = labels[t.value], na = nodeOf[t.value];
      all.clear();
      for (auto &v : byLabel)
        v.clear();
      for (uint32_t k = t.usesBegin; k < t.usesEnd; ++k) {
        all.push_back(nodeOf[p.uses[k]]);
        byLabel[labels[p.uses[k]]].push_back(nodeOf[p.uses[k]]);
      }
      if (a != alpha)
        g.p1(na, all, p.copyCost(a, alpha, t.bytes));
      for (unsigned d = 0; d < numLabels; ++d) {
        if (d == alpha || byLabel[d].empty())
          continue;
        Cap c1 = p.copyCost(alpha, d, t.bytes);
        if (a == alpha) {
          g.q(byLabel[d], c1);
          continue;
        }
        Cap c0 = p.copyCost(a, d, t.bytes);
        g.q(byLabel[d], c0);
        g.p2(na, byLabel[d], std::max(c0, c1) - c0);
      }
    }
    Cap f = g.flow.run(MoveGraph::S, MoveGraph::T);
    ++stats.moves;
    stats.nodes = std::max<uint64_t>(stats.nodes, g.flow.numNodes());
    stats.arcs = std::max<uint64_t>(stats.arcs, g.flow.numArcs());
    stats.augmentations += g.flow.augmentations;
    stats.orphans += g.flow.orphans;
    if (f >= kInf)
      return false; // no finite choice: keep (a target check reports it)
    std::vector<bool> sw = g.flow.sinkSide(MoveGraph::T);
    bool changed = false;
    for (uint32_t x : freeClasses)
      if (nodeOf[x] != MoveGraph::T && nodeOf[x] != MoveGraph::S && sw[nodeOf[x]]) {
        labels[x] = alpha;
        changed = true;
      }
    return changed;
  };
  if (!opts.forcedPlacement.empty()) {
    const std::string &f = opts.forcedPlacement;
    if (f.size() != freeClasses.size()) {
      diags.error(SMLoc(), "--force-placement has " + Twine(f.size()) + " digits, the module " +
                               Twine(freeClasses.size()) + " free classes");
      return false;
    }
    for (size_t i = 0; i < f.size(); ++i) {
      unsigned d = static_cast<unsigned>(f[i] - '0');
      if (d >= numLabels) {
        diags.error(SMLoc(), "--force-placement: no device " + Twine(d) + " (the module has " +
                                 Twine(numLabels) + ")");
        return false;
      }
      labels[freeClasses[i]] = static_cast<DeviceIndex>(d);
    }
  } else if (!freeClasses.empty()) {
    if (numLabels == 2) {
      move(1 - initial);
    } else {
      for (unsigned round = 0; round < 16; ++round) {
        bool changed = false;
        for (unsigned alpha = 0; alpha < numLabels; ++alpha)
          changed |= move(alpha);
        if (!changed)
          break;
      }
    }
  }
  stats.finalEnergy = p.energy(labels);

  if (opts.verifyOptimal && !freeClasses.empty()) {
    double space = std::pow(double(numLabels), double(freeClasses.size()));
    if (freeClasses.size() <= opts.verifyOptimal && space <= double(1 << 24)) {
      std::vector<DeviceIndex> trial(labels.begin(), labels.end());
      for (uint32_t x : freeClasses)
        trial[x] = 0;
      Cap best = p.energy(trial);
      while (true) {
        size_t i = 0;
        for (; i < freeClasses.size(); ++i) {
          DeviceIndex &l = trial[freeClasses[i]];
          if (++l < static_cast<DeviceIndex>(numLabels))
            break;
          l = 0;
        }
        if (i == freeClasses.size())
          break;
        best = std::min(best, p.energy(trial));
      }
      bool exactExpected = numLabels == 2;
      if ((exactExpected && stats.finalEnergy != best) || stats.finalEnergy > stats.initialEnergy) {
        diags.error(SMLoc(), "internal error: the minimum-cut placement costs " +
                                 Twine(stats.finalEnergy) + ", the best of " +
                                 Twine(freeClasses.size()) + " free classes costs " + Twine(best) +
                                 " (from " + Twine(stats.initialEnergy) + ")");
        return false;
      }
    }
  }

  StringRef reason = text(Twine("placed by --placement=") + (time ? "min-time" : "min-copy"));
  domains.reserveBindings(freeClasses.size());
  for (uint32_t x : freeClasses) // (a device's own class is never free)
    if (!bind(roots[x], labels[x], {whereLoc[x], reason}, const_cast<Expr *>(where[x])))
      return false;
  return true;
}

PlacementCost DeviceAnalysis::placementCost(const CostModel &costs) {
  // As the capture copies: once per value (copyOwner) and destination
  // device, whether a soft use, an on_device or an explicit device_copy
  // asks for it.
  PlacementCost pc;
  auto device = [&](DeviceIndex d) -> const VirtualDevice & { return mod.devices[d]; };
  DenseMap<const Expr *, SmallVector<DeviceIndex, 2>> copiedTo;
  auto addCopy = [&](const Expr *v, DeviceIndex from, DeviceIndex to) {
    if (from == kNoDevice || to == kNoDevice || domains.join(from, to) != kNoDevice ||
        readsAcrossScopes(v, from, to))
      return;
    SmallVector<DeviceIndex, 2> &seen = copiedTo[v];
    if (llvm::is_contained(seen, to))
      return;
    seen.push_back(to);
    uint64_t bytes = bytesOf(v);
    ++pc.copies;
    pc.bytes += bytes;
    pc.copySeconds += costs.copySeconds(device(from), device(to), bytes);
  };
  for (DefWalk &w : walks) {
    for (auto [pos, slot] : w.sharedValues) {
      const Expr *v = copyOwner(w.order[pos], /*settled=*/true);
      for (uint32_t u = info[slot].firstSoft; u != kNoUse; u = softUses[u].next) {
        // An on_device consumer copies its body to where its result is
        // (below), whatever the use expected.
        if (auto *od = dyn_cast<Call>(consumerOf(softUses[u])); od && od->isOp(kOnDevice))
          continue;
        addCopy(v, deviceOf(v), settledDevice(softUses[u].expected));
      }
    }
    for (Call *c : w.onDevices)
      if (!isFunctionTyped(c))
        addCopy(copyOwner(c->args[0].get(), /*settled=*/true), deviceOf(c->args[0].get()),
                deviceOf(c));
    for (Expr *e : w.order) {
      auto *c = dyn_cast<Call>(e);
      if (!c || !c->getOp() || c->isOp(kOnDevice))
        continue;
      if (c->isOp(kDeviceCopy)) {
        addCopy(copyOwner(c->args[0].get(), /*settled=*/true), deviceAttr(*c, "src_virtual_device"),
                deviceAttr(*c, "dst_virtual_device"));
        continue;
      }
      DeviceIndex d = deviceOf(c);
      if (d != kNoDevice)
        pc.computeSeconds += costs.opSeconds(*c, device(d));
    }
  }
  return pc;
}
