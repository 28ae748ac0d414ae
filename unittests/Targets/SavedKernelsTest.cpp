//===- SavedKernelsTest.cpp - Backends' kernels saved and taken back ------===//
//
// What a compiled model file holds of each backend (Backend::saveKernels,
// BackendOptions::saved): the cpu compiler's object code and kernel table,
// the cuda backend's PTX, the emulator's host code, each taken back by a
// new compiler that then runs them without compiling, and every way the
// bytes can be refused.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "hx/Support/ByteStream.h"
#include "hx/Targets/CUDA/CUDABackend.h"
#include "hx/Targets/CUDAEmu/SimtBackend.h"
#include "llvm/TargetParser/Host.h"
#include "gtest/gtest.h"

using namespace hx;
using namespace hx::test;

namespace {

std::unique_ptr<CPUCompiler> keepingCompiler() {
  CPUCompilerOptions opts;
  opts.keepObjects = true;
  return makeCompiler(opts);
}

TEST(SavedKernelsTest, CPUKernelsRunAfterARestoreWithoutCompiling) {
  auto first = TypedCall::parse("%a: Tensor[(3), float32]", "negative(%a)");
  auto second = TypedCall::parse("%a: Tensor[(3), float32]", "exp(%a)");
  ASSERT_TRUE(first && second);
  Buffer a(DType::Float32, {3});
  for (int i = 0; i < 3; ++i)
    a.set(i, i);
  std::string saved;
  {
    auto compiler = keepingCompiler();
    ASSERT_TRUE(compiler);
    runKernel(*compiler, first->call(), {&a}); // two finalizes: two objects
    runKernel(*compiler, second->call(), {&a});
    ASSERT_FALSE(bool(compiler->save(saved)));
  }
  auto restored = makeCompiler();
  ASSERT_TRUE(restored);
  llvm::Error e = restored->restore(saved);
  ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
  EXPECT_EQ(restored->numKernels(), 2u);
  EXPECT_EQ(restored->kernelName(1), "hx_k1_exp");
  EXPECT_NE(restored->lookup(0), nullptr);
  std::vector<Buffer> r2 = runKernel(*restored, second->call(), {&a});
  std::vector<Buffer> r1 = runKernel(*restored, first->call(), {&a});
  EXPECT_EQ(restored->numKernels(), 2u); // both were there: nothing compiled
  EXPECT_EQ(r1[0].get(2), -2);
  EXPECT_NEAR(r2[0].get(1), 2.718281828, 1e-6);
  // A call it holds no kernel for compiles as usual, under a new symbol.
  auto third = TypedCall::parse("%a: Tensor[(3), float32]", "sqrt(%a)");
  std::vector<Buffer> r3 = runKernel(*restored, third->call(), {&a});
  EXPECT_EQ(restored->numKernels(), 3u);
  EXPECT_EQ(restored->kernelName(2), "hx_k2_sqrt");
  EXPECT_NEAR(r3[0].get(2), 1.414213562, 1e-6);
}

TEST(SavedKernelsTest, CPUSaveNeedsTheObjectCodeKept) {
  auto compiler = makeCompiler();
  auto call = TypedCall::parse("%a: Tensor[(3), float32]", "negative(%a)");
  Buffer a(DType::Float32, {3});
  runKernel(*compiler, call->call(), {&a});
  std::string saved;
  llvm::Error e = compiler->save(saved);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("object code was not kept"), std::string::npos);
}

TEST(SavedKernelsTest, CPURestoreRefusesTruncatedAndForeignBytes) {
  std::string saved;
  {
    auto compiler = keepingCompiler();
    auto call = TypedCall::parse("%a: Tensor[(3), float32]", "negative(%a)");
    Buffer a(DType::Float32, {3});
    runKernel(*compiler, call->call(), {&a});
    ASSERT_FALSE(bool(compiler->save(saved)));
  }
  for (std::string bytes : {saved.substr(0, saved.size() - 1), saved.substr(0, 20),
                            std::string("not kernels"), std::string()}) {
    auto compiler = makeCompiler();
    llvm::Error e = compiler->restore(bytes);
    ASSERT_TRUE(bool(e));
    EXPECT_NE(llvm::toString(std::move(e)).find("truncated or corrupted"), std::string::npos);
  }
  // Code for another architecture, and for CPU features this host lacks.
  auto header = [](llvm::StringRef triple, llvm::StringRef features) {
    std::string out;
    ByteWriter w(out);
    w.bytes("hx cpu kernels 1");
    w.bytes(triple);
    w.bytes("some-cpu");
    w.bytes(features);
    w.u32(0);
    w.u32(0);
    return out;
  };
  auto compiler = makeCompiler();
  llvm::Error arch = compiler->restore(header("riscv64-unknown-linux-gnu", ""));
  ASSERT_TRUE(bool(arch));
  EXPECT_NE(llvm::toString(std::move(arch)).find("the cpu code is for riscv64"), std::string::npos);
  std::string lacking;
  for (const auto &[name, has] : llvm::sys::getHostCPUFeatures())
    if (!has && (lacking.empty() || name < lacking))
      lacking = name.str();
  if (lacking.empty())
    GTEST_SKIP() << "the host has every feature LLVM lists";
  std::string triple = llvm::sys::getProcessTriple();
  llvm::Error features = makeCompiler()->restore(header(triple, "+" + lacking));
  ASSERT_TRUE(bool(features));
  std::string msg = llvm::toString(std::move(features));
  EXPECT_NE(msg.find("needs CPU features this host"), std::string::npos) << msg;
  EXPECT_NE(msg.find(lacking), std::string::npos) << msg;
  // The same bytes without that feature load (no kernels).
  EXPECT_FALSE(bool(makeCompiler()->restore(header(triple, "-" + lacking))));
}

