//===- CPUKernel.h - What the cpu backend makes of a kernel -----*- C++ -*-===//
//
// Private to lib/Targets/CPU (and the backends built on its compiler): a
// JIT'd entry point of KernelABI.h, which a cpu device calls.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGETS_CPU_CPUKERNEL_H
#define HX_LIB_TARGETS_CPU_CPUKERNEL_H

#include "hx/Runtime/Backend.h"
#include "hx/Targets/KernelABI.h"
#include <string>

namespace hx {

struct CPUKernel : KernelBinary {
  static constexpr llvm::StringLiteral kBackend = "cpu";
  CPUKernel(KernelFn entry, std::string symbolName)
      : entry(entry), symbolName(std::move(symbolName)) {}
  llvm::StringRef backend() const override { return kBackend; }
  llvm::StringRef symbol() const override { return symbolName; }

  KernelFn entry;
  std::string symbolName;
};

} // namespace hx

#endif
