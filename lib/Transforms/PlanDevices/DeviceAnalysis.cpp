//===- DeviceAnalysis.cpp - Where every expression lives -----------------===//
//
// Phase 2a, constraints (addDef: one post-order walk per def, as TVM; defs
// in any order, since unification's solution does not depend on it):
//   - a primitive call puts its tensor arguments and result on one domain;
//   - on_device(e, D): e on D (unless constrain_body=False); the result on D
//     only when constrain_result=True;
//   - device_copy(e, S, T): e on S, the result on T;
//   - a call of a function value: callee domain = fn(argument domains):result;
//   - let: the variable with its value, the let with its body; tuples,
//     projections and ifs with their parts; a function's body with its result.
//   Each use of a value is an edge from consumer to operand. An edge is *hard*
//   (the two domains are unified, and a conflict is a located error) unless
//   it is *soft*: its operand is a first-order value used more than once, a
//   pinned value (a fixed on_device, a parameter with a device, the result
//   of a call of a function value) used by an operator or a tuple, or it
//   enters or leaves a call that falls back to the cpu. Soft edges are
//   recorded, not unified. Under --placement=min-copy|min-time, every tensor
//   an operator, a function call or a tuple reads is a soft edge too
//   (MinCutPlacement.cpp decides which of them cross).
// solve() orders the defs canonically (callees first, ties by name) and goes
// def by def in that order: phase 2b, then phase 3 right away when the def
// settles alone (settlesAlone: no class it shares with another def is still
// free), else once every def's shared values are placed.
// Phase 2b, shared values (beyond TVM): SharedValues.cpp.
// Phase 3, defaults (as TVM): free on_devices join their body; a function's
//   unconstrained result takes the default device and its unconstrained
//   parameters the result's device; a let variable its let's device; anything
//   left the default device.
//
//===----------------------------------------------------------------------===//
#include "DeviceAnalysis.h"
#include "hx/IR/TargetKind.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/OpRegistry.h"

using namespace hx;
using namespace llvm;
using namespace hx::plan;

bool plan::isFunctionTyped(const Expr *e) {
  return isa<Op>(e) || isa<GlobalVar>(e) || isa<Function>(e) ||
         (e->checkedType && isa<FuncType>(e->checkedType.get()));
}

bool plan::isAnnotation(const Expr *e) {
  auto *c = dyn_cast<Call>(e);
  return c && (c->isOp(kOnDevice) || c->isOp(kDeviceCopy));
}

bool plan::asNormalOnDevice(const Expr *e) {
  auto *c = dyn_cast<Call>(e);
  return c && c->isOp(kOnDevice) && !boolAttr(*c, "constrain_result") &&
         boolAttr(*c, "constrain_body") && deviceAttr(*c, "virtual_device") != kNoDevice;
}

bool plan::isFixedOnDevice(const Expr *e) {
  auto *c = dyn_cast<Call>(e);
  return c && c->isOp(kOnDevice) && boolAttr(*c, "constrain_result");
}

DeviceIndex plan::deviceAttr(const Call &c, StringRef name) {
  AttrValue v = getAttrOrDefault(c, name);
  return v.kind == AttrValue::Kind::Device ? static_cast<DeviceIndex>(v.intValue) : kNoDevice;
}

bool plan::boolAttr(const Call &c, StringRef name) {
  AttrValue v = getAttrOrDefault(c, name);
  return v.kind == AttrValue::Kind::Bool && v.boolValue;
}

StringRef DeviceAnalysis::deviceName(DeviceIndex d) {
  if (d < 0 || static_cast<size_t>(d) >= mod.devices.size())
    return "?";
  return text("'" + Twine(mod.devices[d].shortName()) + "'");
}

bool DeviceAnalysis::readsAcrossScopes(const Expr *operand, DeviceIndex from,
                                       DeviceIndex to) const {
  auto *v = dyn_cast<Var>(operand);
  if (!v || !primitiveParams.count(v) || from < 0 || to < 0 ||
      static_cast<size_t>(from) >= mod.devices.size() ||
      static_cast<size_t>(to) >= mod.devices.size())
    return false;
  return mod.devices[from].sameDeviceAs(mod.devices[to]);
}

