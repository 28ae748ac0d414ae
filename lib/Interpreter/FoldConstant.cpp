//===- FoldConstant.cpp - Constant subexpressions evaluated once ----------===//
//
// `fold-constant` (TVM's FoldConstant): an operator call whose operands are
// all constants (tensor constants and scalar literals), after its operands
// have been folded, is replaced by a tensor constant holding its value, as
// the reference interpreter computes it (interpretOp, in double where the
// interpreter computes in double). Bottom-up over each def, without
// recursion, so a chain of constant calls folds in one run; a second run
// finds nothing to fold (test/Transforms/fold-constant.ir).
//
// Not folded: device annotations (on_device, device_copy: they say where a
// value lives, and plan-devices reads them), calls with a tuple result,
// operators the interpreter lacks, and calls it fails on (the error then
// surfaces where the call runs, as it would have). It lives beside the
// interpreter, which it needs, and is registered by the tools and the
// Session (registerInterpreterPasses).
//
// Example:
//   add(meta[relay.Constant][0], 1f)   =>   meta[relay.Constant][1]
//
// The pass needs types (infer-type first): the folded constant's type is the
// call's.
//
//===----------------------------------------------------------------------===//
#include "hx/Interpreter/FoldConstant.h"
#include "hx/IR/Rewrite.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Tensor/HostTensor.h"
#include <cstring>

using namespace hx;
using namespace llvm;

namespace {

/// The value of constant `c` as a host tensor (a scalar literal has rank 0).
HostTensor hostValue(const Constant &c) {
  if (c.isTensor()) {
    HostTensor t(c.tensor->dtype, c.tensor->shape);
    std::memcpy(t.data(), c.tensor->bytes.data(), t.byteSize());
    return t;
  }
  HostTensor t(c.dtype, {});
  if (c.dtype == DType::Int64)
    *t.as<int64_t>() = c.intValue; // beyond double's 53 bits
  else
    t.setDouble(0, isFloat(c.dtype) ? c.floatValue : double(c.intValue));
  return t;
}

class FoldConstantPass : public Pass {
public:
  StringRef getArgument() const override { return "fold-constant"; }
  StringRef getDescription() const override {
    return "Evaluate operator calls whose operands are all constants";
  }
  bool run(Module &m, PassContext &) override {
    for (Module::Def &d : m.defs)
      d.fn->body = rewritePostOrder(d.fn->body.get(), [&](Expr *old, ArrayRef<ExprRef> ops) {
        ExprRef now = withOperands(old, ops);
        auto *c = dyn_cast<Call>(now.get());
        if (!c || !c->getOp() || c->isOp(kOnDevice) || c->isOp(kDeviceCopy) ||
            !hasInterpreterImpl(c->getOp()->name) ||
            !isa_and_nonnull<TensorType>(c->checkedType.get()) ||
            !all_of(c->args, [](const ExprRef &a) { return isa<Constant>(a.get()); }))
          return now;
        std::vector<HostTensor> values;
        std::vector<const HostTensor *> args;
        values.reserve(c->args.size());
        for (const ExprRef &a : c->args)
          values.push_back(hostValue(*cast<Constant>(a.get())));
        for (const HostTensor &v : values)
          args.push_back(&v);
        Expected<std::vector<HostTensor>> r = interpretOp(*c, args);
        if (!r || r->size() != 1) {
          consumeError(r.takeError());
          return now;
        }
        const HostTensor &v = r->front();
        auto data = std::make_shared<TensorData>();
        data->dtype = v.dtype();
        data->shape.assign(v.shape().begin(), v.shape().end());
        const auto *bytes = static_cast<const uint8_t *>(v.data());
        data->bytes.assign(bytes, bytes + v.byteSize());
        ExprRef k = make<Constant>(std::move(data), c->loc);
        k->checkedType = c->checkedType;
        return k;
      });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> hx::createFoldConstantPass() { return std::make_unique<FoldConstantPass>(); }

void hx::registerInterpreterPasses(PassRegistry &registry) {
  std::unique_ptr<Pass> probe = createFoldConstantPass();
  registry.add(probe->getArgument(), probe->getDescription(), createFoldConstantPass);
}
