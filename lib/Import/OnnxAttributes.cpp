//===- OnnxAttributes.cpp - A node's ONNX attributes ----------------------===//
//
// Reading a node's attributes by name, with the defaults the ONNX operator
// definitions give (a converter passes the default of its opset range), and
// integer lists as messages show them. The values of hx's attributes are
// written with attrs:: (hx/Ops/OpBuilder.h).
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"
#include "llvm/ADT/StringExtras.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

std::string onnximport::listText(ArrayRef<int64_t> v) {
  // As hx text writes them: an integer beyond int32 has its i64 suffix.
  return "[" +
         join(map_range(v,
                        [](int64_t x) {
                          return std::to_string(x) + (x < INT32_MIN || x > INT32_MAX ? "i64" : "");
                        }),
              ", ") +
         "]";
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

const onnx::GraphProto *NodeCtx::getGraph(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  return a && a->has_g() ? &a->g() : nullptr;
}

std::optional<std::vector<int64_t>> NodeCtx::getInts(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}
