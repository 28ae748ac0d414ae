//===- DeviceAware.cpp - Reading the devices of a planned module ----------===//
//
// One top-down pass per def with an explicit worklist of (expression, the
// device its consumer expects); the rules are DeviceAware.h's. A node reached
// twice (a shared DAG node) keeps its first device: in a planned module its
// consumers agree, since any edge between devices goes through a copy.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/DeviceAware.h"
#include "llvm/ADT/SmallVector.h"

using namespace hx;
using namespace llvm;

namespace {
const Call *asAnnotation(const Expr *e, StringRef name) {
  auto *c = dyn_cast<Call>(e);
  return c && c->isOp(name) ? c : nullptr;
}

DeviceIndex deviceAttr(const Call &c, StringRef name) {
  const AttrValue *v = c.attrs.get(name);
  return v && v->kind == AttrValue::Kind::Device ? DeviceIndex(v->intValue) : kNoDevice;
}
} // namespace

const Function *PlannedDevices::knownCallee(const Call &c) const {
  const Expr *callee = c.callee.get();
  if (auto *g = dyn_cast<GlobalVar>(callee))
    return mod ? mod->lookup(g->name) : nullptr;
  if (auto *f = dyn_cast<Function>(callee))
    return f;
  if (auto *v = dyn_cast<Var>(callee)) {
    auto it = letFunctions.find(v);
    return it == letFunctions.end() ? nullptr : it->second;
  }
  return nullptr;
}

bool hx::readPlannedDevices(const Module &m, DiagEngine &diags, PlannedDevices &out,
                            StringRef who) {
  out.mod = &m;
  out.devices.clear();
  out.letFunctions.clear();
  auto unplanned = [&](const Loc &loc, const Twine &what) {
    diags.error(loc, who + " needs a planned module: " + what +
                         " has no device (run -plan-devices first)");
    return false;
  };
  auto checkFunction = [&](const Function *f, StringRef name) {
    if (f->resultDevice == kNoDevice)
      return unplanned(f->loc, name.empty() ? Twine("a function") : Twine("@") + name);
    for (const Ref<Var> &p : f->params) {
      if (p->device == kNoDevice)
        return unplanned(p->loc, "parameter %" + p->name);
      out.devices[p.get()] = p->device;
    }
    return true;
  };

  SmallVector<std::pair<const Expr *, DeviceIndex>, 64> work;
  for (const Module::Def &d : m.defs) {
    if (!checkFunction(d.fn.get(), d.global->name))
      return false;
    work.push_back({d.fn.get(), d.fn->resultDevice});
    while (!work.empty()) {
      auto [e, expected] = work.pop_back_val();
      if (isa<GlobalVar>(e) || isa<Op>(e))
        continue;
      bool fresh = out.devices.try_emplace(e, expected).second;
      if (!fresh)
        continue;
      // The value's own device, when it says so itself.
      DeviceIndex self = expected;
      if (const Call *od = asAnnotation(e, kOnDevice)) {
        self = deviceAttr(*od, "virtual_device");
        work.push_back({od->args[0].get(), self});
      } else if (const Call *dc = asAnnotation(e, kDeviceCopy)) {
        self = deviceAttr(*dc, "dst_virtual_device");
        work.push_back({dc->args[0].get(), deviceAttr(*dc, "src_virtual_device")});
      } else if (auto *v = dyn_cast<Var>(e)) {
        auto bound = out.devices.find(v);
        self = bound != out.devices.end() && bound->second != kNoDevice ? bound->second : expected;
      } else if (auto *f = dyn_cast<Function>(e)) {
        if (f != d.fn.get() && !checkFunction(f, ""))
          return false;
        self = f->resultDevice;
        work.push_back({f->body.get(), f->resultDevice});
      } else if (auto *c = dyn_cast<Call>(e)) {
        const Function *callee = c->getOp() ? nullptr : out.knownCallee(*c);
        for (size_t i = 0; i < c->args.size(); ++i) {
          DeviceIndex argDevice = expected;
          if (callee && i < callee->params.size() && callee->params[i]->device != kNoDevice)
            argDevice = callee->params[i]->device;
          work.push_back({c->args[i].get(), argDevice});
        }
        if (!c->getOp())
          work.push_back({c->callee.get(), expected});
      } else if (auto *t = dyn_cast<Tuple>(e)) {
        for (const ExprRef &f : t->fields)
          work.push_back({f.get(), expected});
      } else if (auto *p = dyn_cast<TupleGetItem>(e)) {
        work.push_back({p->tuple.get(), expected});
      } else if (auto *l = dyn_cast<Let>(e)) {
        const Expr *v = l->value.get();
        DeviceIndex varDevice = expected;
        if (const Call *od = asAnnotation(v, kOnDevice))
          varDevice = deviceAttr(*od, "virtual_device");
        else if (const Call *dc = asAnnotation(v, kDeviceCopy))
          varDevice = deviceAttr(*dc, "dst_virtual_device");
        else if (auto *vf = dyn_cast<Function>(v))
          varDevice = vf->resultDevice, out.letFunctions[l->var.get()] = vf;
        else if (auto *vv = dyn_cast<Var>(v))
          varDevice = out.deviceOf(vv) != kNoDevice ? out.deviceOf(vv) : expected;
        out.devices[l->var.get()] = varDevice;
        work.push_back({l->body.get(), expected});
        work.push_back({v, varDevice});
      } else if (auto *i = dyn_cast<If>(e)) {
        work.push_back({i->elseBranch.get(), expected});
        work.push_back({i->thenBranch.get(), expected});
        work.push_back({i->cond.get(), expected});
      }
      out.devices[e] = self;
    }
  }
  return true;
}
