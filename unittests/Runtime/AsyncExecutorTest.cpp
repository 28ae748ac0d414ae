//===- AsyncExecutorTest.cpp - The executor's streams, against a lazy device =//
//
// The executor's waits (Streams.cpp) are what make a GPU's asynchronous
// copies and kernels safe. Without a GPU they are tested against the most
// adversarial asynchronous device there is: LazyDevice queues every copy
// and kernel on its stream and runs nothing until the host must know (an
// event waited on by the host, a synchronize), so a missing wait shows as a
// wrong result: a consumer reading memory its producer has not written yet,
// or a copy reading host memory that a later cpu kernel (reusing the
// arena) has already overwritten. Kernels are the cpu's (the device's
// memory is host memory it does not let the executor touch directly).
// A copy from the host also checks, when it finally runs, that its source
// still holds what it held when the copy was issued: a source freed or
// reused in between (a use after free on a GPU, whose stream reads host
// memory late) is counted in staleSources rather than left to chance.
//
//===----------------------------------------------------------------------===//
#include "CPU/CPUKernel.h"
#include "PlanForTest.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Parser/Parser.h"
#include "hx/Runtime/AllocationTable.h"
#include "hx/Runtime/Executable.h"
#include "hx/Targets/CPU/CPUBackend.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>

using namespace hx;
using hx::test::plan;

namespace {

class LazyDevice;

class LazyStream : public Stream {
public:
  /// An op runs work, or waits for `until` ops of another stream.
  struct Op {
    std::function<void()> work;
    LazyStream *waitStream = nullptr;
    size_t waitUntil = 0;
  };
  std::vector<Op> ops;
  size_t done = 0;

  void runUntil(size_t n) {
    while (done < n) {
      Op &op = ops[done];
      if (op.waitStream)
        op.waitStream->runUntil(op.waitUntil);
      else
        op.work();
      ++done;
    }
  }
};

class LazyEvent : public Event {
public:
  LazyStream *stream = nullptr;
  size_t position = 0;
};

class LazyDevice : public Device {
public:
  ~LazyDevice() override {
    for (auto &[p, n] : blocks)
      std::free(const_cast<void *>(p));
  }
  std::string name() const override { return "lazy:0"; }
  DeviceType type() const override { return *parseDeviceType("cuda"); }
  bool hostAccessible() const override { return false; }
  bool asynchronous() const override { return true; }
  llvm::Expected<void *> allocate(size_t bytes) override {
    void *p = std::malloc(std::max<size_t>(bytes, 1));
    std::memset(p, 0xAB, std::max<size_t>(bytes, 1)); // poison: never zeros
    blocks.insert(p, bytes);
    return p;
  }
  void deallocate(void *p) override {
    if (blocks.erase(p))
      std::free(p);
  }
  bool owns(const void *p) const override { return blocks.contains(p); }
  llvm::Error copyFromHost(void *dst, const void *src, size_t n, Stream *s) override {
    auto issued = std::make_shared<std::vector<unsigned char>>(
        static_cast<const unsigned char *>(src), static_cast<const unsigned char *>(src) + n);
    return enqueue(s, [=, this] {
      if (n && std::memcmp(src, issued->data(), n) != 0)
        ++staleSources;
      std::memcpy(dst, src, n);
    });
  }
  llvm::Error copyToHost(void *dst, const void *src, size_t n, Stream *s) override {
    return enqueue(s, [=] { std::memcpy(dst, src, n); });
  }
  llvm::Error copyWithin(void *dst, const void *src, size_t n, Stream *s) override {
    return enqueue(s, [=] { std::memmove(dst, src, n); });
  }
  std::unique_ptr<Stream> createStream() override {
    auto s = std::make_unique<LazyStream>();
    streams.push_back(s.get());
    return s;
  }
  std::unique_ptr<Event> createEvent(bool) override { return std::make_unique<LazyEvent>(); }
  llvm::Error record(Event &e, Stream *s) override {
    auto &ev = static_cast<LazyEvent &>(e);
    ev.stream = streamOf(s);
    ev.position = ev.stream->ops.size();
    return llvm::Error::success();
  }
  llvm::Error wait(Event &e, Stream *s) override {
    auto &ev = static_cast<LazyEvent &>(e);
    if (ev.stream)
      streamOf(s)->ops.push_back({nullptr, ev.stream, ev.position});
    return llvm::Error::success();
  }
  llvm::Error hostWait(Event &e) override {
    auto &ev = static_cast<LazyEvent &>(e);
    if (ev.stream)
      ev.stream->runUntil(ev.position);
    ++hostWaits;
    return llvm::Error::success();
  }
  llvm::Expected<double> elapsed(Event &, Event &) override { return 0.0; }
  llvm::Error synchronize() override {
    ownStream.runUntil(ownStream.ops.size());
    for (LazyStream *s : streams)
      s->runUntil(s->ops.size());
    return llvm::Error::success();
  }
  llvm::StringRef backend() const override { return CPUKernel::kBackend; }
  llvm::Expected<const void *> load(const KernelBinary &k) override {
    return reinterpret_cast<const void *>(kernelAs<CPUKernel>(k)->entry);
  }
  llvm::Error launch(const void *kernel, void **buffers, unsigned n, Stream *s) override {
    std::vector<void *> args(buffers, buffers + n);
    auto fn = reinterpret_cast<KernelFn>(const_cast<void *>(kernel));
    return enqueue(s, [fn, args]() mutable { fn(args.data(), nullptr); });
  }

