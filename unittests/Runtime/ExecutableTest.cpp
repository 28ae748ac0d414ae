//===- ExecutableTest.cpp - Schedules, memory and runs --------------------===//
#include "hx/Runtime/Executable.h"
#include "PlanForTest.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Parser/Parser.h"
#include "hx/Targets/CPU/CPUBackend.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace hx;
using hx::test::plan;

namespace {

const char *kChain = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(256), float32]) {
  %0 = exp(%x);
  %1 = negative(%0);
  %2 = tanh(%1);
  %3 = exp(%2);
  %4 = negative(%3);
  add(%4, %x)
}
)";

TEST(ExecutableTest, ChainRunsAndReusesMemory) {
  auto p = plan(kChain);
  auto dev = createCPUDevice(0, 1);
  auto cpu = createCPUBackend();
  ASSERT_TRUE(bool(cpu));
  Device *devices[] = {dev.get()};
  Backend *backends[] = {cpu->get()};
  auto exe = Executable::build(*p->m, devices, backends, *p->diags);
  ASSERT_TRUE(exe);
  // Five intermediates of 1 KiB, two live at a time.
  EXPECT_EQ(exe->memoryPlan().totalBytes[0], 5u * 1024);
  EXPECT_EQ(exe->memoryPlan().arenaBytes[0], 2u * 1024);
  // exp, negative and tanh compile once each, add once.
  EXPECT_EQ((*cpu)->numKernels(), 4u);
  std::vector<HostTensor> in;
  in.emplace_back(DType::Float32, llvm::ArrayRef<int64_t>{256});
  for (int i = 0; i < 256; ++i)
    in[0].setDouble(i, (i - 128) / 64.0);
  auto got = exe->run(in);
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  auto want = interpret(*p->m, in);
  ASSERT_TRUE(bool(want));
  for (int i = 0; i < 256; ++i)
    EXPECT_NEAR((*got)[0].getDouble(i), (*want)[0].getDouble(i), 1e-5);
  // A second run reuses everything and gives the same result.
  auto again = exe->run(in);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(0, memcmp((*again)[0].data(), (*got)[0].data(), 1024));
}

TEST(ExecutableTest, TwoCpuInstancesHaveTheirOwnArenas) {
  auto p = plan(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(64), float32]) {
  %0 = exp(%a);
  %1 = on_device(%0, virtual_device=meta[VirtualDevice][0]);
  %2 = negative(%1);
  on_device(%2, virtual_device=meta[VirtualDevice][1])
}
#[metadata]
{"VirtualDevice": [{"device_type": "cpu"}, {"device_type": "cuda"}]}
)");
  auto d0 = createCPUDevice(0, 1), d1 = createCPUDevice(1, 1);
  auto cpu = createCPUBackend();
  ASSERT_TRUE(bool(cpu));
  Device *devices[] = {d0.get(), d1.get()};
  Backend *backends[] = {cpu->get(), cpu->get()};
  ExecutableOptions opts;
  opts.checkDevices = true;
  auto exe = Executable::build(*p->m, devices, backends, *p->diags, opts);
  ASSERT_TRUE(exe);
  unsigned copies = 0;
  for (const Step &s : exe->steps())
    copies += s.kind == Step::Kind::Copy;
  EXPECT_EQ(copies, 1u);
  std::vector<HostTensor> in;
  in.emplace_back(DType::Float32, llvm::ArrayRef<int64_t>{64});
  auto got = exe->run(in);
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  EXPECT_NEAR((*got)[0].getDouble(0), -1.0, 1e-6); // -exp(0)
}

} // namespace
