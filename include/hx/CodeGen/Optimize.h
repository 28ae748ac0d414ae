//===- Optimize.h - The optimization pipeline every target runs -*- C++ -*-===//
//
// LLVM's O3 module pipeline for one target machine, its TargetIRAnalysis
// registered first so that the vectorizers and the unroller use the
// target's cost model (the host's vector registers, the GPU's), and the
// target's own passes (NVPTX's NVVMReflect, ...) added by the PassBuilder's
// target callbacks.
//
//===----------------------------------------------------------------------===//
#ifndef HX_CODEGEN_OPTIMIZE_H
#define HX_CODEGEN_OPTIMIZE_H

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace hx {

/// Optimizes `m` in place at O3 for `tm`.
void optimizeModule(llvm::Module &m, llvm::TargetMachine &tm);

} // namespace hx

#endif
