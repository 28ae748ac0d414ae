//===- Capture.cpp - Rewrites before and after the device analysis -------===//
#include "Capture.h"
#include "hx/IR/Rewrite.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Transforms/CostModel.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>

using namespace hx;
using namespace llvm;
using namespace hx::plan;

namespace {
Call *asOnDevice(Expr *e) {
  auto *c = dyn_cast<Call>(e);
  return c && c->isOp(kOnDevice) ? c : nullptr;
}

/// A normal on_device made fixed.
ExprRef fixOnDevice(Expr *e) {
  Call *c = asOnDevice(e);
  if (!c || !boolAttr(*c, "constrain_body") || boolAttr(*c, "constrain_result"))
    return e;
  Attrs attrs = c->attrs;
  attrs.set("constrain_result", AttrValue::ofBool(true));
  auto r = make<Call>(c->callee, c->args, std::move(attrs), c->loc);
  r->checkedType = c->checkedType;
  return r;
}

/// What a copy memo is keyed by: the value under a fixed on_device, so that a
/// value and its pinned wrapper share their copies to each device.
Expr *copyKey(Expr *x) { return isFixedOnDevice(x) ? cast<Call>(x)->args[0].get() : x; }

/// Values a copy takes directly, without an on_device wrapper.
bool isVarLike(const Expr *e) { return isa<Var>(e) || isa<GlobalVar>(e) || isa<Function>(e); }

/// Constants, and operator calls whose arguments are all constants.
bool isCheap(const Expr *e) {
  if (isa<Constant>(e))
    return true;
  auto *c = dyn_cast<Call>(e);
  if (!c || !c->getOp() || c->isOp(kOnDevice) || c->isOp(kDeviceCopy))
    return false;
  for (const ExprRef &a : c->args)
    if (!isa<Constant>(a.get()))
      return false;
  return true;
}

class Capturer {
public:
  /// `inPlace`: every owner of a node the capture changes is in the def, so
  /// nodes are changed rather than copied (see captureDef).
  Capturer(Module &m, DeviceAnalysis &a, bool replicate, bool inPlace, bool keepPins)
      : m(m), a(a), replicate(replicate), inPlace(inPlace), keepPins(keepPins) {}

  ExprRef rebuild(Expr *old, ArrayRef<ExprRef> ops) {
    if (Call *od = asOnDevice(old)) {
      DeviceIndex body = a.deviceOf(od->args[0].get()), result = a.deviceOf(od);
      // A cost strategy re-places whatever is not pinned: a user's on_device
      // that needs no copy stays, as a fixed one, so that planning the output
      // again keeps its devices.
      if (keepPins && body == result && body != kNoDevice &&
          deviceAttr(*od, "virtual_device") != kNoDevice && boolAttr(*od, "constrain_body") &&
          !isVarLike(ops[1].get()) && !isFunctionTyped(od))
        return onDeviceFixed(ops[1], body);
      return copy(ops[1], body, result);
    }
    if (auto *c = dyn_cast<Call>(old); c && c->isOp(kDeviceCopy))
      return rebuildCopy(c, ops);

    SmallVector<ExprRef, 4> nops(ops.begin(), ops.end());
    SmallVector<Expr *, 4> oldOps;
    getOperands(old, oldOps);
    for (unsigned i = 0; i < oldOps.size(); ++i)
      if (oldOps[i] && a.mayCross(old, i) && !isFunctionTyped(oldOps[i])) {
        DeviceIndex from = a.deviceOf(oldOps[i]), to = a.expectedDevice(old, i);
        if (!a.readsAcrossScopes(oldOps[i], from, to))
          nops[i] = copy(nops[i], from, to);
      }
    if (auto *l = dyn_cast<Let>(old)) {
      Expr *v = nops[0].get();
      auto *vc = dyn_cast<Call>(v);
      if (!isVarLike(v) && !isFunctionTyped(v) && !(vc && vc->isOp(kDeviceCopy)))
        nops[0] = onDeviceFixed(nops[0], a.varDevice(l->var.get()));
      l->var->device = kNoDevice;
    }
    ExprRef r = update(old, nops);
    if (auto *f = dyn_cast<Function>(old)) {
      auto *nf = cast<Function>(r.get());
      nf->resultDevice = a.resultDevice(f);
      for (const Ref<Var> &p : nf->params)
        p->device = a.varDevice(p.get());
    }
    return r;
  }

  /// Keeps `k` alive while the memos live: its address is a key no
  /// memoised node holds, and must not be reused by a new node meanwhile.
  void keepKey(ExprRef k) { keys.push_back(std::move(k)); }

private:
  ExprRef rebuildCopy(Call *c, ArrayRef<ExprRef> ops) {
    DeviceIndex s = deviceAttr(*c, "src_virtual_device");
    DeviceIndex t = deviceAttr(*c, "dst_virtual_device");
    ExprRef arg = copy(ops[1], a.deviceOf(c->args[0].get()), s);
    if (s == t)
      return arg;
    auto &slot = copies[{copyKey(arg.get()), t}];
    if (slot)
      return slot;
    ExprRef src = isVarLike(arg.get()) ? arg : onDeviceFixed(arg, s);
    slot = update(c, {ops[0], src});
    return slot;
  }

