//===- KernelJit.cpp - ORC LLJIT with the O3 pipeline for the host --------===//
//
// 1. Native target initialization, once per process (std::call_once).
// 2. detectHost() -> a TargetMachine for the optimizer (CodeGenOpt
//    Aggressive) and the LLJIT, which builds its own for code generation.
// 3. hx_parallel_for defined with absoluteSymbols, and the half conversion
//    libcalls (__extendhfsf2, __truncsfhf2, __truncdfhf2) that x86 code
//    generation emits for float16 kernels on a CPU without F16C (LLVM 19
//    passes half in an SSE register, as GCC and Clang pass _Float16): hx's
//    own, so that they resolve whatever runtime library the process has.
// 4. keepObjects: an object transform that copies each object file on its
//    way to the linker (a compiled model file holds them; addObject links
//    them back without running the code generator).
// 5. The IR transform: PassBuilder(TM), TargetIRAnalysis registered first,
//    buildPerModuleDefaultPipeline(O3); the result printed into irText when
//    keepIR is set.
//
//===----------------------------------------------------------------------===//

#include "hx/Targets/CPU/KernelJit.h"
#include "hx/CodeGen/Optimize.h"
#include "hx/Support/ByteStream.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/ObjectTransformLayer.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;
using namespace llvm::orc;

namespace hx {

#ifdef __FLT16_MAX__ // the compiler has _Float16 (x86-64 with SSE2, AArch64)

/// Round to nearest even from a double's bits: exact for every double, so
/// __truncsfhf2 and __truncdfhf2 round once (no libgcc or compiler-rt call
/// and no dependency on the build host's F16C).
static uint16_t doubleToHalfBits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  uint16_t sign = uint16_t((bits >> 48) & 0x8000);
  uint64_t exp = (bits >> 52) & 0x7ff, frac = bits & ((uint64_t(1) << 52) - 1);
  if (exp == 0x7ff) // inf, NaN (quiet, keeping the top payload bits)
    return uint16_t(sign | 0x7c00 | (frac ? 0x200 | (frac >> 42) : 0));
  int e = int(exp) - 1023 + 15; // the biased half exponent
  if (exp == 0 || e < -11)
    return sign;                              // zero, or below half the smallest half subnormal
  uint64_t mant = frac | (uint64_t(1) << 52); // 53 significant bits
  // A normal half keeps 11 significant bits (shift 42); a subnormal fewer.
  int shift = e >= 1 ? 42 : 42 + (1 - e);
  uint64_t q = mant >> shift, rem = mant & ((uint64_t(1) << shift) - 1);
  uint64_t halfway = uint64_t(1) << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1)))
    ++q; // may carry into the exponent, up to inf: still the right bits
  if (e >= 1) {
    if (e >= 31)
      return uint16_t(sign | 0x7c00);
    return uint16_t(sign | ((uint64_t(e) << 10) + (q - 0x400)));
  }
  return uint16_t(sign | q);
}

static _Float16 halfFromBits(uint16_t h) {
  _Float16 f;
  std::memcpy(&f, &h, sizeof(f));
  return f;
}

static float hxExtendHalf(_Float16 x) {
  uint16_t h;
  std::memcpy(&h, &x, sizeof(h));
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  float mag;
  if (exp == 0x1f) {
    uint32_t bits = 0x7f800000u | (frac << 13);
    std::memcpy(&mag, &bits, sizeof(mag));
  } else {
    mag = exp ? std::ldexp(float(frac | 0x400), int(exp) - 25) : std::ldexp(float(frac), -24);
  }
  uint32_t bits;
  std::memcpy(&bits, &mag, sizeof(bits));
  bits |= sign;
  std::memcpy(&mag, &bits, sizeof(mag));
  return mag;
}
static _Float16 hxTruncFloatToHalf(float x) { return halfFromBits(doubleToHalfBits(x)); }
static _Float16 hxTruncDoubleToHalf(double x) { return halfFromBits(doubleToHalfBits(x)); }

