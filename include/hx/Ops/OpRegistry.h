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
//  - passes read attributes with getAttrOrDefault;
//  - passes and the ONNX importer build calls with OpBuilder (OpBuilder.h).
//
//===----------------------------------------------------------------------===//
#ifndef HX_OPS_OPREGISTRY_H
#define HX_OPS_OPREGISTRY_H

#include "hx/IR/OpDef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

namespace hx {

class Call;
class DiagEngine;

/// The builtin operator `name`, or null when there is none.
const OpDef *lookupOp(llvm::StringRef name);
/// Every builtin operator, in registration order (by family).
llvm::ArrayRef<OpDef> allOps();
inline llvm::StringRef opName(const OpDef &def) { return def.name; }

/// Every builtin operator, sorted by name, one line each: its targets, the
/// input dtypes it accepts and its summary (`hx-opt --list-ops`).
void printOperatorTable(llvm::raw_ostream &os);
/// The same as a Markdown page: docs/ops.md (`hx-opt --list-ops=markdown`).
void printOperatorMarkdown(llvm::raw_ostream &os);

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
