//===- OpKernels.h - The kernel tables of the operator families -*- C++ -*-===//
//
// Private to lib/CodeGen. Each family file (Elementwise.cpp, Reduce.cpp,
// Transform.cpp, Nn.cpp, ConvPool.cpp, Resize.cpp, Sort.cpp, mirroring lib/Ops) defines
// one generator per operator and returns its table here; KernelDefs.cpp
// indexes the tables by operator name.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_CODEGEN_OPS_OPKERNELS_H
#define HX_LIB_CODEGEN_OPS_OPKERNELS_H

#include "hx/CodeGen/KernelBuilder.h"
#include "hx/CodeGen/KernelDefs.h"
#include "hx/Ops/ShapeUtils.h"
#include "llvm/ADT/ArrayRef.h"

namespace hx {

struct KernelEntry {
  llvm::StringRef opName;
  KernelGenerator generate;
};

llvm::ArrayRef<KernelEntry> elementwiseKernels();
llvm::ArrayRef<KernelEntry> reduceKernels();
llvm::ArrayRef<KernelEntry> transformKernels();
llvm::ArrayRef<KernelEntry> nnKernels();
llvm::ArrayRef<KernelEntry> convPoolKernels();
llvm::ArrayRef<KernelEntry> resizeKernels();
llvm::ArrayRef<KernelEntry> sortKernels();

/// The kernel of a call of a `Primitive=1` function (FusedKernel.cpp):
/// describeKernel, emitKernel and kernelSignature for such calls.
llvm::Expected<KernelSpec> describeFusedKernel(const Call &call);
llvm::Error emitFusedKernel(KernelBuilder &kb, const KernelSpec &spec);
std::string fusedKernelSignature(const Call &call, bool withBuildTimeOperands);

/// For fused kernels (FusedKernel.cpp): whether `spec` is an operator whose
/// element is a function of its operands' elements at the same point (the
/// elementwise operators and nn.bias_add) that this target can compute,
/// else an error naming it.
llvm::Error checkElementwiseValue(KernelBuilder &kb, const KernelSpec &spec);
/// One element of such an operator from its operands' elements (in their
/// register types; an operand the operator specializes on, power's literal
/// exponent, may be null).
llvm::Value *elementwiseValue(KernelBuilder &kb, const KernelSpec &spec,
                              llvm::ArrayRef<llvm::Value *> operands);
/// Whether such an element costs a math function (a transcendental one, a
/// power other than a small integral literal), not a few instructions.
bool elementwiseIsMath(const KernelSpec &spec);

} // namespace hx

#endif