static void addHalfLibcalls(LLJIT &jit, SymbolMap &symbols) {
  auto add = [&](const char *name, void *fn) {
    symbols[jit.mangleAndIntern(name)] = {ExecutorAddr::fromPtr(fn),
                                          JITSymbolFlags::Exported | JITSymbolFlags::Callable};
  };
  add("__extendhfsf2", reinterpret_cast<void *>(&hxExtendHalf));
  add("__truncsfhf2", reinterpret_cast<void *>(&hxTruncFloatToHalf));
  add("__truncdfhf2", reinterpret_cast<void *>(&hxTruncDoubleToHalf));
}

#else

static void addHalfLibcalls(LLJIT &, SymbolMap &) {} // the process's own, if any

#endif

static void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    InitializeNativeTargetAsmParser();
  });
}

/// Checks that the host can run code for the CPU and features the JIT's
/// target machine builder now holds, and names the instruction-set features
/// it lacks (sys::getHostCPUFeatures lists those; tuning features do not
/// matter).
static Error checkHostRuns(const JITTargetMachineBuilder &want, StringRef cpu,
                           ArrayRef<StringRef> extraFeatures) {
  const Triple &triple = want.getTargetTriple();
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple.str(), error);
  if (!target)
    return createStringError(error);
  StringMap<bool> hostFeatures = sys::getHostCPUFeatures();
  SubtargetFeatures host;
  for (const auto &[name, on] : hostFeatures)
    host.AddFeature(name, on);
  std::unique_ptr<MCSubtargetInfo> hostInfo(
      target->createMCSubtargetInfo(triple.str(), sys::getHostCPUName(), host.getString()));
  if (!cpu.empty() && !hostInfo->isCPUStringValid(cpu))
    return createStringError("unknown CPU '" + cpu + "' for " + triple.getArchName() +
                             " (llvm -mcpu=NAME takes a CPU of the host's architecture)");
  // A feature LLVM does not know would only be warned about and ignored.
  for (StringRef f : extraFeatures) {
    StringRef name = f.ltrim("+-");
    if (!llvm::any_of(hostInfo->getAllProcessorFeatures(),
                      [&](const SubtargetFeatureKV &kv) { return name == kv.Key; }))
      return createStringError("unknown feature '" + name + "' for " + triple.getArchName() +
                               " (llvm -mattr=+NAME,-NAME takes features of the host's "
                               "architecture)");
  }
  std::unique_ptr<MCSubtargetInfo> wanted(
      target->createMCSubtargetInfo(triple.str(), want.getCPU(), want.getFeatures().getString()));
  std::string missing;
  for (const SubtargetFeatureKV &kv : wanted->getAllProcessorFeatures()) {
    auto it = hostFeatures.find(kv.Key);
    if (it != hostFeatures.end() && !it->second && wanted->getFeatureBits().test(kv.Value))
      missing += (missing.empty() ? "" : ", ") + std::string(kv.Key);
  }
  if (missing.empty())
    return Error::success();
  return createStringError("the host (" + sys::getHostCPUName() + ") lacks " + missing);
}

namespace {
/// With HX_PERF_MAP=1, every function the JIT links (kernels and their
/// outlined parallel bodies) is appended to /tmp/perf-PID.map as
/// "address size name", the file `perf report` reads to name JIT code.
class PerfMapPlugin : public ObjectLinkingLayer::Plugin {
public:
  void modifyPassConfig(MaterializationResponsibility &, jitlink::LinkGraph &,
                        jitlink::PassConfiguration &config) override {
    config.PostFixupPasses.emplace_back(&PerfMapPlugin::writeMap);
  }
  static Error writeMap(jitlink::LinkGraph &g) {
    std::string lines;
    for (jitlink::Symbol *sym : g.defined_symbols())
      if (sym->hasName() && sym->isCallable() && sym->getSize() > 0)
        lines += formatv("{0:x} {1:x} {2}\n", sym->getAddress().getValue(), sym->getSize(),
                         sym->getName())
                     .str();
    // One write with O_APPEND per linked object: JITs of several devices
    // append whole blocks of lines, never interleaved ones.
    std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      if (::write(fd, lines.data(), lines.size()) < 0) {
        // A profile aid: a map that cannot be written is left out.
      }
      ::close(fd);
    }
    return Error::success();
  }
  Error notifyFailed(MaterializationResponsibility &) override { return Error::success(); }
  Error notifyRemovingResources(JITDylib &, ResourceKey) override { return Error::success(); }
  void notifyTransferringResources(JITDylib &, ResourceKey, ResourceKey) override {}
};
} // namespace

