//===- NVPTXArch.h - The shared GPU lowering's hooks for NVPTX --*- C++ -*-===//
//
// Private to lib/Targets/CUDA. The GPUArch of the cuda target:
//  - the special registers are llvm.nvvm.read.ptx.sreg.{tid,ctaid,nctaid}.x,
//    the barrier llvm.nvvm.barrier0, shared arrays internal globals in
//    address space 3, kernels have the PTX_Kernel calling convention;
//  - math functions are libdevice's (__nv_expf, __nv_exp, ...);
//  - a finished kernel's launch bound (maxntidx = kBlockDim) goes into
//    !nvvm.annotations, so that registers are allocated for a full block,
//    and a tiled contraction's blocks per multiprocessor (minctasm);
//  - a finished module becomes PTX:
//     1. libdevice, only when a __nv_* function is called: parsed, given
//        the module's triple and data layout, linked with LinkOnlyNeeded (a
//        one-line kernel stays small), "nvvm-reflect-ftz" = 0 (IEEE
//        denormals);
//     2. everything but the kernels becomes internal, so the optimizer
//        inlines libdevice and drops what is unused;
//     3. the O3 pipeline of a NVPTX TargetMachine for the architecture (its
//        callbacks add NVVMReflect and the NVPTX passes), then the NVPTX
//        AsmPrinter prints PTX.
// The numbers are cudaTuning()'s.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGETS_CUDA_NVPTXARCH_H
#define HX_LIB_TARGETS_CUDA_NVPTXARCH_H

#include "hx/Targets/CUDA/PTXCompiler.h"
#include "hx/Targets/GPU/GPUArch.h"
#include "llvm/Target/TargetMachine.h"
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace hx {

class NVPTXArch : public GPUArch {
public:
  /// Fails when LLVM has no NVPTX target or the architecture is unknown.
  static llvm::Expected<std::unique_ptr<NVPTXArch>> create(PTXCompilerOptions opts);
  static std::string defaultLibdevicePath();

  llvm::StringRef name() const override { return "CUDA"; }
  const TargetKindInfo &kind() const override;
  const GPUTuning &tuning() const override;
  void initModule(llvm::Module &m) const override;
  llvm::Error finishModule(llvm::orc::ThreadSafeModule module) override;
  std::string savedModule(unsigned module) const override { return modules[module]; }
  void restoreModule(llvm::StringRef saved) override { modules.push_back(saved.str()); }
  void initKernel(llvm::Function &kernel) const override;
  void finishKernel(llvm::Function &kernel, const GPUKernelBuilder &kb) const override;
  llvm::Value *specialRegister(llvm::IRBuilder<> &b, llvm::Module &m, GPURegister r) const override;
  void barrier(llvm::IRBuilder<> &b, llvm::Module &m, unsigned site) const override;
  llvm::GlobalVariable *sharedArray(llvm::Module &m, llvm::ArrayType *ty,
                                    const llvm::Twine &name) const override;
  llvm::StringRef mathFunction(MathFn fn, bool f32) const override;

  /// What the finished modules became, in order.
  const std::string &ptx(unsigned module) const { return modules[module]; }
  unsigned numModules() const { return unsigned(modules.size()); }
  llvm::StringRef arch() const { return opts.arch; }
  /// Every module's optimized LLVM IR (with PTXCompilerOptions::keepIR).
  llvm::ArrayRef<std::string> optimizedIR() const { return ir; }

private:
  NVPTXArch() = default;
  llvm::Error linkLibdevice(llvm::Module &m);

  PTXCompilerOptions opts;
  std::unique_ptr<llvm::TargetMachine> tm;
  /// A deque: a module's text never moves, so the cuda backend's kernels
  /// may point at it across later modules.
  std::deque<std::string> modules;
  std::vector<std::string> ir;
};

} // namespace hx

#endif