  unsigned hostWaits = 0;
  /// Copies from the host whose source changed between issue and run.
  unsigned staleSources = 0;

private:
  LazyStream *streamOf(Stream *s) { return s ? static_cast<LazyStream *>(s) : &ownStream; }
  llvm::Error enqueue(Stream *s, std::function<void()> work) {
    streamOf(s)->ops.push_back({std::move(work), nullptr, 0});
    return llvm::Error::success();
  }
  LazyStream ownStream;
  std::vector<LazyStream *> streams; // the executor owns them; they outlive runs
  AllocationTable blocks;
};

const char *kTable = R"(
#[metadata]
{"VirtualDevice": [{"device_type": "cpu"}, {"device_type": "cuda"}]}
)";

/// Runs `text` (virtual device 0 cpu, 1 the lazy device) twice on random
/// inputs and compares each run with the interpreter.
void runAgainstInterpreter(const std::string &text, unsigned *hostWaits = nullptr) {
  auto p = plan(text + kTable);
  ASSERT_TRUE(p->m);
  auto cpu = createCPUDevice(0, 1);
  LazyDevice lazy;
  auto backend = createCPUBackend();
  ASSERT_TRUE(bool(backend));
  Device *devices[] = {cpu.get(), &lazy};
  Backend *backends[] = {backend->get(), backend->get()};
  ExecutableOptions opts;
  opts.checkDevices = true;
  auto exe = Executable::build(*p->m, devices, backends, *p->diags, opts);
  ASSERT_TRUE(exe);
  EXPECT_EQ(lazy.staleSources, 0u) << "a host source changed before its copy to the device ran";
  std::mt19937 rng(7);
  for (int run = 0; run < 2; ++run) {
    std::vector<HostTensor> in;
    for (const Ref<Var> &v : p->m->lookup("main")->params) {
      auto *t = llvm::cast<TensorType>(v->checkedType.get());
      HostTensor h(t->dtype, t->shape);
      for (int64_t i = 0; i < h.numElements(); ++i)
        h.setDouble(i, std::uniform_real_distribution<double>(-1, 1)(rng));
      in.push_back(std::move(h));
    }
    auto got = exe->run(in);
    ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
    auto want = interpret(*p->m, in);
    ASSERT_TRUE(bool(want)) << llvm::toString(want.takeError());
    ASSERT_EQ(got->size(), want->size());
    for (size_t r = 0; r < got->size(); ++r)
      for (int64_t i = 0; i < (*got)[r].numElements(); ++i) {
        double a = (*got)[r].getDouble(i), b = (*want)[r].getDouble(i);
        if (std::isnan(a) && std::isnan(b))
          continue;
        ASSERT_NEAR(a, b, 1e-5) << "run " << run << " result " << r << " element " << i;
      }
  }
  EXPECT_EQ(lazy.staleSources, 0u) << "a host source changed before its copy to the device ran";
  if (hostWaits)
    *hostWaits = lazy.hostWaits;
}

