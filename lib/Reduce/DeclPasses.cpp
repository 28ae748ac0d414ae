//===- DeclPasses.cpp - Reductions of defs, signatures and metadata -------===//
//
//  - defs: a def no other def refers to is removed.
//  - annotations: in this order of sites, a function's result device
//    (`virtual_device=` in the parameter list), its `-> T`, each parameter's
//    device (`%x {virtual_device=...}`), the type annotation of a parameter
//    of a fn literal (inference recovers it from the call; a def's
//    parameters keep theirs), the annotation of a let variable; then every
//    on_device and device_copy call, which becomes its argument.
//  - params: a parameter its function does not use is removed. A def that
//    is called (and used as nothing but a callee) loses the argument at each
//    call too; a def used as a value keeps its parameters.
//  - attributes: an attribute of a call or function that is neither required
//    nor at its default is removed, which gives it the default (the printer
//    writes only the others). Devices are left to `annotations`.
//  - metadata: a device table entry nothing refers to is removed and the
//    references to later entries renumbered; then the fallback device type,
//    the other PassConfig entries and the other metadata keys. (Constants
//    need no pass: the printer writes the ones the defs still use.)
//
//===----------------------------------------------------------------------===//
#include "DeltaPasses.h"
#include "hx/IR/OpDef.h"
#include "hx/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

using namespace hx;
using namespace hx::reduce;
using namespace llvm;

void reduce::removeDefs(Module &m, SiteSelection &sel) {
  // A def that only calls itself can go as well.
  StringSet<> usedByOthers;
  for (const Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (auto *g = dyn_cast<GlobalVar>(e); g && g->name != d.global->name)
        usedByOthers.insert(g->name);
    });
  // The module is a private copy that is only printed: the name index of
  // Module is not needed afterwards.
  std::vector<Module::Def> kept;
  for (Module::Def &d : m.defs)
    if (usedByOthers.contains(d.global->name) || !sel.take())
      kept.push_back(d);
  m.defs = std::move(kept);
}

void reduce::dropAnnotations(Module &m, SiteSelection &sel) {
  DenseSet<const Function *> roots;
  for (const Module::Def &d : m.defs)
    roots.insert(d.fn.get());
  forEachFunction(m, [&](Function &f) {
    if (f.resultDevice != kNoDevice && sel.take())
      f.resultDevice = kNoDevice;
    if (f.retType && sel.take())
      f.retType = nullptr;
    for (const Ref<Var> &p : f.params)
      if (p->device != kNoDevice && sel.take())
        p->device = kNoDevice;
    if (!roots.contains(&f))
      for (const Ref<Var> &p : f.params)
        if (p->annotation && sel.take())
          p->annotation = nullptr;
  });
  for (Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (auto *l = dyn_cast<Let>(e); l && l->var->annotation && sel.take())
        l->var->annotation = nullptr;
    });
  forwardAnnotationCalls(m, sel);
}

void reduce::removeParams(Module &m, SiteSelection &sel) {
  // How each global is used: the calls of it, and whether it escapes (is
  // used other than as a callee).
  struct Uses {
    std::vector<Call *> calls;
    bool escapes = false;
  };
  StringMap<Uses> uses;
  for (const Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      SmallVector<Expr *, 4> ops;
      getOperands(e, ops);
      for (unsigned i = 0; i < ops.size(); ++i)
        if (auto *g = dyn_cast_or_null<GlobalVar>(ops[i])) {
          if (i == 0 && isa<Call>(e))
            uses[g->name].calls.push_back(cast<Call>(e));
          else
            uses[g->name].escapes = true;
        }
    });
  for (Module::Def &d : m.defs) {
    auto it = uses.find(d.global->name);
    if (it != uses.end() && it->second.escapes)
      continue;
    DenseSet<const Var *> usedVars;
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (auto *v = dyn_cast<Var>(e))
        usedVars.insert(v);
    });
    Function &f = *d.fn;
    SmallVector<bool, 8> drop(f.params.size(), false);
    bool any = false;
    for (size_t i = 0; i < f.params.size(); ++i)
      if (!usedVars.contains(f.params[i].get()) && sel.take())
        drop[i] = any = true;
    if (!any)
      continue;
    auto keep = [&](auto &list) {
      size_t out = 0;
      for (size_t i = 0; i < list.size(); ++i)
        if (i >= drop.size() || !drop[i])
          list[out++] = list[i];
      list.resize(out);
    };
    keep(f.params);
    if (it != uses.end())
      for (Call *c : it->second.calls)
        if (c->args.size() == drop.size())
          keep(c->args);
  }
}

