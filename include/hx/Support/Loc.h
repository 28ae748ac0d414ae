//===- Loc.h - A source position and the node it came from ------*- C++ -*-===//
//
// What every expression and diagnostic is located by: a position in a source
// buffer (an SMLoc, invalid for what no text wrote) and, when an importer or
// a `// onnx:Conv ...` comment said so, the framework node it came from
// (hx/Support/SourceNames.h) -- MLIR's NameLoc around a FileLineColLoc.
//
// A Loc converts to and from an SMLoc implicitly, so code that only wants
// the position reads it as before; code that copies a location (a pass
// building a new call `at old->loc`) keeps the node with it, and a
// diagnostic given an expression's location names its node.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_LOC_H
#define HX_SUPPORT_LOC_H

#include "hx/Support/SourceNames.h"
#include "llvm/Support/SMLoc.h"

namespace hx {

struct Loc {
  Loc() = default;
  Loc(llvm::SMLoc pos) : pos(pos) {}
  Loc(llvm::SMLoc pos, SourceNodeRef node) : pos(pos), node(std::move(node)) {}

  operator llvm::SMLoc() const { return pos; }
  bool isValid() const { return pos.isValid(); }
  const char *getPointer() const { return pos.getPointer(); }

  /// The framework node, or null.
  const SourceNode *getNode() const { return node.get(); }

  llvm::SMLoc pos;
  SourceNodeRef node;
};

} // namespace hx

#endif