  ExprRef onDeviceFixed(ExprRef x, DeviceIndex d) {
    if (asOnDevice(x.get()))
      return x;
    auto &slot = wrappers[x.get()];
    if (slot)
      return slot;
    Attrs attrs;
    attrs.set("virtual_device", AttrValue::ofDevice(d));
    attrs.set("constrain_result", AttrValue::ofBool(true));
    slot = make<Call>(ExprRef(m.getOp(kOnDevice)), SmallVector<ExprRef, 2>{x}, std::move(attrs),
                      x->loc);
    slot->checkedType = x->checkedType;
    return slot;
  }

  ExprRef copy(ExprRef x, DeviceIndex s, DeviceIndex t) {
    if (s == kNoDevice || t == kNoDevice || s == t)
      return x;
    auto &slot = copies[{copyKey(x.get()), t}];
    if (slot)
      return slot;
    if (replicate && isCheap(x.get())) {
      // Recompute on the destination: a fresh node, so nothing ties it to s.
      if (auto *k = dyn_cast<Constant>(x.get())) {
        auto c = make<Constant>(k->dtype, k->loc);
        c->floatValue = k->floatValue;
        c->intValue = k->intValue;
        c->tensor = k->tensor;
        c->checkedType = k->checkedType;
        slot = c;
      } else {
        auto *call = cast<Call>(x.get());
        slot = make<Call>(call->callee, call->args, call->attrs, call->loc);
        slot->checkedType = call->checkedType;
      }
      keepKey(x); // the replica does not hold it
      return slot;
    }
    ExprRef src = isVarLike(x.get()) ? x : onDeviceFixed(x, s);
    Attrs attrs;
    attrs.set("src_virtual_device", AttrValue::ofDevice(s));
    attrs.set("dst_virtual_device", AttrValue::ofDevice(t));
    slot = make<Call>(ExprRef(m.getOp(kDeviceCopy)), SmallVector<ExprRef, 2>{src}, std::move(attrs),
                      x->loc);
    slot->checkedType = x->checkedType;
    return slot;
  }

  ExprRef update(Expr *old, ArrayRef<ExprRef> ops) {
    if (!inPlace)
      return replaceOperands(old, ops);
    setOperands(old, ops);
    return old;
  }

  Module &m;
  DeviceAnalysis &a;
  bool replicate;
  bool inPlace;
  bool keepPins;
  DenseMap<std::pair<Expr *, DeviceIndex>, ExprRef> copies;
  DenseMap<Expr *, ExprRef> wrappers;
  std::vector<ExprRef> keys; // see keepKey
};
} // namespace

void hx::rewriteOnDevices(Module::Def &d, ArrayRef<Expr *> order) {
  {
    ExprRef r = rewriteInOrder(order, [](Expr *old, ArrayRef<ExprRef> ops) -> ExprRef {
      if (auto *g = dyn_cast<TupleGetItem>(old)) {
        // Project before copying: only the needed field crosses devices.
        if (Call *od = asOnDevice(ops[0].get())) {
          auto inner = make<TupleGetItem>(od->args[0], g->index, g->loc);
          inner->checkedType = g->checkedType;
          auto r = make<Call>(od->callee, SmallVector<ExprRef, 2>{inner}, od->attrs, od->loc);
          r->checkedType = g->checkedType;
          return r;
        }
      }
      if (isa<Let>(old)) {
        SmallVector<ExprRef, 2> nops{fixOnDevice(ops[0].get()), ops[1]};
        return replaceOperands(old, nops);
      }
      if (isa<Function>(old))
        return replaceOperands(old, {fixOnDevice(ops[0].get())});
      return replaceOperands(old, ops);
    });
    d.fn = cast<Function>(r.get());
  }
}

