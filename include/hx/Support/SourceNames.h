//===- SourceNames.h - The framework node an expression came from -*- C++ -*-===//
//
// An importer names, on every expression it builds, the framework node that
// expression computes part of: a SourceNode {framework, op type, node name},
// one object shared by all the expressions of the node, as MLIR's NameLoc
// wraps a location. It travels in the expression's location
// (hx/Support/Loc.h), so whatever copies a location keeps it, and whatever
// reports a location can name the node: a located diagnostic adds
// `note: in onnx node '/conv/Conv' (Conv)`, the placement report prints the
// node after each call, `--place` matches node names and framework op types.
//
// In text the node is a line comment after the expression, which the
// printer writes and the parser reads back onto every expression that
// starts on that line before it:
//
//   %12 = nn.conv2d(%11, %w3, ...); %13 = nn.bias_add(%12, %b3); // onnx:Conv /layer1/0/conv1/Conv
//
// Hand-written text may carry the same comments.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_SOURCENAMES_H
#define HX_SUPPORT_SOURCENAMES_H

#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace hx {

/// `<framework>:<op type> <node name>`: immutable, reference counted (not
/// atomically: like the IR, it belongs to one thread at a time) and shared
/// by the expressions of one node. One allocation holds the counts and the
/// characters: a module of a million nodes pays for their names and 16
/// bytes each.
class SourceNode {
public:
  /// `name` may be empty.
  static llvm::IntrusiveRefCntPtr<const SourceNode>
  create(llvm::StringRef framework, llvm::StringRef opType, llvm::StringRef name);

  llvm::StringRef framework() const { return llvm::StringRef(chars(), frameworkLen); }
  llvm::StringRef opType() const { return llvm::StringRef(chars() + frameworkLen, opTypeLen); }
  llvm::StringRef name() const {
    return llvm::StringRef(chars() + frameworkLen + opTypeLen, nameLen);
  }

  /// The comment the printer writes: `// onnx:Conv /conv/Conv`, each part
  /// as printableName gives it.
  void printComment(llvm::raw_ostream &os) const;
  std::string comment() const;

  bool operator==(const SourceNode &o) const {
    return framework() == o.framework() && opType() == o.opType() && name() == o.name();
  }

  /// The node a line comment names, or null. `comment` runs from its `//`
  /// to the end of the line. The node is the first `// ` in it whose text
  /// reads `<word>:<word>`, the rest after a space being the name: names may
  /// hold `//` themselves (ONNX names are often paths).
  static llvm::IntrusiveRefCntPtr<const SourceNode> fromComment(llvm::StringRef comment);

  // For IntrusiveRefCntPtr.
  void Retain() const { ++refs; }
  void Release() const;

private:
  SourceNode(uint32_t f, uint32_t o, uint32_t n) : frameworkLen(f), opTypeLen(o), nameLen(n) {}
  const char *chars() const { return reinterpret_cast<const char *>(this + 1); }

  mutable uint32_t refs = 0;
  uint32_t frameworkLen, opTypeLen, nameLen;
};

using SourceNodeRef = llvm::IntrusiveRefCntPtr<const SourceNode>;

/// Whether two expressions come from the same node: the same object, or
/// equal ones (both null: no node).
inline bool sameSourceNode(const SourceNode *a, const SourceNode *b) {
  return a == b || (a && b && *a == *b);
}

/// A name as hx text may hold it in a comment: legal UTF-8 kept with its
/// control characters (newlines among them) made spaces, anything else
/// reduced to its ASCII with `?` for the other bytes.
std::string printableName(llvm::StringRef name);

} // namespace hx

#endif
