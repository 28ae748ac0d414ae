//===- KernelDefs.h - Kernel definitions of the operators -------*- C++ -*-===//
//
// The target-neutral kernel definitions (lib/CodeGen/Ops/<Family>.cpp, one
// generator per operator, written against KernelBuilder) and how a target
// finds and runs them:
//
//   Expected<KernelSpec> spec = describeKernel(call);  // types, buffers
//   if (Error e = emitKernel(builder, *spec)) ...       // the loop nests
//
// A KernelSpec is the static view of one typed call: its flattened operand
// and result tensor types (a tuple operand or result contributes one buffer
// per field, in order: KernelABI.h) and its attributes with defaults.
//
//===----------------------------------------------------------------------===//
#ifndef HX_CODEGEN_KERNELDEFS_H
#define HX_CODEGEN_KERNELDEFS_H

#include "hx/IR/Expr.h"
#include "hx/IR/OpDef.h"
#include "hx/IR/TargetKind.h"
#include "hx/Ops/AttrReader.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>

namespace hx {

class KernelBuilder;

struct FusedGroup;

struct KernelSpec : AttrReader<KernelSpec> {
  /// The operator call; for a fused kernel (a call of a `Primitive=1`
  /// function, FusedKernel.cpp) the call itself, with `def` null.
  const Call *call = nullptr;
  const OpDef *def = nullptr;
  /// Flattened operand and result types, all static tensors.
  llvm::SmallVector<const TensorType *, 4> inputs;
  llvm::SmallVector<const TensorType *, 2> outputs;
  /// A fused kernel's group; null for one operator.
  std::shared_ptr<const FusedGroup> fused;
  /// Where the operands and the result are among the kernel's buffers when
  /// this operator is a member of a fused kernel (its anchor); empty: the
  /// operator's own buffers, operands then result.
  llvm::SmallVector<unsigned, 4> operandBuffers;
  unsigned resultBufferBase = 0;
  /// For a fused kernel's anchor: the expression outside the function that
  /// reaches each operand (the call's argument for that parameter), where
  /// buildTimeOperand looks for constants.
  llvm::SmallVector<const Expr *, 4> operandSources;

  /// The operator's name; a fused kernel's names its operators
  /// (`fused_nn_conv2d_add_nn_relu`, as TVM does).
  llvm::StringRef opName() const { return def ? llvm::StringRef(def->name) : fusedName; }
  /// Buffer indices (KernelABI.h): operands first, then results.
  unsigned inputBuffer(unsigned i) const { return operandBuffers.empty() ? i : operandBuffers[i]; }
  unsigned outputBuffer(unsigned i) const {
    return (operandBuffers.empty() ? unsigned(inputs.size()) : resultBufferBase) + i;
  }
  unsigned numBuffers() const { return unsigned(inputs.size() + outputs.size()); }
  std::string fusedName;

  /// Attributes (attr, getBool, getInt, ...) through AttrReader
  /// (hx/Ops/AttrReader.h), as the type relations and the interpreter read them.
  const Call &attributeCall() const { return *call; }
};

/// The static view of a typed operator call. Errors (naming the operator):
/// the callee is not a known operator, the call or an operand has no type
/// (InferType has not run), a dimension is not static, a dtype the code
/// generators do not handle (float16 and the 8/16-bit and unsigned integers
/// for now).
llvm::Expected<KernelSpec> describeKernel(const Call &call);

using KernelGenerator = llvm::Error (*)(KernelBuilder &kb, const KernelSpec &spec);

/// The kernel definition of operator `opName`, or null when there is none
/// (on_device and device_copy are never kernels).
KernelGenerator lookupKernelGenerator(llvm::StringRef opName);

/// Whether `call` calls a `Primitive=1` function literal (a group of
/// fuse-ops), which runs as one kernel.
bool isFusedCall(const Call &call);

/// Emits `spec`'s kernel body with `kb` (positioned in the kernel function).
/// An unsupported attribute or layout is an error naming the operator and
/// the target.
llvm::Error emitKernel(KernelBuilder &kb, const KernelSpec &spec);

/// describeKernel for a target: also an error (naming the operator) for the
/// device annotations, which are never kernels, and for an operator that
/// target kind `kind` lacks (hx/IR/TargetKind.h) or that has no kernel
/// definition.
llvm::Expected<KernelSpec> describeKernelFor(const Call &call, const TargetKindInfo &kind,
                                             llvm::StringRef targetName);

/// The symbol of kernel `id`: `hx_k<id>_<op>`, the operator's name with
/// every character that is not alphanumeric made `_` (nn.conv2d: nn_conv2d).
std::string kernelSymbol(unsigned id, llvm::StringRef op);

/// The value of operand `i` of `call` where it is known when the
/// executable is built (a tensor constant, directly or under on_device) and
/// the operator's kernel reads it then (buildTimeOperand): nn.dense's
/// weights, and those of an nn.conv2d that keeps a small map (1x1 over at
/// most 256 pixels, up to 3x3 over at most 1024), which the cpu packs into
/// the kernel's code. Else null.
/// `arg`, where given, is the expression that reaches operand `i` in place
/// of call.args[i] (a fused function's argument for the parameter there).
const TensorData *buildTimeOperand(const Call &call, unsigned i, const Expr *arg = nullptr);
const TensorData *buildTimeOperand(const KernelSpec &spec, unsigned i);

/// The value of operand `i` of `call` where it is a scalar literal (`2f`)
/// that the operator's kernel specializes on: `power`'s exponent, which
/// becomes multiplies when it is a small integer. Else nullopt.
std::optional<double> specializedLiteral(const Call &call, unsigned i);

/// The cache key of a kernel: operator, non-default attributes, operand and
/// result types, every specializedLiteral, and, for a target whose kernels
/// read buildTimeOperands
/// (`withBuildTimeOperands`: the cpu), a hash and the size of each one's
/// value. Calls with equal signatures compile to the same kernel.
std::string kernelSignature(const Call &call, bool withBuildTimeOperands = false);

/// "<op>: <what> is not supported by the <target> code generator".
llvm::Error unsupported(const KernelBuilder &kb, const KernelSpec &spec, const llvm::Twine &what);

} // namespace hx

#endif
