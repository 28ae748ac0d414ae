//===- Attrs.h - Typed call and function attributes -------------*- C++ -*-===//
#ifndef HX_IR_ATTRS_H
#define HX_IR_ATTRS_H

#include "hx/IR/Type.h"
#include "hx/IR/VirtualDevice.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <initializer_list>
#include <string>
#include <vector>

namespace hx {

/// One attribute value: `3`, `3i64`, `1.5f`, `True`, `"NCHW"`, `None`,
/// `[1, 2]`, `(1, 2)`, `meta[VirtualDevice][0]` or another `meta[K][i]`.
struct AttrValue {
  enum class Kind : uint8_t { None, Bool, Int, Float, String, Ident, List, Device, Meta };

  Kind kind = Kind::None;
  bool boolValue = false;
  int64_t intValue = 0;         // Int; Device and Meta: the table index
  double floatValue = 0;        // Float
  DType numType = DType::Int32; // Int and Float: the literal's dtype suffix
  bool isTuple = false;         // List written with parentheses
  std::string str;              // String, Ident; Meta: the table's kind
  std::vector<AttrValue> list;
  llvm::SMLoc loc;

  static AttrValue none() { return {}; }
  static AttrValue ofBool(bool b);
  static AttrValue ofInt(int64_t v, DType t = DType::Int32);
  static AttrValue ofFloat(double v, DType t = DType::Float32);
  static AttrValue ofString(std::string s);
  static AttrValue ofDevice(DeviceIndex d);
  static AttrValue ofList(std::vector<AttrValue> items);

  bool isNone() const { return kind == Kind::None; }
  /// Structural equality, ignoring locations.
  bool operator==(const AttrValue &o) const;
};

struct Attr {
  std::string name;
  AttrValue value;
  llvm::SMLoc loc = {}; // of the name (none when built in code)
};

/// An ordered list of named attributes.
class Attrs {
public:
  Attrs() = default;
  /// `{{"axis", attrs::integer(1)}, {"keepdims", attrs::boolean(true)}}`
  /// (hx/Ops/OpBuilder.h), in order.
  Attrs(std::initializer_list<Attr> list) : items(list) {}

  bool empty() const { return items.empty(); }
  size_t size() const { return items.size(); }
  const AttrValue *get(llvm::StringRef name) const;
  AttrValue *get(llvm::StringRef name);
  const Attr *find(llvm::StringRef name) const;
  /// Replaces an existing value or appends a new attribute.
  void set(llvm::StringRef name, AttrValue v);
  bool erase(llvm::StringRef name);
  bool operator==(const Attrs &o) const;

  std::vector<Attr> items;
  auto begin() const { return items.begin(); }
  auto end() const { return items.end(); }
};

} // namespace hx

#endif