void DeviceAnalysis::setDeviceJoins() {
  unsigned n = static_cast<unsigned>(mod.devices.size());
  std::vector<DeviceIndex> joins(size_t(n) * n);
  for (unsigned a = 0; a < n; ++a)
    for (unsigned b = 0; b < n; ++b)
      joins[a * n + b] = joinDevices(mod.devices, a, b);
  domains.setJoins(std::move(joins), n);
}

uint64_t DeviceAnalysis::bytesOf(const Expr *e) const { return storageBytes(e->checkedType.get()); }

void DeviceAnalysis::warnOverriddenAnnotation(const Call *onDevice, DeviceIndex d) {
  auto *inner = dyn_cast<Call>(onDevice->args[0].get());
  if (!inner || !needsFallback(inner) ||
      targetSupportsOp(mod.devices[d].target, *inner->getOp()->def))
    return;
  diags
      .warning(inner->loc,
               "'" + inner->getOp()->name + "' has no " + targetKindOf(mod.devices[d].target).name +
                   " implementation: it runs on " + deviceName(cpuDevice()) + ", not on " +
                   deviceName(d) + " as annotated (--strict-placement makes this an error)")
      .note(onDevice->loc, "the annotation is here");
}

bool DeviceAnalysis::needsFallback(const Call *c) const {
  if (!opts.cpuFallback || opts.strictPlacement)
    return false;
  Op *op = c->getOp();
  return op && op->def && firstKindLacking(mod.devices, *op->def);
}

DeviceAnalysis::Id DeviceAnalysis::makeDomainForType(const Type *t) {
  if (auto *ft = dyn_cast_or_null<FuncType>(t)) {
    SmallVector<Id, 4> ch;
    for (auto &p : ft->params)
      ch.push_back(makeDomainForType(p.get()));
    ch.push_back(makeDomainForType(ft->ret.get()));
    return domains.makeFunction(ch);
  }
  return domains.makeFree();
}

uint32_t DeviceAnalysis::slotOf(const Expr *e) {
  auto [k, inserted] = slots.insert(e);
  if (inserted) {
    info.emplace_back();
  }
  return k;
}

bool DeviceAnalysis::isSoftEdge(const Expr *consumer, unsigned i) {
  if (i >= 64)
    return softEdgesHigh.count({consumer, i});
  return info[slotOf(consumer)].softOperands >> i & 1;
}

DeviceAnalysis::Id DeviceAnalysis::domainOf(const Expr *e) {
  uint32_t slot = slotOf(e);
  if (info[slot].domain != kNoDomain)
    return info[slot].domain;
  Id id;
  if (auto *gv = dyn_cast<GlobalVar>(e)) {
    // A def's signature is the def's, whichever def first refers to it.
    const Module::Def *callee = mod.lookupDef(gv->name);
    uint32_t tag = domains.currentTag();
    if (callee)
      domains.setTag(tagOf(*callee));
    id = callee ? domainOf(callee->fn.get()) : domains.makeFree();
    domains.setTag(tag);
  } else if (auto *f = dyn_cast<Function>(e)) {
    SmallVector<Id, 4> ch;
    for (const Ref<Var> &p : f->params)
      ch.push_back(domainOf(p.get()));
    const Type *ret = f->retType.get();
    if (auto *ft = dyn_cast_or_null<FuncType>(f->checkedType.get()))
      ret = ft->ret.get();
    Id result = makeDomainForType(ret);
    if (f->resultDevice != kNoDevice)
      domains.bind(
          domains.firstOrder(result), f->resultDevice,
          {f->loc, text(Twine("the function's result is on ") + deviceName(f->resultDevice))});
    ch.push_back(result);
    id = domains.makeFunction(ch);
  } else if (auto *v = dyn_cast<Var>(e)) {
    const Type *t = v->checkedType ? v->checkedType.get() : v->annotation.get();
    id = makeDomainForType(t);
    if (v->device != kNoDevice) // of a function value: its result's device
      domains.bind(
          domains.firstOrder(id), v->device,
          {v->loc, text("parameter '%" + Twine(v->name) + "' is on " + deviceName(v->device))});
  } else {
    id = makeDomainForType(e->checkedType.get());
  }
  info[slotOf(e)].domain = id; // the slot table may have grown meanwhile
  return id;
}