void reduce::dropAttributes(Module &m, SiteSelection &sel) {
  auto dropFrom = [&](Attrs &attrs, const OpDef *def) {
    std::vector<Attr> kept;
    for (Attr &a : attrs.items) {
      bool site = a.value.kind != AttrValue::Kind::Device;
      if (def) {
        const AttrSpec *spec = def->findAttr(a.name);
        site = site && spec && !spec->required && !(spec->defaultValue == a.value);
      }
      if (!site || !sel.take())
        kept.push_back(std::move(a));
    }
    attrs.items = std::move(kept);
  };
  for (Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (auto *f = dyn_cast<Function>(e))
        dropFrom(f->attrs, nullptr);
      else if (auto *c = dyn_cast<Call>(e); c && c->getOp() && c->getOp()->def)
        dropFrom(c->attrs, c->getOp()->def);
    });
}

namespace {

/// Calls `fn` on every device index the module's defs refer to, by
/// reference, so that it may renumber them.
void forEachDeviceRef(Module &m, function_ref<void(int64_t &)> fn) {
  auto inAttrs = [&](Attrs &attrs) {
    SmallVector<AttrValue *, 8> stack;
    for (Attr &a : attrs.items)
      stack.push_back(&a.value);
    while (!stack.empty()) {
      AttrValue *v = stack.pop_back_val();
      if (v->kind == AttrValue::Kind::Device)
        fn(v->intValue);
      for (AttrValue &x : v->list)
        stack.push_back(&x);
    }
  };
  auto inDevice = [&](DeviceIndex &d) {
    if (d == kNoDevice)
      return;
    int64_t i = d;
    fn(i);
    d = static_cast<DeviceIndex>(i);
  };
  // Variables are reached once each through their binder.
  forEachFunction(m, [&](Function &f) {
    inDevice(f.resultDevice);
    inAttrs(f.attrs);
    for (const Ref<Var> &p : f.params)
      inDevice(p->device);
    for (const Ref<Var> &p : f.freeVars)
      inDevice(p->device);
  });
  for (Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (auto *c = dyn_cast<Call>(e))
        inAttrs(c->attrs);
      else if (auto *l = dyn_cast<Let>(e))
        inDevice(l->var->device);
    });
}

} // namespace

void reduce::dropMetadata(Module &m, SiteSelection &sel) {
  std::vector<bool> referenced(m.devices.size(), false);
  forEachDeviceRef(m, [&](int64_t &i) {
    if (i >= 0 && static_cast<size_t>(i) < referenced.size())
      referenced[i] = true;
  });
  std::vector<int64_t> newIndex(m.devices.size());
  std::vector<VirtualDevice> kept;
  for (size_t i = 0; i < m.devices.size(); ++i) {
    newIndex[i] = static_cast<int64_t>(kept.size());
    if (referenced[i] || !sel.take())
      kept.push_back(m.devices[i]);
  }
  if (kept.size() != m.devices.size()) {
    forEachDeviceRef(m, [&](int64_t &i) {
      if (i >= 0 && static_cast<size_t>(i) < newIndex.size())
        i = newIndex[i];
    });
    m.devices = std::move(kept);
  }
  if (m.fallbackDeviceType && sel.take())
    m.fallbackDeviceType.reset();
  auto dropEntries = [&](auto &list) {
    size_t out = 0;
    for (size_t i = 0; i < list.size(); ++i)
      if (!sel.take()) {
        if (out != i)
          list[out] = std::move(list[i]);
        ++out;
      }
    list.erase(list.begin() + out, list.end());
  };
  dropEntries(m.passConfigExtra);
  dropEntries(m.extraMetadata);
}
