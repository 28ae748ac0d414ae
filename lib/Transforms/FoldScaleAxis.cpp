//===- FoldScaleAxis.cpp - A per-channel scale folded into conv weights ---===//
//
// `fold-scale-axis` (TVM's backward FoldScaleAxis, for the case inference
// leaves after simplify-inference): a convolution whose result is only
// multiplied by a per-output-channel scale computed from constants takes
// the scale into its weights:
//
//   multiply(nn.conv2d(%x, W), S)  =>  nn.conv2d(%x, multiply(W, reshape(S, [O, 1, 1, 1])))
//
// where W is computed from constants alone, the convolution is NCHW with
// OIHW weights, and S has shape (O, 1, 1) or (1, O, 1, 1) (O the output
// channels; either operand order of the multiply). fold-constant then
// evaluates the new weights once. The convolution must have no other user:
// one that wanted the unscaled result would otherwise see the scaled one.
// Mathematically exact; in float32 the products round differently (within
// the conformance tolerance, test/Transforms/fold-scale-axis.test).
//
// Example:
//   %0 = nn.conv2d(%x, meta[relay.Constant][0], channels=64, kernel_size=[3, 3]);
//   multiply(%0, meta[relay.Constant][1] /* (64, 1, 1) */)
// becomes
//   nn.conv2d(%x, multiply(meta[relay.Constant][0],
//                          reshape(meta[relay.Constant][1], newshape=[64, 1, 1, 1])), ...)
//
// Needs types (infer-type first); the new calls are untyped until infer-type
// runs again. Without recursion; idempotent (a second run finds no multiply
// left of this form).
//
//===----------------------------------------------------------------------===//
#include "InferenceRewrites.h"
#include "hx/IR/Rewrite.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/AttrReader.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"

using namespace hx;
using namespace llvm;

namespace {

class FoldScaleAxisPass : public DefRewritePass {
public:
  StringRef getArgument() const override { return "fold-scale-axis"; }
  StringRef getDescription() const override {
    return "Fold a constant per-channel scale after a convolution into its constant weights";
  }

private:
  void rewriteDef(Module &m, Function &fn) override;
};

/// The output channel count when `conv` is a plain NCHW/OIHW nn.conv2d.
std::optional<int64_t> outputChannels(const Call &conv) {
  if (!conv.isOp("nn.conv2d") || conv.args.size() != 2)
    return std::nullopt;
  std::string data = attrs::getString(conv, "data_layout");
  std::string kernel = attrs::getString(conv, "kernel_layout");
  std::string out = attrs::getString(conv, "out_layout");
  if ((!data.empty() && data != "NCHW") || (!kernel.empty() && kernel != "OIHW") ||
      (!out.empty() && out != "NCHW"))
    return std::nullopt;
  const auto *wt = dyn_cast_or_null<TensorType>(conv.args[1]->checkedType.get());
  const auto *ot = dyn_cast_or_null<TensorType>(conv.checkedType.get());
  if (!wt || !ot || wt->rank() != 4 || ot->rank() != 4 || !wt->isStatic())
    return std::nullopt;
  return wt->shape[0];
}

/// Whether `s` is a per-channel scale of `o` channels for an NCHW result.
bool perChannel(const Expr &s, int64_t o) {
  const auto *st = dyn_cast_or_null<TensorType>(s.checkedType.get());
  if (!st || !st->isStatic())
    return false;
  ArrayRef<int64_t> d = st->shape;
  return (d.size() == 3 && d[0] == o && d[1] == 1 && d[2] == 1) ||
         (d.size() == 4 && d[0] == 1 && d[1] == o && d[2] == 1 && d[3] == 1);
}

void FoldScaleAxisPass::rewriteDef(Module &m, Function &fn) {
  DenseMap<const Expr *, unsigned> uses;
  SmallVector<Expr *, 4> operands;
  walkPostOrder(fn.body.get(), [&](Expr *e) {
    operands.clear();
    getOperands(e, operands);
    for (Expr *op : operands)
      ++uses[op];
  });
  DenseMap<const Expr *, bool> constant = constantValued(fn.body.get());
  fn.body = rewritePostOrder(fn.body.get(), [&](Expr *old, ArrayRef<ExprRef> ops) -> ExprRef {
    auto *mul = dyn_cast<Call>(old);
    if (!mul || !mul->isOp("multiply") || mul->args.size() != 2)
      return withOperands(old, ops);
    for (unsigned side = 0; side < 2; ++side) {
      auto *conv = dyn_cast<Call>(mul->args[side].get());
      const Expr *scale = mul->args[1 - side].get();
      std::optional<int64_t> o = conv ? outputChannels(*conv) : std::nullopt;
      if (!o || uses.lookup(conv) != 1 || !constant.lookup(conv->args[1].get()) ||
          !constant.lookup(scale) || !perChannel(*scale, *o))
        continue;
      // ops are the multiply's rewritten operands: the (rewritten) conv and
      // the scale.
      auto *newConv = dyn_cast<Call>(ops[1 + side].get());
      if (!newConv)
        continue;
      Attrs shape;
      shape.set("newshape", AttrValue::ofList({AttrValue::ofInt(*o), AttrValue::ofInt(1),
                                               AttrValue::ofInt(1), AttrValue::ofInt(1)}));
      ExprRef s4 = makeOpCall(m, "reshape", {ops[2 - side]}, mul->loc, shape);
      ExprRef w = makeOpCall(m, "multiply", {newConv->args[1], s4}, mul->loc);
      return make<Call>(newConv->callee, SmallVector<ExprRef, 2>{newConv->args[0], w},
                        newConv->attrs, newConv->loc);
    }
    return withOperands(old, ops);
  });
}

} // namespace

std::unique_ptr<Pass> hx::createFoldScaleAxisPass() {
  return std::make_unique<FoldScaleAxisPass>();
}