void DeviceAnalysis::reportConflict(const DeviceDomains::Conflict &c, Expr *at, const Twine &what) {
  if (!c.reasonA || !c.reasonB) {
    diags.error(at->loc, what + ": function device signatures of different arity");
    return;
  }
  auto d = diags.error(at->loc, what + ": conflicting device constraints, " + deviceName(c.a) +
                                    " and " + deviceName(c.b));
  d.note(c.reasonA->loc, c.reasonA->what);
  d.note(c.reasonB->loc, c.reasonB->what);
}

bool DeviceAnalysis::unify(Id a, Id b, Expr *at, const Twine &what) {
  if (auto c = domains.unify(a, b)) {
    reportConflict(*c, at, what);
    return false;
  }
  return true;
}

bool DeviceAnalysis::bind(Id a, DeviceIndex d, Reason why, Expr *at) {
  if (auto c = domains.bind(a, d, std::move(why))) {
    reportConflict(*c, at, "cannot place this expression");
    return false;
  }
  return true;
}

bool DeviceAnalysis::isPinned(const Expr *e) const {
  while (auto *g = dyn_cast<TupleGetItem>(e)) // a field of a pinned tuple
    e = g->tuple.get();
  if (auto *v = dyn_cast<Var>(e))
    return v->device != kNoDevice || pinnedLetVars.count(v);
  auto *call = dyn_cast<Call>(e);
  return isFixedOnDevice(e) || (call && !call->getOp());
}

bool DeviceAnalysis::edge(Expr *consumer, unsigned i, Expr *operand, Id expected) {
  visitForCapture |= isAnnotation(operand); // the capture replaces it
  bool firstOrder = !isFunctionTyped(operand);
  bool boundary = (isa<Call>(consumer) && fallbacks.count(cast<Call>(consumer))) ||
                  (isa<Call>(operand) && fallbacks.count(cast<Call>(operand)));
  // A value pinned by the user (a fixed on_device, a parameter with a device)
  // or by a function's signature (the result of a call of a function value),
  // or a let variable bound to one, may be copied to an operator or a tuple that needs it
  // elsewhere, as it would be if it had other uses. Directly inside another annotation, or bound to
  // a function's signature, it may not.
  auto *cc = dyn_cast<Call>(consumer);
  bool annotation = cc && (cc->isOp(kOnDevice) || cc->isOp(kDeviceCopy));
  bool operatorUse = (cc && cc->getOp() && !annotation) || isa<Tuple>(consumer);
  bool pinned = isPinned(operand);
  // A cost-based placement may copy any tensor an operator, a function call
  // or a tuple reads: where the copies go is what it chooses.
  bool costCut = opts.placement != PlacementStrategy::Default &&
                 ((cc && !annotation) || isa<Tuple>(consumer)) &&
                 isa_and_nonnull<TensorType>(operand->checkedType.get());
  // Under a cost strategy an annotated call, or tensor, is where its
  // on_device says, whoever else uses its value (those uses may still be
  // copies). A variable too: were it free to live elsewhere, the annotation
  // would be a copy of it or the variable itself as the cut decides, and
  // its consumers' copies shared with the variable's or not, a cost no cut
  // can model exactly (utils/check-placement.py --audit).
  bool pinnedByAnnotation =
      opts.placement != PlacementStrategy::Default && cc && cc->isOp(kOnDevice) &&
      !isAnnotation(operand) &&
      (isa<Call>(operand) || isa_and_nonnull<TensorType>(operand->checkedType.get()));
  // It also reads a normal on_device of a tensor as a fixed one (a pin on
  // its device, constrainNode): another annotation right around it may
  // still ask for a copy, as the normal one allowed.
  bool nestedNormal =
      opts.placement != PlacementStrategy::Default && annotation && asNormalOnDevice(operand);
  bool soft = firstOrder && !(annotation && isFixedOnDevice(operand)) && !pinnedByAnnotation &&
              (info[slotOf(operand)].uses > 1 || boundary || (pinned && operatorUse) || costCut ||
               nestedNormal);
  if (soft) {
    uint32_t v = slotOf(operand), c = slotOf(consumer);
    uint32_t u = static_cast<uint32_t>(softUses.size());
    softUses.push_back({c, i, expected, kNoUse, boundary});
    if (info[v].lastSoft == kNoUse) {
      info[v].firstSoft = u;
      sharedValues.push_back(v);
    } else
      softUses[info[v].lastSoft].next = u;
    info[v].lastSoft = u;
    if (i < 64)
      info[c].softOperands |= uint64_t(1) << i;
    else
      softEdgesHigh.insert({consumer, i});
    return true;
  }
  if (!firstOrder && !domains.isFunction(expected) && domains.isFunction(domainOf(operand))) {
    if (auto c = domains.collapse(domainOf(operand), expected)) {
      reportConflict(*c, consumer, "cannot place this expression");
      return false;
    }
    return true;
  }
  // A function's body is where a user looks for the function's constraint.
  Expr *at = isa<Function>(consumer) ? operand : consumer;
  return unify(domainOf(operand), expected, at, "cannot place this expression");
}

