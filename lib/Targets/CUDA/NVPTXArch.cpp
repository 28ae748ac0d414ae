//===- NVPTXArch.cpp - The shared GPU lowering's hooks for NVPTX ----------===//
//
// See NVPTXArch.h.
//
//===----------------------------------------------------------------------===//
#include "NVPTXArch.h"
#include "hx/CodeGen/Optimize.h"
#include "hx/Targets/CUDA/CUDATuning.h"
#include "hx/Targets/GPU/GPUKernelBuilder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <mutex>

using namespace llvm;

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace hx {

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";
static constexpr const char *kDefaultLibdevice = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";

Expected<std::unique_ptr<NVPTXArch>> NVPTXArch::create(PTXCompilerOptions opts) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string err;
  const llvm::Target *target = TargetRegistry::lookupTarget(kTriple, err);
  if (!target)
    return createStringError("the cuda code generator: LLVM has no NVPTX target: " + err);
  StringRef arch = opts.arch;
  unsigned sm = 0;
  if (!arch.consume_front("sm_") || arch.consumeInteger(10, sm) || !(arch.empty() || arch == "a") ||
      sm < 50)
    return createStringError("the cuda code generator: unknown architecture '" + opts.arch +
                             "' (expected sm_NN, e.g. sm_80 or sm_90)");
  std::unique_ptr<MCSubtargetInfo> sti(target->createMCSubtargetInfo(kTriple, opts.arch, ""));
  if (!sti || !sti->isCPUStringValid(opts.arch))
    return createStringError("the cuda code generator: LLVM's NVPTX target does not know '" +
                             opts.arch + "'");
  TargetOptions to;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      kTriple, opts.arch, "", to, Reloc::PIC_, std::nullopt, CodeGenOptLevel::Aggressive));
  if (!tm)
    return createStringError("the cuda code generator: cannot create a target machine for " +
                             opts.arch);
  if (opts.libdevicePath.empty())
    opts.libdevicePath = defaultLibdevicePath();
  std::unique_ptr<NVPTXArch> a(new NVPTXArch());
  a->opts = std::move(opts);
  a->tm = std::move(tm);
  return a;
}

std::string NVPTXArch::defaultLibdevicePath() {
  const char *env = std::getenv("HX_LIBDEVICE");
  return env && *env ? env : kDefaultLibdevice;
}

const TargetKindInfo &NVPTXArch::kind() const { return *lookupTargetKind("cuda"); }

const GPUTuning &NVPTXArch::tuning() const { return cudaTuning(); }

void NVPTXArch::initModule(llvm::Module &m) const {
  m.setTargetTriple(kTriple);
  m.setDataLayout(tm->createDataLayout());
}

void NVPTXArch::initKernel(llvm::Function &kernel) const {
  kernel.setCallingConv(CallingConv::PTX_Kernel);
}

void NVPTXArch::finishKernel(llvm::Function &kernel, const GPUKernelBuilder &kb) const {
  LLVMContext &ctx = kernel.getContext();
  NamedMDNode *annotations = kernel.getParent()->getOrInsertNamedMetadata("nvvm.annotations");
  auto annotate = [&](StringRef key, unsigned v) {
    annotations->addOperand(
        MDNode::get(ctx, {ValueAsMetadata::get(&kernel), MDString::get(ctx, key),
                          ValueAsMetadata::get(ConstantInt::get(llvm::Type::getInt32Ty(ctx), v))}));
  };
  annotate("maxntidx", GPUCompiler::kBlockDim);
  // A tiled contraction holds its sums in registers: ask ptxas to fit at
  // least two blocks on an SM (one block's global loads overlap the
  // other's multiply-adds); at most 65536 / (2 * kBlockDim) = 128
  // registers per thread for the largest tiles, fewer for smaller ones.
  if (kb.usesBarrier() && kb.minBlocksPerSM())
    annotate("minctasm", kb.minBlocksPerSM());
}

Value *NVPTXArch::specialRegister(IRBuilder<> &b, llvm::Module &, GPURegister r) const {
  Intrinsic::ID id = r == GPURegister::ThreadIndex  ? Intrinsic::nvvm_read_ptx_sreg_tid_x
                     : r == GPURegister::BlockIndex ? Intrinsic::nvvm_read_ptx_sreg_ctaid_x
                                                    : Intrinsic::nvvm_read_ptx_sreg_nctaid_x;
  return b.CreateIntrinsic(id, {}, {});
}

