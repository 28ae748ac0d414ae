//===- CompilerTest.cpp - CPUCompiler: cache, parallel-for, errors, IR ----===//

#include "KernelTestUtil.h"
#include "hx/CodeGen/KernelDefs.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Targets/CUDA/PTXCompiler.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace hx;
using namespace hx::test;

namespace {

TEST(CompilerTest, SupportsEveryOperatorButTheAnnotationsAndValueDependentShapes) {
  for (const OpDef &def : allOps()) {
    bool annotation = def.name == kOnDevice || def.name == kDeviceCopy;
    EXPECT_EQ(CPUCompiler::supports(def), !annotation && !def.valueDependentShape)
        << def.name.str();
  }
}

TEST(CompilerTest, IdenticalCallsShareOneKernel) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  std::vector<std::unique_ptr<TypedCall>> calls;
  for (int i = 0; i < 100; ++i) {
    calls.push_back(TypedCall::parse("%a: Tensor[(5, 7), float32], %b: Tensor[(5, 7), float32]",
                                     "add(%a, %b)"));
    ASSERT_TRUE(calls.back());
  }
  std::set<unsigned> ids;
  for (auto &c : calls) {
    llvm::Expected<unsigned> id = compiler->addKernel(c->call());
    ASSERT_TRUE(bool(id)) << llvm::toString(id.takeError());
    ids.insert(*id);
  }
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(compiler->numKernels(), 1u);
  ASSERT_FALSE(bool(compiler->finalize()));
  EXPECT_NE(compiler->lookup(*ids.begin()), nullptr);
}

TEST(CompilerTest, DifferentShapesDTypesOrAttributesGetDifferentKernels) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  const char *programs[][2] = {
      {"%a: Tensor[(5, 7), float32], %b: Tensor[(5, 7), float32]", "add(%a, %b)"},
      {"%a: Tensor[(5, 8), float32], %b: Tensor[(5, 8), float32]", "add(%a, %b)"},
      {"%a: Tensor[(5, 7), int32], %b: Tensor[(5, 7), int32]", "add(%a, %b)"},
      {"%a: Tensor[(5, 7), float32], %b: Tensor[(7), float32]", "add(%a, %b)"},
      {"%a: Tensor[(5, 7), float32]", "sum(%a, axis=[1])"},
      {"%a: Tensor[(5, 7), float32]", "sum(%a, axis=[0])"},
      {"%a: Tensor[(5, 7), float32]", "sum(%a, axis=[0], keepdims=True)"},
  };
  std::set<unsigned> ids;
  std::set<std::string> signatures;
  for (auto &p : programs) {
    auto tc = TypedCall::parse(p[0], p[1]);
    ASSERT_TRUE(tc);
    signatures.insert(CPUCompiler::signature(tc->call()));
    llvm::Expected<unsigned> id = compiler->addKernel(tc->call());
    ASSERT_TRUE(bool(id)) << llvm::toString(id.takeError());
    ids.insert(*id);
  }
  EXPECT_EQ(ids.size(), std::size(programs));
  EXPECT_EQ(signatures.size(), std::size(programs));
  EXPECT_EQ(compiler->numKernels(), std::size(programs));
  ASSERT_FALSE(bool(compiler->finalize()));
}

TEST(CompilerTest, SignatureNamesOperatorNonDefaultAttributesAndTypes) {
  auto tc = TypedCall::parse("%a: Tensor[(5, 7), float32]", "sum(%a, axis=[1], keepdims=False)");
  ASSERT_TRUE(tc);
  EXPECT_EQ(CPUCompiler::signature(tc->call()),
            "sum(axis=[1]) Tensor[(5, 7), float32] -> Tensor[(5), float32]");
}

TEST(CompilerTest, KernelsAddedAfterFinalizeGoToANewModule) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  auto first = TypedCall::parse("%a: Tensor[(3), float32]", "negative(%a)");
  auto second = TypedCall::parse("%a: Tensor[(3), float32]", "exp(%a)");
  ASSERT_TRUE(first && second);
  Buffer a(DType::Float32, {3});
  for (int i = 0; i < 3; ++i)
    a.set(i, i);
  std::vector<Buffer> r1 = runKernel(*compiler, first->call(), {&a});
  std::vector<Buffer> r2 = runKernel(*compiler, second->call(), {&a});
  ASSERT_EQ(r1.size(), 1u);
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_EQ(r1[0].get(2), -2);
  EXPECT_NEAR(r2[0].get(1), 2.718281828, 1e-6);
  EXPECT_EQ(compiler->numKernels(), 2u);
  EXPECT_EQ(compiler->kernelName(1), "hx_k1_exp");
}

