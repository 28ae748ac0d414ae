//===- GraphPasses.cpp - Reductions of a def's expression graph -----------===//
//
// Three delta passes rebuild a def's DAG with some nodes replaced:
//
//  - bindings: a binding disappears. A `let %x = v; body` becomes `body` with
//    %x replaced by v. Any other binding is replaced, at every use, by its
//    first operand of the same type (an argument of a call, a field of a
//    tuple, the then branch of an if):
//        %1 = add(%0, %b); %2 = exp(%1)   ->   %2 = exp(%0)
//    and when it has none, by a new parameter of its def (as `operands`).
//  - operands: a sub-expression becomes a new parameter of its def, with the
//    sub-expression's type, which cuts the graph above it away:
//        %0 = nn.dense(%x, %w); nn.softmax(%0)   ->   nn.softmax(%p0)
//    Tensor constants are sites too, so unused metadata constants go.
//  - tuples: a projection of a tuple literal becomes the field (`(%a, %b).1`
//    -> `%b`), and a tuple becomes one of its fields; the def's `-> T`
//    annotation goes with it, as the result type may change.
//
// A new parameter is only added to a def that nothing calls (usually @main),
// so no call site has to change. Sites are met def by def, in post-order
// within a def (operands before users), so consecutive sites are neighbours
// in the graph and a chunk of them is a region of it.
//
// Each rebuild is one rewritePostOrder per def: no recursion on depth.
//
//===----------------------------------------------------------------------===//
#include "DeltaPasses.h"
#include "hx/IR/Rewrite.h"
#include "hx/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace hx;
using namespace hx::reduce;
using namespace llvm;

StringSet<> reduce::referencedGlobals(const Module &m) {
  StringSet<> names;
  for (const Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (auto *g = dyn_cast<GlobalVar>(e))
        names.insert(g->name);
    });
  return names;
}

bool reduce::isParamType(const Type *t) {
  if (!t)
    return false;
  if (isa<TensorType>(t))
    return true;
  if (auto *tt = dyn_cast<TupleType>(t)) {
    for (const TypeRef &f : tt->fields)
      if (!isParamType(f.get()))
        return false;
    return true;
  }
  return false;
}

StringSet<> reduce::variableNames(Function &fn) {
  StringSet<> names;
  auto addFn = [&](Function &f) {
    for (const Ref<Var> &p : f.params)
      names.insert(p->name);
    for (const Ref<Var> &v : f.freeVars)
      names.insert(v->name);
  };
  addFn(fn);
  walkPostOrder(&fn, [&](Expr *e) {
    if (auto *v = dyn_cast<Var>(e))
      names.insert(v->name);
    else if (auto *l = dyn_cast<Let>(e))
      names.insert(l->var->name);
    else if (auto *f = dyn_cast<Function>(e))
      addFn(*f);
  });
  return names;
}

std::string reduce::freshName(StringSet<> &taken) {
  for (unsigned i = 0;; ++i) {
    std::string name = ("p" + Twine(i)).str();
    if (taken.insert(name).second)
      return name;
  }
}

void reduce::forEachFunction(Module &m, function_ref<void(Function &)> fn) {
  for (Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (auto *f = dyn_cast<Function>(e))
        fn(*f);
    });
}

namespace {

/// What becomes of one node of a def.
struct Action {
  enum Kind : uint8_t {
    Forward,   // its operand number `operand` (getOperands order)
    Replace,   // `with` (a new parameter)
    InlineLet, // a let: its body, with the variable replaced by the value
    Project,   // a projection of a tuple literal: that field
  } kind;
  unsigned operand = 0;
  ExprRef with;

  static Action forward(unsigned i) { return {Forward, i, nullptr}; }
  static Action replace(ExprRef e) { return {Replace, 0, std::move(e)}; }
  static Action inlineLet() { return {InlineLet, 0, nullptr}; }
  static Action project() { return {Project, 0, nullptr}; }
};

/// One def's planned changes.
class DefRewrite {
public:
  explicit DefRewrite(Module::Def &d) : def(d) {}

  /// A new parameter of the def with type `t`.
  Ref<Var> newParam(const TypeRef &t) {
    if (!namesReady) {
      names = variableNames(*def.fn);
      namesReady = true;
    }
    auto v = make<Var>(freshName(names), t, SMLoc());
    params.push_back(v);
    return v;
  }
  void add(Expr *e, Action a) { actions.try_emplace(e, std::move(a)); }
  bool empty() const { return actions.empty(); }

