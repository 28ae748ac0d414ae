//===- OnnxAttributes.cpp - A node's ONNX attributes ----------------------===//
//
// Reading a node's attributes by name, with the defaults the ONNX operator
// definitions give, and writing numbers as hx text holds attribute values.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

std::string onnximport::intText(int64_t v) {
  // hx text reads a bare integer literal as int32.
  return std::to_string(v) + (v < INT32_MIN || v > INT32_MAX ? "i64" : "");
}

std::string onnximport::listText(ArrayRef<int64_t> v) {
  return "[" + join(map_range(v, intText), ", ") + "]";
}

std::string onnximport::floatText(double v) {
  if (std::isinf(v))
    v = v > 0 ? 3.4028234663852886e38 : -3.4028234663852886e38;
  std::string s;
  raw_string_ostream os(s);
  os << format("%.9g", v);
  os.flush();
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

const onnx::AttributeProto *NodeCtx::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeCtx::getInt(StringRef name, int64_t def) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : def;
}

float NodeCtx::getFloat(StringRef name, float def) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : def;
}

std::string NodeCtx::getString(StringRef name, StringRef def) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : def.str();
}

std::optional<std::vector<int64_t>> NodeCtx::getInts(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}
