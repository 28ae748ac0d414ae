//===- InferenceRewrites.cpp - Shared by the inference rewrites -----------===//
#include "InferenceRewrites.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/OpBuilder.h"

using namespace llvm;

namespace hx {

DenseMap<const Expr *, bool> constantValued(Expr *root) {
  DenseMap<const Expr *, bool> constant;
  walkPostOrder(root, [&](Expr *e) {
    bool c = false;
    if (isa<Constant>(e))
      c = true;
    else if (auto *k = dyn_cast<Call>(e);
             k && k->getOp() && !k->isOp(kOnDevice) && !k->isOp(kDeviceCopy))
      c = all_of(k->args, [&](const ExprRef &a) { return constant.lookup(a.get()); });
    constant[e] = c;
  });
  return constant;
}

ExprRef makeOpCall(Module &m, StringRef op, SmallVector<ExprRef, 2> args, Loc loc, Attrs attrs) {
  return OpBuilder(m, std::move(loc)).call(op, args, std::move(attrs));
}

} // namespace hx
