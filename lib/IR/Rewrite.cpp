//===- Rewrite.cpp - Rebuilding expression DAGs bottom-up ----------------===//
#include "hx/IR/Rewrite.h"
#include "hx/IR/ExprNumbering.h"
#include "hx/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"

using namespace hx;
using namespace llvm;

ExprRef hx::withOperands(Expr *e, ArrayRef<ExprRef> ops) {
  SmallVector<Expr *, 8> old;
  getOperands(e, old);
  bool same = old.size() == ops.size();
  for (size_t i = 0; same && i < ops.size(); ++i)
    same = old[i] == ops[i].get();
  if (same)
    return e;
  ExprRef r;
  switch (e->getKind()) {
  case ExprKind::Call: {
    auto *c = cast<Call>(e);
    r = make<Call>(ops[0], SmallVector<ExprRef, 2>(ops.begin() + 1, ops.end()), c->attrs, c->loc);
    break;
  }
  case ExprKind::Tuple:
    r = make<Tuple>(SmallVector<ExprRef, 2>(ops.begin(), ops.end()), e->loc);
    break;
  case ExprKind::TupleGetItem:
    r = make<TupleGetItem>(ops[0], cast<TupleGetItem>(e)->index, e->loc);
    break;
  case ExprKind::Let:
    r = make<Let>(cast<Let>(e)->var, ops[0], ops[1], e->loc);
    break;
  case ExprKind::If:
    r = make<If>(ops[0], ops[1], ops[2], e->loc);
    break;
  case ExprKind::Function: {
    auto *f = cast<Function>(e);
    auto nf = make<Function>(f->params, ops[0], f->retType, f->loc);
    nf->attrs = f->attrs;
    nf->resultDevice = f->resultDevice;
    nf->freeVars = f->freeVars;
    r = nf;
    break;
  }
  default:
    return e; // atomic: no operands
  }
  r->checkedType = e->checkedType;
  return r;
}

ExprRef hx::replaceOperands(Expr *e, ArrayRef<ExprRef> ops) {
  if (e->useCount() != 1 || e->isAtomic())
    return withOperands(e, ops);
  // Only its one user holds `e`, and that user is being rebuilt too: nobody
  // else can see the change, so the node is reused (TVM's copy-on-write).
  setOperands(e, ops);
  return e;
}

void hx::setOperands(Expr *e, ArrayRef<ExprRef> ops) {
  switch (e->getKind()) {
  case ExprKind::Call: {
    auto *c = cast<Call>(e);
    if (c->callee.get() != ops[0].get())
      c->callee = ops[0];
    for (size_t i = 0; i < c->args.size(); ++i)
      if (c->args[i].get() != ops[i + 1].get())
        c->args[i] = ops[i + 1];
    break;
  }
  case ExprKind::Tuple: {
    auto *t = cast<Tuple>(e);
    for (size_t i = 0; i < t->fields.size(); ++i)
      if (t->fields[i].get() != ops[i].get())
        t->fields[i] = ops[i];
    break;
  }
  case ExprKind::TupleGetItem:
    cast<TupleGetItem>(e)->tuple = ops[0];
    break;
  case ExprKind::Let: {
    auto *l = cast<Let>(e);
    l->value = ops[0];
    l->body = ops[1];
    break;
  }
  case ExprKind::If: {
    auto *i = cast<If>(e);
    i->cond = ops[0];
    i->thenBranch = ops[1];
    i->elseBranch = ops[2];
    break;
  }
  case ExprKind::Function:
    cast<Function>(e)->body = ops[0];
    break;
  default:
    break;
  }
}

ExprRef hx::rewritePostOrder(Expr *root,
                             function_ref<ExprRef(Expr *old, ArrayRef<ExprRef> ops)> fn) {
  return rewriteInOrder(postOrder(root), fn);
}

ExprRef hx::rewriteInOrder(ArrayRef<Expr *> order,
                           function_ref<ExprRef(Expr *old, ArrayRef<ExprRef> ops)> fn) {
  // done[i] is the replacement of order[i]; a node is numbered i as it is
  // reached, and its operands (earlier in the order) by their Walk numbers.
  // `fn` is foreign code: if it walks the same nodes, it overwrites those
  // numbers, and lookups fall back to a map built once.
  ExprNumbering numbers(ExprSlot::Walk);
  numbers.reserve(order.size());
  std::vector<ExprRef> done(order.size());
  DenseMap<const Expr *, uint32_t> fallback;
  auto indexOf = [&](const Expr *e) {
    uint32_t k = numbers.lookup(e);
    if (k != ExprNumbering::kNone)
      return k;
    if (fallback.empty())
      for (uint32_t i = 0; i < numbers.size(); ++i)
        fallback[numbers[i]] = i;
    return fallback.lookup(e);
  };
  SmallVector<Expr *, 8> old;
  SmallVector<ExprRef, 8> ops;
  for (uint32_t i = 0; i < order.size(); ++i) {
    prefetchAhead(order, i);
    Expr *e = order[i];
    if (!fallback.empty())
      fallback[e] = i;
    numbers.insert(e);
    old.clear();
    getOperands(e, old);
    ops.clear();
    for (Expr *o : old)
      ops.push_back(o ? done[indexOf(o)] : ExprRef());
    done[i] = fn(e, ops);
  }
  return order.empty() ? ExprRef() : done.back();
}
