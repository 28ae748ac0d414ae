//===- SimtEmulatorTest.cpp - The SIMT emulator's own semantics -----------===//
//
// Hand-written kernels in the form GPUKernelBuilder emits when emulating
// (@hx_simt_state, hx_simt_barrier): the special registers, a grid smaller
// than the kernel's, shared memory across a barrier, and both kinds of
// divergent barrier, which must fail the launch and name the threads. The
// operators' kernels themselves run on the emulator in OpConformanceTest
// (backend cuda_emu).
//
//===----------------------------------------------------------------------===//

#include "hx/Targets/CUDAEmu/SimtEmulator.h"
#include "KernelTestUtil.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <cstdint>
#include <vector>

using namespace hx;

namespace {

constexpr unsigned kThreads = GPUCompiler::kBlockDim;

SimtLaunchOptions withGrid(unsigned blocks) {
  SimtLaunchOptions o;
  o.gridDim = blocks;
  return o;
}

SimtLaunchOptions reversed() {
  SimtLaunchOptions o;
  o.reverse = true;
  return o;
}

class SimtEmulatorTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto e = SimtEmulator::create();
    ASSERT_TRUE(bool(e)) << llvm::toString(e.takeError());
    emu = std::move(*e);
  }

  /// Adds a kernel `@k(ptr %buffers, ptr %launch)` whose body is `body`,
  /// with %tid, %bid and %nb (i32) already read.
  unsigned add(const std::string &body, unsigned grid, bool barrier) {
    std::string text = "target triple = \"" + emu->triple() + "\"\n" + "target datalayout = \"" +
                       emu->dataLayout() + "\"\n" +
                       "@hx_simt_state = external global [4 x i32]\n"
                       "@shared = global [256 x i32] zeroinitializer\n"
                       "declare void @hx_simt_barrier(ptr, i32)\n"
                       "define void @k" +
                       std::to_string(count) +
                       "(ptr %buffers, ptr %launch) {\n"
                       "entry:\n"
                       "  %out = load ptr, ptr %buffers\n"
                       "  %tid = load i32, ptr @hx_simt_state\n"
                       "  %bidp = getelementptr [4 x i32], ptr @hx_simt_state, i32 0, i32 1\n"
                       "  %bid = load i32, ptr %bidp\n"
                       "  %nbp = getelementptr [4 x i32], ptr @hx_simt_state, i32 0, i32 2\n"
                       "  %nb = load i32, ptr %nbp\n" +
                       body + "}\n";
    // Each module's @shared is its own: rename it per kernel.
    llvm::SmallVector<llvm::StringRef, 8> pieces;
    llvm::StringRef(text).split(pieces, "@shared");
    text = llvm::join(pieces, "@shared" + std::to_string(count));
    auto ctx = std::make_unique<llvm::LLVMContext>();
    llvm::SMDiagnostic diag;
    std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(text, diag, *ctx);
    EXPECT_TRUE(m) << diag.getMessage().str() << "\n" << text;
    std::string symbol = ("k" + llvm::Twine(count++)).str();
    auto id = emu->addHostKernel(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)), symbol,
                                 grid, barrier);
    EXPECT_TRUE(bool(id)) << llvm::toString(id.takeError());
    return *id;
  }

  /// The error of launching kernel `id` (with no buffers), or "no error".
  std::string launchError(unsigned id) {
    void *buffers[] = {nullptr};
    llvm::Error e = emu->launch(id, buffers);
    return e ? llvm::toString(std::move(e)) : "no error";
  }

  std::unique_ptr<SimtEmulator> emu;
  unsigned count = 0;
};

TEST_F(SimtEmulatorTest, SpecialRegistersAndGrid) {
  // out[bid * 256 + tid] = nb * 1000 + bid
  unsigned id = add("  %b256 = mul i32 %bid, 256\n"
                    "  %i = add i32 %b256, %tid\n"
                    "  %p = getelementptr i32, ptr %out, i32 %i\n"
                    "  %n1000 = mul i32 %nb, 1000\n"
                    "  %v = add i32 %n1000, %bid\n"
                    "  store i32 %v, ptr %p\n"
                    "  ret void\n",
                    3, false);
  std::vector<int32_t> out(3 * kThreads, -1);
  void *buffers[] = {out.data()};
  ASSERT_FALSE(bool(emu->launch(id, buffers)));
  for (unsigned i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], int32_t(3000 + i / kThreads)) << i;
  // A smaller grid than the kernel's: only its blocks run.
  std::fill(out.begin(), out.end(), -1);
  ASSERT_FALSE(bool(emu->launch(id, buffers, withGrid(2))));
  EXPECT_EQ(out[0], 2000);
  EXPECT_EQ(out[2 * kThreads - 1], 2001);
  EXPECT_EQ(out[2 * kThreads], -1);
}

TEST_F(SimtEmulatorTest, ReverseOrderShowsARace) {
  // Every thread of every block writes out[0]: the last one wins.
  unsigned id = add("  %v = mul i32 %bid, 1000\n"
                    "  %w = add i32 %v, %tid\n"
                    "  store i32 %w, ptr %out\n"
                    "  ret void\n",
                    2, false);
  int32_t out = -1;
  void *buffers[] = {&out};
  ASSERT_FALSE(bool(emu->launch(id, buffers)));
  EXPECT_EQ(out, 1255);
  ASSERT_FALSE(bool(emu->launch(id, buffers, reversed())));
  EXPECT_EQ(out, 0);
}