/// A parallel-for that counts its calls in the launch context and runs the
/// range in four chunks, as a thread pool would.
struct Counter {
  std::atomic<int> calls{0};
  std::atomic<int64_t> iterations{0};
};

void countingParallelFor(void *launch, ParallelBodyFn body, void *closure, int64_t n) {
  auto *c = static_cast<Counter *>(launch);
  ++c->calls;
  c->iterations += n;
  int64_t chunk = (n + 3) / 4;
  for (int64_t begin = 0; begin < n; begin += chunk)
    body(closure, begin, std::min(n, begin + chunk));
}

TEST(CompilerTest, LargeKernelsGoThroughTheParallelForCallback) {
  CPUCompilerOptions opts;
  opts.parallelFor = countingParallelFor;
  auto compiler = makeCompiler(opts);
  ASSERT_TRUE(compiler);
  auto big = TypedCall::parse("%a: Tensor[(512, 1024), float32], %b: Tensor[(1024), float32]",
                              "add(%a, %b)");
  auto small =
      TypedCall::parse("%a: Tensor[(3, 5), float32], %b: Tensor[(5), float32]", "add(%a, %b)");
  ASSERT_TRUE(big && small);
  llvm::Expected<unsigned> bigId = compiler->addKernel(big->call());
  llvm::Expected<unsigned> smallId = compiler->addKernel(small->call());
  ASSERT_TRUE(bigId && smallId);
  ASSERT_FALSE(bool(compiler->finalize()));

  Buffer a(DType::Float32, {512, 1024}), b(DType::Float32, {1024}),
      out(DType::Float32, {512, 1024});
  for (int64_t i = 0; i < a.size(); ++i)
    a.set(i, double(i % 1000));
  for (int64_t i = 0; i < b.size(); ++i)
    b.set(i, 0.5);
  Counter counter;
  void *buffers[] = {a.data(), b.data(), out.data()};
  compiler->lookup (*bigId)(buffers, &counter);
  EXPECT_EQ(counter.calls.load(), 1);
  EXPECT_EQ(counter.iterations.load(), 512);
  for (int64_t i = 0; i < out.size(); i += 4099)
    ASSERT_EQ(out.get(i), double(i % 1000) + 0.5) << i;

  Buffer sa(DType::Float32, {3, 5}), sb(DType::Float32, {5}), so(DType::Float32, {3, 5});
  void *small_buffers[] = {sa.data(), sb.data(), so.data()};
  compiler->lookup (*smallId)(small_buffers, &counter);
  EXPECT_EQ(counter.calls.load(), 1) << "a small kernel runs inline";
}

TEST(CompilerTest, MinParallelWorkIsAnOption) {
  CPUCompilerOptions opts;
  opts.parallelFor = countingParallelFor;
  opts.minParallelWork = 1;
  auto compiler = makeCompiler(opts);
  ASSERT_TRUE(compiler);
  auto tc = TypedCall::parse("%a: Tensor[(3, 1000000), float32]", "sum(%a, axis=[1])");
  auto tiny =
      TypedCall::parse("%a: Tensor[(3, 5), float32], %b: Tensor[(5), float32]", "add(%a, %b)");
  ASSERT_TRUE(tc && tiny);
  llvm::Expected<unsigned> id = compiler->addKernel(tc->call());
  llvm::Expected<unsigned> tinyId = compiler->addKernel(tiny->call());
  ASSERT_TRUE(id && tinyId);
  ASSERT_FALSE(bool(compiler->finalize()));
  // Three expensive rows: one parallel iteration each.
  Buffer a(DType::Float32, {3, 1000000}), out(DType::Float32, {3});
  for (int64_t i = 0; i < a.size(); ++i)
    a.set(i, double(i / 1000000 + 1));
  Counter counter;
  void *buffers[] = {a.data(), out.data()};
  compiler->lookup (*id)(buffers, &counter);
  EXPECT_EQ(counter.calls.load(), 1);
  EXPECT_EQ(counter.iterations.load(), 3);
  EXPECT_EQ(out.get(0), 1e6);
  EXPECT_EQ(out.get(2), 3e6);
  // With minParallelWork = 1 even 3 rows of 5 additions go through the
  // callback.
  Buffer t(DType::Float32, {3, 5}), tb(DType::Float32, {5}), to(DType::Float32, {3, 5});
  void *tinyBuffers[] = {t.data(), tb.data(), to.data()};
  compiler->lookup (*tinyId)(tinyBuffers, &counter);
  EXPECT_EQ(counter.calls.load(), 2);
}

