//===- SimplifyInference.cpp - batch_norm and dropout at inference --------===//
//
// `simplify-inference` (TVM's SimplifyInference) rewrites what only training
// needs into plain arithmetic:
//
//   nn.batch_norm(%x, %gamma, %beta, %mean, %var, axis=a, epsilon=e).0
//     => add(multiply(%x, S), T)
//        S = rsqrt(add(%var, e)) * %gamma       (without %gamma: scale=False)
//        T = %beta - %mean * S                  (without %beta: center=False)
//   (.1 and .2, the moving mean and variance, become %mean and %var)
//   nn.dropout(%x).0  =>  %x
//
// S and T have the channel's shape, expanded with trailing 1s (expand_dims)
// so that they broadcast along axis a. A batch_norm is rewritten only where
// gamma, beta, mean and variance are constants or computed from constants
// alone: then fold-constant evaluates S and T once and fold-scale-axis can
// fold S into the weights of a convolution before it; with run-time
// parameters the batch_norm kernel is as fast as the two operators would be.
// A dropout is rewritten only where nothing reads its mask (.1).
//
// Example (%w and the batch_norm parameters constants):
//   %1 = nn.batch_norm(%0, meta[relay.Constant][1], ..., meta[relay.Constant][4]);
//   %2 = %1.0;
// becomes
//   %2 = add(multiply(%0, expand_dims(multiply(rsqrt(add(C4, 1e-05f)), C1), ...)), ...);
//
// The pass needs types (infer-type first) and leaves the new calls untyped:
// run infer-type after it. It rewrites every def, without recursion; a
// second run finds nothing to do (test/Transforms/simplify-inference.ir).
//
//===----------------------------------------------------------------------===//
#include "InferenceRewrites.h"
#include "hx/IR/Rewrite.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/AttrReader.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace hx;
using namespace llvm;

namespace {

class SimplifyInferencePass : public DefRewritePass {
public:
  StringRef getArgument() const override { return "simplify-inference"; }
  StringRef getDescription() const override {
    return "Rewrite batch_norm with constant statistics into a scale and a shift, drop dropout";
  }

private:
  void rewriteDef(Module &m, Function &fn) override;
};

void SimplifyInferencePass::rewriteDef(Module &m, Function &fn) {
  // What reads each dropout's mask, and which expressions are computed
  // from constants alone (in post order, so operands come first).
  DenseSet<const Expr *> maskRead;
  walkPostOrder(fn.body.get(), [&](Expr *e) {
    if (auto *g = dyn_cast<TupleGetItem>(e); g && g->index != 0)
      maskRead.insert(g->tuple.get());
  });
  DenseMap<const Expr *, bool> constant = constantValued(fn.body.get());
  auto isConstant = [&](const ExprRef &e) { return constant.lookup(e.get()); };

  fn.body = rewritePostOrder(fn.body.get(), [&](Expr *old, ArrayRef<ExprRef> ops) -> ExprRef {
    auto *g = dyn_cast<TupleGetItem>(old);
    auto *k = g ? dyn_cast<Call>(g->tuple.get()) : nullptr;
    if (!k)
      return withOperands(old, ops);
    // ops[0] is the rewritten call; its operands are the rewritten args.
    auto *now = dyn_cast<Call>(ops[0].get());
    if (k->isOp("nn.dropout") && g->index == 0 && !maskRead.contains(k) && now)
      return now->args[0];
    if (!k->isOp("nn.batch_norm") || !now || now->args.size() != 5 ||
        !std::all_of(k->args.begin() + 1, k->args.end(), isConstant))
      return withOperands(old, ops);
    const auto *xt = dyn_cast_or_null<TensorType>(k->args[0]->checkedType.get());
    if (!xt || xt->rank() < 1)
      return withOperands(old, ops);
    int64_t rank = int64_t(xt->rank());
    int64_t axis = attrs::getInt(*k, "axis");
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return withOperands(old, ops);
    const ExprRef &x = now->args[0], &gamma = now->args[1], &beta = now->args[2],
                  &mean = now->args[3], &var = now->args[4];
    if (g->index == 1)
      return mean;
    if (g->index == 2)
      return var;
    Loc loc = k->loc;
    auto eps = make<Constant>(xt->dtype, loc);
    eps->floatValue = attrs::getFloat(*k, "epsilon");
    ExprRef s = makeOpCall(m, "rsqrt", {makeOpCall(m, "add", {var, eps}, loc)}, loc);
    if (attrs::getBool(*k, "scale"))
      s = makeOpCall(m, "multiply", {s, gamma}, loc);
    ExprRef t = makeOpCall(m, "negative", {makeOpCall(m, "multiply", {mean, s}, loc)}, loc);
    if (attrs::getBool(*k, "center"))
      t = makeOpCall(m, "add", {t, beta}, loc);
    if (int64_t trailing = rank - 1 - axis; trailing > 0) {
      auto expand = [&](ExprRef v) {
        Attrs a;
        a.set("axis", AttrValue::ofInt(1));
        a.set("num_newaxis", AttrValue::ofInt(trailing));
        return makeOpCall(m, "expand_dims", {std::move(v)}, loc, std::move(a));
      };
      s = expand(s);
      t = expand(t);
    }
    return makeOpCall(m, "add", {makeOpCall(m, "multiply", {x, s}, loc), t}, loc);
  });
}

} // namespace

std::unique_ptr<Pass> hx::createSimplifyInferencePass() {
  return std::make_unique<SimplifyInferencePass>();
}
