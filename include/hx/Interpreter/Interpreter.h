//===- Interpreter.h - The reference interpreter ----------------*- C++ -*-===//
//
// Evaluates a typed module directly over the IR, in plain C++: every operator
// computed element by element in double and stored in its result dtype. It
// shares no code with the code generators; it is the oracle that every
// backend is compared with (hx-run --check, the conformance suite) and
// `hx-run --interpret` runs with it alone.
//
// Devices are ignored: on_device and device_copy are the identity, so a
// planned and an unplanned module give the same results.
//
//===----------------------------------------------------------------------===//
#ifndef HX_INTERPRETER_INTERPRETER_H
#define HX_INTERPRETER_INTERPRETER_H

#include "hx/IR/Module.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace hx {

/// Runs `@entry` of `m` (which InferType has typed) on `inputs`, one per
/// parameter in order, each of the parameter's type. Returns the result
/// flattened depth first: `(a, (b, c), d)` gives a, b, c, d. Errors (a
/// missing entry, a wrong input count or type, a runtime fault such as an
/// out-of-range index) are messages, never aborts.
llvm::Expected<std::vector<HostTensor>>
interpret(const Module &m, llvm::ArrayRef<HostTensor> inputs, llvm::StringRef entry = "main");

/// The reference implementation of one operator call: `args` are the
/// operands (a tuple argument, as concatenate's, flattened into its fields),
/// `call` gives the attributes and, through checkedType, the result type.
/// Returns the results flattened (one tensor, or a tuple result's fields).
llvm::Expected<std::vector<HostTensor>> interpretOp(const Call &call,
                                                    llvm::ArrayRef<const HostTensor *> args);

/// Whether the interpreter implements the operator `op` (the registry
/// check of hx/Tools/OpPieces.h asks it of every operator).
bool hasInterpreterImpl(llvm::StringRef op);

} // namespace hx

#endif