bool DeviceAnalysis::constrainNode(Expr *e) {
  switch (e->getKind()) {
  case ExprKind::Call: {
    auto *c = cast<Call>(e);
    Id self = domainOf(c);
    if (Op *op = c->getOp()) {
      if (op->name == kOnDevice) {
        // Without a device, on_device constrains nothing: it only marks a
        // place where a copy may go (as TVM's unconstrained VirtualDevice).
        DeviceIndex d = deviceAttr(*c, "virtual_device");
        if (d == kNoDevice)
          return true;
        // A cost strategy reads a normal on_device of a tensor as a fixed one:
        // its consumers elsewhere are soft uses of the value on D, copied once
        // per device with the value's other copies.
        bool fixed =
            boolAttr(*c, "constrain_result") ||
            (opts.placement != PlacementStrategy::Default && boolAttr(*c, "constrain_body") &&
             isa_and_nonnull<TensorType>(c->checkedType.get()));
        if (boolAttr(*c, "constrain_body")) {
          warnOverriddenAnnotation(c, d);
          Id body =
              domains.makeBound(d, {c->loc, text((fixed ? "fixed" : "constrained") + Twine(" to ") +
                                                 deviceName(d) + " by this on_device")});
          if (!edge(c, 1, c->args[0].get(), body))
            return false;
        }
        if (fixed)
          return bind(self, d,
                      {c->loc, text(Twine("fixed to ") + deviceName(d) + " by this on_device")}, c);
        return true;
      }
      if (op->name == kDeviceCopy) {
        DeviceIndex s = deviceAttr(*c, "src_virtual_device");
        DeviceIndex t = deviceAttr(*c, "dst_virtual_device");
        if (s == kNoDevice || t == kNoDevice) {
          diags.error(c->loc, "device_copy needs src_virtual_device and dst_virtual_device");
          return false;
        }
        Id src = domains.makeBound(
            s, {c->loc, text(Twine("copied from ") + deviceName(s) + " by this device_copy")});
        if (!edge(c, 1, c->args[0].get(), src))
          return false;
        return bind(self, t,
                    {c->loc, text(Twine("copied to ") + deviceName(t) + " by this device_copy")},
                    c);
      }
      if (needsFallback(c)) {
        fallbacks.insert(c);
        DeviceIndex cpu = cpuDevice();
        if (!bind(self, cpu,
                  {c->loc, text("'" + Twine(op->name) + "' has no " +
                                firstKindLacking(mod.devices, *op->def)->name +
                                " implementation: it runs on " + deviceName(cpu))},
                  c))
          return false;
      }
      for (unsigned i = 0; i < c->args.size(); ++i)
        if (!edge(c, i + 1, c->args[i].get(), domains.firstOrder(self)))
          return false;
      return true;
    }
    // A call of a function value: its domain is fn(args...):result.
    visitForCapture |= isAnnotation(c->callee.get());
    SmallVector<Id, 4> ch;
    for (const ExprRef &a : c->args)
      ch.push_back(makeDomainForType(a->checkedType.get()));
    ch.push_back(self);
    Id fnDom = domains.makeFunction(ch);
    if (!unify(domainOf(c->callee.get()), fnDom, c, "cannot call this function here"))
      return false;
    for (unsigned i = 0; i < c->args.size(); ++i)
      if (!edge(c, i + 1, c->args[i].get(), ch[i]))
        return false;
    return true;
  }
  case ExprKind::Tuple: {
    auto *t = cast<Tuple>(e);
    Id self = domainOf(t);
    for (unsigned i = 0; i < t->fields.size(); ++i)
      if (!edge(t, i, t->fields[i].get(), self))
        return false;
    return true;
  }
  case ExprKind::TupleGetItem: {
    auto *g = cast<TupleGetItem>(e);
    return edge(g, 0, g->tuple.get(), domains.firstOrder(domainOf(g)));
  }
  case ExprKind::Let: {
    auto *l = cast<Let>(e);
    return edge(l, 0, l->value.get(), domainOf(l->var.get())) &&
           edge(l, 1, l->body.get(), domainOf(l));
  }
  case ExprKind::If: {
    auto *i = cast<If>(e);
    Id self = domainOf(i);
    return edge(i, 0, i->cond.get(), domains.firstOrder(self)) &&
           edge(i, 1, i->thenBranch.get(), self) && edge(i, 2, i->elseBranch.get(), self);
  }
  case ExprKind::Function: {
    auto *f = cast<Function>(e);
    Id result = domains.children(domainOf(f)).back();
    return edge(f, 0, f->body.get(), result);
  }
  default:
    return true;
  }
}

