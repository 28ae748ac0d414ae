//===- SimtEmulator.cpp - cuda kernels run on the host, thread by thread --===//
//
// See SimtEmulator.h. The JIT (KernelJit) defines two absolute symbols per
// emulator, which the emulated kernels use (SimtArch.h):
//   hx_simt_state    State::regs: i32 tid.x, ctaid.x, nctaid.x, reserved
//   hx_simt_barrier  void(ptr state, i32 site): the State leads back to
//                    its emulator, so the function needs no global;
//   hx_simt_sizes    a pointer to the launch's bytes per buffer;
//   hx_simt_fault    void(ptr state, i32 buffer, i64 byte, i1 write): an
//                    access beyond them, which went to
//   hx_simt_sink     instead. The first fault is kept; the launch stops
//                    after its block and fails.
//
// Fibers (a kernel with barriers): kBlockDim stacks of kStackBytes in one
// reserved mapping, each with a guard page below it; per block every
// fiber is made afresh (makecontext) and the scheduler runs rounds: each
// running fiber until it waits at a barrier or returns. After a round with
// no running fiber left, all waiting at one barrier start the next round;
// none waiting ends the block; anything else is a divergent barrier.
// Under AddressSanitizer every switch is announced
// (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber).
//
//===----------------------------------------------------------------------===//

#include "hx/Targets/CUDAEmu/SimtEmulator.h"
#include "SimtArch.h"
#include "hx/Support/ByteStream.h"
#include "hx/Targets/CPU/KernelJit.h"
#include "hx/Targets/KernelABI.h"
#include "llvm/ADT/Twine.h"
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HX_SIMT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define HX_SIMT_ASAN 1
#endif
#ifdef HX_SIMT_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

using namespace llvm;

namespace hx {

namespace {

constexpr unsigned kThreads = GPUCompiler::kBlockDim;
/// Per fiber: the kernel's frames and scratch arrays (the tuning's
/// maxScratchBytes, 64 KiB) with room to spare.
constexpr size_t kStackBytes = 256 * 1024;

struct Entry {
  GPUKernelInfo info;
  KernelFn fn = nullptr;
};

enum class FiberStatus { Running, Waiting, Done };

struct Fiber {
  ucontext_t context;
  FiberStatus status = FiberStatus::Running;
  int32_t site = -1;
#ifdef HX_SIMT_ASAN
  void *fakeStack = nullptr;
#endif
};

} // namespace

struct SimtEmulator::Impl {
  /// What the kernels read: @hx_simt_state points at regs (offset 0).
  struct State {
    int32_t regs[4] = {0, 0, 0, 0};
    Impl *self = nullptr;
  } state;

  std::unique_ptr<KernelJit> jit;
  std::unique_ptr<GPUCompiler> compiler;
  /// The compiler's architecture, which keeps the finished modules.
  SimtArch *arch = nullptr;
  std::vector<Entry> entries;
  /// Compiler kernel id -> entry (-1: none yet).
  std::vector<int> fromCompiler;
  unsigned modulesAdded = 0;

  // The launch in progress.
  KernelFn fn = nullptr;
  /// What hx_simt_sizes points at: the launch's sizes, or `unlimited`.
  const uint64_t *sizes = nullptr;
  std::vector<uint64_t> unlimited;
  alignas(16) char sink[16] = {};
  struct Fault {
    int32_t thread, block, buffer;
    int64_t byte;
    bool write;
  };
  std::optional<Fault> fault;
  bool reverse = false;
  void **buffers = nullptr;
  std::vector<Fiber> fibers;
  ucontext_t scheduler;
  unsigned current = 0;
  char *stacks = nullptr;
  size_t mappingBytes = 0;
#ifdef HX_SIMT_ASAN
  const void *schedulerBottom = nullptr;
  size_t schedulerSize = 0;
#endif

  ~Impl() {
    if (stacks)
      munmap(stacks, mappingBytes);
  }

