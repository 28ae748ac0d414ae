//===- Verifier.cpp - IR well-formedness ----------------------------------===//
//
// One iterative walk per def (walkPostOrder), so any depth verifies.
//
// Scoping is checked per def: every Var used must be bound somewhere in the
// def (a parameter, a free_var, a let, or a parameter of a nested fn literal),
// and no Var may be bound twice. This catches passes that forget a binding;
// it does not prove that each use sits inside its binder's scope.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/Verifier.h"
#include "hx/IR/Walk.h"
#include "llvm/ADT/DenseSet.h"

using namespace hx;
using namespace llvm;

namespace {
class Verifier {
public:
  Verifier(const Module &m, DiagEngine &diags) : m(m), diags(diags) {}

  bool run() {
    for (const Module::Def &d : m.defs)
      verifyDef(d);
    return ok;
  }

private:
  void fail(Loc loc, const Twine &msg) {
    if (ok) // one error per module is enough: later ones are usually echoes
      diags.error(loc, msg);
    ok = false;
  }

  void checkDevice(DeviceIndex d, const Loc &loc, StringRef what) {
    if (d != kNoDevice && (d < 0 || static_cast<size_t>(d) >= m.devices.size()))
      fail(loc, Twine(what) + " refers to meta[VirtualDevice][" + Twine(d) +
                    "], which is not in the device table");
  }

  void checkType(const Type *t, const Loc &loc) {
    if (!t)
      return;
    SmallVector<const Type *, 8> work{t};
    while (!work.empty()) {
      const Type *cur = work.pop_back_val();
      if (!cur) {
        fail(loc, "malformed type");
        return;
      }
      if (auto *tt = dyn_cast<TensorType>(cur)) {
        for (int64_t d : tt->shape)
          if (d < 0 && d != TensorType::kDynamic)
            fail(loc, "negative dimension in type " + typeToString(cur));
      } else if (auto *tu = dyn_cast<TupleType>(cur)) {
        for (auto &f : tu->fields)
          work.push_back(f.get());
      } else if (auto *ft = dyn_cast<FuncType>(cur)) {
        for (auto &p : ft->params)
          work.push_back(p.get());
        work.push_back(ft->ret.get());
      }
    }
  }

  void bind(const Var *v) {
    if (!bound.insert(v).second)
      fail(v->loc, "variable '%" + v->name + "' is bound more than once");
    checkType(v->annotation.get(), v->loc);
    checkDevice(v->device, v->loc, "parameter '%" + v->name + "'");
  }

  void bindFunction(const Function &fn) {
    for (const Ref<Var> &p : fn.params)
      bind(p.get());
    for (const Ref<Var> &v : fn.freeVars)
      bind(v.get());
    checkType(fn.retType.get(), fn.loc);
    checkDevice(fn.resultDevice, fn.loc, "function result device");
  }

  void verifyDef(const Module::Def &d) {
    bound.clear();
    const Function &fn = *d.fn;
    bindFunction(fn);
    if (!fn.body) {
      fail(fn.loc, "function '@" + d.global->name + "' has no body");
      return;
    }
    // First collect every binder, then check every use.
    std::vector<const Var *> uses;
    walkPostOrder(fn.body.get(), [&](Expr *e) {
      switch (e->getKind()) {
      case ExprKind::Var:
        uses.push_back(cast<Var>(e));
        break;
      case ExprKind::Let:
        bind(cast<Let>(e)->var.get());
        break;
      case ExprKind::Function:
        bindFunction(*cast<Function>(e));
        break;
      case ExprKind::GlobalVar:
        if (!m.lookup(cast<GlobalVar>(e)->name))
          fail(e->loc, "call to undefined global '@" + cast<GlobalVar>(e)->name + "'");
        break;
      case ExprKind::Call: {
        auto *c = cast<Call>(e);
        if (!c->callee) {
          fail(c->loc, "call without a callee");
          break;
        }
        for (const ExprRef &a : c->args)
          if (!a)
            fail(c->loc, "call with a missing argument");
        for (const Attr &a : c->attrs)
          checkAttr(a.value, c->loc);
        break;
      }
      default:
        break;
      }
    });
    for (const Var *v : uses)
      if (!bound.count(v))
        fail(v->loc,
             "use of variable '%" + v->name + "' that is not bound in '@" + d.global->name + "'");
  }

  void checkAttr(const AttrValue &v, const Loc &loc) {
    if (v.kind == AttrValue::Kind::Device)
      checkDevice(static_cast<DeviceIndex>(v.intValue),
                  v.loc.isValid() ? Loc(v.loc, loc.node) : loc, "attribute");
    for (const AttrValue &x : v.list)
      checkAttr(x, loc);
  }

  const Module &m;
  DiagEngine &diags;
  DenseSet<const Var *> bound;
  bool ok = true;
};
} // namespace

bool hx::verifyModule(const Module &m, DiagEngine &diags) { return Verifier(m, diags).run(); }
