//===- SessionTest.cpp - The public compile-and-run API -------------------===//
#include "hx/Run/Session.h"
#include "SeedProgram.h"
#include "hx/IR/TargetKind.h"
#include "hx/Run/Inputs.h"
#include "gtest/gtest.h"
#include <set>

using namespace hx;

namespace {

TEST(SessionTest, LoadsCompilesRunsAndChecks) {
  Session s;
  ASSERT_EQ(s.loadText(test::kSeedProgram, "seed.ir", LoadOptions()), Session::Status::Ok);
  ASSERT_NE(s.main(), nullptr);
  // Planned: the shared input %b is copied once.
  std::vector<std::string> notes;
  CompileOptions co;
  co.devices.emulate = emulatedTypes(); // no GPU needed
  co.checkDevices = true;
  llvm::Error e = s.compile(co, [&](const llvm::Twine &n) { notes.push_back(n.str()); });
  ASSERT_FALSE(e) << llvm::toString(std::move(e));
  ASSERT_EQ(s.devices().size(), 2u);
  EXPECT_EQ(s.devices()[1]->backend(), "cuda-emu");

  auto inputs = randomInputs(*s.main(), /*seed=*/3, RandomInputMode::Uniform);
  ASSERT_TRUE(bool(inputs));
  RunProfile profile;
  auto first = s.run(*inputs, &profile);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_FALSE(profile.steps.empty());
  auto second = s.run(*inputs); // repeatable
  ASSERT_TRUE(bool(second));
  ASSERT_EQ(first->size(), 1u);
  for (int64_t i = 0; i < (*first)[0].numElements(); ++i) {
    double a = inputs->at(0).getDouble(i), b = inputs->at(1).getDouble(i),
           c = inputs->at(2).getDouble(i);
    EXPECT_NEAR((*first)[0].getDouble(i), (a + b) - (b + c), 1e-6);
    EXPECT_EQ((*first)[0].getDouble(i), (*second)[0].getDouble(i));
  }
  auto cmp = s.check(*inputs, *first);
  ASSERT_TRUE(bool(cmp));
  EXPECT_TRUE(cmp->ok());
  EXPECT_FALSE(cmp->vacuous());
}

TEST(SessionTest, BindsDynamicShapesOncePerSignature) {
  // TVM's test_dynamic_input: the `?` dims take the inputs' sizes.
  Session s;
  std::string errors;
  s.diags().setHandler([&](const Diagnostic &d) {
    llvm::raw_string_ostream os(errors);
    s.diags().print(os, d);
  });
  const char *text = "#[version = \"0.0.5\"]\n"
                     "def @main(%x0: Tensor[(?, ?), float32], %x1: Tensor[(?, ?), float32]) {\n"
                     "  add(%x0, %x1)\n}\n";
  ASSERT_EQ(s.loadText(text, "dyn.ir", LoadOptions()), Session::Status::Ok);
  EXPECT_TRUE(s.hasDynamicShapes());
  auto runWith = [&](int64_t rows) -> std::vector<HostTensor> {
    std::vector<HostTensor> in;
    for (int k = 0; k < 2; ++k) {
      in.emplace_back(DType::Float32, llvm::SmallVector<int64_t, 4>{rows, 4});
      for (int64_t i = 0; i < rows * 4; ++i)
        in.back().as<float>()[i] = float(i + k);
    }
    return in;
  };
  std::vector<HostTensor> three = runWith(3), five = runWith(5);
  ASSERT_EQ(s.bindShapes(three), Session::Status::Ok) << errors;
  EXPECT_FALSE(s.hasDynamicShapes());
  ASSERT_FALSE(bool(s.compile(CompileOptions())));
  const Executable *compiled = &s.executable();
  auto r3 = s.run(three);
  ASSERT_TRUE(bool(r3)) << llvm::toString(r3.takeError());
  EXPECT_EQ((*r3)[0].shape(), llvm::ArrayRef<int64_t>({3, 4}));
  EXPECT_EQ((*r3)[0].as<float>()[5], 11.0f); // 5 + 6
  // The same shapes again: nothing to bind, the executable stays.
  ASSERT_EQ(s.bindShapes(three), Session::Status::Ok);
  EXPECT_EQ(&s.executable(), compiled);
  // Other shapes: typed, planned and compiled again.
  ASSERT_EQ(s.bindShapes(five), Session::Status::Ok) << errors;
  EXPECT_FALSE(s.isCompiled());
  ASSERT_FALSE(bool(s.compile(CompileOptions())));
  const Executable *compiled5 = &s.executable();
  auto r5 = s.run(five);
  ASSERT_TRUE(bool(r5));
  EXPECT_EQ((*r5)[0].shape(), llvm::ArrayRef<int64_t>({5, 4}));
  // The first shapes again: their module and executable come back, nothing
  // is planned or compiled; then the second's.
  ASSERT_EQ(s.bindShapes(three), Session::Status::Ok);
  ASSERT_TRUE(s.isCompiled());
  EXPECT_EQ(&s.executable(), compiled);
  r3 = s.run(three);
  ASSERT_TRUE(bool(r3));
  EXPECT_EQ((*r3)[0].as<float>()[5], 11.0f);
  ASSERT_EQ(s.bindShapes(five), Session::Status::Ok);
  ASSERT_TRUE(s.isCompiled());
  EXPECT_EQ(&s.executable(), compiled5);
  // Shapes the operator rejects: a located type error at the add.
  std::vector<HostTensor> mixed = runWith(3), more = runWith(5);
  mixed[1] = std::move(more[1]);
  EXPECT_EQ(s.bindShapes(mixed), Session::Status::UserError);
  EXPECT_NE(errors.find("dyn.ir:3:3: error: add: shapes (3, 4) and (5, 4)"), std::string::npos)
      << errors;
  // ... which leaves the module bound as it was, still compiled.
  ASSERT_TRUE(s.isCompiled());
  EXPECT_EQ(&s.executable(), compiled5);
  r5 = s.run(five);
  ASSERT_TRUE(bool(r5));
  EXPECT_EQ((*r5)[0].shape(), llvm::ArrayRef<int64_t>({5, 4}));
}

TEST(SessionTest, BuildsEachStageOncePerFrontierShape) {
  // nonzero's count decides the second stage's shapes: a run with the same
  // count reuses the stage, another count builds one more.
  const char *text = "#[version = \"0.0.5\"]\n"
                     "def @main(%x: Tensor[(4), float32]) {\n"
                     "  %0 = nonzero(greater(%x, 0f));\n"
                     "  %1 = take(%x, %0, axis=0);\n"
                     "  (sum(%1), multiply(%1, 2f))\n"
                     "}\n";
  Session s;
  LoadOptions lo;
  lo.fuse = true;
  ASSERT_EQ(s.loadText(text, "nz.ir", lo), Session::Status::Ok);
  llvm::Error e = s.compile(CompileOptions());
  ASSERT_FALSE(e) << llvm::toString(std::move(e));
  ASSERT_NE(s.stages(), nullptr);
  EXPECT_EQ(s.stages()->numStages(), 1u);
  auto run = [&](std::vector<float> values) {
    std::vector<HostTensor> in;
    in.emplace_back(DType::Float32, llvm::ArrayRef<int64_t>{4});
    for (int i = 0; i < 4; ++i)
      in[0].setDouble(i, values[i]);
    auto out = s.run(in);
    EXPECT_TRUE(bool(out)) << llvm::toString(out.takeError());
    auto cmp = s.check(in, *out);
    EXPECT_TRUE(bool(cmp) && cmp->ok());
    return std::move(*out);
  };
  std::vector<HostTensor> a = run({1, -1, 2, -2});
  EXPECT_EQ(s.stages()->numStages(), 2u);
  EXPECT_EQ(a[0].getDouble(0), 3);
  EXPECT_EQ(a[1].shape(), (llvm::ArrayRef<int64_t>{1, 2}));
  run({-5, 7, 8, -1}); // two positives again: the same stage
  EXPECT_EQ(s.stages()->numStages(), 2u);
  std::vector<HostTensor> b = run({1, 1, 1, -1});
  EXPECT_EQ(s.stages()->numStages(), 3u);
  EXPECT_EQ(b[1].shape(), (llvm::ArrayRef<int64_t>{1, 3}));
  std::vector<HostTensor> none = run({-1, -1, -1, -1}); // an empty count
  EXPECT_EQ(none[0].getDouble(0), 0);
  EXPECT_EQ(none[1].shape(), (llvm::ArrayRef<int64_t>{1, 0}));
}

TEST(SessionTest, ReportsBadInputAsUserError) {
  Session s;
  std::string errors;
  s.diags().setHandler([&](const Diagnostic &d) {
    llvm::raw_string_ostream os(errors);
    s.diags().print(os, d);
  });
  EXPECT_EQ(
      s.loadText("#[version = \"0.0.5\"]\ndef @main(%x) { nope(%x) }\n", "bad.ir", LoadOptions()),
      Session::Status::UserError);
  EXPECT_NE(errors.find("bad.ir:2:"), std::string::npos) << errors;
  // Nothing loaded: compile says so instead of crashing.
  llvm::Error e = s.compile(CompileOptions());
  EXPECT_TRUE(bool(e));
  llvm::consumeError(std::move(e));
}

TEST(SessionTest, ComparisonFlagsVacuousOutputs) {
  HostTensor nan(DType::Float32, {2}), inf(DType::Float32, {2});
  nan.setDouble(0, NAN), nan.setDouble(1, NAN);
  inf.setDouble(0, INFINITY), inf.setDouble(1, -INFINITY);
  std::vector<HostTensor> got, want;
  got.push_back(nan.clone()), got.push_back(inf.clone());
  want.push_back(nan.clone()), want.push_back(inf.clone());
  Comparison c = compareResults(got, want, {});
  EXPECT_TRUE(c.ok());
  EXPECT_TRUE(c.vacuous());
  EXPECT_EQ(c.vacuousList(), "output_0, output_1");
}

} // namespace

