//===- TypeSolver.cpp - InferType's type variables and unification --------===//
//
// The solver behind unannotated parameters (step 4a at the top of
// InferType.cpp), after TVM's TypeSolver:
//
//  - A type variable is an IncompleteType whose id indexes `vars`, a
//    union-find forest. Unifying two unsolved variables merges them;
//    unifying one with any other type solves it (after an occurs check: no
//    variable may stand for a type that contains it). A solution never
//    changes: a later unification is checked against it, and the call whose
//    unification found it is kept (TypeVar::site) for the note of a later
//    mismatch.
//  - Unification of two types without variables is `compatible`: equal
//    structure, a `?` dim on either side matching any size.
//  - A node whose type relation needs its operands' types is deferred: an
//    operator call until its operands' types hold no unsolved variable, a
//    projection until its operand is known to be a tuple (its fields may
//    stay unknown). Its type becomes a fresh variable and it waits on one
//    unsolved variable of its inputs. Solving that variable queues it
//    (`ready`); solve() retries the queue until it is empty. A retried node
//    waits on its next unsolved variable, or runs its relation and unifies
//    the result with its variable, which may queue more. Each wait is on one
//    variable, so a node is retried at most once per variable of its inputs:
//    no quadratic rescans. (on_device and device_copy never wait: they are
//    identity-typed, so their type is their operand's, variables and all.)
//  - A failed expression poisons the variables of the types involved: they
//    resolve to null without a further error, so one mistake gives one
//    error.
//  - At the end of a def (finishDef) an unannotated parameter whose type
//    still holds an unsolved variable is "cannot infer the type of parameter
//    %x; add a type annotation", at the parameter; then every type holding
//    variables is replaced by its solution, and the solver is emptied: no
//    variable outlives the def that made it.
//
// Only the structure of types recurses (unification, resolution), on their
// nesting, never on the expression depth.
//
//===----------------------------------------------------------------------===//

#include "TypeInferencer.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Support/UnionFind.h"

using namespace llvm;

