//===- TypeRelation.h - What a type relation sees (private) -----*- C++ -*-===//
//
// A TypeRelContext bundles one call, its operator definition, its argument
// types and the diagnostics engine, and offers the checks every relation
// repeats: "argument i is a tensor of a supported dtype", attribute readers
// (attributes were verified against the schema before the relation runs, so
// the readers cannot fail), axis normalization, and errors prefixed with the
// operator name, located at the call (or the attribute), with notes at the
// operands' definitions.
//
// Each operator family registers its OpDefs through an add*Ops function
// declared here; the AttrSpec builders keep those tables short.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_OPS_TYPERELATION_H
#define HX_LIB_OPS_TYPERELATION_H

#include "hx/IR/Expr.h"
#include "hx/Ops/AttrReader.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Ops/ShapeUtils.h"
#include "hx/Support/Diagnostics.h"
#include <initializer_list>
#include <optional>

namespace hx {

class TypeRelContext : public AttrReader<TypeRelContext> {
public:
  TypeRelContext(const Call &call, const OpDef &def, llvm::ArrayRef<const Type *> argTypes,
                 DiagEngine &diags)
      : call(call), def(def), argTypes(argTypes), diags(diags) {}

  const Call &call;
  const OpDef &def;
  llvm::ArrayRef<const Type *> argTypes;
  DiagEngine &diags;

  //===--- Diagnostics ----------------------------------------------------===//

  /// An error at the call, "<op>: <msg>".
  InFlightDiagnostic error(const llvm::Twine &msg);
  /// An error at the call with a note at each listed operand.
  InFlightDiagnostic error(const llvm::Twine &msg, std::initializer_list<unsigned> operands);
  /// An error at attribute `attr` (its value when written, else the call),
  /// with a note at operand 0 when the call has one.
  InFlightDiagnostic attrError(llvm::StringRef attr, const llvm::Twine &msg);
  /// The same for a problem a shared helper found (ShapeUtils.h), located at
  /// the entry it blames when that entry was written.
  InFlightDiagnostic attrError(const AttrProblem &problem);
  /// Adds "%x defined here with type T" / "operand i defined here ...".
  void noteOperand(InFlightDiagnostic &d, unsigned i);

  //===--- Arguments ------------------------------------------------------===//

  /// Argument i as a tensor whose dtype is in `allowed` (default: the
  /// operator's dtypes); null after an error.
  const TensorType *tensorArg(unsigned i);
  const TensorType *tensorArg(unsigned i, DTypeSet allowed);
  /// Argument i as a tuple; null after an error.
  const TupleType *tupleArg(unsigned i);
  /// Checks that a dtype chosen by an attribute is in `allowed`.
  bool checkAttrDType(llvm::StringRef attr, DType t, DTypeSet allowed);

  //===--- Attributes (already verified against the schema) ---------------===//
  // attr, getBool, getInt, ... come from AttrReader (hx/Ops/AttrReader.h).

  const Call &attributeCall() const { return call; }
  bool isExplicit(llvm::StringRef name) const;
  llvm::SMLoc attrLoc(llvm::StringRef name) const;
  /// A list-of-pairs attribute ([[before, after], ...]) as exactly `count`
  /// pairs of non-negative integers; nullopt after a located error (at the
  /// offending pair when it is one: not a pair, negative).
  std::optional<llvm::SmallVector<IntPair, 4>> getIntPairs(llvm::StringRef name, size_t count);

  /// Maps `axis` in [-rank, rank) to [0, rank); reports an error at `attr`
  /// otherwise.
  std::optional<unsigned> normalizeAxis(int64_t axis, size_t rank, llvm::StringRef attr);
};

/// A float attribute's value for messages (`%g`).
std::string formatNumber(double v);

//===--- Shared relations ------------------------------------------------===//

/// The type of argument 0, unchanged, when it is a tensor of a supported
/// dtype.
TypeRef identityTensorRel(TypeRelContext &ctx);

//===--- Schema builders -------------------------------------------------===//

AttrSpec boolAttr(llvm::StringRef name, bool dflt);
AttrSpec intAttr(llvm::StringRef name, int64_t dflt);
AttrSpec floatAttr(llvm::StringRef name, double dflt);
AttrSpec stringAttr(llvm::StringRef name, llvm::StringRef dflt);
AttrSpec dtypeAttr(llvm::StringRef name, llvm::StringRef dflt);
AttrSpec intListAttr(llvm::StringRef name, std::initializer_list<int64_t> dflt);
/// An attribute whose default is None.
AttrSpec noneAttr(llvm::StringRef name, AttrKind kind);
AttrSpec requiredAttr(llvm::StringRef name, AttrKind kind);

//===--- Families --------------------------------------------------------===//

void addElementwiseOps(std::vector<OpDef> &ops);
void addNnOps(std::vector<OpDef> &ops);
void addConvPoolOps(std::vector<OpDef> &ops);
void addReduceOps(std::vector<OpDef> &ops);
void addTransformOps(std::vector<OpDef> &ops);
void addSortOps(std::vector<OpDef> &ops);
void addDynamicOps(std::vector<OpDef> &ops);
void addAnnotationOps(std::vector<OpDef> &ops);

} // namespace hx

#endif