  void apply() {
    if (actions.empty())
      return;
    // Values of inlined lets, so that the variable's uses (all in the body,
    // rewritten after the value) take the rewritten value.
    DenseMap<const Expr *, SmallVector<const Var *, 1>> letOfValue;
    for (auto &[e, a] : actions)
      if (a.kind == Action::InlineLet) {
        auto *l = cast<Let>(e);
        letOfValue[l->value.get()].push_back(l->var.get());
      }
    DenseMap<const Var *, ExprRef> subst;
    ExprRef root = rewritePostOrder(def.fn.get(), [&](Expr *old, ArrayRef<ExprRef> ops) {
      ExprRef r;
      if (auto *v = dyn_cast<Var>(old)) {
        auto it = subst.find(v);
        r = it != subst.end() ? it->second : ExprRef(old);
      } else if (auto it = actions.find(old); it == actions.end()) {
        r = withOperands(old, ops);
      } else {
        Action &a = it->second;
        switch (a.kind) {
        case Action::Forward:
          r = ops[a.operand];
          break;
        case Action::Replace:
          r = a.with;
          break;
        case Action::InlineLet:
          r = ops[1];
          break;
        case Action::Project:
          if (auto *t = dyn_cast<Tuple>(ops[0].get()))
            r = t->fields[cast<TupleGetItem>(old)->index];
          else
            r = withOperands(old, ops);
          break;
        }
      }
      if (auto it = letOfValue.find(old); it != letOfValue.end())
        for (const Var *v : it->second)
          subst[v] = r;
      return r;
    });
    auto fn = Ref<Function>(cast<Function>(root.get()));
    for (Ref<Var> &p : params)
      fn->params.push_back(p);
    def.fn = fn;
  }

private:
  Module::Def &def;
  DenseMap<const Expr *, Action> actions;
  std::vector<Ref<Var>> params;
  StringSet<> names;
  bool namesReady = false;
};

/// What a pass sees of the def a node is in.
struct DefContext {
  DefRewrite &rw;
  /// Whether the def may get new parameters (nothing calls it).
  bool mayAddParams;
  /// The tuples some projection takes apart.
  DenseSet<const Expr *> projected;
};

/// Calls `visit(def, e)` on every node of every def that could be a site
/// (not the def root, not a variable, global or operator), in def order and
/// post-order, then applies the rewrites.
void forEachNode(Module &m, function_ref<void(DefContext &, Expr *)> visit) {
  StringSet<> used = referencedGlobals(m);
  for (Module::Def &d : m.defs) {
    DefRewrite rw(d);
    DefContext ctx{rw, !used.contains(d.global->name), {}};
    std::vector<Expr *> order = postOrder(d.fn.get());
    order.pop_back(); // the root
    for (Expr *e : order)
      if (auto *p = dyn_cast<TupleGetItem>(e))
        ctx.projected.insert(p->tuple.get());
    for (Expr *e : order)
      if (!isa<Var, GlobalVar, Op>(e))
        visit(ctx, e);
    rw.apply();
  }
}

bool sameType(const Expr *a, const Expr *b) {
  return a && b && a->checkedType && b->checkedType &&
         typeEqual(a->checkedType.get(), b->checkedType.get());
}

} // namespace

void reduce::removeBindings(Module &m, SiteSelection &sel) {
  forEachNode(m, [&](DefContext &ctx, Expr *e) {
    if (isa<Constant>(e))
      return;
    if (isa<Let>(e)) {
      if (sel.take())
        ctx.rw.add(e, Action::inlineLet());
      return;
    }
    // A projection of a tuple literal is its field; the tuple, once its
    // projections are gone, is dead.
    if (auto *p = dyn_cast<TupleGetItem>(e); p && isa<Tuple>(p->tuple.get())) {
      if (sel.take())
        ctx.rw.add(e, Action::project());
      return;
    }
    if (isa<Tuple>(e) && ctx.projected.contains(e))
      return;
    SmallVector<Expr *, 4> ops;
    getOperands(e, ops);
    // A call's callee and an if's condition are not candidates.
    unsigned first = isa<Call, If>(e) ? 1 : 0;
    for (unsigned i = first; i < ops.size(); ++i)
      if (sameType(ops[i], e)) {
        if (sel.take())
          ctx.rw.add(e, Action::forward(i));
        return;
      }
    if (ctx.mayAddParams && isParamType(e->checkedType.get()) && sel.take())
      ctx.rw.add(e, Action::replace(ctx.rw.newParam(e->checkedType)));
  });
}

void reduce::forwardAnnotationCalls(Module &m, SiteSelection &sel) {
  forEachNode(m, [&](DefContext &ctx, Expr *e) {
    auto *c = dyn_cast<Call>(e);
    if (c && (c->isOp(kOnDevice) || c->isOp(kDeviceCopy)) && c->args.size() == 1 && sel.take())
      ctx.rw.add(e, Action::forward(1));
  });
}

void reduce::operandsToParams(Module &m, SiteSelection &sel) {
  forEachNode(m, [&](DefContext &ctx, Expr *e) {
    if (auto *c = dyn_cast<Constant>(e); c && !c->isTensor())
      return;
    if (ctx.mayAddParams && isParamType(e->checkedType.get()) && sel.take())
      ctx.rw.add(e, Action::replace(ctx.rw.newParam(e->checkedType)));
  });
}

void reduce::flattenTuples(Module &m, SiteSelection &sel) {
  // The defs where a tuple became a field lose their `-> T`.
  for (Module::Def &d : m.defs) {
    DefRewrite rw(d);
    bool dropRet = false;
    std::vector<Expr *> order = postOrder(d.fn.get());
    order.pop_back();
    // A projected tuple is left to its projections.
    DenseSet<const Expr *> projected;
    for (Expr *e : order)
      if (auto *p = dyn_cast<TupleGetItem>(e))
        projected.insert(p->tuple.get());
    for (Expr *e : order) {
      if (auto *p = dyn_cast<TupleGetItem>(e)) {
        if (isa<Tuple>(p->tuple.get()) && sel.take())
          rw.add(e, Action::project());
      } else if (auto *t = dyn_cast<Tuple>(e); t && !projected.contains(t)) {
        bool done = false;
        for (unsigned i = 0; i < t->fields.size(); ++i)
          if (sel.take() && !done) {
            rw.add(e, Action::forward(i));
            done = dropRet = true;
          }
      }
    }
    rw.apply();
    if (dropRet)
      d.fn->retType = nullptr;
  }
}
