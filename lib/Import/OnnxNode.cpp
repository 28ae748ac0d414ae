//===- OnnxNode.cpp - What a converter sees of one node -------------------===//
//
// NodeCtx: a node's inputs (absent, required, known at import time), the
// calls it emits on its line, its outputs (computed, known, or an input
// unchanged), and errors naming it.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

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

Expected<std::optional<std::vector<int64_t>>> NodeCtx::constInts(size_t i) const {
  OnnxValue *v = input(i);
  if (!v)
    return std::nullopt;
  if (!v->constant)
    return error("input " + Twine(i) + " ('" + node.input(i) +
                 "') must be known at import time (a constant or a static shape)");
  if (v->constant->dtype() != DType::Int64 && v->constant->dtype() != DType::Int32)
    return error("input " + Twine(i) + " must hold integers");
  return tensorInts(*v->constant);
}

std::string NodeCtx::use(size_t i) const {
  if (OnnxValue *v = input(i))
    return imp.use(*v);
  // An input left empty where the converter needs one (a variadic input
  // named ""): importNode reports it after the converter.
  if (missing.empty())
    missing = "input " + std::to_string(i) + " is absent";
  return "%absent";
}
std::string NodeCtx::use(OnnxValue &v) const { return imp.use(v); }

std::string NodeCtx::emit(const Twine &call) const { return imp.emit(call); }

void NodeCtx::setOutput(size_t i, std::string expr) const {
  OnnxValue &v = imp.define(node.output(i));
  v.expr = std::move(expr);
  imp.typeOf(node.output(i), v);
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