void NVPTXArch::barrier(IRBuilder<> &b, llvm::Module &, unsigned) const {
  b.CreateIntrinsic(Intrinsic::nvvm_barrier0, {}, {});
}

GlobalVariable *NVPTXArch::sharedArray(llvm::Module &m, ArrayType *ty, const Twine &name) const {
  return new GlobalVariable(m, ty, /*isConstant=*/false, GlobalValue::InternalLinkage,
                            UndefValue::get(ty), name, nullptr, GlobalValue::NotThreadLocal,
                            /*AddressSpace=*/3);
}

StringRef NVPTXArch::mathFunction(MathFn fn, bool f32) const {
  switch (fn) {
  case MathFn::Exp:
    return f32 ? "__nv_expf" : "__nv_exp";
  case MathFn::Log:
    return f32 ? "__nv_logf" : "__nv_log";
  case MathFn::Tanh:
    return f32 ? "__nv_tanhf" : "__nv_tanh";
  case MathFn::Pow:
    return f32 ? "__nv_powf" : "__nv_pow";
  case MathFn::Erf:
    return f32 ? "__nv_erff" : "__nv_erf";
  case MathFn::Sin:
    return f32 ? "__nv_sinf" : "__nv_sin";
  case MathFn::Cos:
    return f32 ? "__nv_cosf" : "__nv_cos";
  case MathFn::Tan:
    return f32 ? "__nv_tanf" : "__nv_tan";
  case MathFn::Asin:
    return f32 ? "__nv_asinf" : "__nv_asin";
  case MathFn::Acos:
    return f32 ? "__nv_acosf" : "__nv_acos";
  case MathFn::Atan:
    return f32 ? "__nv_atanf" : "__nv_atan";
  case MathFn::Sinh:
    return f32 ? "__nv_sinhf" : "__nv_sinh";
  case MathFn::Cosh:
    return f32 ? "__nv_coshf" : "__nv_cosh";
  case MathFn::Asinh:
    return f32 ? "__nv_asinhf" : "__nv_asinh";
  case MathFn::Acosh:
    return f32 ? "__nv_acoshf" : "__nv_acosh";
  case MathFn::Atanh:
    return f32 ? "__nv_atanhf" : "__nv_atanh";
  default:
    return "";
  }
}

Error NVPTXArch::linkLibdevice(llvm::Module &m) {
  bool needed = llvm::any_of(m.functions(), [](const llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (!needed)
    return Error::success();
  auto buf = MemoryBuffer::getFile(opts.libdevicePath);
  if (!buf)
    return createStringError("cannot read CUDA's libdevice '" + opts.libdevicePath + "': " +
                             buf.getError().message() + " (set HX_LIBDEVICE to libdevice.10.bc)");
  Expected<std::unique_ptr<llvm::Module>> lib = parseBitcodeFile(**buf, m.getContext());
  if (!lib)
    return createStringError("cannot parse CUDA's libdevice '" + opts.libdevicePath +
                             "': " + toString(lib.takeError()));
  (*lib)->setTargetTriple(m.getTargetTriple());
  (*lib)->setDataLayout(m.getDataLayout());
  if (Linker::linkModules(m, std::move(*lib), Linker::LinkOnlyNeeded))
    return createStringError("cannot link CUDA's libdevice '" + opts.libdevicePath + "'");
  m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return Error::success();
}

Error NVPTXArch::finishModule(orc::ThreadSafeModule module) {
  return module.withModuleDo([&](llvm::Module &m) -> Error {
    if (Error e = linkLibdevice(m))
      return e;
    for (llvm::Function &f : m)
      if (!f.isDeclaration() && f.getCallingConv() != CallingConv::PTX_Kernel)
        f.setLinkage(GlobalValue::InternalLinkage);
    for (GlobalVariable &g : m.globals())
      if (!g.isDeclaration())
        g.setLinkage(GlobalValue::InternalLinkage);

    optimizeModule(m, *tm);
    if (opts.keepIR) {
      std::string text;
      raw_string_ostream os(text);
      m.print(os, nullptr);
      ir.push_back(std::move(text));
    }
    SmallString<0> out;
    {
      raw_svector_ostream os(out);
      legacy::PassManager pm;
      if (tm->addPassesToEmitFile(pm, os, nullptr, CodeGenFileType::AssemblyFile))
        return createStringError("the NVPTX target cannot emit PTX");
      pm.run(m);
    }
    modules.push_back(std::string(out.str()));
    return Error::success();
  });
}

} // namespace hx
