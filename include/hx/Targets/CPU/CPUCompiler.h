//===- CPUCompiler.h - Kernels for the host CPU through ORC -----*- C++ -*-===//
//
// Lowers primitive functions (today: one typed operator call each) to LLVM IR
// from the operator's kernel definition (lib/CodeGen), optimizes the module at
// O3 for the host (JITTargetMachineBuilder::detectHost, with its
// TargetIRAnalysis so the vectorizers see the vector registers), and JITs it
// with ORC LLJIT. Kernels are cached by signature (operator, attributes,
// operand and result types): a module with 100 identical adds compiles one
// kernel. Calls are collected first (addKernel) and compiled together in one
// LLVM module (finalize), so a program pays for one optimization pipeline
// and one code generation.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_CPU_CPUCOMPILER_H
#define HX_TARGETS_CPU_CPUCOMPILER_H

#include "hx/IR/Expr.h"
#include "hx/Targets/KernelABI.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace hx {

struct CPUCompilerOptions {
  /// The parallel-for callback injected into the JIT (see KernelABI.h).
  ParallelForFn parallelFor = serialParallelFor;
  /// Keep every kernel's optimized LLVM IR for printLLVM (--emit=llvm).
  bool keepIR = false;
  /// Parallel loops with fewer estimated scalar operations than this run
  /// inline, without calling parallelFor.
  int64_t minParallelWork = 1 << 15;
  /// Target features added to the host's ("-f16c" to test code generation
  /// on a CPU without a feature); empty in normal use.
  std::string extraFeatures;
  /// The CPU to compile for: "" or "native" for the host, else a CPU name
  /// (llvm -mcpu=NAME) whose features the host has.
  std::string cpu;
  /// Keep the object code of every finalize, for save.
  bool keepObjects = false;
};

class CPUCompiler {
public:
  static llvm::Expected<std::unique_ptr<CPUCompiler>> create(CPUCompilerOptions opts = {});
  ~CPUCompiler();

  /// Whether the CPU code generator has a kernel for this operator.
  static bool supports(const OpDef &op);

  /// The cache key of a call: operator, non-default attributes, operand and
  /// result types.
  static std::string signature(const Call &call);

  /// Registers a typed operator call (InferType has run; no on_device or
  /// device_copy) and returns its kernel's id; a call with the signature of
  /// an earlier one returns the earlier id. An unsupported operator, dtype or
  /// attribute is an error naming the operator.
  llvm::Expected<unsigned> addKernel(const Call &call);
  /// Compiles every kernel added since the last finalize (one LLVM module).
  llvm::Error finalize();
  /// The entry point of a finalized kernel.
  KernelFn lookup(unsigned id) const;
  unsigned numKernels() const;
  /// Kernels added since the last finalize.
  unsigned numPending() const;
  /// The symbol of kernel `id` in the JIT and in printLLVM's output
  /// (`hx_k<id>_<operator>`).
  llvm::StringRef kernelName(unsigned id) const;

  /// The optimized LLVM IR of every finalized kernel (needs keepIR).
  void printLLVM(llvm::raw_ostream &os) const;

  /// Appends the finalized kernels to `out` for restore (needs
  /// keepObjects): the target triple, the CPU features the code was
  /// compiled with, each kernel's symbol and signature, and the object code.
  llvm::Error save(std::string &out) const;
  /// Takes back what save wrote, into a compiler with no kernels yet, in
  /// this process or another: the kernels are linked without running the
  /// code generator, and a later call with one of their signatures gets
  /// its id; other calls compile as usual. Refused, with a message saying
  /// why: bytes that are not a save, another architecture, code that
  /// needs CPU features the host lacks (naming them).
  llvm::Error restore(llvm::StringRef saved);

private:
  CPUCompiler();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace hx

#endif