bool DeviceAnalysis::addDef(Module::Def &d, std::vector<Expr *> order) {
  uint32_t index = static_cast<uint32_t>(walks.size());
  DefWalk &w = walks.emplace_back();
  w.def = &d;
  w.index = index;
  // The uses were counted by the walk; the constraints follow while the
  // def's nodes are in the cache.
  w.order = order.empty() ? walkDef(d) : std::move(order);
  w.softBegin = static_cast<uint32_t>(softUses.size());
  domains.setTag(tagOf(d));
  // A let variable bound to a pinned value is pinned as the value is (its
  // uses come before the let in post-order, so the lets are read first,
  // outermost first, for `let %y = %x` chains).
  for (size_t i = w.order.size(); i-- > 0;)
    if (auto *l = dyn_cast<Let>(w.order[i]); l && isPinned(l->value.get()))
      pinnedLetVars.insert(l->var.get());
  for (size_t i = 0; i < w.order.size(); ++i) {
    prefetchAhead(w.order, i);
    Expr *e = w.order[i];
    uint32_t slot = slotOf(e);
    if (info[slot].def != kNoDef && info[slot].def != index) {
      if (!e->isAtomic())
        nodesShared = true;
      else if (!isa<GlobalVar>(e) && !isa<Op>(e)) {
        // A constant (or variable) two defs share: one domain, and soft uses
        // from both. (Globals and operators join other defs' classes only
        // by unification, which the tags follow.)
        domains.markShared(tagOf(*walks[info[slot].def].def));
        domains.markShared(tagOf(d));
      }
    }
    info[slot].def = index;
    info[slot].pos = static_cast<uint32_t>(i);
    visitForCapture = isa<Let>(e) || isa<Function>(e) || isAnnotation(e);
    if (auto *g = dyn_cast<GlobalVar>(e)) {
      if (const Module::Def *c = mod.lookupDef(g->name); c && c != &d)
        w.callees.push_back(c);
    } else if (auto *f = dyn_cast<Function>(e)) {
      w.functions.push_back(f);
      if (f->isPrimitive())
        for (const Ref<Var> &v : f->params)
          primitiveParams.insert(v.get());
    } else if (isa<Let>(e))
      w.lets.push_back(cast<Let>(e));
    else if (auto *c = dyn_cast<Call>(e)) {
      if (c->isOp(kOnDevice))
        w.onDevices.push_back(c);
      else if (Op *op = c->getOp(); op && op->def && !everyTargetKindSupports(*op->def))
        w.targetChecks.push_back(c); // may sit on a device whose target lacks it
    }
    if (!constrainNode(e))
      return false;
    if (visitForCapture) {
      w.captureVisits.push_back(static_cast<uint32_t>(i));
      // The capture may change it in place if the def is all that holds it:
      // its users here, and the def for its root. (On_devices are dropped,
      // never changed.)
      auto *c = dyn_cast<Call>(e);
      if (!(c && c->isOp(kOnDevice)) &&
          e->useCount() != info[slot].uses + (e == d.fn.get() ? 1 : 0))
        w.ownsVisits = false;
    }
  }
  llvm::sort(w.callees, [](const Module::Def *a, const Module::Def *b) {
    return a->global->name < b->global->name;
  });
  w.callees.erase(std::unique(w.callees.begin(), w.callees.end()), w.callees.end());
  w.softEnd = static_cast<uint32_t>(softUses.size());
  return true;
}