namespace hx::infer {

TypeRef TypeInferencer::freshVar() {
  auto id = static_cast<uint32_t>(vars.size());
  vars.push_back({});
  vars.back().parent = id;
  vars.back().self = make<IncompleteType>(id);
  return vars.back().self;
}

uint32_t TypeInferencer::find(uint32_t id) {
  return findRoot(id, [&](uint32_t i) -> uint32_t & { return vars[i].parent; });
}

const Type *TypeInferencer::prune(const Type *t, SMLoc *site) {
  while (const auto *v = dyn_cast_or_null<IncompleteType>(t)) {
    const TypeVar &root = vars[find(v->id)];
    if (!root.solution)
      return root.self.get();
    if (site && root.site.isValid())
      *site = root.site;
    t = root.solution.get();
  }
  return t;
}

namespace {
/// Visits the type variables inside `t` without recursion, each type first
/// passed through `next` (the identity, or a solved variable's solution);
/// stops when `visit` returns true, and returns whether it did.
template <typename Next, typename Visit> bool anyVar(const Type *t, Next next, Visit visit) {
  SmallVector<const Type *, 4> work{t};
  while (!work.empty()) {
    const Type *cur = next(work.pop_back_val());
    if (!cur || isa<TensorType>(cur))
      continue;
    if (const auto *v = dyn_cast<IncompleteType>(cur)) {
      if (visit(v))
        return true;
    } else if (const auto *tt = dyn_cast<TupleType>(cur)) {
      for (const TypeRef &f : tt->fields)
        work.push_back(f.get());
    } else {
      const auto *ft = cast<FuncType>(cur);
      for (const TypeRef &p : ft->params)
        work.push_back(p.get());
      work.push_back(ft->ret.get());
    }
  }
  return false;
}
} // namespace

bool TypeInferencer::hasVars(const Type *t) {
  return anyVar(t, [](const Type *x) { return x; }, [](const IncompleteType *) { return true; });
}

TypeInferencer::VarScan TypeInferencer::scanVars(const Type *t) {
  VarScan scan;
  anyVar(
      t, [this](const Type *x) { return prune(x); },
      [&](const IncompleteType *v) {
        if (vars[v->id].poisoned)
          scan.poisoned = true;
        else if (!scan.unsolved)
          scan.unsolved = v;
        return false;
      });
  return scan;
}

TypeRef TypeInferencer::resolve(const Type *t) {
  if (!t || isa<TensorType>(t))
    return TypeRef(const_cast<Type *>(t));
  if (const auto *v = dyn_cast<IncompleteType>(t)) {
    uint32_t root = find(v->id);
    if (vars[root].resolved)
      return vars[root].resolved;
    if (!vars[root].solution)
      return vars[root].self;
    TypeRef r = resolve(vars[root].solution.get());
    if (!hasVars(r.get()))
      vars[root].resolved = r; // a solution never changes: keep it
    return r;
  }
  if (const auto *tt = dyn_cast<TupleType>(t)) {
    std::vector<TypeRef> fields;
    bool changed = false;
    for (const TypeRef &f : tt->fields) {
      fields.push_back(resolve(f.get()));
      changed |= fields.back().get() != f.get();
    }
    if (!changed)
      return TypeRef(const_cast<Type *>(t));
    return make<TupleType>(std::move(fields));
  }
  const auto *ft = cast<FuncType>(t);
  std::vector<TypeRef> params;
  bool changed = false;
  for (const TypeRef &p : ft->params) {
    params.push_back(resolve(p.get()));
    changed |= params.back().get() != p.get();
  }
  TypeRef ret = resolve(ft->ret.get());
  changed |= ret.get() != ft->ret.get();
  if (!changed)
    return TypeRef(const_cast<Type *>(t));
  return make<FuncType>(std::move(params), std::move(ret));
}

TypeRef TypeInferencer::relationOnResolved(Call &call, ArrayRef<const Type *> operands) {
  SmallVector<TypeRef, 4> resolved;
  SmallVector<const Type *, 4> types;
  for (const Type *t : operands) {
    resolved.push_back(resolve(t));
    types.push_back(resolved.back().get());
  }
  return inferOpType(call, types, diags);
}

bool TypeInferencer::unify(const Type *a, const Type *b, SMLoc site) {
  conflict = Conflict();
  return unifyRec(a, b, site);
}

bool TypeInferencer::unifyRec(const Type *a, const Type *b, SMLoc site) {
  SMLoc viaA, viaB;
  a = prune(a, &viaA);
  b = prune(b, &viaB);
  auto mismatch = [&] {
    // The innermost solved variable explains the mismatch: keep the first
    // one found on the way out.
    if (!conflict.site.isValid()) {
      if (viaB.isValid())
        conflict = {viaB, true};
      else if (viaA.isValid())
        conflict = {viaA, false};
    }
    return false;
  };
  if (!a || !b || a == b)
    return true; // a failed operand fails silently
  if (const auto *va = dyn_cast<IncompleteType>(a))
    return bindVar(va->id, b, site) || mismatch();
  if (const auto *vb = dyn_cast<IncompleteType>(b))
    return bindVar(vb->id, a, site) || mismatch();
  if (a->getKind() != b->getKind())
    return mismatch();
  if (const auto *ta = dyn_cast<TensorType>(a))
    return compatible(ta, b) || mismatch();
  if (const auto *ta = dyn_cast<TupleType>(a)) {
    const auto *tb = cast<TupleType>(b);
    if (ta->fields.size() != tb->fields.size())
      return mismatch();
    for (size_t i = 0; i < ta->fields.size(); ++i)
      if (!unifyRec(ta->fields[i].get(), tb->fields[i].get(), site))
        return mismatch();
    return true;
  }
  const auto *fa = cast<FuncType>(a), *fb = cast<FuncType>(b);
  if (fa->params.size() != fb->params.size())
    return mismatch();
  for (size_t i = 0; i < fa->params.size(); ++i)
    if (!unifyRec(fa->params[i].get(), fb->params[i].get(), site))
      return mismatch();
  return unifyRec(fa->ret.get(), fb->ret.get(), site) || mismatch();
}

bool TypeInferencer::bindVar(uint32_t root, const Type *t, SMLoc site) {
  // `root` and `t` come from prune: a root, and no solved variable at the
  // top of `t`.
  if (const auto *other = dyn_cast<IncompleteType>(t)) {
    uint32_t into = find(other->id);
    if (into == root)
      return true;
    // Merge the smaller waiting list into the larger one.
    if (vars[root].waiting.size() > vars[into].waiting.size())
      std::swap(root, into);
    vars[root].parent = into;
    bool poisoned = vars[root].poisoned || vars[into].poisoned;
    vars[into].poisoned = poisoned;
    std::vector<uint32_t> moved;
    moved.swap(vars[root].waiting);
    std::vector<uint32_t> &waiting = vars[into].waiting;
    waiting.insert(waiting.end(), moved.begin(), moved.end());
    if (poisoned)
      wake(into);
    return true;
  }
  if (vars[root].poisoned)
    return true;
  if (occurs(root, t)) {
    conflict.occurs = true;
    return false;
  }
  vars[root].solution = TypeRef(const_cast<Type *>(t));
  vars[root].site = site;
  wake(root);
  return true;
}

bool TypeInferencer::occurs(uint32_t root, const Type *t) {
  return anyVar(
      t, [this](const Type *x) { return prune(x); },
      [&](const IncompleteType *v) { return find(v->id) == root; });
}

void TypeInferencer::wake(uint32_t root) {
  std::vector<uint32_t> waiting;
  waiting.swap(vars[root].waiting);
  ready.insert(ready.end(), waiting.begin(), waiting.end());
}

void TypeInferencer::poison(const Type *t) {
  anyVar(
      t, [this](const Type *x) { return prune(x); },
      [&](const IncompleteType *v) {
        if (!vars[v->id].poisoned) {
          vars[v->id].poisoned = true;
          wake(v->id);
        }
        return false;
      });
}

TypeRef TypeInferencer::defer(Expr *e, ArrayRef<const Type *> inputs) {
  Deferred d;
  d.e = e;
  for (const Type *t : inputs)
    d.inputs.push_back(TypeRef(const_cast<Type *>(t)));
  d.result = freshVar();
  TypeRef result = d.result;
  deferred.push_back(std::move(d));
  retry(static_cast<uint32_t>(deferred.size() - 1)); // waits on its first unsolved variable
  return result;
}

void TypeInferencer::solve() {
  if (solving)
    return;
  solving = true;
  for (size_t k = 0; k < ready.size(); ++k)
    retry(ready[k]); // may queue more
  ready.clear();
  solving = false;
}

void TypeInferencer::retry(uint32_t i) {
  if (deferred[i].done)
    return;
  Expr *e = deferred[i].e;
  // An operator's relation needs its operands' types whole; a projection
  // only needs to know that its operand is a tuple (its fields may hold
  // variables still).
  VarScan scan;
  if (isa<Call>(e)) {
    for (const TypeRef &t : deferred[i].inputs) {
      VarScan s = scanVars(t.get());
      scan.poisoned |= s.poisoned;
      if (!scan.unsolved)
        scan.unsolved = s.unsolved;
    }
  } else if (const auto *v = dyn_cast<IncompleteType>(prune(deferred[i].inputs[0].get()))) {
    scan.poisoned = vars[v->id].poisoned;
    scan.unsolved = scan.poisoned ? nullptr : v;
  }
  if (scan.poisoned) {
    deferred[i].done = true;
    poison(deferred[i].result.get());
    return;
  }
  if (scan.unsolved) {
    vars[scan.unsolved->id].waiting.push_back(i); // a root: scanVars prunes
    return;
  }
  deferred[i].done = true;
  TypeRef result = deferred[i].result, t;
  if (auto *call = dyn_cast<Call>(e)) {
    SmallVector<const Type *, 4> inputs;
    for (const TypeRef &in : deferred[i].inputs)
      inputs.push_back(in.get());
    t = relationOnResolved(*call, inputs);
  } else {
    t = projectType(cast<TupleGetItem>(e), prune(deferred[i].inputs[0].get()));
  }
  if (!t) {
    poison(result.get());
    return;
  }
  if (unify(result.get(), t.get()))
    return; // what it solved is retried by solve()
  // The uses of the node fixed its type before its operands were known
  // (a `-> T` annotation, say), and the relation disagrees.
  std::string what = "this expression";
  if (const auto *call = dyn_cast<Call>(e))
    if (const Op *op = call->getOp())
      what = op->name;
  diags.error(e->loc, "the result of " + what + " has type " +
                          typeToString(resolve(t.get()).get()) + " but its uses need type " +
                          typeToString(resolve(result.get()).get()));
  poison(result.get());
}

TypeRef TypeInferencer::finalType(const Type *t) {
  TypeRef r = resolve(t);
  if (hasVars(r.get()))
    return nullptr; // unsolved or poisoned: reported (or not) already
  return types.unique(std::move(r));
}

void TypeInferencer::finishDef() {
  solve();
  // A parameter whose type no use fixed.
  for (Var *p : freshParams) {
    VarScan scan = scanVars(p->checkedType.get());
    if (!scan.unsolved)
      continue;
    diags.error(p->loc,
                "cannot infer the type of parameter %" + p->name + "; add a type annotation");
    poison(p->checkedType.get());
  }
  freshParams.clear();
  solve(); // the nodes waiting on what was just poisoned
  // Anything else unsolved depends on a parameter reported above; if not
  // (no known case), it is reported here rather than left untyped.
  for (Expr *e : open) {
    VarScan scan = scanVars(e->checkedType.get());
    if (!scan.unsolved)
      continue;
    diags.error(e->loc, "cannot infer the type of this expression; add type annotations");
    poison(e->checkedType.get());
  }
  for (Expr *e : open) {
    e->checkedType = finalType(e->checkedType.get());
    if (auto *v = dyn_cast<Var>(e)) {
      if (v->annotation && hasVars(v->annotation.get()))
        v->annotation = finalType(v->annotation.get());
    } else if (auto *fn = dyn_cast<Function>(e)) {
      if (fn->retType && hasVars(fn->retType.get()))
        fn->retType = finalType(fn->retType.get());
    }
  }
  open.clear();
  deferred.clear();
  ready.clear();
  vars.clear();
}

} // namespace hx::infer
