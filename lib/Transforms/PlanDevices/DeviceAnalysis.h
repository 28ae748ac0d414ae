//===- DeviceAnalysis.h - Where every expression lives ----------*- C++ -*-===//
//
// The analysis half of PlanDevices (phases 2 and 3 of PlanDevices.cpp's
// design comment): constraints, placement of shared values by cost, CPU
// fallback and defaulting. It does not change the IR; PlanDevices captures
// its answer, and the placement report and the Graphviz view read it back
// from a planned module (planning is idempotent, so the analysis of a
// planned module is exactly its placement).
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TRANSFORMS_PLANDEVICES_DEVICEANALYSIS_H
#define HX_LIB_TRANSFORMS_PLANDEVICES_DEVICEANALYSIS_H

#include "DeviceDomains.h"
#include "hx/IR/ExprNumbering.h"
#include "hx/IR/Module.h"
#include "hx/Pass/Pass.h"
#include "hx/Support/Diagnostics.h"
#include "hx/Transforms/Place.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/StringSaver.h"

namespace hx {
class CostModel;

/// How plan-devices places what no constraint places (--placement).
enum class PlacementStrategy : uint8_t {
  /// TVM's rule: unconstrained expressions follow their constraints, then the
  /// default device; shared values go where they cost the fewest bytes.
  Default,
  /// The fewest bytes moved by device_copy (one copy per value and
  /// destination device): a minimum cut (MinCutPlacement.cpp).
  MinCopy,
  /// The least estimated time: operators on their device plus copies.
  MinTime,
};

/// What the cost-based placement solved (MinCutPlacement.cpp).
struct PlacementStats {
  /// Free classes placed, and the copy terms (values with uses elsewhere).
  uint64_t classes = 0, terms = 0;
  /// Of the cut graphs: nodes and arcs (largest move), augmenting paths and
  /// orphans (nodes a saturated arc cut off their search tree; all moves),
  /// and the moves (max-flows) run.
  uint64_t nodes = 0, arcs = 0, augmentations = 0, orphans = 0, moves = 0;
  /// The estimate minimized: bytes (min-copy) or picoseconds (min-time),
  /// before and after (the default device for every free class, then the
  /// cut's placement).
  int64_t initialEnergy = 0, finalEnergy = 0;
};

/// What a placement costs (DeviceAnalysis::placementCost).
struct PlacementCost {
  uint64_t copies = 0, bytes = 0;
  double copySeconds = 0, computeSeconds = 0;
};

struct DeviceAnalysisOptions {
  /// Where unconstrained expressions go.
  DeviceIndex defaultDevice = kNoDevice;
  /// Operators a cuda device's target lacks go to the cpu device (added to
  /// the module when first needed).
  bool cpuFallback = false;
  /// Operators placed on a device whose target lacks them are errors.
  bool strictPlacement = false;
  /// Unconstrained expressions take the default device; when false (for
  /// insert-device-copies) they are errors.
  bool allowDefaulting = true;
  /// Where the phases report their times (--time-passes; null: not timed).
  TimingReport *timing = nullptr;
  /// How expressions no constraint places are placed.
  PlacementStrategy placement = PlacementStrategy::Default;
  /// The costs min-time minimizes (null: the roofline).
  const CostModel *costs = nullptr;
  /// For tests: after a cost-based placement, enumerate every placement of
  /// up to this many free classes and report an error if the cut's is not
  /// the cheapest (two devices) or costs more than where it started.
  unsigned verifyOptimal = 0;
  /// For tests: instead of a cut, put the free classes (in canonical order)
  /// on these devices, one digit each, so a script can price every
  /// placement as the capture makes it against the cut's model.
  std::string forcedPlacement;
};

class DeviceAnalysis {
public:
  DeviceAnalysis(Module &m, DiagEngine &diags, DeviceAnalysisOptions opts)
      : mod(m), diags(diags), opts(opts) {
    setDeviceJoins();
  }

