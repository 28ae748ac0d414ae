//===- OpRegistry.h - The builtin operator table ----------------*- C++ -*-===//
//
// Every primitive operator is defined once, in one OpDef: its name, arity,
// attribute schema (TVM's names, kinds and defaults), the input dtypes it
// supports, its type relation, the targets that implement it and a one-line
// summary. Each operator family (lib/Ops/Elementwise.cpp, Nn.cpp, Reduce.cpp,
// Transform.cpp, Vision/Sort.cpp, Annotation.cpp) defines its entries next to
// its type relations; OpRegistry.cpp gathers them into one immutable table,
// built on first use.
//
// Clients:
//  - the parser resolves `Op::def` with lookupOp (and suggestOpName for typos);
//  - the verifier checks arity and attributes with verifyOpCall;
//  - InferType computes result types with inferOpType;
//  - passes read attributes with getAttrOrDefault.
//
//===----------------------------------------------------------------------===//
#ifndef HX_OPS_OPREGISTRY_H
#define HX_OPS_OPREGISTRY_H

#include "hx/IR/Attrs.h"
#include "hx/IR/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace hx {

class Call;
class DiagEngine;

/// The targets that implement an operator.
enum TargetMask : uint8_t {
  kTargetCPU = 1,
  kTargetCUDA = 2,
  kTargetAll = kTargetCPU | kTargetCUDA,
};

/// A set of dtypes, one bit per DType.
using DTypeSet = uint16_t;
constexpr DTypeSet dtypeBit(DType t) { return DTypeSet(1u << unsigned(t)); }
constexpr bool dtypeSetContains(DTypeSet s, DType t) { return (s & dtypeBit(t)) != 0; }
inline constexpr DTypeSet kFloatOnly = dtypeBit(DType::Float32);
inline constexpr DTypeSet kNumeric =
    dtypeBit(DType::Float32) | dtypeBit(DType::Int32) | dtypeBit(DType::Int64);
inline constexpr DTypeSet kAnySupported = kNumeric | dtypeBit(DType::Bool);
inline constexpr DTypeSet kIndexTypes = dtypeBit(DType::Int32) | dtypeBit(DType::Int64);
/// "float32, int32, int64" in DType order.
std::string dtypeSetToString(DTypeSet s);

/// What an attribute value may be. The checks are lenient the way TVM's
/// Python front end is: an integer where a float is expected, a single
/// integer for a list, an identifier for a string.
enum class AttrKind : uint8_t {
  Bool,         ///< True / False (also 0 / 1)
  Int,          ///< an integer
  OptInt,       ///< an integer or None
  Float,        ///< a float or an integer
  String,       ///< a string or an identifier
  DType,        ///< a dtype name (string or identifier); "" means unset
  IntList,      ///< a list of integers, or one integer
  OptIntList,   ///< a list of integers, one integer, or None
  IntOrIntList, ///< an integer or a list of integers (kept apart)
  Device,       ///< meta[VirtualDevice][i]
  OptDevice,    ///< a device or None
};

/// "an integer", "a list of integers", ... for diagnostics.
llvm::StringRef attrKindDescription(AttrKind k);

struct AttrSpec {
  llvm::StringRef name;
  AttrKind kind;
  /// A required attribute has no default and must be written.
  bool required = false;
  AttrValue defaultValue;
};

class TypeRelContext;
/// Computes the result type of one call from its argument types, or emits a
/// located diagnostic and returns null.
using TypeRelationFn = TypeRef (*)(TypeRelContext &ctx);

struct OpDef {
  llvm::StringRef name;
  /// One line for `--help` style listings.
  llvm::StringRef summary;
  /// The exact number of positional arguments.
  unsigned numArgs = 1;
  /// The single argument is a tuple of tensors (concatenate): the operator is
  /// variadic over that tuple.
  bool takesTuple = false;
  std::vector<AttrSpec> attrs;
  /// The dtypes of tensor inputs the operator supports.
  DTypeSet dtypes = kFloatOnly;
  TypeRelationFn relation = nullptr;
  uint8_t targets = kTargetAll;

  const AttrSpec *findAttr(llvm::StringRef attrName) const;
  bool supportsTarget(TargetMask t) const { return (targets & t) != 0; }
};

/// The builtin operator `name`, or null when there is none.
const OpDef *lookupOp(llvm::StringRef name);
/// Every builtin operator, in registration order (by family).
llvm::ArrayRef<OpDef> allOps();
inline llvm::StringRef opName(const OpDef &def) { return def.name; }
inline uint8_t opTargets(const OpDef &def) { return def.targets; }

/// The builtin operator whose name is closest to `name` (a typo), or "" when
/// none is close enough to suggest.
llvm::StringRef suggestOpName(llvm::StringRef name);

/// Checks arity and attributes of a call to `def`: unknown attribute names
/// (the error lists the accepted ones), duplicate or missing required
/// attributes, and values of the wrong kind. Errors are located at the call or
/// at the attribute's value and name the operator. Returns false if any error.
bool verifyOpCall(const Call &call, const OpDef &def, DiagEngine &diags);

/// The call's attribute `name`, or the schema default when it is not written.
/// None when the callee is not a known operator or has no such attribute.
AttrValue getAttrOrDefault(const Call &call, llvm::StringRef name);

/// The type relation: the result type of `call`, given the types of its
/// arguments (none null). Verifies the call's attributes first (see
/// verifyOpCall). On a type error emits a diagnostic at the call with notes at
/// the offending operands and returns null.
TypeRef inferOpType(const Call &call, llvm::ArrayRef<const Type *> argTypes, DiagEngine &diags);

} // namespace hx

#endif