TEST(SavedKernelsTest, CUDAKernelsComeBackAsTheSamePTX) {
  auto call =
      TypedCall::parse("%a: Tensor[(300), float32], %b: Tensor[(300), float32]", "add(%a, %b)");
  llvm::Expected<std::unique_ptr<Backend>> first = createCUDABackend("sm_80");
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  ASSERT_TRUE(bool((*first)->addKernel(call->call())));
  ASSERT_FALSE(bool((*first)->finalize()));
  std::string saved, ptx;
  ASSERT_FALSE(bool((*first)->saveKernels(saved)));
  {
    llvm::raw_string_ostream os(ptx);
    (*first)->printCode(os);
  }
  llvm::Expected<std::unique_ptr<Backend>> second = createCUDABackend("sm_80", saved);
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_EQ((*second)->numKernels(), 1u);
  llvm::Expected<unsigned> id = (*second)->addKernel(call->call());
  ASSERT_TRUE(bool(id));
  EXPECT_EQ(*id, 0u);
  EXPECT_EQ((*second)->numKernels(), 1u);
  std::string again;
  llvm::raw_string_ostream os(again);
  (*second)->printCode(os);
  EXPECT_EQ(again, ptx);
  EXPECT_EQ((*second)->binary(0).symbol(), (*first)->binary(0).symbol());
  // Another architecture's PTX is refused, as are cut bytes.
  llvm::Expected<std::unique_ptr<Backend>> other = createCUDABackend("sm_90", saved);
  ASSERT_FALSE(bool(other));
  EXPECT_NE(llvm::toString(other.takeError()).find("are for sm_80, not sm_90"), std::string::npos);
  llvm::Expected<std::unique_ptr<Backend>> cut =
      createCUDABackend("sm_80", llvm::StringRef(saved).drop_back(3));
  ASSERT_FALSE(bool(cut));
  EXPECT_NE(llvm::toString(cut.takeError()).find("truncated or corrupted"), std::string::npos);
}

TEST(SavedKernelsTest, EmulatedCUDAKernelsComeBackCompiled) {
  auto call = TypedCall::parse("%a: Tensor[(300), float32], %b: Tensor[(300), float32]",
                               "multiply(%a, %b)");
  std::string saved;
  {
    llvm::Expected<std::unique_ptr<Backend>> b = createSimtBackend(/*keepKernels=*/true);
    ASSERT_TRUE(bool(b)) << llvm::toString(b.takeError());
    ASSERT_TRUE(bool((*b)->addKernel(call->call())));
    ASSERT_FALSE(bool((*b)->finalize()));
    ASSERT_FALSE(bool((*b)->saveKernels(saved)));
  }
  llvm::Expected<std::unique_ptr<Backend>> b = createSimtBackend(false, saved);
  ASSERT_TRUE(bool(b)) << llvm::toString(b.takeError());
  EXPECT_EQ((*b)->numKernels(), 1u);
  llvm::Expected<unsigned> id = (*b)->addKernel(call->call());
  ASSERT_TRUE(bool(id));
  EXPECT_EQ(*id, 0u);
  ASSERT_FALSE(bool((*b)->finalize()));
  // It runs: a device launches it on host memory.
  std::unique_ptr<Device> dev = createSimtDevice(0, 0);
  std::vector<float> x(300, 3.0f), y(300, 0.5f), z(300, 0.0f);
  void *bufs[3];
  for (int i = 0; i < 3; ++i) {
    llvm::Expected<void *> p = dev->allocate(300 * sizeof(float));
    ASSERT_TRUE(bool(p));
    bufs[i] = *p;
  }
  ASSERT_FALSE(bool(dev->copyFromHost(bufs[0], x.data(), 1200)));
  ASSERT_FALSE(bool(dev->copyFromHost(bufs[1], y.data(), 1200)));
  llvm::Expected<const void *> k = dev->load((*b)->binary(0));
  ASSERT_TRUE(bool(k));
  ASSERT_FALSE(bool(dev->launch(*k, bufs, 3)));
  ASSERT_FALSE(bool(dev->copyToHost(z.data(), bufs[2], 1200)));
  EXPECT_EQ(z[299], 1.5f);
  for (void *p : bufs)
    dev->deallocate(p);
}

} // namespace
