//===- DeltaPasses.h - The reductions hx-reduce tries -----------*- C++ -*-===//
//
// A delta pass is one kind of reduction (remove a def, forward a binding to
// its operand, drop an annotation, halve a dimension, ...). It is a function
// that walks a module in a fixed order, meets its *sites* (the places where
// the reduction applies) one after the other, and asks a SiteSelection for
// each whether to apply it. The same function therefore counts the sites
// (select nothing) and builds a candidate (select a chunk [begin, end)), as
// llvm-reduce's Oracle does. The order of the sites depends only on the
// module, so a selection means the same thing every time.
//
// A pass gets a private copy of the current module, parsed from its canonical
// text and typed (every expression has its checkedType; the annotations are
// the ones written, not the ones inference fills in). It changes the copy in
// place; the driver prints it, re-parses and re-types the text and throws
// candidates that are not well-formed away, so a pass may produce ill-typed
// candidates but should rarely do so.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_REDUCE_DELTAPASSES_H
#define HX_LIB_REDUCE_DELTAPASSES_H

#include "hx/IR/Module.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringSet.h"
#include <cstddef>

namespace hx {
namespace reduce {

/// The sites a candidate changes: those numbered [begin, end) in the order a
/// pass meets them. take() numbers the next site and says whether it is in.
class SiteSelection {
public:
  SiteSelection(size_t begin, size_t end) : begin(begin), end(end) {}
  /// Selects nothing: the pass only counts.
  static SiteSelection none() { return {0, 0}; }
  bool take() {
    size_t i = next++;
    return i >= begin && i < end;
  }
  /// How many sites the pass met.
  size_t count() const { return next; }

private:
  size_t begin, end, next = 0;
};

struct DeltaPass {
  /// A short name for --verbose and the summary.
  const char *name;
  void (*run)(Module &m, SiteSelection &sel);
};

/// The passes in the order the driver runs them in each round.
llvm::ArrayRef<DeltaPass> deltaPasses();

// The passes (GraphPasses.cpp, DeclPasses.cpp, ShrinkShapes.cpp).
void removeDefs(Module &m, SiteSelection &sel);
void dropAnnotations(Module &m, SiteSelection &sel);
void removeBindings(Module &m, SiteSelection &sel);
void operandsToParams(Module &m, SiteSelection &sel);
void flattenTuples(Module &m, SiteSelection &sel);
void removeParams(Module &m, SiteSelection &sel);
void dropAttributes(Module &m, SiteSelection &sel);
void shrinkShapes(Module &m, SiteSelection &sel);
void dropMetadata(Module &m, SiteSelection &sel);

// Helpers the passes share (GraphPasses.cpp).

/// Names of the globals some def refers to (calls and other uses).
llvm::StringSet<> referencedGlobals(const Module &m);
/// Whether a value of type `t` may become a new parameter: a tensor or a
/// tuple of such, nothing of function type.
bool isParamType(const Type *t);
/// The names of every variable of a def (parameters, lets, free variables,
/// those of nested fn literals).
llvm::StringSet<> variableNames(Function &fn);
/// A name not in `taken` (`p0`, `p1`, ...), which it is added to.
std::string freshName(llvm::StringSet<> &taken);
/// Replaces selected on_device and device_copy calls by their argument; the
/// call sites are met in the order of removeBindings (GraphPasses.cpp).
void forwardAnnotationCalls(Module &m, SiteSelection &sel);
/// Calls `fn(f)` on every def root and fn literal of the module, in def
/// order and post-order within a def.
void forEachFunction(Module &m, llvm::function_ref<void(Function &)> fn);

} // namespace reduce
} // namespace hx

#endif
