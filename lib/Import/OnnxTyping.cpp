//===- OnnxTyping.cpp - Typing what converters build ----------------------===//
//
// The importer types each node's outputs with hx's own type relations, as
// the converter builds them, instead of trusting ONNX's shape inference: a
// later converter reads the dims of its inputs (a rank, a static shape to
// fold), and those are then the dims hx will compute. This also covers what
// the installed onnx has no schema for (opsets above the newest it knows,
// where its checker and shape inference do not run) and a model whose
// value_info states a shape its operators do not give. Where hx's relation
// leaves a dim to the run and ONNX's inference knows it, ONNX's is taken.
//
// typeBuilt walks the new expressions in post order with an explicit stack
// (no recursion on their depth) and stops at those already typed: the
// graph's inputs, and what earlier nodes built. On a type error the
// output keeps ONNX's type, and InferType reports the error later at the
// call's line of the printed module.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"
#include "hx/Ops/OpRegistry.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

Importer::Importer(StringRef fileName, const OnnxImportOptions &opts)
    : fileName(fileName), opts(opts) {
  typeDiags.setHandler([this](const Diagnostic &d) {
    if (d.severity == Severity::Error && typeError.empty())
      typeError = d.message;
  });
}

/// The children of `e` that typing needs first.
static SmallVector<Expr *, 4> operandsOf(Expr *e) {
  SmallVector<Expr *, 4> out;
  if (auto *c = dyn_cast<Call>(e))
    for (const ExprRef &a : c->args)
      out.push_back(a.get());
  else if (auto *t = dyn_cast<Tuple>(e))
    for (const ExprRef &f : t->fields)
      out.push_back(f.get());
  else if (auto *g = dyn_cast<TupleGetItem>(e))
    out.push_back(g->tuple.get());
  else if (auto *i = dyn_cast<If>(e))
    out.append({i->cond.get(), i->thenBranch.get(), i->elseBranch.get()});
  return out;
}

/// Types `e` whose operands are typed; false after a type error.
bool Importer::typeOne(Expr *e) {
  switch (e->getKind()) {
  case ExprKind::Var:
    e->checkedType = cast<Var>(e)->annotation;
    return e->checkedType != nullptr;
  case ExprKind::Constant: {
    auto *c = cast<Constant>(e);
    e->checkedType = makeTensorType(
        c->isTensor() ? ArrayRef<int64_t>(c->tensor->shape) : ArrayRef<int64_t>(), c->dtype);
    return true;
  }
  case ExprKind::Call: {
    auto *c = cast<Call>(e);
    SmallVector<const Type *, 4> argTypes;
    for (const ExprRef &a : c->args)
      argTypes.push_back(a->checkedType.get());
    if (!c->getOp()) {
      typeError = "a call of something other than an operator";
      return false;
    }
    e->checkedType = inferOpType(*c, argTypes, typeDiags);
    return e->checkedType != nullptr;
  }
  case ExprKind::Tuple: {
    std::vector<TypeRef> fields;
    for (const ExprRef &f : cast<Tuple>(e)->fields)
      fields.push_back(f->checkedType);
    e->checkedType = make<TupleType>(std::move(fields));
    return true;
  }
  case ExprKind::TupleGetItem: {
    auto *g = cast<TupleGetItem>(e);
    auto *tt = dyn_cast<TupleType>(g->tuple->checkedType.get());
    if (!tt || g->index >= tt->fields.size()) {
      typeError = "a projection of something other than a tuple of enough fields";
      return false;
    }
    e->checkedType = tt->fields[g->index];
    return true;
  }
  case ExprKind::If: {
    // The branches' join: `?` where their sizes differ (a run in stages).
    auto *i = cast<If>(e);
    const Type *t = i->thenBranch->checkedType.get(), *f = i->elseBranch->checkedType.get();
    TypeRef joined = joinTypes(t, f);
    if (!joined) {
      typeError =
          "the branches' results differ in type: " + typeToString(t) + " and " + typeToString(f);
      return false;
    }
    e->checkedType = joined;
    return true;
  }
  default:
    typeError = "an expression the importer does not build";
    return false;
  }
}

const Type *Importer::typeBuilt(const ExprRef &root) {
  if (!root)
    return nullptr;
  // (expression, operands pushed)
  SmallVector<std::pair<Expr *, bool>, 16> stack{{root.get(), false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    if (e->checkedType) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (Expr *o : operandsOf(e)) {
        if (!o) {
          if (typeError.empty())
            typeError = "an operand is absent";
          return nullptr;
        }
        if (!o->checkedType)
          stack.push_back({o, false});
      }
      continue;
    }
    stack.pop_back();
    if (!typeOne(e)) {
      if (typeError.empty())
        typeError = "the calls built for the node do not type";
      return nullptr;
    }
  }
  return root->checkedType.get();
}