TEST(AsyncExecutorTest, SeedShapesAcrossDevices) {
  runAgainstInterpreter(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(5, 7), float32], %b: Tensor[(5, 7), float32], %c: Tensor[(5, 7), float32]) {
  %0 = add(%a, %b);
  %1 = on_device(%0, virtual_device=meta[VirtualDevice][0]);
  %2 = add(%b, %c);
  %3 = on_device(%2, virtual_device=meta[VirtualDevice][1]);
  subtract(%1, %3)
})");
}

TEST(AsyncExecutorTest, PingPongChainWaitsForEveryCopy) {
  // Each value crosses devices: every consumer needs its producer's copy,
  // and the host's intermediates share one arena range after another.
  std::string body = "  %0 = on_device(exp(%x), virtual_device=meta[VirtualDevice][1]);\n";
  for (int i = 1; i < 12; ++i)
    body += "  %" + std::to_string(i) + " = on_device(" + (i % 2 ? "negative" : "tanh") + "(%" +
            std::to_string(i - 1) + "), virtual_device=meta[VirtualDevice][" +
            std::to_string(i % 2 ? 0 : 1) + "]);\n";
  unsigned waits = 0;
  runAgainstInterpreter("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(64, 33), float32]) {\n" +
                            body + "  %11\n}",
                        &waits);
  EXPECT_GT(waits, 0u);
}

TEST(AsyncExecutorTest, HostBufferReusedOnlyAfterTheCopyReadIt) {
  // %1 (cpu) is copied to the device, whose consumer runs late; meanwhile
  // the cpu computes %3.. in the arena range %1 had. The copy must have
  // read %1 before that range is overwritten.
  runAgainstInterpreter(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1024), float32]) {
  %0 = on_device(exp(%x), virtual_device=meta[VirtualDevice][0]);
  %1 = on_device(negative(%0), virtual_device=meta[VirtualDevice][0]);
  %2 = on_device(tanh(%1), virtual_device=meta[VirtualDevice][1]);
  %3 = on_device(tanh(%x), virtual_device=meta[VirtualDevice][0]);
  %4 = on_device(exp(%3), virtual_device=meta[VirtualDevice][0]);
  %5 = on_device(tanh(%4), virtual_device=meta[VirtualDevice][0]);
  %6 = on_device(sqrt(%5), virtual_device=meta[VirtualDevice][0]);
  %7 = on_device(add(%2, %2), virtual_device=meta[VirtualDevice][1]);
  (%7, %6)
})");
}

TEST(AsyncExecutorTest, MlpWithTheLastLayerOnTheCpu) {
  runAgainstInterpreter(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(8, 32), float32], %w1: Tensor[(64, 32), float32],
          %w2: Tensor[(64, 64), float32], %w3: Tensor[(10, 64), float32]) {
  %0 = on_device(nn.relu(nn.dense(%x, %w1)), virtual_device=meta[VirtualDevice][1]);
  %1 = on_device(nn.relu(nn.dense(%0, %w2)), virtual_device=meta[VirtualDevice][1]);
  %2 = nn.dense(%1, %w3);
  on_device(nn.softmax(%2), virtual_device=meta[VirtualDevice][0])
})");
}

TEST(AsyncExecutorTest, ScalarConstantsOutliveTheirUpload) {
  // bind() uploads a scalar constant from a host tensor of its own; the
  // lazy device copies it only at the next synchronize. A temporary freed
  // when the copy is issued left the device's constant to whatever the
  // heap held then (and an `if` on greater(sum(..), 1f) to chance).
  runAgainstInterpreter(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(16), float32]) {
  %0 = on_device(add(%x, 1f), virtual_device=meta[VirtualDevice][1]);
  %1 = on_device(multiply(%0, 3f), virtual_device=meta[VirtualDevice][1]);
  %2 = on_device(subtract(%1, 0.25f), virtual_device=meta[VirtualDevice][1]);
  on_device(negative(%2), virtual_device=meta[VirtualDevice][0])
})");
}

TEST(AsyncExecutorTest, IfReadsItsConditionAfterItsProducer) {
  runAgainstInterpreter(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(16), float32]) {
  %0 = on_device(exp(%x), virtual_device=meta[VirtualDevice][1]);
  %1 = on_device(greater(sum(%0), 1f), virtual_device=meta[VirtualDevice][1]);
  if (%1) {
    on_device(negative(%0), virtual_device=meta[VirtualDevice][0])
  } else {
    on_device(tanh(%0), virtual_device=meta[VirtualDevice][0])
  }
})");
}

} // namespace