std::vector<Expr *> DeviceAnalysis::walkDef(const Module::Def &d,
                                            function_ref<void(Expr *, Expr *)> onEdge) {
  return hx::postOrder(d.fn.get(), [&](Expr *user, Expr *operand) {
    ++info[slotOf(operand)].uses;
    if (onEdge)
      onEdge(user, operand);
  });
}

void DeviceAnalysis::resetUses(ArrayRef<Expr *> order) {
  SmallVector<Expr *, 8> ops;
  for (Expr *e : order) {
    ops.clear();
    getOperands(e, ops);
    for (Expr *o : ops)
      if (o)
        info[slotOf(o)].uses = 0;
  }
}

void DeviceAnalysis::reserve(size_t numExprs) {
  // Room to spare: memory reserved but never touched costs no pages, while
  // one doubling too many copies a table and faults twice its pages in. The
  // slots also hold operators and globals, which the count may miss, and
  // the copies a rewrite adds; domains are one per node plus the components
  // of function shapes and the bound ones (about 1.2 per node on the bench).
  size_t slack = numExprs / 8 + 1024;
  slots.reserve(numExprs + slack);
  info.reserve(numExprs + slack);
  domains.reserve(2 * numExprs + slack);
}

void DeviceAnalysis::replaceRoot(const Function *old, const Function *now) {
  uint32_t k = slots.lookup(old);
  if (k == ExprNumbering::kNone || info[k].domain == kNoDomain)
    return;
  uint32_t n = slotOf(now);
  if (info[n].domain == kNoDomain)
    info[n].domain = info[k].domain;
}

bool DeviceAnalysis::applyDefaults(ArrayRef<DefWalk *> group) {
  DeviceIndex def = opts.defaultDevice;
  auto bindAll = [&](Id id, DeviceIndex d, Expr *at) {
    SmallVector<Id, 8> work{id};
    while (!work.empty()) {
      Id x = domains.find(work.pop_back_val());
      if (domains.isFunction(x)) {
        for (Id c : domains.children(x))
          work.push_back(c);
        continue;
      }
      if (domains.device(x) == kNoDevice &&
          !bind(x, d, {at->loc, text(Twine("placed on the default device ") + deviceName(d))}, at))
        return false;
    }
    return true;
  };
  // Free on_devices join their body when that needs no copy (one side free,
  // or devices that join: an open memory scope takes the other's).
  for (DefWalk *w : group)
    for (Call *c : w->onDevices)
      if (!boolAttr(*c, "constrain_body") || deviceAttr(*c, "virtual_device") == kNoDevice) {
        Id r = domains.firstOrder(domainOf(c));
        Id b = domains.firstOrder(domainOf(c->args[0].get()));
        DeviceIndex rd = domains.device(r), bd = domains.device(b);
        if ((rd == kNoDevice || bd == kNoDevice || domains.join(rd, bd) != kNoDevice) &&
            !unify(r, b, c, "cannot place this expression"))
          return false;
      }
  // Functions: the result takes the default, then the parameters the result's.
  for (DefWalk *w : group)
    for (Function *f : w->functions) {
      Id result = domains.children(domainOf(f)).back();
      if (!bindAll(result, def, f))
        return false;
      DeviceIndex rd = domains.device(domains.firstOrder(result));
      for (const Ref<Var> &p : f->params)
        if (!bindAll(domainOf(p.get()), rd, p.get()))
          return false;
    }
  // Let variables take their let's device.
  for (DefWalk *w : group)
    for (Let *l : w->lets) {
      Id self = domains.firstOrder(domainOf(l));
      if (!bindAll(self, def, l) || !bindAll(domainOf(l->var.get()), domains.device(self), l))
        return false;
    }
  // Everything else takes the default device when its device is first asked
  // for (settledDevice, from now on): binding a free class cannot conflict,
  // so this is the same as binding every node now, without another pass
  // over them all.
  lazyDefaults = true;
  return true;
}

