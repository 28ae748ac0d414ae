//===- GPUCompiler.cpp - PTX kernels for NVIDIA GPUs ----------------------===//
//
// addKernel: the signature cache, then the operator's kernel definition
// emitted with a GPUKernelBuilder into the pending module (a failed kernel
// is deleted; the module stays valid). The kernel's launch bound
// (maxntidx = kBlockDim) goes into !nvvm.annotations so that registers are
// allocated for a full block.
//
// finalize, one pending module -> one PTX module:
//  1. libdevice, only when a __nv_* function is called: parsed, given the
//     module's triple and data layout, linked with LinkOnlyNeeded (a
//     one-line kernel stays small), "nvvm-reflect-ftz" = 0 (IEEE denormals).
//  2. Everything but the kernels becomes internal, so the optimizer inlines
//     libdevice and drops what is unused.
//  3. The O3 pipeline of a NVPTX TargetMachine for the architecture (its
//     callbacks add NVVMReflect and the NVPTX passes), then the NVPTX
//     AsmPrinter prints PTX.
// Emulating, the pending module has the host JIT's triple and data layout,
// each kernel gets a host entry (KernelABI's signature), and finalize only
// keeps the module for takeEmulationModule.
//
//===----------------------------------------------------------------------===//

#include "hx/Targets/GPU/GPUCompiler.h"
#include "GPUKernelBuilder.h"
#include "hx/CodeGen/KernelDefs.h"
#include "hx/CodeGen/Optimize.h"
#include "hx/IR/TargetKind.h"
#include "hx/Ops/OpRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include <cstdlib>
#include <deque>
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

/// The target kind whose kernels these are.
static const TargetKindInfo &cudaKind() { return *lookupTargetKind("cuda"); }
static constexpr const char *kDefaultLibdevice = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";

namespace {
struct KernelRecord {
  GPUKernelInfo info;
  std::string signature;
};
} // namespace

struct GPUCompiler::Impl {
  GPUCompilerOptions opts;
  std::unique_ptr<TargetMachine> tm;
  std::vector<KernelRecord> kernels;
  StringMap<unsigned> cache;
  /// A deque: a module's text never moves, so the cuda backend's kernels
  /// may point at it across later finalize() calls.
  std::deque<std::string> ptx;
  std::vector<std::string> ir;
  std::vector<orc::ThreadSafeModule> emulated;
  bool emulate() const { return !opts.emulationTriple.empty(); }
  std::unique_ptr<LLVMContext> pendingCtx;
  std::unique_ptr<llvm::Module> pendingModule;
  std::vector<unsigned> pendingIds;

  llvm::Module &getPendingModule() {
    if (!pendingModule) {
      pendingCtx = std::make_unique<LLVMContext>();
      pendingModule =
          std::make_unique<llvm::Module>("hx_ptx_" + std::to_string(ptx.size()), *pendingCtx);
      if (emulate()) {
        pendingModule->setTargetTriple(opts.emulationTriple);
        pendingModule->setDataLayout(opts.emulationDataLayout);
      } else {
        pendingModule->setTargetTriple(kTriple);
        pendingModule->setDataLayout(tm->createDataLayout());
      }
    }
    return *pendingModule;
  }
  Error linkLibdevice(llvm::Module &m);
};

GPUCompiler::GPUCompiler() = default;
GPUCompiler::~GPUCompiler() = default;

Expected<std::unique_ptr<GPUCompiler>> GPUCompiler::create(GPUCompilerOptions opts) {
  if (!opts.emulationTriple.empty()) {
    std::unique_ptr<GPUCompiler> c(new GPUCompiler());
    c->impl = std::make_unique<Impl>();
    c->impl->opts = std::move(opts);
    return c;
  }
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
  std::unique_ptr<GPUCompiler> c(new GPUCompiler());
  c->impl = std::make_unique<Impl>();
  c->impl->opts = std::move(opts);
  c->impl->tm = std::move(tm);
  return c;
}

std::string GPUCompiler::defaultLibdevicePath() {
  const char *env = std::getenv("HX_LIBDEVICE");
  return env && *env ? env : kDefaultLibdevice;
}

bool GPUCompiler::supports(const OpDef &op) {
  return cudaKind().supports(op) && lookupKernelGenerator(op.name) != nullptr;
}

/// `void <kernel>.host(ptr buffers, ptr launch)`: KernelABI's entry, which
/// calls the emulated kernel with buffers[0..n).
static void addHostEntry(llvm::Function &kernel) {
  LLVMContext &ctx = kernel.getContext();
  llvm::Type *ptr = PointerType::getUnqual(ctx);
  auto *ty = FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  auto *entry = llvm::Function::Create(ty, GlobalValue::ExternalLinkage, kernel.getName() + ".host",
                                       kernel.getParent());
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", entry));
  SmallVector<Value *, 8> args;
  for (unsigned i = 0; i < kernel.arg_size(); ++i)
    args.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), i)));
  b.CreateCall(&kernel, args);
  b.CreateRetVoid();
}

