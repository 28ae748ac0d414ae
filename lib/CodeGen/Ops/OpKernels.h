//===- OpKernels.h - The kernel tables of the operator families -*- C++ -*-===//
//
// Private to lib/CodeGen. Each family file (Elementwise.cpp, Reduce.cpp,
// Transform.cpp, Nn.cpp, ConvPool.cpp, Sort.cpp, mirroring lib/Ops) defines
// one generator per operator and returns its table here; KernelDefs.cpp
// indexes the tables by operator name.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_CODEGEN_OPS_OPKERNELS_H
#define HX_LIB_CODEGEN_OPS_OPKERNELS_H

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
llvm::ArrayRef<KernelEntry> sortKernels();

} // namespace hx

#endif