DeviceIndex DeviceAnalysis::settledDevice(Id id) {
  Id x = domains.firstOrder(id);
  DeviceIndex d = domains.device(x);
  if (d == kNoDevice && lazyDefaults) {
    d = opts.defaultDevice;
    (void)domains.bind(x, d, {SMLoc(), "placed on the default device"});
  }
  return d;
}

// Defs in an order that does not depend on how the file orders them:
// callees before callers (a post-order of the call graph), ties by name.
// `walkIndex` finds a callee's walk.
static std::vector<DeviceAnalysis::DefWalk *>
canonicalDefOrder(std::vector<DeviceAnalysis::DefWalk> &walks,
                  const DenseMap<const Module::Def *, uint32_t> &walkIndex) {
  std::vector<DeviceAnalysis::DefWalk *> byName;
  for (DeviceAnalysis::DefWalk &w : walks)
    byName.push_back(&w);
  llvm::sort(byName, [](const DeviceAnalysis::DefWalk *a, const DeviceAnalysis::DefWalk *b) {
    return a->def->global->name < b->def->global->name;
  });
  std::vector<DeviceAnalysis::DefWalk *> order;
  DenseSet<const DeviceAnalysis::DefWalk *> visited;
  for (DeviceAnalysis::DefWalk *root : byName) {
    if (!visited.insert(root).second)
      continue;
    // Iterative DFS: (def, index of the next callee to visit).
    SmallVector<std::pair<DeviceAnalysis::DefWalk *, size_t>, 8> stack{{root, 0}};
    while (!stack.empty()) {
      auto &[w, next] = stack.back();
      if (next < w->callees.size()) {
        auto it = walkIndex.find(w->callees[next++]);
        assert(it != walkIndex.end() && "solve() runs after every def is added");
        DeviceAnalysis::DefWalk *c = &walks[it->second];
        if (visited.insert(c).second)
          stack.push_back({c, 0});
        continue;
      }
      order.push_back(w);
      stack.pop_back();
    }
  }
  return order;
}

bool DeviceAnalysis::targetSupports(const Call &c, DeviceIndex d) const {
  Op *op = c.getOp();
  if (!op || !op->def || d < 0 || static_cast<size_t>(d) >= mod.devices.size())
    return true;
  return targetSupportsOp(mod.devices[d].target, *op->def);
}

bool DeviceAnalysis::checkTarget(Expr *e) {
  auto *c = dyn_cast<Call>(e);
  Op *op = c ? c->getOp() : nullptr;
  if (!op || !op->def || c->isOp(kOnDevice) || c->isOp(kDeviceCopy))
    return true;
  DeviceIndex d = deviceOf(c);
  if (d == kNoDevice)
    return true;
  if (targetSupports(*c, d))
    return true;
  diags.error(c->loc, "'" + op->name + "' has no implementation for target '" +
                          mod.devices[d].target.str() + "' of device " + deviceName(d) +
                          (opts.strictPlacement
                               ? " (without --strict-placement it would fall back to the cpu)"
                               : ""));
  return false;
}

DeviceIndex DeviceAnalysis::cpuDevice() {
  if (cpu == kNoDevice)
    cpu = mod.deviceForType(DeviceType::CPU);
  return cpu;
}

bool DeviceAnalysis::run() {
  for (Module::Def &d : mod.defs)
    if (!addDef(d))
      return false;
  return solve();
}

bool DeviceAnalysis::solve(function_ref<void(Module::Def &)> settled) {
  // Everything that depends on order from here on follows the canonical def
  // order; constraints (a unification) give the same solution in any order.
  for (DefWalk &w : walks)
    walkIndex[w.def] = w.index;
  std::vector<DefWalk *> order = canonicalDefOrder(walks, walkIndex);
  // The values with soft uses, by def, in post-order.
  for (uint32_t slot : sharedValues)
    walks[info[slot].def].sharedValues.push_back({info[slot].pos, slot});
  sharedValues = {};
  if (opts.placement != PlacementStrategy::Default) {
    SplitTimer cutting(opts.timing, "minimum-cut placement");
    SplitTimer::Lap lap(cutting);
    if (!placeByCost(order))
      return false;
  }
  SplitTimer placing(opts.timing, "shared values");
  SplitTimer defaulting(opts.timing, "defaults and checks");
  std::vector<DefWalk *> waiting; // defs that settle at the end
  for (DefWalk *w : order) {
    {
      SplitTimer::Lap lap(placing);
      domains.setTag(tagOf(*w->def));
      llvm::sort(w->sharedValues);
      if (!placeSharedValues(w->order, w->sharedValues))
        return false;
    }
    if (!settlesAlone(*w))
      waiting.push_back(w);
    else if (!settle({w}, defaulting, settled))
      return false;
  }
  if (!settle(waiting, defaulting, settled))
    return false;
  // Errors in the canonical def order, whichever defs settled first.
  SplitTimer::Lap lap(defaulting);
  return checkTargets(order);
}