Expected<unsigned> GPUCompiler::addKernel(const Call &call) {
  std::string sig = kernelSignature(call);
  if (auto it = impl->cache.find(sig); it != impl->cache.end())
    return it->second;
  Expected<KernelSpec> spec = describeKernelFor(call, cudaKind(), "CUDA");
  if (!spec)
    return spec.takeError();

  llvm::Module &m = impl->getPendingModule();
  unsigned id = unsigned(impl->kernels.size());
  std::string symbol = kernelSymbol(id, spec->opName());
  GPUKernelBuilder kb(m, symbol, spec->numBuffers(), impl->emulate());
  Error e = emitKernel(kb, *spec);
  if (!e && !kb.error().empty())
    e = unsupported(kb, *spec, kb.error());
  if (e) {
    kb.discard();
    return e;
  }
  kb.finish();
  std::string msg;
  raw_string_ostream os(msg);
  if (verifyFunction(*kb.function(), &os)) {
    kb.discard();
    return createStringError(
        spec->opName() +
        ": internal error: the generated cuda kernel is invalid LLVM IR: " + os.str());
  }
  LLVMContext &ctx = m.getContext();
  if (impl->emulate())
    addHostEntry(*kb.function());
  else {
    NamedMDNode *annotations = m.getOrInsertNamedMetadata("nvvm.annotations");
    auto annotate = [&](StringRef key, unsigned v) {
      annotations->addOperand(MDNode::get(
          ctx, {ValueAsMetadata::get(kb.function()), MDString::get(ctx, key),
                ValueAsMetadata::get(ConstantInt::get(llvm::Type::getInt32Ty(ctx), v))}));
    };
    annotate("maxntidx", kBlockDim);
    // A tiled contraction holds its sums in registers: ask ptxas to fit at
    // least two blocks on an SM (one block's global loads overlap the
    // other's multiply-adds); at most 65536 / (2 * kBlockDim) = 128
    // registers per thread for the largest tiles, fewer for smaller ones.
    if (kb.usesBarrier() && kb.minBlocksPerSM())
      annotate("minctasm", kb.minBlocksPerSM());
  }
  KernelRecord r;
  r.info.module = numModules();
  r.info.symbol = symbol;
  r.info.gridDim = kb.gridDim();
  r.info.usesBarrier = kb.usesBarrier();
  r.info.numBuffers = spec->numBuffers();
  r.signature = sig;
  impl->kernels.push_back(std::move(r));
  impl->pendingIds.push_back(id);
  impl->cache[sig] = id;
  return id;
}

Error GPUCompiler::Impl::linkLibdevice(llvm::Module &m) {
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

Error GPUCompiler::finalize() {
  if (!impl->pendingModule)
    return Error::success();
  // The context outlives its module.
  std::unique_ptr<LLVMContext> ctx = std::move(impl->pendingCtx);
  std::unique_ptr<llvm::Module> m = std::move(impl->pendingModule);
  std::vector<unsigned> ids = std::move(impl->pendingIds);
  impl->pendingIds.clear();
  auto fail = [&](const Twine &what) {
    for (unsigned id : ids)
      impl->cache.erase(impl->kernels[id].signature);
    return createStringError("cannot compile the cuda kernels: " + what);
  };

  if (impl->emulate()) {
    impl->emulated.emplace_back(std::move(m), std::move(ctx));
    return Error::success();
  }
  if (Error e = impl->linkLibdevice(*m))
    return fail(toString(std::move(e)));
  for (llvm::Function &f : *m)
    if (!f.isDeclaration() && f.getCallingConv() != CallingConv::PTX_Kernel)
      f.setLinkage(GlobalValue::InternalLinkage);
  for (GlobalVariable &g : m->globals())
    if (!g.isDeclaration())
      g.setLinkage(GlobalValue::InternalLinkage);

  optimizeModule(*m, *impl->tm);
  if (impl->opts.keepIR) {
    std::string text;
    raw_string_ostream os(text);
    m->print(os, nullptr);
    impl->ir.push_back(std::move(text));
  }
  SmallString<0> out;
  {
    raw_svector_ostream os(out);
    legacy::PassManager pm;
    if (impl->tm->addPassesToEmitFile(pm, os, nullptr, CodeGenFileType::AssemblyFile))
      return fail("the NVPTX target cannot emit PTX");
    pm.run(*m);
  }
  impl->ptx.push_back(std::string(out.str()));
  return Error::success();
}

unsigned GPUCompiler::numKernels() const { return unsigned(impl->kernels.size()); }
const GPUKernelInfo &GPUCompiler::kernel(unsigned id) const { return impl->kernels[id].info; }
unsigned GPUCompiler::numModules() const {
  return unsigned(impl->emulate() ? impl->emulated.size() : impl->ptx.size());
}
orc::ThreadSafeModule GPUCompiler::takeEmulationModule(unsigned module) {
  return std::move(impl->emulated[module]);
}
const std::string &GPUCompiler::ptx(unsigned module) const { return impl->ptx[module]; }
StringRef GPUCompiler::arch() const { return impl->opts.arch; }

void GPUCompiler::printPTX(raw_ostream &os) const {
  for (const std::string &p : impl->ptx)
    os << p;
}

void GPUCompiler::printLLVM(raw_ostream &os) const {
  for (const std::string &t : impl->ir)
    os << t;
}

} // namespace hx