  /// Solves every def of the module (addDef for each, then solve). Returns
  /// false after reporting errors.
  bool run();
  /// Generates one def's constraints (defs in any order). `order` is the
  /// def's walkDef(); empty: the def is walked here.
  bool addDef(Module::Def &d, std::vector<Expr *> order = {});
  /// The def's post-order, counting the uses of what it reaches; `onEdge`
  /// sees each edge too.
  std::vector<Expr *> walkDef(const Module::Def &d,
                              llvm::function_ref<void(Expr *, Expr *)> onEdge = nullptr);
  /// Forgets the counts of a walk (the def is about to change).
  void resetUses(llvm::ArrayRef<Expr *> order);
  /// A def's root function was replaced after other defs referred to it (by
  /// calling its global): `now` takes over the domain of `old`.
  void replaceRoot(const Function *old, const Function *now);
  /// After every def is added: shared values, defaults and target checks,
  /// def by def in the canonical order. `settled` is called once per def
  /// when its devices are final (PlanDevices captures it then, while the def
  /// is in the cache): right after its shared values when no free class
  /// links it to another def, else after every def's shared values. Returns
  /// false after reporting errors (target checks run last, over every def in
  /// canonical order, so defs may have settled before an error).
  bool solve(llvm::function_ref<void(Module::Def &)> settled = nullptr);
  /// Room for about `numExprs` expressions: at a million, growing the tables
  /// by doubling would copy them (and fault their pages in) again and again.
  void reserve(size_t numExprs);
  /// The post-order of a def as the analysis walked it (after solve).
  llvm::ArrayRef<Expr *> defOrder(const Module::Def &d) const {
    const DefWalk *w = walkOf(d);
    return w ? llvm::ArrayRef<Expr *>(w->order) : llvm::ArrayRef<Expr *>();
  }
  /// Positions in defOrder(d), ascending, of the nodes the capture may have
  /// to change: on_devices, device_copies, lets, functions, the consumers of
  /// on_devices and device_copies, and the consumers with a soft edge that
  /// may cross devices. A hard edge's two ends are unified, and so are many
  /// soft ones' once shared values are placed: those never need a copy.
  llvm::ArrayRef<uint32_t> captureVisits(const Module::Def &d) const {
    const DefWalk *w = walkOf(d);
    return w ? llvm::ArrayRef<uint32_t>(w->captureVisits) : llvm::ArrayRef<uint32_t>();
  }
  /// Whether the def alone holds the nodes captureVisits lists (their only
  /// owners are its nodes, and the def for its root), so the capture may
  /// change them in place. False when some node (other than a variable,
  /// global, operator or constant) is reached from two defs.
  bool ownsCaptureVisits(const Module::Def &d) const {
    const DefWalk *w = walkOf(d);
    return !nodesShared && w && w->ownsVisits;
  }
  /// Whether the edge to operand `i` (getOperands order) of `consumer` may
  /// cross devices (after solve): a soft edge not proven to stay on one.
  bool mayCross(const Expr *consumer, unsigned i) { return isSoftEdge(consumer, i); }

  /// Starts loading what the analysis keeps on `e` (a hint; `e` must be
  /// alive): a loop over scattered nodes calls it a few nodes ahead.
  void prefetch(const Expr *e) const {
    slots.prefetch(e);
    if (uint32_t k = e->slot(ExprSlot::Analysis); k && k <= info.size())
      __builtin_prefetch(&info[k - 1]);
  }

