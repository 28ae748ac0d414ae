//===- VerifyPlacement.cpp - A static check of a planned module -----------===//
//
// readPlannedDevices (DeviceAware.cpp) assigns devices top down, trusting
// that consumers and producers agree. This walk repeats its rules with an
// explicit worklist of (expression, the device its consumer expects) per
// def, and reports where they do not agree: an expression whose own device
// differs from the expected one (a cross-device edge without a copy), a
// shared node expected on two devices, and an operator on a device whose
// target lacks it. Linear in the module's size; no recursion.
//
//===----------------------------------------------------------------------===//
#include "hx/Transforms/VerifyPlacement.h"
#include "hx/IR/DeviceAware.h"
#include "hx/IR/Module.h"
#include "hx/IR/OpDef.h"
#include "hx/IR/TargetKind.h"
#include "hx/Pass/Pass.h"
#include "hx/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

using namespace hx;
using namespace llvm;

namespace {

DeviceIndex deviceAttr(const Call &c, StringRef name) {
  const AttrValue *v = c.attrs.get(name);
  return v && v->kind == AttrValue::Kind::Device ? DeviceIndex(v->intValue) : kNoDevice;
}

struct Item {
  const Expr *e;
  /// The device its consumer expects.
  DeviceIndex expected;
  Loc use;
};

class Checker {
public:
  Checker(const Module &m, DiagEngine &diags) : m(m), diags(diags) {}

  bool run() {
    if (!readPlannedDevices(m, diags, planned, "verify-placement"))
      return false;
    for (const Module::Def &d : m.defs)
      checkDef(*d.fn);
    return ok;
  }

private:
  const Module &m;
  DiagEngine &diags;
  PlannedDevices planned;
  DenseMap<const Expr *, DeviceIndex> expectedAt;
  DenseMap<const Var *, DeviceIndex> varDevices;
  bool ok = true;

  std::string name(DeviceIndex d) const {
    if (d == kNoDevice)
      return "no device";
    std::string s = "meta[VirtualDevice][" + std::to_string(d) + "]";
    if (size_t(d) < m.devices.size())
      s += " (" + m.devices[d].shortName() + ")";
    return s;
  }

  void mismatch(const Loc &at, StringRef what, DeviceIndex self, DeviceIndex expected) {
    ok = false;
    diags.error(at, "verify-placement: " + what + " on " + name(self) + " is used on " +
                        name(expected) + " without a device_copy");
  }

  void checkDef(const Function &fn) {
    for (const Ref<Var> &p : fn.params)
      varDevices[p.get()] = p->device;
    SmallVector<Item, 64> work;
    work.push_back({&fn, fn.resultDevice, fn.loc});
    while (!work.empty()) {
      auto [e, expected, use] = work.pop_back_val();
      if (isa<GlobalVar>(e) || isa<Op>(e))
        continue;
      auto [it, fresh] = expectedAt.try_emplace(e, expected);
      if (!fresh) {
        if (it->second != expected && !isa<Constant>(e)) {
          ok = false;
          diags.error(isa<Var>(e) ? Loc(use) : e->loc,
                      "verify-placement: a value shared by consumers on " + name(it->second) +
                          " and " + name(expected) + " without a device_copy");
        }
        continue;
      }
      visit(e, expected, use, work);
    }
  }

  /// `use`: where the consumer is (a variable is reported there, not at
  /// its binding).
  void visit(const Expr *e, DeviceIndex expected, Loc use, SmallVectorImpl<Item> &work) {
    auto push = [&](const Expr *child, DeviceIndex d) { work.push_back({child, d, e->loc}); };
    if (const auto *c = dyn_cast<Call>(e)) {
      if (c->isOp(kOnDevice)) {
        DeviceIndex d = deviceAttr(*c, "virtual_device");
        if (d != expected)
          mismatch(e->loc, "on_device", d, expected);
        push(c->args[0].get(), d);
        return;
      }
      if (c->isOp(kDeviceCopy)) {
        DeviceIndex dst = deviceAttr(*c, "dst_virtual_device");
        if (dst != expected)
          mismatch(e->loc, "device_copy", dst, expected);
        push(c->args[0].get(), deviceAttr(*c, "src_virtual_device"));
        return;
      }
      if (const Op *op = c->getOp()) {
        if (op->def && expected != kNoDevice && size_t(expected) < m.devices.size() &&
            !targetSupportsOp(m.devices[expected].target, *op->def)) {
          ok = false;
          diags.error(e->loc, "verify-placement: " + op->name + " placed on " + name(expected) +
                                  ", whose target lacks it");
        }
        for (const ExprRef &a : c->args)
          push(a.get(), expected);
        return;
      }
      const Function *callee = planned.knownCallee(*c);
      if (callee && callee->resultDevice != expected)
        mismatch(e->loc, "the result of a call", callee->resultDevice, expected);
      for (size_t i = 0; i < c->args.size(); ++i) {
        DeviceIndex d = callee && i < callee->params.size() ? callee->params[i]->device : expected;
        push(c->args[i].get(), d);
      }
      push(c->callee.get(), callee ? callee->resultDevice : expected);
      return;
    }
    if (const auto *v = dyn_cast<Var>(e)) {
      auto it = varDevices.find(v);
      if (it != varDevices.end() && it->second != expected)
        mismatch(use, "%" + v->name, it->second, expected);
      return;
    }
    if (const auto *f = dyn_cast<Function>(e)) {
      if (f->resultDevice != expected)
        mismatch(e->loc, "a function", f->resultDevice, expected);
      for (const Ref<Var> &p : f->params)
        varDevices[p.get()] = p->device;
      push(f->body.get(), f->resultDevice);
      return;
    }
    if (const auto *t = dyn_cast<Tuple>(e)) {
      for (const ExprRef &f : t->fields)
        push(f.get(), expected);
      return;
    }
    if (const auto *p = dyn_cast<TupleGetItem>(e)) {
      push(p->tuple.get(), expected);
      return;
    }
    if (const auto *l = dyn_cast<Let>(e)) {
      DeviceIndex d = planned.deviceOf(l->var.get());
      varDevices[l->var.get()] = d;
      push(l->body.get(), expected);
      push(l->value.get(), d);
      return;
    }
    if (const auto *i = dyn_cast<If>(e)) {
      push(i->elseBranch.get(), expected);
      push(i->thenBranch.get(), expected);
      push(i->cond.get(), expected);
    }
  }
};

} // namespace

bool hx::verifyPlacement(const Module &m, DiagEngine &diags) { return Checker(m, diags).run(); }

namespace {
class VerifyPlacementPass : public Pass {
public:
  StringRef getArgument() const override { return "verify-placement"; }
  StringRef getDescription() const override {
    return "Check a planned module: copies at every device boundary, arguments on their call's "
           "device, no operator on a target that lacks it";
  }
  bool run(Module &m, PassContext &ctx) override { return verifyPlacement(m, ctx.diags); }
};
} // namespace

std::unique_ptr<Pass> hx::createVerifyPlacementPass() {
  return std::make_unique<VerifyPlacementPass>();
}