TEST(CompilerTest, PrintLLVMShowsTheOptimizedKernel) {
  CPUCompilerOptions opts;
  opts.keepIR = true;
  auto compiler = makeCompiler(opts);
  ASSERT_TRUE(compiler);
  auto tc = TypedCall::parse("%a: Tensor[(4096, 64), float32], %b: Tensor[(64), float32]",
                             "multiply(%a, %b)");
  ASSERT_TRUE(tc);
  llvm::Expected<unsigned> id = compiler->addKernel(tc->call());
  ASSERT_TRUE(bool(id));
  ASSERT_FALSE(bool(compiler->finalize()));
  std::string ir;
  llvm::raw_string_ostream os(ir);
  compiler->printLLVM(os);
  EXPECT_NE(ir.find("define void @hx_k0_multiply(ptr"), std::string::npos) << ir;
  EXPECT_NE(ir.find("hx_parallel_for"), std::string::npos) << ir;
  // The host's TargetIRAnalysis lets the loop vectorizer use vector registers.
  EXPECT_NE(ir.find("x float>"), std::string::npos) << ir;
}

TEST(CompilerTest, PrintLLVMIsEmptyWithoutKeepIR) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  auto tc = TypedCall::parse("%a: Tensor[(4), float32]", "exp(%a)");
  ASSERT_TRUE(tc);
  ASSERT_TRUE(bool(compiler->addKernel(tc->call())));
  ASSERT_FALSE(bool(compiler->finalize()));
  std::string ir;
  llvm::raw_string_ostream os(ir);
  compiler->printLLVM(os);
  EXPECT_EQ(ir, "");
}

TEST(CompilerTest, DeviceAnnotationsAreNotKernels) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  std::string err;
  auto tc = TypedCall::parse("%a: Tensor[(4), float32]",
                             "on_device(%a, virtual_device=meta[VirtualDevice][0])", &err,
                             "#[metadata]\n{\"VirtualDevice\": [{\"device_type\": \"cpu\"}]}\n");
  ASSERT_TRUE(tc) << err;
  llvm::Expected<unsigned> id = compiler->addKernel(tc->call());
  ASSERT_FALSE(bool(id));
  EXPECT_NE(llvm::toString(id.takeError()).find("on_device: device annotations are never kernels"),
            std::string::npos);
}

TEST(CompilerTest, UntypedCallIsAnErrorNamingTheOperator) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  auto tc = TypedCall::parse("%a: Tensor[(4), float32]", "exp(%a)");
  ASSERT_TRUE(tc);
  // A fresh call without types.
  Call untyped(tc->call().callee, tc->call().args, tc->call().attrs, {});
  llvm::Expected<unsigned> id = compiler->addKernel(untyped);
  ASSERT_FALSE(bool(id));
  std::string msg = llvm::toString(id.takeError());
  EXPECT_NE(msg.find("exp: the result has no type"), std::string::npos) << msg;
  EXPECT_EQ(compiler->numKernels(), 0u);
}

