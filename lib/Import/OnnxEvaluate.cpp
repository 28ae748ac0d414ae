//===- OnnxEvaluate.cpp - Nodes of known inputs, evaluated at import ------===//
//
// A node whose every input is known at import time (initializers, values
// folded before) and small is converted like any other; then what its
// converter built is evaluated by the reference interpreter, and its
// outputs become known values too. Shape arithmetic of any op type the
// importer converts (ReduceMax of a constant shape, Min, Max, Ceil of a
// scale, Clip) so folds without a fold of its own in OnnxFold.cpp, and a
// later Reshape, Pad or TopK finds its operand known.
//
// What is evaluated: operator calls (a tuple argument flattened, as the
// interpreter does), tuples and projections over the inputs' and the
// converter's constants. Anything else (an if, a function) leaves the
// outputs as built. Only small values: every input and output at most
// kMaxEvaluated elements, so weights are never computed at import. A node
// the interpreter refuses is left as built, for the type check or the run
// to report where they would without this.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"
#include "hx/Interpreter/Interpreter.h"
#include "llvm/ADT/DenseMap.h"
#include <cstring>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

constexpr int64_t kMaxEvaluated = 4096;

/// The value of a constant node: its inline bytes, the tensor the importer
/// wrote to a .npy file, or a scalar literal.
std::optional<HostTensor> constantValue(const Constant &c, const Importer &imp) {
  if (!c.isTensor()) {
    HostTensor t(c.dtype, ArrayRef<int64_t>{});
    t.setDouble(0, isFloat(c.dtype) ? c.floatValue : double(c.intValue));
    return t;
  }
  if (const HostTensor *t = imp.npyTensor(*c.tensor))
    return t->clone();
  HostTensor t(c.tensor->dtype, c.tensor->shape);
  if (c.tensor->bytes.size() != t.byteSize())
    return std::nullopt;
  if (t.byteSize()) // an empty tensor has no memory to copy into
    std::memcpy(t.data(), c.tensor->bytes.data(), t.byteSize());
  return t;
}

/// The tensors of `root` (a tuple's fields flattened), or nullopt where it
/// holds something this evaluator does not run.
Expected<std::optional<std::vector<HostTensor>>> evaluate(Expr *root, const Importer &imp) {
  using Tensors = std::vector<HostTensor>;
  DenseMap<const Expr *, Tensors> done;
  SmallVector<std::pair<Expr *, bool>, 16> stack{{root, false}};
  SmallVector<Expr *, 4> ops;
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    if (done.count(e)) {
      stack.pop_back();
      continue;
    }
    if (auto *c = dyn_cast<Constant>(e)) {
      std::optional<HostTensor> v = constantValue(*c, imp);
      if (!v)
        return std::nullopt;
      Tensors t;
      t.push_back(std::move(*v));
      done[e] = std::move(t);
      stack.pop_back();
      continue;
    }
    auto *call = dyn_cast<Call>(e);
    if (!(call && call->getOp()) && !isa<Tuple, TupleGetItem>(e))
      return std::nullopt;
    ops.clear();
    if (call)
      for (const ExprRef &a : call->args)
        ops.push_back(a.get());
    else
      getOperands(e, ops);
    if (!expanded) {
      stack.back().second = true;
      for (Expr *o : ops)
        if (!done.count(o))
          stack.push_back({o, false});
      continue;
    }
    stack.pop_back();
    Tensors out;
    if (auto *g = dyn_cast<TupleGetItem>(e)) {
      Tensors &t = done[g->tuple.get()];
      if (g->index >= t.size())
        return std::nullopt;
      out.push_back(t[g->index].clone());
    } else if (isa<Tuple>(e)) {
      for (Expr *o : ops)
        for (const HostTensor &t : done[o])
          out.push_back(t.clone());
    } else {
      std::vector<const HostTensor *> args;
      for (Expr *o : ops)
        for (const HostTensor &t : done[o])
          args.push_back(&t);
      Expected<Tensors> r = interpretOp(*call, args);
      if (!r)
        return r.takeError();
      out = std::move(*r);
    }
    for (const HostTensor &t : out)
      if (t.numElements() > kMaxEvaluated)
        return std::nullopt;
    done[e] = std::move(out);
  }
  return std::optional<Tensors>(std::move(done[root]));
}

} // namespace

Error onnximport::evaluateKnown(NodeCtx &ctx) {
  bool any = false;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    OnnxValue *v = ctx.input(i);
    if (!v)
      continue;
    if (!v->constant || v->constant->numElements() > kMaxEvaluated)
      return Error::success();
    any = true;
  }
  if (!any)
    return Error::success();
  for (int i = 0; i < ctx.node.output_size(); ++i) {
    const std::string &name = ctx.node.output(i);
    OnnxValue *out = name.empty() ? nullptr : ctx.imp.lookup(name);
    if (!out || !out->expr || out->constant)
      continue;
    Expected<std::optional<std::vector<HostTensor>>> r = evaluate(out->expr.get(), ctx.imp);
    if (!r) { // left as built: the run (or the type check) reports it
      consumeError(r.takeError());
      continue;
    }
    if (!*r || (*r)->size() != 1)
      continue;
    ctx.setConstant(size_t(i), std::move((**r)[0]));
    out->expr = nullptr;
  }
  return Error::success();
}
