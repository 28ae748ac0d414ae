//===- OpDef.cpp - The schema of a primitive operator ---------------------===//
#include "hx/IR/OpDef.h"

using namespace llvm;

namespace hx {

const AttrSpec *OpDef::findAttr(StringRef attrName) const {
  for (const AttrSpec &a : attrs)
    if (a.name == attrName)
      return &a;
  return nullptr;
}

std::string dtypeSetToString(DTypeSet s) {
  std::string out;
  for (unsigned i = 0; i <= unsigned(DType::Float64); ++i) {
    if (!dtypeSetContains(s, DType(i)))
      continue;
    if (!out.empty())
      out += ", ";
    out += dtypeName(DType(i)).str();
  }
  return out;
}

StringRef attrKindDescription(AttrKind k) {
  switch (k) {
  case AttrKind::Bool:
    return "a boolean";
  case AttrKind::Int:
    return "an integer";
  case AttrKind::OptInt:
    return "an integer or None";
  case AttrKind::Float:
    return "a number";
  case AttrKind::String:
    return "a string";
  case AttrKind::DType:
    return "a dtype";
  case AttrKind::IntList:
    return "a list of integers";
  case AttrKind::OptIntList:
    return "a list of integers or None";
  case AttrKind::IntOrIntList:
    return "an integer or a list of integers";
  case AttrKind::IntListList:
    return "a list of integer lists";
  case AttrKind::SizeList:
    return "a list of integers and Nones";
  case AttrKind::OptFloatList:
    return "a list of numbers or None";
  case AttrKind::Device:
    return "a virtual device";
  case AttrKind::OptDevice:
    return "a virtual device or None";
  }
  return "a value";
}

StringRef opPatternName(OpPattern p) {
  switch (p) {
  case OpPattern::Elementwise:
    return "elementwise";
  case OpPattern::Broadcast:
    return "broadcast";
  case OpPattern::Injective:
    return "injective";
  case OpPattern::CommReduce:
    return "comm-reduce";
  case OpPattern::OutElementwiseFusable:
    return "out-elementwise-fusable";
  case OpPattern::Opaque:
    return "opaque";
  }
  return "opaque";
}

} // namespace hx