TEST(CompilerTest, UnsupportedLayoutIsAnErrorAndLeavesTheCompilerUsable) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  auto tc = TypedCall::parse("%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]",
                             "nn.conv2d(%x, %w)");
  ASSERT_TRUE(tc);
  // The type relation rejects blocked layouts, so change the attribute after
  // typing, as a buggy pass might.
  Call bad(tc->call().callee, tc->call().args, tc->call().attrs, {});
  bad.checkedType = tc->call().checkedType;
  bad.attrs.set("data_layout", AttrValue::ofString("NCHW4c"));
  llvm::Expected<unsigned> id = compiler->addKernel(bad);
  ASSERT_FALSE(bool(id));
  EXPECT_EQ(llvm::toString(id.takeError()),
            "nn.conv2d: data_layout NCHW4c is not supported by the CPU code generator");
  // The failed kernel left nothing behind.
  Buffer x(DType::Float32, {1, 3, 8, 8}), w(DType::Float32, {4, 3, 3, 3});
  std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&x, &w});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(compiler->numKernels(), 1u);
}

TEST(CompilerTest, FinalizeWithNothingPendingSucceeds) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  EXPECT_FALSE(bool(compiler->finalize()));
  EXPECT_EQ(compiler->lookup(0), nullptr);
}

TEST(CompilerTest, ManyKernelsInOneModule) {
  // One module, one optimization pipeline, every kernel resolvable.
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  std::vector<std::unique_ptr<TypedCall>> calls;
  for (int n = 1; n <= 40; ++n)
    calls.push_back(TypedCall::parse("%a: " + tensorType({n}, DType::Float32), "tanh(%a)"));
  std::vector<unsigned> ids;
  for (auto &c : calls) {
    ASSERT_TRUE(c);
    llvm::Expected<unsigned> id = compiler->addKernel(c->call());
    ASSERT_TRUE(bool(id));
    ids.push_back(*id);
  }
  ASSERT_FALSE(bool(compiler->finalize()));
  for (unsigned id : ids)
    EXPECT_NE(compiler->lookup(id), nullptr);
}

} // namespace

namespace {

// The cuda backend's kernels point at their module's PTX: a module must not
// move when later finalize() calls add modules (a backend shared across
// modules, as the differential tester's, finalizes many times).
TEST(PTXCompilerTest, ModuleTextStaysPutAcrossFinalizes) {
  llvm::Expected<std::unique_ptr<PTXCompiler>> c = PTXCompiler::create(PTXCompilerOptions());
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  std::vector<std::unique_ptr<TypedCall>> calls;
  auto addAndFinalize = [&](int n) {
    std::string shape = "Tensor[(" + std::to_string(n) + "), float32]";
    calls.push_back(TypedCall::parse("%a: " + shape + ", %b: " + shape, "add(%a, %b)"));
    ASSERT_TRUE(calls.back());
    llvm::Expected<unsigned> id = (*c)->addKernel(calls.back()->call());
    ASSERT_TRUE(bool(id)) << llvm::toString(id.takeError());
    ASSERT_FALSE(bool((*c)->finalize()));
  };
  addAndFinalize(1);
  const std::string *first = &(*c)->ptx(0);
  std::string text = *first;
  for (int n = 2; n < 40; ++n)
    addAndFinalize(n);
  ASSERT_GT((*c)->numModules(), 30u);
  EXPECT_EQ(&(*c)->ptx(0), first);
  EXPECT_EQ(*first, text);
}

} // namespace

// With HX_PERF_MAP=1 the JIT appends each linked function, the outlined
// parallel bodies by name too, to /tmp/perf-PID.map for `perf report`.
TEST(CompilerTest, PerfMapNamesKernelsAndTheirParallelBodies) {
  std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  std::remove(path.c_str());
  ::setenv("HX_PERF_MAP", "1", 1);
  auto compiler = makeCompiler();
  ::unsetenv("HX_PERF_MAP");
  ASSERT_TRUE(compiler);
  auto dense = TypedCall::parse("%a: Tensor[(64, 256), float32], %w: Tensor[(128, 256), float32]",
                                "nn.dense(%a, %w)");
  ASSERT_TRUE(dense);
  llvm::Expected<unsigned> id = compiler->addKernel(dense->call());
  ASSERT_TRUE(bool(id)) << llvm::toString(id.takeError());
  ASSERT_FALSE(bool(compiler->finalize()));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  std::string name = compiler->kernelName(*id).str();
  EXPECT_NE(text.str().find(" " + name + "\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find(" " + name + ".par"), std::string::npos) << text.str();
}
