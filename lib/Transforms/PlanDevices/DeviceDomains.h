//===- DeviceDomains.h - Union-find over device domains ---------*- C++ -*-===//
//
// A device domain says where a value lives. It is
//   - free (not yet known),
//   - bound to a device (an index into the module's device table), or
//   - function-shaped, fn(D1, ..., Dn):Dr, for values of function type:
//     where each parameter and the result live.
// Domains are merged by unification, TVM's DeviceDomains. Two bound domains
// merge when their devices are equal or *join*: the same device where one
// leaves the memory scope open ("cpu" and "cpu" in scope "global.texture"
// join to the latter), as TVM's VirtualDevice::Join. A bound domain
// remembers why it is bound (a Reason: a location and a phrase), so that a
// conflict can be reported with a note at each constraint.
//
// Each domain carries a tag (PlanDevices: the def whose node it is), and the
// domains remember each free class that came to hold two tags. A tag none of
// whose such classes is still free shares no free class with another: what
// later happens to the other tags' classes cannot change its devices.
//
// Unification is iterative (a worklist of pairs), finds compress paths
// iteratively, and classes are linked by rank: near-linear in the number of
// unifications, whatever the depth of the program.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TRANSFORMS_PLANDEVICES_DEVICEDOMAINS_H
#define HX_LIB_TRANSFORMS_PLANDEVICES_DEVICEDOMAINS_H

#include "hx/IR/VirtualDevice.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace hx {

/// Why a domain is bound to a device, for notes in diagnostics.
struct Reason {
  llvm::SMLoc loc;
  /// "constrained to cpu by this on_device". The text is the caller's and
  /// must outlive the domains: a million-node module binds hundreds of
  /// thousands of domains, with a few distinct texts among them.
  llvm::StringRef what;
};

class DeviceDomains {
public:
  using Id = uint32_t;

  /// Two bound domains that could not be merged.
  struct Conflict {
    DeviceIndex a, b;
    const Reason *reasonA;
    const Reason *reasonB;
  };

  /// Devices that join (setJoins; none by default): `joins[a * n + b]` is
  /// the join of devices a and b, kNoDevice where they conflict.
  void setJoins(std::vector<DeviceIndex> joins, unsigned n) {
    joinTable = std::move(joins);
    numDevices = n;
    anyJoins = false;
    for (unsigned a = 0; a < n; ++a)
      for (unsigned b = 0; b < n; ++b)
        anyJoins |= a != b && joinTable[a * n + b] != kNoDevice;
  }
  /// Whether two different devices of the table join.
  bool hasJoins() const { return anyJoins; }
  /// The join of two devices: the device itself when equal, the one with the
  /// memory scope when the other leaves it open, else kNoDevice.
  DeviceIndex join(DeviceIndex a, DeviceIndex b) const {
    if (a == b)
      return a;
    if (a < 0 || b < 0 || static_cast<unsigned>(a) >= numDevices ||
        static_cast<unsigned>(b) >= numDevices)
      return kNoDevice;
    return joinTable[a * numDevices + b];
  }

  Id makeFree();
  Id makeBound(DeviceIndex d, Reason why);
  /// fn(params...):result, from existing domains.
  Id makeFunction(llvm::ArrayRef<Id> paramsAndResult);

  Id find(Id x);
  bool isFunction(Id x) { return node(find(x)).isFunction; }
  /// Parameter and result domains of a function domain (result last).
  llvm::SmallVector<Id, 4> children(Id x) {
    llvm::ArrayRef<Id> c = childrenOf(node(find(x)));
    return llvm::SmallVector<Id, 4>(c.begin(), c.end());
  }
  /// The result domain of a function domain (recursively); `x` itself if
  /// first-order.
  Id firstOrder(Id x);
  /// The device of a first-order domain, kNoDevice if free.
  DeviceIndex device(Id x) { return node(find(x)).device; }
  const Reason *reason(Id x) {
    Node &n = node(find(x));
    return n.device == kNoDevice ? nullptr : &reasons[n.reason];
  }

  /// Merges `a` and `b` (and, for function domains, their components).
  /// Returns the first conflict; the classes merged before it stay merged.
  std::optional<Conflict> unify(Id a, Id b);
  /// Binds `x` (every component, if function-shaped) to `d`.
  std::optional<Conflict> bind(Id x, DeviceIndex d, Reason why);
  /// Room for `n` more bindings' reasons (a million at once: one allocation).
  void reserveBindings(size_t n) { reasons.reserve(reasons.size() + n); }
  /// Unifies every component of `fnDomain` with the first-order `fo`
  /// (TVM's "collapse": a function stored in a tuple lives with the tuple).
  std::optional<Conflict> collapse(Id fnDomain, Id fo);

  /// Domains made from now on carry tag `t` (tags from 65535 on are always
  /// mixed).
  void setTag(uint32_t t) { tag = t < kMixed ? static_cast<uint16_t>(t) : kMixed; }
  uint32_t currentTag() const { return tag; }
  /// Whether some class that holds domains of tag `t` and of another tag is
  /// not bound to a device (free, or function-shaped).
  bool sharesFreeClass(uint32_t t);
  /// From now on, sharesFreeClass(t) is true (its domains are reached in
  /// ways the domains do not see).
  void markShared(uint32_t t);

  /// Starts loading domain `x` (a hint; any id).
  void prefetch(Id x) const {
    if (x < nodes.size())
      __builtin_prefetch(&nodes[x]);
  }

  size_t size() const { return nodes.size(); }
  void reserve(size_t n) { nodes.reserve(n); }

private:
  // 24 bytes, trivially copyable: a million-node module has over a million
  // domains, and find() walks them. Function shapes (rare) keep their
  // components in `childPool`.
  struct Node {
    Id parent;
    uint32_t reason = 0;
    DeviceIndex device = kNoDevice;
    uint32_t firstChild = 0;
    uint32_t numChildren = 0;
    uint8_t rank = 0;
    bool isFunction = false;
    uint16_t tag = kMixed; // of a root: kMixed once the class mixes tags
  };
  static constexpr uint16_t kMixed = UINT16_MAX;
  static_assert(sizeof(Node) == 24, "find() walks a million of them");
  Node &node(Id x) { return nodes[x]; }
  llvm::ArrayRef<Id> childrenOf(const Node &n) const {
    return llvm::ArrayRef<Id>(childPool).slice(n.firstChild, n.numChildren);
  }
  std::optional<Conflict> link(Id a, Id b, llvm::SmallVectorImpl<std::pair<Id, Id>> &work);

  std::vector<Node> nodes;
  std::vector<Id> childPool;
  std::vector<Reason> reasons;
  std::vector<DeviceIndex> joinTable;
  unsigned numDevices = 0;
  bool anyJoins = false;
  uint16_t tag = kMixed;
  /// Per tag: a domain of each class that came to mix it with another tag,
  /// kAlways if markShared.
  std::vector<llvm::SmallVector<Id, 2>> mixed;
  static constexpr Id kAlways = UINT32_MAX;
  void noteMixed(uint32_t t, Id x);
};

} // namespace hx

#endif
