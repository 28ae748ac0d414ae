//===- InferenceRewrites.h - Shared by the inference rewrites -*- C++ -*-===//
//
// Private to lib/Transforms: what simplify-inference and fold-scale-axis
// both need.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TRANSFORMS_INFERENCEREWRITES_H
#define HX_LIB_TRANSFORMS_INFERENCEREWRITES_H

#include "hx/IR/Module.h"
#include "hx/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"

namespace hx {

/// A pass that rewrites the body of each def in turn, and never fails.
class DefRewritePass : public Pass {
public:
  bool run(Module &m, PassContext &) override {
    for (Module::Def &d : m.defs)
      rewriteDef(m, *d.fn);
    return true;
  }

protected:
  virtual void rewriteDef(Module &m, Function &fn) = 0;
};

/// Which expressions under `root` are computed from constants alone: a
/// constant, or an operator call (not a device annotation) whose operands
/// all are. Without recursion.
llvm::DenseMap<const Expr *, bool> constantValued(Expr *root);

/// A call of operator `op` of `m` (its registry definition resolved), with
/// no type yet: OpBuilder(m, loc).call(op, args, attrs).
ExprRef makeOpCall(Module &m, llvm::StringRef op, llvm::SmallVector<ExprRef, 2> args, Loc loc,
                   Attrs attrs = {});

} // namespace hx

#endif