  static size_t pageBytes() { return size_t(sysconf(_SC_PAGESIZE)); }
  /// The i-th of n blocks or threads to run, in the launch's order.
  unsigned nth(unsigned i, unsigned n) const { return reverse ? n - 1 - i : i; }
  char *stackOf(unsigned t) const { return stacks + t * (kStackBytes + pageBytes()) + pageBytes(); }
  Error reserveStacks();
  Error runBlock(const Entry &e, unsigned block);
  void yieldToScheduler();
  static void fiberMain(unsigned hi, unsigned lo);
  static void barrier(void *statePtr, int32_t site);
  static void recordFault(void *statePtr, int32_t buffer, int64_t byte, bool write);
};

SimtEmulator::SimtEmulator() = default;
SimtEmulator::~SimtEmulator() = default;

Expected<std::unique_ptr<SimtEmulator>> SimtEmulator::create() {
  Expected<std::unique_ptr<KernelJit>> jit = KernelJit::create(serialParallelFor, false);
  if (!jit)
    return jit.takeError();
  // The shared GPU lowering for the host JIT: cuda's kernels, the
  // hardware swapped for the emulator's (SimtArch.h).
  auto arch = std::make_unique<SimtArch>((*jit)->getTargetTriple().str(),
                                         (*jit)->getDataLayout().getStringRepresentation());
  SimtArch *simt = arch.get();
  std::unique_ptr<GPUCompiler> compiler = GPUCompiler::create(std::move(arch));
  std::unique_ptr<SimtEmulator> emu(new SimtEmulator());
  emu->impl = std::make_unique<Impl>();
  Impl &impl = *emu->impl;
  impl.state.self = &impl;
  impl.jit = std::move(*jit);
  impl.compiler = std::move(compiler);
  impl.arch = simt;
  const std::pair<const char *, void *> symbols[] = {
      {"hx_simt_state", impl.state.regs},
      {"hx_simt_barrier", reinterpret_cast<void *>(&Impl::barrier)},
      {"hx_simt_fault", reinterpret_cast<void *>(&Impl::recordFault)},
      {"hx_simt_sizes", &impl.sizes},
      {"hx_simt_sink", impl.sink}};
  for (const auto &[name, addr] : symbols)
    if (Error e = impl.jit->defineAbsolute(name, addr))
      return e;
  return emu;
}

std::string SimtEmulator::triple() const { return impl->jit->getTargetTriple().str(); }
std::string SimtEmulator::dataLayout() const {
  return impl->jit->getDataLayout().getStringRepresentation();
}

Expected<unsigned> SimtEmulator::addKernel(const Call &call) {
  Expected<unsigned> cid = impl->compiler->addKernel(call);
  if (!cid)
    return cid.takeError();
  if (*cid >= impl->fromCompiler.size())
    impl->fromCompiler.resize(*cid + 1, -1);
  if (impl->fromCompiler[*cid] < 0) {
    impl->fromCompiler[*cid] = int(impl->entries.size());
    impl->entries.push_back({impl->compiler->kernel(*cid), nullptr});
  }
  return unsigned(impl->fromCompiler[*cid]);
}

Expected<unsigned> SimtEmulator::addHostKernel(orc::ThreadSafeModule module, StringRef symbol,
                                               unsigned gridDim, bool usesBarrier) {
  if (Error e = impl->jit->addModule(std::move(module)))
    return e;
  Expected<void *> fn = impl->jit->lookup(symbol);
  if (!fn)
    return fn.takeError();
  Entry e;
  e.info.symbol = symbol.str();
  e.info.gridDim = gridDim;
  e.info.usesBarrier = usesBarrier;
  e.fn = reinterpret_cast<KernelFn>(*fn);
  impl->entries.push_back(std::move(e));
  return unsigned(impl->entries.size() - 1);
}

Error SimtEmulator::finalize() {
  if (Error e = impl->compiler->finalize())
    return e;
  for (; impl->modulesAdded < impl->compiler->numModules(); ++impl->modulesAdded)
    if (Error e = impl->jit->addModule(impl->arch->takeModule(impl->modulesAdded)))
      return e;
  for (Entry &e : impl->entries) {
    if (e.fn)
      continue;
    Expected<void *> fn = impl->jit->lookup(e.info.symbol + ".host");
    if (!fn)
      return fn.takeError();
    e.fn = reinterpret_cast<KernelFn>(*fn);
  }
  return Error::success();
}

void SimtEmulator::keepObjects() { impl->jit->keepObjects(); }

static constexpr StringLiteral kSaveTag = "hx cuda-emu kernels 1";

Error SimtEmulator::save(std::string &out) const {
  // The entries are the compiler's kernels in its order (addHostKernel's
  // test kernels aside, which no compiled model has).
  for (unsigned i = 0; i < impl->entries.size(); ++i)
    if (i >= impl->fromCompiler.size() || impl->fromCompiler[i] != int(i) || !impl->entries[i].fn)
      return createStringError("the cuda-emu kernels are not all compiled from cuda kernels");
  ByteWriter w(out);
  w.bytes(kSaveTag);
  w.bytes(impl->jit->getTargetTriple().str());
  if (Error e = impl->compiler->save(out))
    return e;
  impl->jit->writeObjects(out);
  return Error::success();
}

Error SimtEmulator::restore(StringRef saved) {
  auto corrupt = [] {
    return createStringError("the saved cuda-emu kernels are truncated or corrupted");
  };
  ByteReader r(saved);
  if (r.bytes() != kSaveTag)
    return corrupt();
  if (StringRef triple = r.bytes(); r.ok() && triple != impl->jit->getTargetTriple().str())
    return createStringError("the saved cuda-emu kernels are for " + triple +
                             ", and this host is " + impl->jit->getTargetTriple().str());
  if (!impl->entries.empty() || !impl->compiler->restore(r))
    return corrupt();
  if (Error e = impl->jit->addObjects(r, "cuda-emu"))
    return e;
  for (unsigned id = 0; id < impl->compiler->numKernels(); ++id) {
    impl->fromCompiler.push_back(int(id));
    impl->entries.push_back({impl->compiler->kernel(id), nullptr});
  }
  // The modules are linked already: finalize looks the entries up.
  impl->modulesAdded = impl->compiler->numModules();
  return finalize();
}

bool SimtEmulator::supports(const OpDef &op) const { return impl->compiler->supports(op); }
const GPUKernelInfo &SimtEmulator::kernel(unsigned id) const { return impl->entries[id].info; }
unsigned SimtEmulator::numKernels() const { return unsigned(impl->entries.size()); }
unsigned SimtEmulator::numPending() const { return impl->compiler->numPending(); }

Error SimtEmulator::Impl::reserveStacks() {
  if (stacks)
    return Error::success();
  size_t page = pageBytes();
  mappingBytes = kThreads * (kStackBytes + page);
  void *p = mmap(nullptr, mappingBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return createStringError("the SIMT emulator cannot map " + Twine(mappingBytes >> 20).str() +
                             " MiB of fiber stacks");
  stacks = static_cast<char *>(p);
  for (unsigned t = 0; t < kThreads; ++t)
    mprotect(stackOf(t) - page, page, PROT_NONE); // a guard page below each stack
  fibers.resize(kThreads);
  return Error::success();
}

Error SimtEmulator::launch(unsigned id, void **buffers, const SimtLaunchOptions &opts) {
  const Entry &e = impl->entries[id];
  if (!e.fn)
    return createStringError("kernel " + e.info.symbol + " is not finalized");
  unsigned grid = opts.gridDim ? opts.gridDim : e.info.gridDim;
  impl->reverse = opts.reverse;
  impl->fn = e.fn;
  impl->buffers = buffers;
  impl->fault.reset();
  if (opts.bufferBytes.empty()) {
    impl->unlimited.assign(std::max(1u, e.info.numBuffers), std::numeric_limits<uint64_t>::max());
    impl->sizes = impl->unlimited.data();
  } else if (opts.bufferBytes.size() != e.info.numBuffers) {
    return createStringError(e.info.symbol + ": " + Twine(opts.bufferBytes.size()).str() +
                             " buffer sizes for " + Twine(e.info.numBuffers).str() + " buffers");
  } else {
    impl->sizes = opts.bufferBytes.data();
  }
  impl->state.regs[2] = int32_t(grid);
  if (e.info.usesBarrier)
    if (Error err = impl->reserveStacks())
      return err;
  for (unsigned b = 0; b < grid; ++b) {
    unsigned block = impl->nth(b, grid);
    impl->state.regs[1] = int32_t(block);
    if (!e.info.usesBarrier) {
      for (unsigned i = 0; i < kThreads; ++i) {
        impl->state.regs[0] = int32_t(impl->nth(i, kThreads));
        e.fn(buffers, nullptr);
      }
    } else if (Error err = impl->runBlock(e, block)) {
      return err;
    }
    if (impl->fault) {
      const Impl::Fault &f = *impl->fault;
      return createStringError(e.info.symbol + ": thread " + Twine(f.thread) + " of block " +
                               Twine(f.block) + (f.write ? " writes" : " reads") + " buffer " +
                               Twine(f.buffer) + " at byte " + Twine(f.byte) + ", beyond its " +
                               Twine(opts.bufferBytes[unsigned(f.buffer)]) +
                               " bytes (an illegal address on a GPU)");
    }
  }
  return Error::success();
}

void SimtEmulator::Impl::recordFault(void *statePtr, int32_t buffer, int64_t byte, bool write) {
  State &s = *static_cast<State *>(statePtr);
  if (!s.self->fault)
    s.self->fault = Fault{s.regs[0], s.regs[1], buffer, byte, write};
}

void SimtEmulator::Impl::fiberMain(unsigned hi, unsigned lo) {
  auto *self = reinterpret_cast<Impl *>((uintptr_t(hi) << 32) | uintptr_t(lo));
#ifdef HX_SIMT_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &self->schedulerBottom, &self->schedulerSize);
#endif
  self->fn(self->buffers, nullptr);
  self->fibers[self->current].status = FiberStatus::Done;
#ifdef HX_SIMT_ASAN
  // Returning ends the fiber (uc_link resumes the scheduler).
  __sanitizer_start_switch_fiber(nullptr, self->schedulerBottom, self->schedulerSize);
#endif
}

void SimtEmulator::Impl::yieldToScheduler() {
  Fiber &f = fibers[current];
#ifdef HX_SIMT_ASAN
  __sanitizer_start_switch_fiber(&f.fakeStack, schedulerBottom, schedulerSize);
#endif
  swapcontext(&f.context, &scheduler);
#ifdef HX_SIMT_ASAN
  __sanitizer_finish_switch_fiber(f.fakeStack, &schedulerBottom, &schedulerSize);
#endif
}

void SimtEmulator::Impl::barrier(void *statePtr, int32_t site) {
  Impl *self = static_cast<State *>(statePtr)->self;
  Fiber &f = self->fibers[self->current];
  f.status = FiberStatus::Waiting;
  f.site = site;
  self->yieldToScheduler();
}

Error SimtEmulator::Impl::runBlock(const Entry &e, unsigned block) {
  auto self = uintptr_t(this);
  for (unsigned t = 0; t < kThreads; ++t) {
    Fiber &f = fibers[t];
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = stackOf(t);
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &scheduler;
    makecontext(&f.context, reinterpret_cast<void (*)()>(&Impl::fiberMain), 2, unsigned(self >> 32),
                unsigned(self & 0xffffffffu));
    f.status = FiberStatus::Running;
    f.site = -1;
  }
  auto where = [&](unsigned t) {
    return "thread " + std::to_string(t) + " of block " + std::to_string(block);
  };
  for (;;) {
    for (unsigned i = 0; i < kThreads; ++i) {
      unsigned t = nth(i, kThreads);
      if (fibers[t].status != FiberStatus::Running)
        continue;
      current = t;
      state.regs[0] = int32_t(t);
#ifdef HX_SIMT_ASAN
      void *fake = nullptr;
      __sanitizer_start_switch_fiber(&fake, stackOf(t), kStackBytes);
#endif
      swapcontext(&scheduler, &fibers[t].context);
#ifdef HX_SIMT_ASAN
      __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
    }
    int waiting = -1, done = -1;
    for (unsigned t = 0; t < kThreads; ++t) {
      if (fibers[t].status == FiberStatus::Done) {
        if (done < 0)
          done = int(t);
      } else if (waiting < 0) {
        waiting = int(t);
      } else if (fibers[t].site != fibers[unsigned(waiting)].site) {
        return createStringError(
            e.info.symbol + ": divergent barrier: " + where(unsigned(waiting)) +
            " waits at barrier " + std::to_string(fibers[unsigned(waiting)].site) + ", " +
            where(t) + " at barrier " + std::to_string(fibers[t].site));
      }
    }
    if (waiting < 0)
      return Error::success();
    if (done >= 0)
      return createStringError(e.info.symbol + ": divergent barrier: " + where(unsigned(done)) +
                               " returned while " + where(unsigned(waiting)) +
                               " waits at barrier " +
                               std::to_string(fibers[unsigned(waiting)].site));
    for (Fiber &f : fibers)
      f.status = FiberStatus::Running;
  }
}

} // namespace hx