  /// The device of a first-order value (of a function value: of its result).
  DeviceIndex deviceOf(const Expr *e);
  /// The device consumer `e` expects for its operand `i` (getOperands
  /// order); kNoDevice for function-typed operands and callees.
  DeviceIndex expectedDevice(const Expr *e, unsigned i);
  /// Whether `operand`, on device `from`, reaches its consumer on `to`
  /// without a copy: a parameter of a `Primitive=1` function read by its
  /// body on the same device in another memory scope (the kernel reads the
  /// scope its parameter names, as TVM leaves a primitive body untouched).
  bool readsAcrossScopes(const Expr *operand, DeviceIndex from, DeviceIndex to) const;
  /// The device of parameter or let variable `v`.
  DeviceIndex varDevice(const Var *v) { return deviceOf(v); }
  /// The result device of a function (def or literal).
  DeviceIndex resultDevice(const Function *f);
  /// Whether this call was moved to the cpu because the device's target lacks
  /// its operator.
  bool isFallback(const Call *c) const { return fallbacks.count(c); }
  /// After solve: the copies this placement makes (one per value and
  /// destination device, and the explicit device_copies) and the estimated
  /// time of its operators and copies.
  PlacementCost placementCost(const CostModel &costs);
  /// What the cost-based placement solved (zeros under Default).
  const PlacementStats &placementStats() const { return stats; }

private:
  using Id = DeviceDomains::Id;
  /// 20 bytes, and the consumer by its slot: the steps after the
  /// constraints read soft uses by the hundred thousand, and the consumer
  /// node itself only for a diagnostic.
  struct SoftUse {
    uint32_t consumer; // its slot
    uint32_t index;
    Id expected;
    uint32_t next = kNoUse; // the value's next soft use
    /// Soft because it enters or leaves a cpu-fallback call: such an edge
    /// neither pulls the value to its device nor is pulled to the value's.
    bool boundary;
    /// Cleared once the value is placed if the use provably needs no copy.
    bool mayCross = true;
  };
  static_assert(sizeof(SoftUse) == 20, "read by the hundred thousand");
  Expr *consumerOf(const SoftUse &u) const { return const_cast<Expr *>(slots[u.consumer]); }

public:
  /// One def's nodes in post-order, the defs it calls (sorted by name), and
  /// its on_device calls, functions and lets (in post-order).
  struct DefWalk {
    Module::Def *def = nullptr;
    uint32_t index = 0; // in the order defs were added
    std::vector<Expr *> order;
    /// Its soft uses: softUses[softBegin, softEnd).
    uint32_t softBegin = 0, softEnd = 0;
    /// Its values with soft uses (solve): their positions in `order` and
    /// their slots.
    std::vector<std::pair<uint32_t, uint32_t>> sharedValues;
    std::vector<const Module::Def *> callees;
    std::vector<Call *> onDevices;
    std::vector<Function *> functions;
    std::vector<Let *> lets;
    /// Calls of operators some target lacks.
    std::vector<Call *> targetChecks;
    /// See captureVisits (positions in `order`) and ownsCaptureVisits.
    std::vector<uint32_t> captureVisits;
    bool ownsVisits = true;
  };

private:
  const DefWalk *walkOf(const Module::Def &d) const {
    auto it = walkIndex.find(&d);
    return it == walkIndex.end() ? nullptr : &walks[it->second];
  }
  bool checkTarget(Expr *e);
  bool checkTargets(llvm::ArrayRef<DefWalk *> group);
  /// Capture visits and defaults for `group` (defs whose shared values are
  /// placed, in canonical order), then `settled` for each.
  bool settle(llvm::ArrayRef<DefWalk *> group, SplitTimer &timer,
              llvm::function_ref<void(Module::Def &)> settled);
  /// The def's domain tag: its position in the module.
  uint32_t tagOf(const Module::Def &d) const;
  /// Whether `w` may settle before the defs after it place their shared
  /// values: no class that holds its domains and another def's is free.
  bool settlesAlone(const DefWalk &w);
  /// The device of a domain's first-order class; after the defaults, a class
  /// still free takes the default device here.
  DeviceIndex settledDevice(Id id);
  DeviceIndex cpuDevice();
  Id domainOf(const Expr *e);
  Id makeDomainForType(const Type *t);
  bool constrainNode(Expr *e);
  bool edge(Expr *consumer, unsigned i, Expr *operand, Id expected);
  /// Places the values at `values` (positions in `order`, ascending, and
  /// slots).
  bool placeSharedValues(llvm::ArrayRef<Expr *> order,
                         llvm::ArrayRef<std::pair<uint32_t, uint32_t>> values);
  /// After placing the value in `slot` (class `self`): which uses may cross.
  void noteCrossings(uint32_t slot, Id self);
  bool applyDefaults(llvm::ArrayRef<DefWalk *> group);
  /// --placement=min-copy|min-time: binds every free class that a copy or
  /// an operator's cost involves, by minimum cuts (MinCutPlacement.cpp).
  bool placeByCost(llvm::ArrayRef<DefWalk *> order);
  /// The value whose copies `v`'s copies are (the capture shares them): the
  /// body of a pinning on_device that is on its device, else `v`. `settled`:
  /// after solve (the devices decide), else by the constraints alone.
  const Expr *copyOwner(const Expr *v, bool settled);
  /// Whether the target of device `d` implements the operator of `c`.
  bool targetSupports(const Call &c, DeviceIndex d) const;
  PlacementStats stats;
  bool unify(Id a, Id b, Expr *at, const llvm::Twine &what);
  bool bind(Id a, DeviceIndex d, Reason why, Expr *at);
  void reportConflict(const DeviceDomains::Conflict &c, Expr *at, const llvm::Twine &what);
  bool needsFallback(const Call *c) const;
  /// Fallback is never silent: a located warning when it overrides a user's
  /// on_device that asks for a cuda device.
  void warnOverriddenAnnotation(const Call *onDevice, DeviceIndex d);
  /// `'cuda'`, as notes and errors name a device.
  llvm::StringRef deviceName(DeviceIndex d);
  /// Tells the domains which devices of the table join (memory scopes).
  void setDeviceJoins();
  /// The text kept for as long as the analysis (reasons refer to it).
  llvm::StringRef text(const llvm::Twine &t) { return texts.save(t); }
  uint64_t bytesOf(const Expr *e) const;

