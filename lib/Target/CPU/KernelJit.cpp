//===- KernelJit.cpp - ORC LLJIT with the O3 pipeline for the host --------===//
//
// 1. Native target initialization, once per process (std::call_once).
// 2. detectHost() -> a TargetMachine for the optimizer (CodeGenOpt
//    Aggressive) and the LLJIT, which builds its own for code generation.
// 3. hx_parallel_for defined with absoluteSymbols.
// 4. The IR transform: PassBuilder(TM), TargetIRAnalysis registered first,
//    buildPerModuleDefaultPipeline(O3); the result printed into irText when
//    keepIR is set.
//
//===----------------------------------------------------------------------===//

#include "KernelJit.h"
#include "hx/CodeGen/Optimize.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

using namespace llvm;
using namespace llvm::orc;

namespace hx {

static void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    InitializeNativeTargetAsmParser();
  });
}

Expected<std::unique_ptr<KernelJit>> KernelJit::create(ParallelForFn parallelFor, bool keepIR) {
  initializeNativeTarget();
  Expected<JITTargetMachineBuilder> jtmb = JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return jtmb.takeError();
  jtmb->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);

  std::unique_ptr<KernelJit> kj(new KernelJit());
  kj->keepIR = keepIR;
  Expected<std::unique_ptr<TargetMachine>> tm = jtmb->createTargetMachine();
  if (!tm)
    return tm.takeError();
  kj->tm = std::move(*tm);

  Expected<std::unique_ptr<LLJIT>> jit = LLJITBuilder().setJITTargetMachineBuilder(*jtmb).create();
  if (!jit)
    return jit.takeError();
  kj->jit = std::move(*jit);

  SymbolMap symbols;
  symbols[kj->jit->mangleAndIntern(kParallelForSymbol)] = {
      ExecutorAddr::fromPtr(parallelFor ? parallelFor : serialParallelFor),
      JITSymbolFlags::Exported | JITSymbolFlags::Callable};
  if (Error e = kj->jit->getMainJITDylib().define(absoluteSymbols(std::move(symbols))))
    return e;

  KernelJit *self = kj.get();
  kj->jit->getIRTransformLayer().setTransform(
      [self](ThreadSafeModule tsm, MaterializationResponsibility &) {
        return self->optimize(std::move(tsm));
      });
  return kj;
}

const DataLayout &KernelJit::getDataLayout() const { return jit->getDataLayout(); }
const Triple &KernelJit::getTargetTriple() const { return jit->getTargetTriple(); }
StringRef KernelJit::getCPU() const { return tm->getTargetCPU(); }
std::string KernelJit::getFeatures() const { return tm->getTargetFeatureString().str(); }

Expected<ThreadSafeModule> KernelJit::optimize(ThreadSafeModule tsm) {
  tsm.withModuleDo([&](Module &m) {
    optimizeModule(m, *tm);
    if (keepIR) {
      std::string text;
      raw_string_ostream os(text);
      m.print(os, nullptr);
      std::lock_guard<std::mutex> lock(irMutex);
      irText += os.str();
    }
  });
  return tsm;
}

Error KernelJit::addModule(ThreadSafeModule tsm) { return jit->addIRModule(std::move(tsm)); }

Expected<void *> KernelJit::lookup(StringRef name) {
  Expected<ExecutorAddr> addr = jit->lookup(name);
  if (!addr)
    return addr.takeError();
  return addr->toPtr<void *>();
}

void KernelJit::printIR(raw_ostream &os) const {
  std::lock_guard<std::mutex> lock(irMutex);
  os << irText;
}

} // namespace hx
