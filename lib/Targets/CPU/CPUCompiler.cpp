//===- CPUCompiler.cpp - Kernels for the host CPU through ORC -------------===//
//
// addKernel:
//  1. signature(call) hits the cache: return the earlier id.
//  2. describeKernel gives the flattened static operand/result types; the
//     operator's kernel definition (lib/CodeGen) is emitted with a
//     CPUKernelBuilder into the pending llvm::Module as the external
//     function hx_k<id>_<op> (plus its outlined parallel bodies), then
//     verified. On any error the function is deleted and the error, which
//     names the operator, returned; the module stays valid.
// finalize: the pending module (one ThreadSafeContext of its own) gets the
// host's target-cpu/target-features on every function, goes to the JIT
// (which optimizes it at O3 as a whole) and each pending kernel is looked up.
// save/restore: the object files the JIT linked (KernelJit::keepObjects)
// with the kernel table, linked back into a new JIT without compiling.
//
//===----------------------------------------------------------------------===//

#include "hx/Targets/CPU/CPUCompiler.h"
#include "CPUKernelBuilder.h"
#include "hx/CodeGen/KernelDefs.h"
#include "hx/IR/Printer.h"
#include "hx/IR/TargetKind.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Support/ByteStream.h"
#include "hx/Targets/CPU/KernelJit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include <algorithm>
#include <unistd.h>

using namespace llvm;

namespace hx {

namespace {
struct KernelRecord {
  std::string symbol;
  std::string signature;
  KernelFn fn = nullptr;
};
} // namespace

/// The vector unit the JIT compiles for and the host's data caches.
/// The target kind whose kernels these are: the host's (`llvm`).
static const TargetKindInfo &hostKind() { return *defaultKindFor(DeviceType::CPU); }

static CPUMachineInfo machineInfo(const KernelJit &jit) {
  CPUMachineInfo mi;
  const Triple &t = jit.getTargetTriple();
  if (t.isX86()) {
    if (jit.hasFeature("avx512f")) {
      mi.lanes = 16;
      mi.registers = 32;
    } else if (jit.hasFeature("avx")) {
      mi.lanes = 8;
    }
    mi.fma = jit.hasFeature("fma");
  } else if (t.isAArch64()) {
    mi.registers = 32;
    mi.fma = true;
  }
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  mi.l1 = std::max<long>(0, sysconf(_SC_LEVEL1_DCACHE_SIZE));
  mi.l2 = std::max<long>(0, sysconf(_SC_LEVEL2_CACHE_SIZE));
  mi.l3 = std::max<long>(0, sysconf(_SC_LEVEL3_CACHE_SIZE));
#endif
  return mi;
}

struct CPUCompiler::Impl {
  CPUCompilerOptions opts;
  CPUMachineInfo machine;
  std::unique_ptr<KernelJit> jit;
  std::vector<KernelRecord> kernels;
  StringMap<unsigned> cache;
  // The module being filled by addKernel, compiled by finalize.
  std::unique_ptr<LLVMContext> pendingCtx;
  std::unique_ptr<llvm::Module> pendingModule;
  std::vector<unsigned> pendingIds;
  unsigned numModules = 0;

  llvm::Module &getPendingModule();
};

llvm::Module &CPUCompiler::Impl::getPendingModule() {
  if (!pendingModule) {
    pendingCtx = std::make_unique<LLVMContext>();
    pendingModule =
        std::make_unique<llvm::Module>("hx_kernels_" + std::to_string(numModules++), *pendingCtx);
    pendingModule->setDataLayout(jit->getDataLayout());
    pendingModule->setTargetTriple(jit->getTargetTriple().str());
  }
  return *pendingModule;
}

CPUCompiler::CPUCompiler() = default;
CPUCompiler::~CPUCompiler() = default;

Expected<std::unique_ptr<CPUCompiler>> CPUCompiler::create(CPUCompilerOptions opts) {
  if (!opts.parallelFor)
    opts.parallelFor = serialParallelFor;
  Expected<std::unique_ptr<KernelJit>> jit =
      KernelJit::create(opts.parallelFor, opts.keepIR, opts.extraFeatures, opts.cpu);
  if (!jit)
    return createStringError("cannot create the CPU JIT: " + toString(jit.takeError()));
  std::unique_ptr<CPUCompiler> c(new CPUCompiler());
  c->impl = std::make_unique<Impl>();
  c->impl->opts = opts;
  c->impl->jit = std::move(*jit);
  c->impl->machine = machineInfo(*c->impl->jit);
  if (opts.keepObjects)
    c->impl->jit->keepObjects();
  return c;
}

bool CPUCompiler::supports(const OpDef &op) {
  return hostKind().supports(op) && lookupKernelGenerator(op.name) != nullptr;
}

std::string CPUCompiler::signature(const Call &call) {
  return kernelSignature(call, /*withBuildTimeOperands=*/true);
}

Expected<unsigned> CPUCompiler::addKernel(const Call &call) {
  std::string sig = signature(call);
  if (auto it = impl->cache.find(sig); it != impl->cache.end())
    return it->second;

  Expected<KernelSpec> spec = describeKernelFor(call, hostKind(), "CPU");
  if (!spec)
    return spec.takeError();

  llvm::Module &m = impl->getPendingModule();
  unsigned id = unsigned(impl->kernels.size());
  std::string symbol = kernelSymbol(id, spec->opName());
  CPUKernelBuilder kb(m, symbol, spec->numBuffers(), impl->opts.minParallelWork, impl->machine);
  if (Error e = emitKernel(kb, *spec)) {
    kb.discard();
    return e;
  }
  kb.finish();
  for (llvm::Function *f : kb.functions()) {
    std::string msg;
    raw_string_ostream os(msg);
    if (verifyFunction(*f, &os)) {
      kb.discard();
      return createStringError(
          spec->opName() +
          ": internal error: the generated kernel is invalid LLVM IR: " + os.str());
    }
  }
  impl->kernels.push_back({symbol, sig, nullptr});
  impl->pendingIds.push_back(id);
  impl->cache[sig] = id;
  return id;
}

Error CPUCompiler::finalize() {
  if (!impl->pendingModule)
    return Error::success();
  std::unique_ptr<llvm::Module> m = std::move(impl->pendingModule);
  std::unique_ptr<LLVMContext> ctx = std::move(impl->pendingCtx);
  std::vector<unsigned> ids = std::move(impl->pendingIds);
  impl->pendingIds.clear();

  StringRef cpu = impl->jit->getCPU();
  std::string features = impl->jit->getFeatures();
  for (llvm::Function &f : *m) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", cpu);
    if (!features.empty())
      f.addFnAttr("target-features", features);
  }