  Module &mod;
  DiagEngine &diags;
  DeviceAnalysisOptions opts;
  llvm::BumpPtrAllocator textMemory;
  llvm::UniqueStringSaver texts{textMemory};
  DeviceDomains domains;
  /// Parameters of `Primitive=1` functions (readsAcrossScopes).
  llvm::DenseSet<const Var *> primitiveParams;
  /// Let variables bound to pinned values (isPinned).
  llvm::DenseSet<const Var *> pinnedLetVars;
  /// Whether `e`'s device is pinned by the user or a signature: a fixed
  /// on_device, a parameter with a device, the result of a call of a
  /// function value, a let variable bound to one of these, or a field of
  /// one of these.
  bool isPinned(const Expr *e) const;
  /// Per-node side tables, indexed by the node's number in `slots` (its
  /// Analysis slot): at a million nodes, hash maps keyed by pointers stop
  /// fitting in the cache. Traversals inside the analysis use the Walk slot.
  static constexpr Id kNoDomain = UINT32_MAX;
  static constexpr uint32_t kNoUse = UINT32_MAX;
  static constexpr uint32_t kNoDef = UINT32_MAX;
  uint32_t slotOf(const Expr *e);
  ExprNumbering slots{ExprSlot::Analysis};
  /// What the analysis knows of one node: one cache line holds it all.
  struct SlotInfo {
    Id domain = kNoDomain;
    uint32_t uses = 0;
    /// Soft uses of the value, in program order: a list through `next`.
    uint32_t firstSoft = kNoUse, lastSoft = kNoUse;
    /// Bit i: the edge to operand i (getOperands order) is soft; operands
    /// past 63 are in softEdgesHigh.
    uint64_t softOperands = 0;
    /// The def (DefWalk::index) and the position in its post-order.
    uint32_t def = kNoDef, pos = 0;
  };
  std::vector<SlotInfo> info;
  std::vector<SoftUse> softUses;
  std::vector<DefWalk> walks;
  /// Slots of the values that have soft uses.
  std::vector<uint32_t> sharedValues;
  /// Set while the defaults of settled defs apply: free classes take the
  /// default device when asked (settledDevice).
  bool lazyDefaults = false;
  DeviceIndex cpu = kNoDevice;
  llvm::DenseSet<std::pair<const Expr *, unsigned>> softEdgesHigh;
  /// Whether the edge to operand `i` of `consumer` is soft; after solve,
  /// only the soft edges that may cross devices stay soft.
  bool isSoftEdge(const Expr *consumer, unsigned i);
  llvm::DenseSet<const Call *> fallbacks;
  /// Set while addDef constrains a node whose capture may change it.
  bool visitForCapture = false;
  bool nodesShared = false;
  /// walks[walkIndex[d]] is def d's (solve).
  llvm::DenseMap<const Module::Def *, uint32_t> walkIndex;
  /// After the shared values: drops the soft edges of `group` that cannot
  /// cross and adds the consumers of the others to their def's visits.
  void planCaptureVisits(llvm::ArrayRef<DefWalk *> group);
};

/// Helpers shared by the PlanDevices files.
namespace plan {
/// Operators, globals, function literals and values of function type: they
/// have function-shaped domains and are never copied.
bool isFunctionTyped(const Expr *e);
/// An on_device or device_copy call.
bool isAnnotation(const Expr *e);
/// `on_device(..., constrain_result=True)`.
bool isFixedOnDevice(const Expr *e);
/// `on_device(e, D)` with a device, constraining its body, not its result.
bool asNormalOnDevice(const Expr *e);
/// A device attribute (with the operator's default), kNoDevice if none.
DeviceIndex deviceAttr(const Call &c, llvm::StringRef name);
/// A boolean attribute (with the operator's default).
bool boolAttr(const Call &c, llvm::StringRef name);
} // namespace plan

/// The options plan-devices and insert-device-copies declare (PlacementPass).
struct PlacementOptions {
  /// `default-device=cpu|cuda|N`: overrides the module's PassConfig.
  std::optional<DeviceType> defaultDevice;
  /// `strict-placement`: operators a device's target lacks are an error, not
  /// a fallback to the cpu.
  bool strictPlacement = false;
  /// `replicate-cheap` (plan-devices): recompute constants and calls of
  /// constants on each device that needs them instead of copying them.
  bool replicateCheap = false;
  /// `placement-report` (plan-devices): print where each call runs and each
  /// copy.
  bool placementReport = false;
  /// `placement=default|min-copy|min-time` (plan-devices).
  PlacementStrategy placement = PlacementStrategy::Default;
  /// `cost-table=FILE` (plan-devices): measured costs for min-time.
  std::string costTable;
  /// `verify-optimal-placement=N` (plan-devices, for tests).
  unsigned verifyOptimal = 0;
  /// `force-placement=DIGITS` (plan-devices, for tests).
  std::string forcedPlacement;
  /// `place=PATTERN=DEVICE,...` (plan-devices): the place pass's rules,
  /// applied before planning.
  std::vector<PlaceRule> place;
};

/// A pass that places devices: declares the PlacementOptions it reads.
class PlacementPass : public Pass {
protected:
  /// `planning`: plan-devices (all options); else insert-device-copies
  /// (default-device and strict-placement).
  explicit PlacementPass(bool planning);
  PlacementOptions options;
};

/// The analysis options a module and the pass options imply: the default
/// device (default-device, else the PassConfig's fallback device type, else
/// TVM's CompilationConfig rule) and, with `fallback`, when some operator
/// lacks a cuda implementation, the cpu device it falls back to (added to the
/// table if absent).
void resolveDeviceOptions(Module &m, const PlacementOptions &o, DeviceAnalysisOptions &out,
                          bool fallback = true);

} // namespace hx

#endif
