//===- OnnxNode.cpp - What a converter sees of one node -------------------===//
//
// NodeCtx: a node's inputs (absent, required, known at import time), the
// builder of its calls, located at the node (`onnx:<op type> <name>`; an
// unnamed node is named by its first output, as ONNX tools show it), its
// outputs (computed, known, or an input unchanged), and errors naming it.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

static SourceNodeRef sourceNodeOf(const onnx::NodeProto &n) {
  std::string name = n.name();
  for (int i = 0; name.empty() && i < n.output_size(); ++i)
    name = n.output(i);
  return SourceNode::create("onnx", n.op_type(), name);
}

NodeCtx::NodeCtx(Importer &imp, const onnx::NodeProto &node)
    : imp(imp), node(node), b(imp.module, Loc(SMLoc(), sourceNodeOf(node))) {}

OnnxValue *NodeCtx::input(size_t i) const {
  if (i >= size_t(node.input_size()) || node.input(i).empty())
    return nullptr;
  return imp.lookup(node.input(i));
}

Expected<OnnxValue *> NodeCtx::required(size_t i) const {
  if (OnnxValue *v = input(i))
    return v;
  return error("input " + Twine(i) + " is required");
}

Expected<const HostTensor *> NodeCtx::knownIfAny(size_t i) const {
  OnnxValue *v = input(i);
  if (!v || v->constant)
    return v ? v->constant.get() : nullptr;
  Expected<bool> bound = imp.bindInputValue(node.input(i), *v);
  if (!bound)
    return error(toString(bound.takeError()));
  return *bound ? v->constant.get() : nullptr;
}

Expected<const HostTensor *> NodeCtx::known(size_t i) const {
  Expected<const HostTensor *> value = knownIfAny(i);
  if (!value || *value || !input(i))
    return value;
  if (imp.isGraphInput(node.input(i)))
    return error("input " + Twine(i) + " ('" + node.input(i) +
                 "') is a graph input whose value hx needs when it builds the model: give it "
                 "(hx-run --input " +
                 node.input(i) + "=FILE.npy, or hx.load(path, values={'" + node.input(i) +
                 "': ...}), builds the model for that value) or make it an initializer");
  return error("input " + Twine(i) + " ('" + node.input(i) +
               "') must be known at import time (a constant or a static shape)");
}

Expected<std::optional<std::vector<int64_t>>> NodeCtx::constInts(size_t i) const {
  Expected<const HostTensor *> value = known(i);
  if (!value)
    return value.takeError();
  const HostTensor *t = *value;
  if (!t)
    return std::nullopt;
  if (t->dtype() != DType::Int64 && t->dtype() != DType::Int32)
    return error("input " + Twine(i) + " must hold integers");
  return tensorInts(*t);
}

ExprRef NodeCtx::use(size_t i) const {
  if (OnnxValue *v = input(i))
    return imp.use(*v);
  // An input left empty where the converter needs one (a variadic input
  // named ""): importNode reports it after the converter, and what was
  // built with the null operand is dropped with the module.
  if (missing.empty())
    missing = "input " + std::to_string(i) + " is absent";
  return nullptr;
}
ExprRef NodeCtx::use(OnnxValue &v) const { return imp.use(v); }

ExprRef NodeCtx::constant(HostTensor value) const {
  OnnxValue v;
  v.dtype = value.dtype();
  v.dims = Dims(value.shape().begin(), value.shape().end());
  v.constant = std::make_shared<const HostTensor>(std::move(value));
  return imp.use(v);
}

ExprRef NodeCtx::scalar(DType dtype, double value) const {
  HostTensor t(dtype, {});
  t.setDouble(0, value);
  return constant(std::move(t));
}

ExprRef NodeCtx::ifExpr(ExprRef cond, ExprRef then, ExprRef otherwise) const {
  return make<If>(std::move(cond), std::move(then), std::move(otherwise), b.getLoc());
}

ExprRef NodeCtx::callGlobal(StringRef name, ArrayRef<ExprRef> args) const {
  return make<Call>(ExprRef(imp.module.getGlobal(name)),
                    SmallVector<ExprRef, 2>(args.begin(), args.end()), Attrs{}, b.getLoc());
}

void NodeCtx::setOutput(size_t i, ExprRef e) const {
  OnnxValue &v = imp.define(node.output(i));
  v.expr = std::move(e);
  // ONNX's inferred type first, then hx's own over it (OnnxTyping.cpp):
  // hx's dtype and rank, and its dims where it knows them.
  OnnxValue inferred;
  imp.typeOf(node.output(i), inferred);
  const auto *t = dyn_cast_or_null<TensorType>(imp.typeBuilt(v.expr));
  if (!t) {
    // A type error is left to InferType, which reports it at the call's
    // line of the printed module, naming the node.
    if (!imp.typeError.empty())
      imp.typeErrors[node.output(i)] = imp.typeError;
    imp.typeError.clear();
    v.dtype = inferred.dtype;
    v.dims = inferred.dims;
    return;
  }
  v.dtype = t->dtype;
  Dims d(t->shape.begin(), t->shape.end());
  if (inferred.dims && inferred.dims->size() == d.size())
    for (size_t k = 0; k < d.size(); ++k)
      if (d[k] == TensorType::kDynamic && (*inferred.dims)[k] >= 0)
        d[k] = (*inferred.dims)[k];
  v.dims = std::move(d);
}

void NodeCtx::setConstant(size_t i, HostTensor value) const {
  OnnxValue &v = imp.define(node.output(i));
  v.dtype = value.dtype();
  v.dims = Dims(value.shape().begin(), value.shape().end());
  v.constant = std::make_shared<const HostTensor>(std::move(value));
}

void NodeCtx::alias(size_t i, const OnnxValue &v) const { imp.define(node.output(i)) = v; }

int64_t NodeCtx::opset() const { return imp.opset; }

Error NodeCtx::error(const Twine &msg) const {
  return createStringError(imp.fileName + ": node '" + node.name() + "' (" + node.op_type() +
                           ", opset " + Twine(imp.opset) + "): " + msg);
}