  auto fail = [&](Error e) {
    for (unsigned id : ids)
      impl->cache.erase(impl->kernels[id].signature);
    return createStringError("cannot compile the CPU kernels: " + toString(std::move(e)));
  };
  if (Error e = impl->jit->addModule(orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    return fail(std::move(e));
  for (unsigned id : ids) {
    Expected<void *> addr = impl->jit->lookup(impl->kernels[id].symbol);
    if (!addr)
      return fail(addr.takeError());
    impl->kernels[id].fn = reinterpret_cast<KernelFn>(*addr);
  }
  return Error::success();
}

KernelFn CPUCompiler::lookup(unsigned id) const {
  return id < impl->kernels.size() ? impl->kernels[id].fn : nullptr;
}

unsigned CPUCompiler::numKernels() const { return unsigned(impl->kernels.size()); }
unsigned CPUCompiler::numPending() const { return unsigned(impl->pendingIds.size()); }

StringRef CPUCompiler::kernelName(unsigned id) const {
  return id < impl->kernels.size() ? StringRef(impl->kernels[id].symbol) : StringRef();
}

void CPUCompiler::printLLVM(raw_ostream &os) const { impl->jit->printIR(os); }

/// Marks what save writes, so that restore tells it from other bytes.
static constexpr StringLiteral kSaveTag = "hx cpu kernels 1";

Error CPUCompiler::save(std::string &out) const {
  if (impl->pendingModule)
    return createStringError("the cpu kernels are not all compiled yet");
  if (!impl->opts.keepObjects && !impl->kernels.empty())
    return createStringError("the cpu kernels' object code was not kept");
  ByteWriter w(out);
  w.bytes(kSaveTag);
  w.bytes(impl->jit->getTargetTriple().str());
  w.bytes(impl->jit->getCPU());
  w.bytes(impl->jit->getFeatures());
  w.u32(impl->kernels.size());
  for (const KernelRecord &k : impl->kernels) {
    w.bytes(k.symbol);
    w.bytes(k.signature);
  }
  impl->jit->writeObjects(out);
  return Error::success();
}

/// The `+feature`s of a target feature string that the host lacks.
static std::string missingHostFeatures(StringRef features) {
  StringMap<bool> host = sys::getHostCPUFeatures();
  std::string missing;
  SmallVector<StringRef, 64> list;
  features.split(list, ',', -1, /*KeepEmpty=*/false);
  for (StringRef f : list) {
    if (!f.consume_front("+"))
      continue;
    auto it = host.find(f);
    if (it != host.end() && !it->second)
      missing += (missing.empty() ? "" : ", ") + f.str();
  }
  return missing;
}

Error CPUCompiler::restore(StringRef saved) {
  if (!impl->kernels.empty() || impl->pendingModule)
    return createStringError("saved cpu kernels go into a compiler without kernels");
  ByteReader r(saved);
  auto corrupt = [] {
    return createStringError("the saved cpu kernels are truncated or corrupted");
  };
  if (r.bytes() != kSaveTag)
    return corrupt();
  StringRef triple = r.bytes(), cpu = r.bytes(), features = r.bytes();
  if (!r.ok())
    return corrupt();
  if (triple != impl->jit->getTargetTriple().str())
    return createStringError("the cpu code is for " + triple + ", and this host is " +
                             impl->jit->getTargetTriple().str());
  if (std::string missing = missingHostFeatures(features); !missing.empty())
    return createStringError("the cpu code was compiled for " + cpu +
                             " and needs CPU features this host (" + sys::getHostCPUName() +
                             ") lacks: " + missing);
  std::vector<KernelRecord> kernels(r.count(16));
  for (KernelRecord &k : kernels) {
    k.symbol = r.bytes().str();
    k.signature = r.bytes().str();
  }
  if (!r.ok())
    return corrupt();
  if (Error e = impl->jit->addObjects(r, "cpu"))
    return e;
  for (KernelRecord &k : kernels) {
    Expected<void *> addr = impl->jit->lookup(k.symbol);
    if (!addr)
      return createStringError("cannot load the saved cpu kernels: " + toString(addr.takeError()));
    k.fn = reinterpret_cast<KernelFn>(*addr);
    if (!impl->cache.try_emplace(k.signature, unsigned(impl->kernels.size())).second)
      return corrupt();
    impl->kernels.push_back(std::move(k));
  }
  return Error::success();
}

} // namespace hx
