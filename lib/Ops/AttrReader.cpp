//===- AttrReader.cpp - The one reader of operator attributes -------------===//
#include "hx/Ops/AttrReader.h"
#include "hx/IR/Expr.h"
#include "hx/Ops/OpRegistry.h"

using namespace llvm;

namespace hx::attrs {

AttrValue value(const Call &call, StringRef name) {
  assert((!call.getOp() || !call.getOp()->def || call.getOp()->def->findAttr(name)) &&
         "attribute not in the operator's schema");
  return getAttrOrDefault(call, name);
}

bool getBool(const Call &call, StringRef name) {
  AttrValue v = value(call, name);
  return v.kind == AttrValue::Kind::Bool ? v.boolValue : v.intValue != 0;
}

int64_t getInt(const Call &call, StringRef name) { return value(call, name).intValue; }

std::optional<int64_t> getOptInt(const Call &call, StringRef name) {
  AttrValue v = value(call, name);
  if (v.kind != AttrValue::Kind::Int)
    return std::nullopt;
  return v.intValue;
}

double getFloat(const Call &call, StringRef name) {
  AttrValue v = value(call, name);
  return v.kind == AttrValue::Kind::Int ? double(v.intValue) : v.floatValue;
}

std::string getString(const Call &call, StringRef name) { return value(call, name).str; }

std::optional<DType> getDType(const Call &call, StringRef name) {
  std::string s = getString(call, name);
  if (s.empty())
    return std::nullopt;
  return parseDType(s);
}

Shape getInts(const Call &call, StringRef name) { return attrInts(value(call, name)); }

std::optional<Shape> getOptInts(const Call &call, StringRef name) {
  return attrOptInts(value(call, name));
}

} // namespace hx::attrs
