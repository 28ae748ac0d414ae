//===- OnnxControlFlow.cpp - Converters of ONNX control flow --------------===//
//
// If: its branches are subgraphs without inputs that read the enclosing
// graphs' values by name. A condition known at import time (a constant or a
// folded shape computation) imports the taken branch
// only, inline, as if its nodes stood in the graph: the branch not taken is
// never read, so it may hold what hx cannot import. Otherwise both branches
// are imported and become hx's `if`, whose branches are the expressions of
// their outputs (a tuple for several, projected after the `if`). An
// expression only a branch uses is evaluated only when that branch runs
// (the executor's conditional steps, docs/execution.md); both branches must
// give one type, as in Relay.
//
// Branches nest (an If in a branch), each nesting a recursion of the
// importer, so checkBeforeOnnx bounds the nesting (kMaxSubgraphDepth).
// Loop and Scan are refused there.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

Error ifNode(NodeCtx &ctx) {
  TRY(cond, ctx.required(0));
  const onnx::GraphProto *branches[] = {ctx.getGraph("then_branch"), ctx.getGraph("else_branch")};
  if (!branches[0] || !branches[1])
    return ctx.error("then_branch and else_branch are required");
  size_t outputs = size_t(ctx.node.output_size());
  for (const onnx::GraphProto *g : branches)
    if (size_t(g->output_size()) != outputs)
      return ctx.error("branch '" + g->name() + "' has " + Twine(g->output_size()) +
                       " outputs; the node has " + Twine(outputs));
  if (cond->dtype != DType::Bool)
    return ctx.error("the condition must be a bool tensor, not " + dtypeName(cond->dtype));
  if (cond->dims && elementCount(*cond->dims) != 1)
    return ctx.error("the condition must have one element, got shape " + listText(*cond->dims));

  // Known at import time: a constant or a folded value (a graph input
  // stays a parameter, its branch chosen at run time).
  if (const HostTensor *known = cond->constant.get()) {
    if (known->numElements() != 1)
      return ctx.error("the condition must have one element");
    TRY(outs, ctx.imp.importSubgraph(*branches[known->getDouble(0) != 0 ? 0 : 1]));
    for (size_t i = 0; i < outputs; ++i)
      ctx.alias(i, *outs[i]);
    return Error::success();
  }

  ExprRef results[2];
  for (int b = 0; b < 2; ++b) {
    TRY(outs, ctx.imp.importSubgraph(*branches[b]));
    SmallVector<ExprRef, 4> fields;
    for (OnnxValue *v : outs)
      fields.push_back(ctx.use(*v));
    results[b] = fields.size() == 1 ? fields[0] : ctx.tuple(fields);
  }
  ExprRef c = ctx.use(*cond);
  if (rankOf(*cond) != 0)
    c = reshapeTo(ctx, c, {});
  ExprRef r = ctx.ifExpr(c, results[0], results[1]);
  if (outputs == 1) {
    ctx.setOutput(0, r);
    return Error::success();
  }
  for (size_t i = 0; i < outputs; ++i)
    ctx.setOutput(i, ctx.getItem(r, unsigned(i)));
  return Error::success();
}

} // namespace

void onnximport::addControlFlowConverters(ConverterTable &t) {
  // Opset 13 let the branches' outputs differ in shape; 16 added optionals
  // and sequences (hx has tensors only: both refused by type).
  t.add("If", {11, 21}, ifNode);
}
