//===- TypeRelation.cpp - Checks shared by all type relations -------------===//
//
// Implements TypeRelContext: operator-prefixed diagnostics with operand notes,
// argument checks (tensor-ness, supported dtypes) and typed readers for
// attributes in the canonical form getAttrOrDefault returns.
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>

using namespace llvm;

namespace hx {

InFlightDiagnostic TypeRelContext::error(const Twine &msg) {
  return diags.error(call.loc, def.name + ": " + msg);
}

InFlightDiagnostic TypeRelContext::error(const Twine &msg, std::initializer_list<unsigned> ops) {
  InFlightDiagnostic d = error(msg);
  for (unsigned i : ops)
    noteOperand(d, i);
  return d;
}

InFlightDiagnostic TypeRelContext::attrError(StringRef name, const Twine &msg) {
  InFlightDiagnostic d = diags.error(attrLoc(name), def.name + ": " + msg);
  if (!call.args.empty())
    noteOperand(d, 0);
  return d;
}

InFlightDiagnostic TypeRelContext::attrError(const AttrProblem &problem) {
  const AttrValue *v = call.attrs.get(problem.attr);
  if (!v || problem.entry < 0 || v->kind != AttrValue::Kind::List ||
      size_t(problem.entry) >= v->list.size() || !v->list[problem.entry].loc.isValid())
    return attrError(problem.attr, problem.message);
  InFlightDiagnostic d = diags.error(v->list[problem.entry].loc, def.name + ": " + problem.message);
  if (!call.args.empty())
    noteOperand(d, 0);
  return d;
}

void TypeRelContext::noteOperand(InFlightDiagnostic &d, unsigned i) {
  if (i >= call.args.size() || i >= argTypes.size() || !argTypes[i])
    return;
  const Expr *e = call.args[i].get();
  std::string ty = typeToString(argTypes[i]);
  if (const auto *v = dyn_cast<Var>(e))
    d.note(v->loc, "%" + v->name + " defined here with type " + ty);
  else
    d.note(e->loc, "operand " + Twine(i) + " defined here with type " + ty);
}

const TensorType *TypeRelContext::tensorArg(unsigned i) { return tensorArg(i, def.dtypes); }

const TensorType *TypeRelContext::tensorArg(unsigned i, DTypeSet allowed) {
  const auto *t = dyn_cast<TensorType>(argTypes[i]);
  if (!t) {
    error("operand " + Twine(i) + " must be a tensor, got " + typeToString(argTypes[i]), {i});
    return nullptr;
  }
  if (!dtypeSetContains(allowed, t->dtype)) {
    error("unsupported dtype " + dtypeName(t->dtype) + " (supported: " + dtypeSetToString(allowed) +
              ")",
          {i});
    return nullptr;
  }
  return t;
}

const TupleType *TypeRelContext::tupleArg(unsigned i) {
  const auto *t = dyn_cast<TupleType>(argTypes[i]);
  if (!t)
    error("operand " + Twine(i) + " must be a tuple of tensors, got " + typeToString(argTypes[i]),
          {i});
  return t;
}

bool TypeRelContext::checkAttrDType(StringRef name, DType t, DTypeSet allowed) {
  if (dtypeSetContains(allowed, t))
    return true;
  diags.error(attrLoc(name), def.name + ": unsupported dtype " + dtypeName(t) + " for attribute '" +
                                 name + "' (supported: " + dtypeSetToString(allowed) + ")");
  return false;
}

bool TypeRelContext::isExplicit(StringRef name) const { return call.attrs.get(name) != nullptr; }

SMLoc TypeRelContext::attrLoc(StringRef name) const {
  if (const Attr *a = call.attrs.find(name)) {
    if (a->value.loc.isValid())
      return a->value.loc;
    if (a->loc.isValid())
      return a->loc;
  }
  return call.loc;
}

std::optional<SmallVector<IntPair, 4>> TypeRelContext::getIntPairs(StringRef name, size_t count) {
  AttrProblem problem;
  std::optional<SmallVector<IntPair, 4>> pairs = attrIntPairs(attr(name), count, name, problem);
  if (!pairs)
    attrError(problem);
  return pairs;
}

std::optional<unsigned> TypeRelContext::normalizeAxis(int64_t axis, size_t rank, StringRef name) {
  if (std::optional<unsigned> a = hx::normalizeAxis(axis, rank))
    return a;
  int64_t r = int64_t(rank);
  if (rank == 0)
    attrError(name, "axis " + Twine(axis) + " is out of range for a rank-0 tensor");
  else
    attrError(name, "axis " + Twine(axis) + " is out of range for rank " + Twine(rank) +
                        " (expected " + Twine(-r) + " to " + Twine(r - 1) + ")");
  return std::nullopt;
}

std::string formatNumber(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

TypeRef identityTensorRel(TypeRelContext &ctx) {
  const TensorType *t = ctx.tensorArg(0);
  if (!t)
    return nullptr;
  return TypeRef(const_cast<TensorType *>(t));
}

} // namespace hx
