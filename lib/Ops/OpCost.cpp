//===- OpCost.cpp - What one operator call computes and moves ------------===//
//
// See hx/Ops/OpCost.h. Contractions count their multiply-adds from the
// types alone: for nn.dense and nn.batch_matmul, 2 × (elements of the first
// operand) × (the result's last dimension), whatever the transposes; for
// nn.conv2d, 2 × (result elements) × (weight elements / output channels).
//
//===----------------------------------------------------------------------===//
#include "hx/Ops/OpCost.h"
#include "hx/IR/Expr.h"
#include "hx/IR/Printer.h"
#include "hx/Ops/OpRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace hx;
using namespace llvm;

namespace {
double elements(const Type *t) {
  if (auto *tt = dyn_cast_or_null<TensorType>(t))
    return static_cast<double>(tt->numElements().value_or(0));
  if (auto *tu = dyn_cast_or_null<TupleType>(t)) {
    double n = 0;
    for (const TypeRef &f : tu->fields)
      n += elements(f.get());
    return n;
  }
  return 0;
}

const TensorType *tensor(const Expr *e) {
  return e ? dyn_cast_or_null<TensorType>(e->checkedType.get()) : nullptr;
}
} // namespace

OpWork hx::operatorWork(const Call &c) {
  OpWork w;
  double in = 0;
  for (const ExprRef &a : c.args) {
    w.bytes += static_cast<double>(storageBytes(a->checkedType.get()));
    in += elements(a->checkedType.get());
  }
  const Type *result = c.checkedType.get();
  w.bytes += static_cast<double>(storageBytes(result));
  double out = elements(result);
  w.flops = std::max(in, out);
  Op *op = c.getOp();
  if (!op)
    return w;
  StringRef name = op->name;
  const TensorType *r = dyn_cast_or_null<TensorType>(result);
  if ((name == "nn.dense" || name == "nn.batch_matmul" || name == "nn.matmul") && r &&
      r->rank() >= 1 && !c.args.empty())
    w.flops = 2 * elements(c.args[0]->checkedType.get()) * static_cast<double>(r->shape.back());
  else if (name == "nn.conv2d" && r && r->rank() == 4 && c.args.size() >= 2) {
    AttrValue layout = getAttrOrDefault(c, "data_layout");
    bool nhwc = layout.kind == AttrValue::Kind::String && StringRef(layout.str).starts_with("NHWC");
    double channels = static_cast<double>(r->shape[nhwc ? 3 : 1]);
    if (const TensorType *wt = tensor(c.args[1].get()); wt && channels > 0)
      w.flops = 2 * out * elements(wt) / channels;
  }
  return w;
}

std::string hx::operatorSignature(const Call &c) {
  std::string s;
  raw_string_ostream os(s);
  os << (c.getOp() ? StringRef(c.getOp()->name) : StringRef("call")) << "(";
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (i)
      os << ", ";
    printType(os, c.args[i]->checkedType.get());
  }
  os << ")";
  std::string attrs;
  raw_string_ostream as(attrs);
  bool first = true;
  printCallAttrs(as, c, first);
  if (!attrs.empty())
    os << " {" << attrs << "}";
  return s;
}
