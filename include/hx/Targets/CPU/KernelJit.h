//===- KernelJit.h - ORC LLJIT with the host O3 pipeline --------*- C++ -*-===//
//
// The host JIT of the CPU code generator (and of the SIMT emulator,
// hx/Targets/CUDAEmu). One LLJIT for the host CPU
// (JITTargetMachineBuilder::detectHost) whose IR transform layer runs the
// O3 module pipeline with the host TargetMachine's TargetIRAnalysis (LLJIT
// optimizes nothing by itself, and without the target's cost model the
// vectorizers see no vector registers). The runtime's parallel-for callback
// is defined in the main JITDylib as the absolute symbol hx_parallel_for;
// libm and libc symbols resolve from the process; a user of the JIT may
// define more absolute symbols (defineAbsolute).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_CPU_KERNELJIT_H
#define HX_TARGETS_CPU_KERNELJIT_H

#include "hx/Targets/KernelABI.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/Target/TargetMachine.h"
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hx {

class ByteReader;

class KernelJit {
public:
  /// Code for `cpu` ("" or "native": the host; else a CPU name of the host's
  /// architecture, with that CPU's features instead of the host's), with
  /// `extraFeatures` ("-f16c,+avx2") added. A CPU or feature the host cannot
  /// run is an error naming it.
  static llvm::Expected<std::unique_ptr<KernelJit>> create(ParallelForFn parallelFor, bool keepIR,
                                                           llvm::StringRef extraFeatures = "",
                                                           llvm::StringRef cpu = "");

  const llvm::DataLayout &getDataLayout() const;
  const llvm::Triple &getTargetTriple() const;
  /// The host CPU name and features, for each function's attributes.
  llvm::StringRef getCPU() const;
  std::string getFeatures() const;
  /// Whether the code is compiled with target feature `name` ("avx512f").
  bool hasFeature(llvm::StringRef name) const;

  /// Adds a module; it is optimized and compiled at its first lookup.
  llvm::Error addModule(llvm::orc::ThreadSafeModule tsm);
  /// From now on, keeps a copy of every object file the JIT links
  /// (compiled from a module or added), for objects(): the code a compiled
  /// model file holds.
  void keepObjects();
  /// The object files kept since keepObjects, in link order.
  std::vector<std::string> objects() const;
  /// Adds an object file (one objects() gave, in this or another process),
  /// linked at the first lookup of a symbol it defines.
  llvm::Error addObject(llvm::StringRef bytes, llvm::StringRef name);
  /// Appends objects() to `out` as a saved backend holds them (a count,
  /// then each file), last in its bytes.
  void writeObjects(std::string &out) const;
  /// Reads what writeObjects wrote, which must end `r`, and adds each file;
  /// `what` names the saved kernels in errors ("cpu").
  llvm::Error addObjects(ByteReader &r, llvm::StringRef what);
  /// Defines `name` in the JIT as the absolute address `addr` (data or a
  /// function of the process), for the modules added later.
  llvm::Error defineAbsolute(llvm::StringRef name, void *addr);
  /// The address of a function of an added module (compiling it if needed).
  llvm::Expected<void *> lookup(llvm::StringRef name);

  /// The optimized IR of every module compiled so far (needs keepIR).
  void printIR(llvm::raw_ostream &os) const;

private:
  KernelJit() = default;
  llvm::Expected<llvm::orc::ThreadSafeModule> optimize(llvm::orc::ThreadSafeModule tsm);

  // Declared first, destroyed last: the JIT's transform uses it.
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  bool keepIR = false;
  mutable std::mutex irMutex;
  std::string irText;
  std::vector<std::string> objectFiles; // guarded by irMutex
};

} // namespace hx

#endif
