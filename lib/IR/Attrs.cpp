//===- Attrs.cpp - Attribute values ---------------------------------------===//
#include "hx/IR/Attrs.h"

using namespace hx;
using namespace llvm;

AttrValue AttrValue::ofBool(bool b) {
  AttrValue v;
  v.kind = Kind::Bool;
  v.boolValue = b;
  return v;
}
AttrValue AttrValue::ofInt(int64_t i, DType t) {
  AttrValue v;
  v.kind = Kind::Int;
  v.intValue = i;
  v.numType = t;
  return v;
}
AttrValue AttrValue::ofFloat(double f, DType t) {
  AttrValue v;
  v.kind = Kind::Float;
  v.floatValue = f;
  v.numType = t;
  return v;
}
AttrValue AttrValue::ofString(std::string s) {
  AttrValue v;
  v.kind = Kind::String;
  v.str = std::move(s);
  return v;
}
AttrValue AttrValue::ofDevice(DeviceIndex d) {
  AttrValue v;
  v.kind = Kind::Device;
  v.intValue = d;
  return v;
}
AttrValue AttrValue::ofList(std::vector<AttrValue> items) {
  AttrValue v;
  v.kind = Kind::List;
  v.list = std::move(items);
  return v;
}

bool AttrValue::operator==(const AttrValue &o) const {
  if (kind != o.kind)
    return false;
  switch (kind) {
  case Kind::None:
    return true;
  case Kind::Bool:
    return boolValue == o.boolValue;
  case Kind::Int:
    return intValue == o.intValue && numType == o.numType;
  case Kind::Float:
    return floatValue == o.floatValue && numType == o.numType;
  case Kind::String:
  case Kind::Ident:
    return str == o.str;
  case Kind::List:
    return isTuple == o.isTuple && list == o.list;
  case Kind::Device:
    return intValue == o.intValue;
  case Kind::Meta:
    return str == o.str && intValue == o.intValue;
  }
  return false;
}

const Attr *Attrs::find(StringRef name) const {
  for (const Attr &a : items)
    if (a.name == name)
      return &a;
  return nullptr;
}

const AttrValue *Attrs::get(StringRef name) const {
  const Attr *a = find(name);
  return a ? &a->value : nullptr;
}

AttrValue *Attrs::get(StringRef name) {
  for (Attr &a : items)
    if (a.name == name)
      return &a.value;
  return nullptr;
}

void Attrs::set(StringRef name, AttrValue v) {
  if (AttrValue *old = get(name)) {
    *old = std::move(v);
    return;
  }
  items.push_back({name.str(), std::move(v), {}});
}

bool Attrs::erase(StringRef name) {
  for (auto it = items.begin(); it != items.end(); ++it)
    if (it->name == name) {
      items.erase(it);
      return true;
    }
  return false;
}

bool Attrs::operator==(const Attrs &o) const {
  if (items.size() != o.items.size())
    return false;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].name != o.items[i].name || !(items[i].value == o.items[i].value))
      return false;
  return true;
}
