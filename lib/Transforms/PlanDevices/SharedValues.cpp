//===- SharedValues.cpp - Where a value used on several devices lives ----===//
//
// Phase 2b of PlanDevices (beyond TVM), after every def's constraints, in
// program order (canonical def order, then post-order): a value with soft
// uses lives where its producer puts it; if nothing does, on the candidate
// device (a device its soft operands are on, then a device a use needs, in
// program order) that moves the fewest bytes: one copy per other device its
// uses need, plus copies of its soft operands. cpu-fallback boundaries never
// place a value alone, in either direction: a value only fallbacks read is
// defaulted with its producer and copied to them, and a fallback's result is
// copied to its readers, so the cpu takes the operators the device lacks,
// not every producer before them or consumer after. Unconstrained uses follow it,
// and so do uses on a device that joins its (the same device, the memory
// scope left open on one side, which TVM unifies).
//
// Once a value is placed, each of its soft uses either provably needs no
// copy (it is in the value's class, or bound to the value's device) or may
// still need one; the capture visits only the consumers of the latter.
//
//===----------------------------------------------------------------------===//
#include "DeviceAnalysis.h"

using namespace hx;
using namespace llvm;
using namespace hx::plan;

bool DeviceAnalysis::placeSharedValues(ArrayRef<Expr *> order,
                                       ArrayRef<std::pair<uint32_t, uint32_t>> values) {
  SmallVector<Expr *, 8> ops;
  auto addUnique = [](SmallVectorImpl<DeviceIndex> &s, DeviceIndex d) {
    if (d != kNoDevice && !llvm::is_contained(s, d))
      s.push_back(d);
  };
  SmallVector<SoftUse, 4> uses;
  for (size_t j = 0; j < values.size(); ++j) {
    // Most values are placed already (by their producer or a use); those
    // need only the side tables, which are read ahead: first the value's
    // entry, then its domain and first soft use.
    if (j + 8 < values.size())
      __builtin_prefetch(&info[values[j + 8].second]);
    if (j + 4 < values.size()) {
      const SlotInfo &ahead = info[values[j + 4].second];
      domains.prefetch(ahead.domain);
      if (ahead.firstSoft < softUses.size())
        __builtin_prefetch(&softUses[ahead.firstSoft]);
    }
    uint32_t slot = values[j].second;
    uses.clear();
    for (uint32_t u = info[slot].firstSoft; u != kNoUse; u = softUses[u].next)
      uses.push_back(softUses[u]);
    Id self = domains.firstOrder(info[slot].domain != kNoDomain ? info[slot].domain
                                                                : domainOf(order[values[j].first]));
    DeviceIndex here = domains.device(self);
    if (here == kNoDevice) {
      Expr *v = order[values[j].first];
      // Candidates, in preference order: devices its soft operands are on
      // (its producer side), then devices its uses need, in program order.
      // Devices only cpu-fallback boundaries ask for come last.
      SmallVector<DeviceIndex, 4> candidates, boundaryCandidates;
      SmallVector<std::pair<DeviceIndex, uint64_t>, 8> demands; // (device, bytes) to move there
      ops.clear();
      getOperands(v, ops);
      for (unsigned i = 0; i < ops.size(); ++i) {
        // A fallback's result does not draw its readers to the cpu either.
        auto *producer = dyn_cast<Call>(ops[i]);
        if (!isSoftEdge(v, i) || (producer && fallbacks.count(producer)))
          continue;
        DeviceIndex d = domains.device(domains.firstOrder(domainOf(ops[i])));
        if (d == kNoDevice)
          continue;
        addUnique(candidates, d);
        demands.push_back({d, bytesOf(ops[i])}); // moving v away from d copies ops[i]
      }
      uint64_t bytes = bytesOf(v);
      SmallVector<DeviceIndex, 4> useDevices;
      for (const SoftUse &u : uses) {
        DeviceIndex d = domains.device(u.expected);
        addUnique(u.boundary ? boundaryCandidates : candidates, d);
        addUnique(useDevices, d);
      }
      if (candidates.empty()) {
        // Nothing but free uses and cpu-fallback boundaries: the value stays
        // with its free uses, to be defaulted, and is copied to the fallbacks.
        // Were a fallback to place it, the cpu would spread back through its
        // producers' data flow and take the whole graph, not only the tail.
        for (const SoftUse &u : uses)
          if (!u.boundary &&
              !unify(self, u.expected, consumerOf(u), "cannot place this expression"))
            return false;
        noteCrossings(slot, self);
        continue;
      }
      for (DeviceIndex d : boundaryCandidates)
        addUnique(candidates, d);
      uint64_t bestCost = UINT64_MAX;
      for (DeviceIndex d : candidates) {
        uint64_t cost = 0;
        for (DeviceIndex u : useDevices) // one copy per other device
          cost += domains.join(u, d) == kNoDevice ? bytes : 0;
        for (auto &[sd, sb] : demands)
          cost += domains.join(sd, d) == kNoDevice ? sb : 0;
        if (cost < bestCost) {
          bestCost = cost;
          here = d;
        }
      }
      if (!bind(self, here,
                {v->loc, text(Twine("placed on ") + deviceName(here) +
                              ", where it costs the fewest copies")},
                v))
        return false;
    }
    // Unconstrained uses follow the value. Where the table has devices that
    // join (memory scopes), so does every use on a device that joins the
    // value's, equal ones included, as TVM unifies them: a later join that
    // refines one side's scope then refines the other's, and a use found
    // copy-free here stays so.
    for (const SoftUse &u : uses) {
      if (u.boundary)
        continue;
      DeviceIndex d = domains.device(u.expected);
      bool joins = domains.hasJoins() && domains.join(d, domains.device(self)) != kNoDevice;
      if ((d == kNoDevice || joins) &&
          !unify(u.expected, self, consumerOf(u), "cannot place this expression"))
        return false;
    }
    noteCrossings(slot, self);
  }
  return true;
}

