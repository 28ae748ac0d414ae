//===- GPUCompiler.cpp - Kernels for a GPU from the kernel definitions ----===//
//
// addKernel: the signature cache, then the operator's kernel definition
// emitted with a GPUKernelBuilder into the pending module (a failed kernel
// is deleted; the module stays valid), verified, and finished by the
// architecture (its launch bounds, or a host entry).
//
// finalize: the pending module, with its context, to the architecture
// (GPUArch::finishModule: PTX, or kept for the emulator's JIT). When that
// fails, its kernels leave the cache, so that adding them again compiles
// them again.
//
// save/restore: the kernel table (info and signature per kernel) and what
// the architecture keeps of each module, for a compiled model file.
//
//===----------------------------------------------------------------------===//

#include "hx/Targets/GPU/GPUCompiler.h"
#include "hx/CodeGen/KernelDefs.h"
#include "hx/Support/ByteStream.h"
#include "hx/Targets/GPU/GPUArch.h"
#include "hx/Targets/GPU/GPUKernelBuilder.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace hx {

namespace {
struct KernelRecord {
  GPUKernelInfo info;
  std::string signature;
};
} // namespace

struct GPUCompiler::Impl {
  std::unique_ptr<GPUArch> arch;
  std::vector<KernelRecord> kernels;
  StringMap<unsigned> cache;
  unsigned modules = 0;
  std::unique_ptr<LLVMContext> pendingCtx;
  std::unique_ptr<llvm::Module> pendingModule;
  std::vector<unsigned> pendingIds;

  llvm::Module &getPendingModule() {
    if (!pendingModule) {
      pendingCtx = std::make_unique<LLVMContext>();
      pendingModule =
          std::make_unique<llvm::Module>("hx_ptx_" + std::to_string(modules), *pendingCtx);
      arch->initModule(*pendingModule);
    }
    return *pendingModule;
  }
};

GPUCompiler::GPUCompiler(std::unique_ptr<GPUArch> arch) : impl(std::make_unique<Impl>()) {
  impl->arch = std::move(arch);
}

GPUCompiler::~GPUCompiler() = default;

std::unique_ptr<GPUCompiler> GPUCompiler::create(std::unique_ptr<GPUArch> arch) {
  return std::unique_ptr<GPUCompiler>(new GPUCompiler(std::move(arch)));
}

const GPUArch &GPUCompiler::architecture() const { return *impl->arch; }
GPUArch &GPUCompiler::architecture() { return *impl->arch; }

bool GPUCompiler::supports(const OpDef &op) const {
  return impl->arch->kind().supports(op) && lookupKernelGenerator(op.name) != nullptr;
}

Expected<unsigned> GPUCompiler::addKernel(const Call &call) {
  std::string sig = kernelSignature(call);
  if (auto it = impl->cache.find(sig); it != impl->cache.end())
    return it->second;
  const GPUArch &arch = *impl->arch;
  Expected<KernelSpec> spec = describeKernelFor(call, arch.kind(), arch.name());
  if (!spec)
    return spec.takeError();

  llvm::Module &m = impl->getPendingModule();
  unsigned id = unsigned(impl->kernels.size());
  std::string symbol = kernelSymbol(id, spec->opName());
  GPUKernelBuilder kb(m, symbol, spec->numBuffers(), arch);
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
    return createStringError(spec->opName() + ": internal error: the generated " +
                             arch.kind().name + " kernel is invalid LLVM IR: " + os.str());
  }
  arch.finishKernel(*kb.function(), kb);
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

Error GPUCompiler::finalize() {
  if (!impl->pendingModule)
    return Error::success();
  std::vector<unsigned> ids = std::move(impl->pendingIds);
  impl->pendingIds.clear();
  // The module goes with its context, which outlives it.
  orc::ThreadSafeModule module(std::move(impl->pendingModule), std::move(impl->pendingCtx));
  if (Error e = impl->arch->finishModule(std::move(module))) {
    for (unsigned id : ids)
      impl->cache.erase(impl->kernels[id].signature);
    return createStringError("cannot compile the " + impl->arch->kind().name +
                             " kernels: " + toString(std::move(e)));
  }
  ++impl->modules;
  return Error::success();
}

Error GPUCompiler::save(std::string &out) const {
  if (impl->pendingModule)
    return createStringError("the " + impl->arch->kind().name +
                             " kernels are not all compiled yet");
  ByteWriter w(out);
  w.u32(impl->kernels.size());
  for (const KernelRecord &k : impl->kernels) {
    w.u32(k.info.module);
    w.bytes(k.info.symbol);
    w.u32(k.info.gridDim);
    w.u32(k.info.usesBarrier);
    w.u32(k.info.numBuffers);
    w.bytes(k.signature);
  }
  w.u32(impl->modules);
  for (unsigned m = 0; m < impl->modules; ++m)
    w.bytes(impl->arch->savedModule(m));
  return Error::success();
}

bool GPUCompiler::restore(ByteReader &r) {
  if (!impl->kernels.empty() || impl->pendingModule)
    return false;
  std::vector<KernelRecord> kernels(r.count(32));
  for (KernelRecord &k : kernels) {
    k.info.module = r.u32();
    k.info.symbol = r.bytes().str();
    k.info.gridDim = r.u32();
    k.info.usesBarrier = r.u32() != 0;
    k.info.numBuffers = r.u32();
    k.signature = r.bytes().str();
  }
  std::vector<StringRef> modules(r.count(8));
  for (StringRef &m : modules)
    m = r.bytes();
  if (!r.ok())
    return false;
  for (KernelRecord &k : kernels) {
    if (k.info.module >= modules.size() || k.info.gridDim == 0 ||
        !impl->cache.try_emplace(k.signature, unsigned(impl->kernels.size())).second)
      return false;
    impl->kernels.push_back(std::move(k));
  }
  for (StringRef m : modules)
    impl->arch->restoreModule(m);
  impl->modules = unsigned(modules.size());
  return true;
}

unsigned GPUCompiler::numKernels() const { return unsigned(impl->kernels.size()); }
unsigned GPUCompiler::numPending() const { return unsigned(impl->pendingIds.size()); }
const GPUKernelInfo &GPUCompiler::kernel(unsigned id) const { return impl->kernels[id].info; }
unsigned GPUCompiler::numModules() const { return impl->modules; }

} // namespace hx