bool hx::placeDevices(Module &m, PassContext &ctx, const PlacementOptions &options, bool plan,
                      const CostModel *costs, PlacementCost *estimate, PlacementStats *stats) {
  // Def by def, while its nodes are in the cache: infer its types, then the
  // on_device rewrite and the walk that generates its constraints. On a
  // module that does not fit in the cache this reads every def from memory
  // once instead of twice.
  //
  // The device analysis reports to `deviceDiags`, which holds its
  // diagnostics until every def is typed: as if infer-type ran first, a
  // module with type errors reports those and nothing else, and the analysis
  // never sees a def with type errors.
  std::vector<Diagnostic> held;
  bool typed = false;
  DiagEngine deviceDiags(ctx.diags.getSourceMgr());
  deviceDiags.setHandler([&](const Diagnostic &d) {
    if (typed)
      ctx.diags.emit(d);
    else
      held.push_back(d);
  });

  TypeInference types(m, ctx.diags);
  DeviceAnalysisOptions opts;
  bool ok = true;
  resolveDeviceOptions(m, options, opts, /*fallback=*/plan);
  opts.allowDefaulting = plan;
  opts.timing = ctx.timing;
  opts.costs = costs;
  DeviceAnalysis analysis(m, deviceDiags, opts);
  analysis.reserve(m.exprCountHint);
  SplitTimer typing(ctx.timing, "infer-type");
  SplitTimer constraining(ctx.timing, "rewrite and constraints");
  for (Module::Def &d : m.defs) {
    {
      SplitTimer::Lap lap(typing);
      types.inferDef(d);
    }
    if (!ok || types.hadError())
      continue; // type the rest: every type error is reported
    SplitTimer::Lap lap(constraining);
    // The def's one walk counts the uses and notes whether the rewrite has
    // anything to look at (an on_device under a projection, a let or a
    // function).
    bool rewrite = false;
    std::vector<Expr *> order = analysis.walkDef(d, [&](Expr *user, Expr *operand) {
      rewrite |= plan && asOnDevice(operand) &&
                 (isa<TupleGetItem>(user) || isa<Let>(user) || isa<Function>(user));
    });
    if (rewrite) {
      analysis.resetUses(order);
      Ref<Function> before = d.fn; // alive until the analysis moves its domain
      rewriteOnDevices(d, order);
      if (d.fn != before) {
        analysis.replaceRoot(before.get(), d.fn.get());
        types.replacedRoot(before.get(), d.fn.get());
      }
      order = analysis.walkDef(d);
    }
    ok = analysis.addDef(d, std::move(order));
  }
  if (!types.finish())
    return false; // the held diagnostics are dropped
  typed = true;
  for (const Diagnostic &d : held)
    ctx.diags.emit(d);
  if (!ok)
    return false;
  // Each def is captured as soon as its devices are final: for most defs,
  // right after their shared values are placed, while their nodes are in the
  // cache. (The row appears after the analysis' own.)
  if (estimate) {
    if (!analysis.solve())
      return false;
    CostModel roofline;
    *estimate = analysis.placementCost(costs ? *costs : roofline);
    if (stats)
      *stats = analysis.placementStats();
    return true;
  }
  std::optional<SplitTimer> capturing;
  return analysis.solve([&](Module::Def &d) {
    if (!capturing)
      capturing.emplace(ctx.timing, "capture");
    SplitTimer::Lap lap(*capturing);
    captureDef(m, d, analysis, options.replicateCheap,
               /*keepPins=*/options.placement != PlacementStrategy::Default);
  });
}

/// Captures one def. Only the nodes captureVisits lists can change, so when
/// every owner of those nodes is in the def (no node shared with another def,
/// none held from outside), they are changed in place and the rest of the def
/// is never read: at a million nodes the capture touches a fraction of them.
/// Otherwise the def is rebuilt whole, copying each changed node that has
/// other owners. Both give the same program.
void hx::captureDef(Module &m, Module::Def &d, DeviceAnalysis &a, bool replicateCheap,
                    bool keepPins) {
  ArrayRef<Expr *> order = a.defOrder(d);
  ArrayRef<uint32_t> visits = a.captureVisits(d);
  bool inPlace = a.ownsCaptureVisits(d);
  Capturer c(m, a, replicateCheap, inPlace, keepPins); // memos never outlive a def
  if (!inPlace) {
    // The order the analysis walked (the def is unchanged since): a
    // sequential pass instead of another walk.
    ExprRef r = rewriteInOrder(
        order, [&](Expr *old, ArrayRef<ExprRef> ops) { return c.rebuild(old, ops); });
    d.fn = cast<Function>(r.get());
    return;
  }
  // Only on_devices and device_copies are replaced by other nodes; the rest
  // keep their identity, so a node's unvisited users need no change.
  DenseMap<Expr *, ExprRef> replaced;
  SmallVector<Expr *, 8> old;
  SmallVector<ExprRef, 8> ops;
  for (size_t i = 0; i < visits.size(); ++i) {
    // The visits are scattered: load each node ahead, then what the
    // analysis keeps on it.
    if (i + 8 < visits.size())
      __builtin_prefetch(order[visits[i + 8]]);
    if (i + 4 < visits.size())
      a.prefetch(order[visits[i + 4]]);
    Expr *e = order[visits[i]];
    old.clear();
    getOperands(e, old);
    ops.clear();
    for (Expr *o : old) {
      // (Looked up by address: reading each operand's kind would load
      // every operand node from memory.)
      auto it = o && !replaced.empty() ? replaced.find(o) : replaced.end();
      ops.push_back(it != replaced.end() ? it->second : ExprRef(o));
    }
    ExprRef r = c.rebuild(e, ops);
    if (r.get() != e) {
      replaced[e] = std::move(r);
      c.keepKey(e); // its users drop it as they are changed
    }
  }
}