void DeviceAnalysis::noteCrossings(uint32_t slot, Id self) {
  // Final once the value is placed: a use in its class, or bound to its
  // device, never needs a copy. Others (free classes the defaults will bind,
  // cpu-fallback boundaries) are left for the capture to check.
  Id root = domains.find(self);
  DeviceIndex here = domains.device(root);
  for (uint32_t k = info[slot].firstSoft; k != kNoUse; k = softUses[k].next) {
    SoftUse &u = softUses[k];
    if (u.boundary)
      continue;
    Id e = domains.find(u.expected);
    DeviceIndex d = domains.device(e);
    u.mayCross = !(e == root || (d != kNoDevice && d == here));
  }
}

void DeviceAnalysis::planCaptureVisits(ArrayRef<DefWalk *> group) {
  // Soft edges that cannot cross devices stop being soft; the consumers of
  // the others join their def's visits (by DefWalk::index: a consumer two
  // defs share is the last one's).
  DenseMap<uint32_t, std::vector<uint32_t>> crossing;
  for (DefWalk *w : group)
    for (uint32_t k = w->softBegin; k < w->softEnd; ++k) {
      if (k + 8 < w->softEnd) // consumers are scattered: load ahead
        __builtin_prefetch(&info[softUses[k + 8].consumer]);
      const SoftUse &u = softUses[k];
      SlotInfo &c = info[u.consumer];
      if (u.mayCross)
        crossing[c.def].push_back(c.pos);
      else if (u.index < 64)
        c.softOperands &= ~(uint64_t(1) << u.index);
      else
        softEdgesHigh.erase({consumerOf(u), u.index});
    }
  for (auto &[def, positions] : crossing) {
    std::vector<uint32_t> &visits = walks[def].captureVisits;
    llvm::sort(positions); // a consumer has one entry per soft edge
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    std::vector<uint32_t> merged;
    merged.reserve(visits.size() + positions.size());
    std::set_union(visits.begin(), visits.end(), positions.begin(), positions.end(),
                   std::back_inserter(merged));
    visits = std::move(merged);
  }
}
