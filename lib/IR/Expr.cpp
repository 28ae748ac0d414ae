//===- Expr.cpp - Expressions ---------------------------------------------===//
#include "hx/IR/Expr.h"

using namespace hx;
using namespace llvm;

#if defined(__x86_64__) || defined(__aarch64__)
// The numbering slots live in padding: an expression is a vtable pointer, a
// reference count, a location (a source position and a pointer to the
// framework node it came from, shared by the node's expressions), a type, a
// kind and two 32-bit slots.
static_assert(sizeof(Expr) == 48, "Expr grew; keep the slots in padding");
#endif

void Expr::dropChildren(NodeWorklist &dead) { drop(checkedType.raw(), dead); }

void Var::dropChildren(NodeWorklist &dead) {
  Expr::dropChildren(dead);
  drop(annotation.raw(), dead);
}

void Call::dropChildren(NodeWorklist &dead) {
  Expr::dropChildren(dead);
  drop(callee.raw(), dead);
  for (ExprRef &a : args)
    drop(a.raw(), dead);
}

void Tuple::dropChildren(NodeWorklist &dead) {
  Expr::dropChildren(dead);
  for (ExprRef &f : fields)
    drop(f.raw(), dead);
}

void TupleGetItem::dropChildren(NodeWorklist &dead) {
  Expr::dropChildren(dead);
  drop(tuple.raw(), dead);
}

void Let::dropChildren(NodeWorklist &dead) {
  Expr::dropChildren(dead);
  drop(var.raw(), dead);
  drop(value.raw(), dead);
  drop(body.raw(), dead);
}

void If::dropChildren(NodeWorklist &dead) {
  Expr::dropChildren(dead);
  drop(cond.raw(), dead);
  drop(thenBranch.raw(), dead);
  drop(elseBranch.raw(), dead);
}

void Function::dropChildren(NodeWorklist &dead) {
  Expr::dropChildren(dead);
  for (Ref<Var> &p : params)
    drop(p.raw(), dead);
  for (Ref<Var> &v : freeVars)
    drop(v.raw(), dead);
  drop(body.raw(), dead);
  drop(retType.raw(), dead);
}

bool Function::isPrimitive() const {
  const AttrValue *p = attrs.get("Primitive");
  return p && ((p->kind == AttrValue::Kind::Int && p->intValue) ||
               (p->kind == AttrValue::Kind::Bool && p->boolValue));
}

void hx::getOperands(const Expr *e, SmallVectorImpl<Expr *> &out) {
  switch (e->getKind()) {
  case ExprKind::Var:
  case ExprKind::GlobalVar:
  case ExprKind::Op:
  case ExprKind::Constant:
    return;
  case ExprKind::Call: {
    auto *c = cast<Call>(e);
    out.push_back(c->callee.get());
    for (const ExprRef &a : c->args)
      out.push_back(a.get());
    return;
  }
  case ExprKind::Tuple:
    for (const ExprRef &f : cast<Tuple>(e)->fields)
      out.push_back(f.get());
    return;
  case ExprKind::TupleGetItem:
    out.push_back(cast<TupleGetItem>(e)->tuple.get());
    return;
  case ExprKind::Let: {
    auto *l = cast<Let>(e);
    out.push_back(l->value.get());
    out.push_back(l->body.get());
    return;
  }
  case ExprKind::If: {
    auto *i = cast<If>(e);
    out.push_back(i->cond.get());
    out.push_back(i->thenBranch.get());
    out.push_back(i->elseBranch.get());
    return;
  }
  case ExprKind::Function:
    out.push_back(cast<Function>(e)->body.get());
    return;
  }
}