TEST_F(SimtEmulatorTest, BarrierOrdersSharedMemory) {
  // shared[tid] = tid + bid; barrier; out[bid * 256 + tid] = shared[(tid + 1) % 256]
  unsigned id = add("  %v = add i32 %tid, %bid\n"
                    "  %s = getelementptr [256 x i32], ptr @shared, i32 0, i32 %tid\n"
                    "  store i32 %v, ptr %s\n"
                    "  call void @hx_simt_barrier(ptr @hx_simt_state, i32 0)\n"
                    "  %t1 = add i32 %tid, 1\n"
                    "  %n = urem i32 %t1, 256\n"
                    "  %sn = getelementptr [256 x i32], ptr @shared, i32 0, i32 %n\n"
                    "  %w = load i32, ptr %sn\n"
                    "  %b256 = mul i32 %bid, 256\n"
                    "  %i = add i32 %b256, %tid\n"
                    "  %p = getelementptr i32, ptr %out, i32 %i\n"
                    "  store i32 %w, ptr %p\n"
                    "  ret void\n",
                    2, true);
  std::vector<int32_t> out(2 * kThreads, -1);
  void *buffers[] = {out.data()};
  for (bool reverse : {false, true}) {
    std::fill(out.begin(), out.end(), -1);
    llvm::Error e = emu->launch(id, buffers, reverse ? reversed() : SimtLaunchOptions());
    ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
    for (unsigned b = 0; b < 2; ++b)
      for (unsigned t = 0; t < kThreads; ++t)
        EXPECT_EQ(out[b * kThreads + t], int32_t((t + 1) % kThreads + b)) << b << " " << t;
  }
}

TEST_F(SimtEmulatorTest, ThreadReturningBeforeABarrierIsAnError) {
  // Threads below 128 wait at the barrier; the others return.
  unsigned id = add("  %low = icmp ult i32 %tid, 128\n"
                    "  br i1 %low, label %wait, label %done\n"
                    "wait:\n"
                    "  call void @hx_simt_barrier(ptr @hx_simt_state, i32 0)\n"
                    "  br label %done\n"
                    "done:\n"
                    "  ret void\n",
                    1, true);
  EXPECT_EQ(launchError(id),
            "k0: divergent barrier: thread 128 of block 0 returned while thread 0 of block 0 "
            "waits at barrier 0");
  // The emulator stays usable.
  EXPECT_EQ(launchError(add("  ret void\n", 1, true)), "no error");
}

TEST_F(SimtEmulatorTest, ThreadsAtDifferentBarriersAreAnError) {
  unsigned id = add("  %odd = and i32 %tid, 1\n"
                    "  %isOdd = icmp ne i32 %odd, 0\n"
                    "  br i1 %isOdd, label %a, label %b\n"
                    "a:\n"
                    "  call void @hx_simt_barrier(ptr @hx_simt_state, i32 1)\n"
                    "  ret void\n"
                    "b:\n"
                    "  call void @hx_simt_barrier(ptr @hx_simt_state, i32 0)\n"
                    "  ret void\n",
                    1, true);
  EXPECT_EQ(launchError(id),
            "k0: divergent barrier: thread 0 of block 0 waits at barrier 0, thread 1 of block 0 "
            "at barrier 1");
}

TEST_F(SimtEmulatorTest, AccessBeyondABufferIsAnError) {
  // A real kernel (GPUKernelBuilder's checks), told its output is shorter
  // than it is: the first thread to write past it is named, and nothing
  // is written there.
  auto tc = test::TypedCall::parse("%a: Tensor[(1000), float32], %b: Tensor[(1000), float32]",
                                   "add(%a, %b)");
  ASSERT_TRUE(tc);
  auto id = emu->addKernel(tc->call());
  ASSERT_TRUE(bool(id)) << llvm::toString(id.takeError());
  ASSERT_FALSE(bool(emu->finalize()));
  EXPECT_EQ(emu->kernel(*id).numBuffers, 3u);
  std::vector<float> a(1000, 1.0f), b(1000, 2.0f), out(1001, 0.0f);
  void *buffers[] = {a.data(), b.data(), out.data()};
  std::vector<uint64_t> bytes = {4000, 4000, 400};
  SimtLaunchOptions opts;
  opts.bufferBytes = bytes;
  llvm::Error e = emu->launch(*id, buffers, opts);
  ASSERT_TRUE(bool(e));
  EXPECT_EQ(llvm::toString(std::move(e)),
            emu->kernel(*id).symbol +
                ": thread 100 of block 0 writes buffer 2 at byte 400, beyond its 400 bytes (an "
                "illegal address on a GPU)");
  EXPECT_EQ(out[99], 3.0f);
  EXPECT_EQ(out[100], 0.0f);
  // The right sizes: no fault.
  bytes[2] = 4000;
  EXPECT_FALSE(bool(emu->launch(*id, buffers, opts)));
  EXPECT_EQ(out[999], 3.0f);
  EXPECT_EQ(out[1000], 0.0f);
  // A size per buffer, or none.
  bytes.pop_back();
  opts.bufferBytes = bytes;
  e = emu->launch(*id, buffers, opts);
  EXPECT_EQ(llvm::toString(std::move(e)),
            emu->kernel(*id).symbol + ": 2 buffer sizes for 3 buffers");
}

} // namespace
