//===- Rewrite.cpp - Rebuilding expression DAGs bottom-up ----------------===//
#include "hx/IR/Rewrite.h"
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

ExprRef hx::rewritePostOrder(Expr *root,
                             function_ref<ExprRef(Expr *old, ArrayRef<ExprRef> ops)> fn) {
  DenseMap<Expr *, ExprRef> done;
  SmallVector<Expr *, 8> old;
  SmallVector<ExprRef, 8> ops;
  walkPostOrder(root, [&](Expr *e) {
    old.clear();
    getOperands(e, old);
    ops.clear();
    for (Expr *o : old)
      ops.push_back(done.lookup(o));
    done[e] = fn(e, ops);
  });
  return done.lookup(root);
}
