//===- OnnxConverters.cpp - The table of converters -----------------------===//
//
// Every family's rows in one table, built on first use and only read after
// (a function-local static: no mutable global state). A lookup is a hash of
// the op type and a scan of its few rows.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include <algorithm>
#include <cassert>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

void ConverterTable::add(StringRef opType, OpsetRange opsets, Converter convert) {
  assert(opsets.since <= opsets.until && "an empty opset range");
  std::vector<ConverterRow> &rows = byOpType[opType];
  auto at =
      llvm::find_if(rows, [&](const ConverterRow &r) { return r.opsets.since > opsets.since; });
  assert((at == rows.end() || at->opsets.since > opsets.until) &&
         (at == rows.begin() || std::prev(at)->opsets.until < opsets.since) &&
         "overlapping opset ranges of one op type");
  rows.insert(at, {opsets, convert});
}

const ConverterRow *ConverterTable::find(StringRef opType, int64_t opset) const {
  auto it = byOpType.find(opType);
  if (it == byOpType.end())
    return nullptr;
  for (const ConverterRow &r : it->second)
    if (r.opsets.contains(opset))
      return &r;
  return nullptr;
}

ArrayRef<ConverterRow> ConverterTable::rows(StringRef opType) const {
  auto it = byOpType.find(opType);
  return it == byOpType.end() ? ArrayRef<ConverterRow>() : ArrayRef<ConverterRow>(it->second);
}

std::vector<std::string> ConverterTable::opTypes() const {
  std::vector<std::string> ops;
  for (const auto &e : byOpType)
    ops.push_back(e.getKey().str());
  std::sort(ops.begin(), ops.end());
  return ops;
}

const ConverterTable &onnximport::converterTable() {
  static const ConverterTable table = [] {
    ConverterTable t;
    addElementwiseConverters(t);
    addNnConverters(t);
    addConvPoolConverters(t);
    addReduceConverters(t);
    addTransformConverters(t);
    addRecurrentConverters(t);
    addIndexingConverters(t);
    addNormalizationConverters(t);
    addControlFlowConverters(t);
    addDynamicConverters(t);
    addLossConverters(t);
    addFoldedOnlyConverters(t);
    return t;
  }();
  return table;
}

std::vector<std::string> hx::supportedOnnxOps() { return converterTable().opTypes(); }

Error onnximport::needRank(const NodeCtx &ctx, const OnnxValue &v, StringRef what) {
  if (v.dims)
    return Error::success();
  for (const std::string &in : ctx.node.input())
    if (ctx.imp.lookup(in) == &v)
      if (auto it = ctx.imp.typeErrors.find(in); it != ctx.imp.typeErrors.end())
        return ctx.error(what + " has no known rank: hx could not type '" + in +
                         "': " + it->second);
  return ctx.error(what + " has no known rank (shape inference gave none)");
}

Expected<Dims> onnximport::outputShape(const NodeCtx &ctx) {
  OnnxValue probe;
  ctx.imp.typeOf(ctx.node.output(0), probe);
  if (!probe.dims)
    return ctx.error("the output has no shape from shape inference");
  return *probe.dims;
}

Expected<Dims> onnximport::staticDims(const NodeCtx &ctx, const OnnxValue &v, int64_t rank,
                                      StringRef what) {
  if (!v.isStatic())
    return ctx.error(what + " must have a static shape");
  if (rank >= 0 && int64_t(v.dims->size()) != rank)
    return ctx.error(what + " must have rank " + Twine(rank));
  return *v.dims;
}

ExprRef onnximport::reshapeTo(const NodeCtx &ctx, ExprRef x, ArrayRef<int64_t> shape) {
  return ctx.call("reshape", {x}, {{"newshape", attrs::ints(shape)}});
}

ExprRef onnximport::transposeBy(const NodeCtx &ctx, ExprRef x, ArrayRef<int64_t> perm) {
  return ctx.call("transpose", {x}, {{"axes", attrs::ints(perm)}});
}

ExprRef onnximport::zerosOf(const NodeCtx &ctx, DType t, ArrayRef<int64_t> shape) {
  if (llvm::is_contained(shape, 0))
    return ctx.constant(HostTensor(t, std::vector<int64_t>(shape.begin(), shape.end())));
  std::vector<AttrValue> widths;
  for (int64_t d : shape)
    widths.push_back(attrs::ints({0, d - 1}));
  return ctx.call(
      "nn.pad",
      {ctx.constant(HostTensor(t, std::vector<int64_t>(shape.size(), 1))), ctx.scalar(t, 0)},
      {{"pad_width", AttrValue::ofList(std::move(widths))}});
}
