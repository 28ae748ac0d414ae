//===- AttrReader.h - The one reader of operator attributes -----*- C++ -*-===//
//
// How an operator's code reads its call's attributes, in one place for
// every piece of an operator: the type relation (TypeRelContext), the
// interpreter (interp::OpContext) and the kernel generator (KernelSpec)
// each derive from AttrReader<Self> and say which call they read
// (`attributeCall()`); the values come from getAttrOrDefault in canonical
// form (the schema's default where the call writes none; an integer where a
// float is expected read as that float; a single integer as a one-element
// list), so every reader of `axis` or `epsilon` sees the same value.
//
//===----------------------------------------------------------------------===//
#ifndef HX_OPS_ATTRREADER_H
#define HX_OPS_ATTRREADER_H

#include "hx/IR/Attrs.h"
#include "hx/IR/Type.h"
#include "hx/Ops/ShapeUtils.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace hx {

class Call;

/// The readers, on any call (AttrReader forwards to them).
namespace attrs {
AttrValue value(const Call &call, llvm::StringRef name);
/// A Bool, or an integer: nonzero is true.
bool getBool(const Call &call, llvm::StringRef name);
int64_t getInt(const Call &call, llvm::StringRef name);
/// Nullopt for None.
std::optional<int64_t> getOptInt(const Call &call, llvm::StringRef name);
/// A float, or an integer as a float.
double getFloat(const Call &call, llvm::StringRef name);
std::string getString(const Call &call, llvm::StringRef name);
/// Nullopt for "" (unset) or a name that is not a dtype.
std::optional<DType> getDType(const Call &call, llvm::StringRef name);
Shape getInts(const Call &call, llvm::StringRef name);
/// Nullopt for None.
std::optional<Shape> getOptInts(const Call &call, llvm::StringRef name);
} // namespace attrs

template <typename Self> class AttrReader {
public:
  AttrValue attr(llvm::StringRef name) const { return attrs::value(call(), name); }
  bool getBool(llvm::StringRef name) const { return attrs::getBool(call(), name); }
  int64_t getInt(llvm::StringRef name) const { return attrs::getInt(call(), name); }
  std::optional<int64_t> getOptInt(llvm::StringRef name) const {
    return attrs::getOptInt(call(), name);
  }
  double getFloat(llvm::StringRef name) const { return attrs::getFloat(call(), name); }
  std::string getString(llvm::StringRef name) const { return attrs::getString(call(), name); }
  std::optional<DType> getDType(llvm::StringRef name) const {
    return attrs::getDType(call(), name);
  }
  Shape getInts(llvm::StringRef name) const { return attrs::getInts(call(), name); }
  std::optional<Shape> getOptInts(llvm::StringRef name) const {
    return attrs::getOptInts(call(), name);
  }

private:
  const Call &call() const { return static_cast<const Self *>(this)->attributeCall(); }
};

} // namespace hx

#endif