uint32_t DeviceAnalysis::tagOf(const Module::Def &d) const {
  // The position in the module (known before the def is added).
  if (mod.defs.empty() || &d < mod.defs.data() || &d >= mod.defs.data() + mod.defs.size())
    return UINT32_MAX; // always mixed
  return static_cast<uint32_t>(&d - mod.defs.data());
}

bool DeviceAnalysis::settlesAlone(const DefWalk &w) {
  // Defaults and later defs' shared values touch only classes that hold
  // their own domains, or bound ones.
  return opts.allowDefaulting && !nodesShared && !domains.sharesFreeClass(tagOf(*w.def));
}

bool DeviceAnalysis::settle(ArrayRef<DefWalk *> group, SplitTimer &timer,
                            function_ref<void(Module::Def &)> settled) {
  if (group.empty())
    return true;
  {
    SplitTimer::Lap lap(timer);
    planCaptureVisits(group);
    if (opts.allowDefaulting) {
      if (!applyDefaults(group))
        return false;
    } else {
      for (DefWalk *w : group)
        for (Expr *e : w->order) {
          if (isa<Op>(e) || isa<GlobalVar>(e) || isa<Constant>(e) || isFunctionTyped(e))
            continue;
          if (domains.device(domains.firstOrder(domainOf(e))) == kNoDevice) {
            diags.error(e->loc, "no device is fixed for this expression (insert-device-copies "
                                "needs every device given; run plan-devices instead)");
            return false;
          }
        }
    }
  }
  if (settled)
    for (DefWalk *w : group)
      settled(*w->def);
  return true;
}

bool DeviceAnalysis::checkTargets(ArrayRef<DefWalk *> group) {
  // Operators must exist for the target of the device they run on.
  bool ok = true;
  for (DefWalk *w : group)
    for (Call *c : w->targetChecks)
      ok &= checkTarget(c);
  return ok;
}

DeviceIndex DeviceAnalysis::deviceOf(const Expr *e) { return settledDevice(domainOf(e)); }

DeviceIndex DeviceAnalysis::resultDevice(const Function *f) {
  return settledDevice(domains.children(domainOf(f)).back());
}

DeviceIndex DeviceAnalysis::expectedDevice(const Expr *e, unsigned i) {
  switch (e->getKind()) {
  case ExprKind::Call: {
    auto *c = cast<Call>(e);
    if (i == 0)
      return kNoDevice;
    const Expr *arg = c->args[i - 1].get();
    if (isFunctionTyped(arg))
      return kNoDevice;
    if (c->isOp(kOnDevice)) {
      DeviceIndex d = deviceAttr(*c, "virtual_device");
      return boolAttr(*c, "constrain_body") && d != kNoDevice ? d : deviceOf(arg);
    }
    if (c->isOp(kDeviceCopy))
      return deviceAttr(*c, "src_virtual_device");
    if (c->getOp())
      return deviceOf(c);
    Id callee = domainOf(c->callee.get());
    if (!domains.isFunction(callee))
      return kNoDevice;
    auto ch = domains.children(callee);
    return i - 1 < ch.size() - 1 ? settledDevice(ch[i - 1]) : kNoDevice;
  }
  case ExprKind::Let:
    if (isFunctionTyped(cast<Let>(e)->value.get()) && i == 0)
      return kNoDevice;
    return i == 0 ? deviceOf(cast<Let>(e)->var.get()) : deviceOf(e);
  case ExprKind::Function:
    return resultDevice(cast<Function>(e));
  case ExprKind::Tuple:
    if (isFunctionTyped(cast<Tuple>(e)->fields[i].get()))
      return kNoDevice;
    return deviceOf(e);
  default:
    return deviceOf(e);
  }
}