Expected<std::unique_ptr<KernelJit>> KernelJit::create(ParallelForFn parallelFor, bool keepIR,
                                                       StringRef extraFeatures, StringRef cpu) {
  initializeNativeTarget();
  Expected<JITTargetMachineBuilder> jtmb = JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return jtmb.takeError();
  jtmb->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);
  if (cpu == "native")
    cpu = "";
  if (!cpu.empty()) {
    jtmb->setCPU(cpu.str());
    jtmb->getFeatures() = SubtargetFeatures();
  }
  SmallVector<StringRef, 4> features;
  extraFeatures.split(features, ',', -1, /*KeepEmpty=*/false);
  for (StringRef &f : features) {
    f = f.trim();
    jtmb->getFeatures().AddFeature(f);
  }
  if (!cpu.empty() || !features.empty())
    if (Error e = checkHostRuns(*jtmb, cpu, features))
      return e;

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
  if (const char *map = std::getenv("HX_PERF_MAP"); map && std::string(map) == "1")
    if (auto *linker = dyn_cast<ObjectLinkingLayer>(&kj->jit->getObjLinkingLayer()))
      linker->addPlugin(std::make_unique<PerfMapPlugin>());

  SymbolMap symbols;
  symbols[kj->jit->mangleAndIntern(kParallelForSymbol)] = {
      ExecutorAddr::fromPtr(parallelFor ? parallelFor : serialParallelFor),
      JITSymbolFlags::Exported | JITSymbolFlags::Callable};
  addHalfLibcalls(*kj->jit, symbols);
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
bool KernelJit::hasFeature(StringRef name) const {
  return tm->getMCSubtargetInfo()->checkFeatures(("+" + name).str());
}

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

void KernelJit::keepObjects() {
  jit->getObjTransformLayer().setTransform(
      [this](std::unique_ptr<MemoryBuffer> obj) -> Expected<std::unique_ptr<MemoryBuffer>> {
        std::lock_guard<std::mutex> lock(irMutex);
        objectFiles.push_back(obj->getBuffer().str());
        return std::move(obj);
      });
}

std::vector<std::string> KernelJit::objects() const {
  std::lock_guard<std::mutex> lock(irMutex);
  return objectFiles;
}

Error KernelJit::addObject(StringRef bytes, StringRef name) {
  return jit->addObjectFile(MemoryBuffer::getMemBufferCopy(bytes, name));
}

void KernelJit::writeObjects(std::string &out) const {
  std::vector<std::string> files = objects();
  ByteWriter w(out);
  w.u32(files.size());
  for (const std::string &o : files)
    w.bytes(o);
}

Error KernelJit::addObjects(ByteReader &r, StringRef what) {
  std::vector<StringRef> files(r.count(8));
  for (StringRef &o : files)
    o = r.bytes();
  if (!r.ok() || !r.atEnd())
    return createStringError("the saved " + what + " kernels are truncated or corrupted");
  for (size_t i = 0; i < files.size(); ++i)
    if (Error e = addObject(files[i], ("hx_saved_" + what + "_" + Twine(i)).str()))
      return createStringError("cannot load the saved " + what +
                               " kernels: " + toString(std::move(e)));
  return Error::success();
}

Error KernelJit::defineAbsolute(StringRef name, void *addr) {
  SymbolMap symbols;
  symbols[jit->mangleAndIntern(name)] = {ExecutorAddr::fromPtr(addr), JITSymbolFlags::Exported};
  return jit->getMainJITDylib().define(absoluteSymbols(std::move(symbols)));
}

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