namespace {

TEST(BackendRegistryTest, EveryBackendNamesAKindOfItsDeviceType) {
  std::set<std::string> names;
  for (const BackendInfo &b : allBackends()) {
    EXPECT_TRUE(names.insert(b.name.str()).second) << b.name.str() << " registered twice";
    const TargetKindInfo *kind = lookupTargetKind(b.targetKind);
    ASSERT_NE(kind, nullptr) << b.name.str() << ": unknown target kind " << b.targetKind.str();
    EXPECT_EQ(kind->deviceType, b.deviceType()) << b.name.str();
    EXPECT_EQ(lookupBackend(b.name), &b);
    ASSERT_TRUE(b.createBackend && b.createDevice) << b.name.str();
  }
  EXPECT_EQ(lookupBackend("tpu"), nullptr);
}

TEST(BackendRegistryTest, CacheMakesOneBackendPerBackendAndTarget) {
  BackendCache cache;
  std::string error;
  Target host = *Target::parse("llvm", error),
         generic = *Target::parse("llvm -mcpu=generic", error);
  auto a = cache.get("cpu", host), b = cache.get("cpu", host), c = cache.get("cpu", generic);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
  EXPECT_EQ(cache.made().size(), 2u);
  auto none = cache.get("tpu", host);
  ASSERT_FALSE(bool(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("no backend named 'tpu'"), std::string::npos);

  // A cpu instance standing in for a cuda virtual device compiles for itself.
  std::unique_ptr<Device> cpu = cantFail(lookupBackend("cpu")->createDevice(0, DeviceOptions()));
  VirtualDevice cudaVd;
  cudaVd.deviceType = *parseDeviceType("cuda");
  cudaVd.target = *Target::parse("cuda -arch=sm_90", error);
  auto standIn = cache.backendFor(cudaVd, *cpu);
  ASSERT_TRUE(bool(standIn)) << llvm::toString(standIn.takeError());
  EXPECT_EQ(*standIn, *a);
  EXPECT_EQ((*standIn)->name(), "cpu");
}

} // namespace

namespace {

TEST(CompareTest, AnInfinityAgreesOnlyWithItself) {
  auto tensor = [](std::initializer_list<double> values) {
    HostTensor t(DType::Float32, {int64_t(values.size())});
    int64_t i = 0;
    for (double v : values)
      t.setDouble(i++, v);
    return t;
  };
  std::vector<HostTensor> got, want;
  got.push_back(tensor({INFINITY, 1.0, -INFINITY}));
  want.push_back(tensor({INFINITY, INFINITY, INFINITY}));
  Comparison c = compareResults(got, want, {});
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.maxError, INFINITY);
  EXPECT_EQ(c.worstRatio, INFINITY);
  EXPECT_NE(c.where().find("output_0[1]"), std::string::npos) << c.where();
  EXPECT_FALSE(c.vacuous()); // a finite value takes part
}

TEST(BackendRegistryTest, EquivalentTargetsShareABackend) {
  BackendCache cache;
  std::string error;
  auto backendOf = [&](llvm::StringRef name, llvm::StringRef target) {
    return cantFail(cache.get(name, *Target::parse(target, error)));
  };
  Backend *host = backendOf("cpu", "llvm");
  EXPECT_EQ(backendOf("cpu", "llvm -keys=cpu"), host);
  EXPECT_EQ(backendOf("cpu", "llvm -mcpu=native"), host);
  EXPECT_EQ(backendOf("cpu", "c"), host);
  Backend *sm90 = backendOf("cuda", "cuda -arch=sm_90");
  EXPECT_EQ(backendOf("cuda", "nvptx -mcpu=sm_90"), sm90);
  EXPECT_NE(backendOf("cuda", "cuda -arch=sm_80"), sm90);
  // The emulator runs the same kernels whatever the architecture.
  EXPECT_EQ(backendOf("cuda-emu", "cuda -arch=sm_80"), backendOf("cuda-emu", "cuda"));
}

} // namespace
