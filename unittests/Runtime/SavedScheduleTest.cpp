//===- SavedScheduleTest.cpp - Schedules saved and restored ---------------===//
//
// Executable::save and Executable::restore (lib/Runtime/SavedSchedule.cpp):
// a restored executable has the built one's steps, buffers and plan and
// runs to the same bytes; every truncation and every flipped byte of the
// saved bytes is refused or restored without harm (the sanitizer build
// runs this too); bytes for another module are refused.
//
//===----------------------------------------------------------------------===//
#include "PlanForTest.h"
#include "hx/IR/Walk.h"
#include "hx/Runtime/Executable.h"
#include "hx/Targets/CPU/CPUBackend.h"
#include "llvm/ADT/DenseMap.h"
#include "gtest/gtest.h"

using namespace hx;
using hx::test::plan;

namespace {

// A tensor constant, a reshape (an alias), an if, and two devices.
const char *kModule = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %c: bool) {
  %0 = add(%x, meta[relay.Constant][0]);
  %1 = reshape(%0, newshape=[6]);
  %2 = on_device(%1, virtual_device=meta[VirtualDevice][0]);
  %3 = if (%c) { exp(%2) } else { negative(%2) };
  %4 = on_device(%3, virtual_device=meta[VirtualDevice][1]);
  multiply(%4, 2f)
}
#[metadata]
{"VirtualDevice": [{"device_type": "cpu"}, {"device_type": "cuda"}],
 "relay.Constant": [{"dtype": "float32", "shape": [2, 3],
                     "data": "AACAPwAAAEAAAEBAAACAQAAAoEAAAMBA"}]}
)";

struct Fixture {
  std::unique_ptr<hx::test::Planned> p = plan(kModule);
  std::unique_ptr<Device> d0 = createCPUDevice(0, 1), d1 = createCPUDevice(1, 1);
  llvm::Expected<std::unique_ptr<Backend>> cpu = createCPUBackend();
  std::vector<Device *> devices{d0.get(), d1.get()};
  std::vector<Backend *> backends;
  std::vector<std::shared_ptr<const TensorData>> constants;
  llvm::DenseMap<const TensorData *, unsigned> index;

  Fixture() {
    EXPECT_TRUE(bool(cpu));
    backends = {cpu->get(), cpu->get()};
    for (Expr *e : postOrder(p->m->lookup("main")->body.get()))
      if (auto *c = llvm::dyn_cast<Constant>(e); c && c->tensor) {
        index[c->tensor.get()] = constants.size();
        constants.push_back(c->tensor);
      }
  }
  std::string save(const Executable &x) {
    std::string out;
    llvm::Error e = x.save(out, [&](const TensorData &t) -> std::optional<unsigned> {
      auto it = index.find(&t);
      return it == index.end() ? std::nullopt : std::optional<unsigned>(it->second);
    });
    EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
    return out;
  }
  std::vector<HostTensor> inputs(bool cond) {
    std::vector<HostTensor> in;
    in.emplace_back(DType::Float32, llvm::ArrayRef<int64_t>{2, 3});
    for (int i = 0; i < 6; ++i)
      in[0].setDouble(i, i * 0.25 - 1);
    in.emplace_back(DType::Bool, llvm::ArrayRef<int64_t>{});
    in[1].setDouble(0, cond);
    return in;
  }
};

TEST(SavedScheduleTest, ARestoredExecutableRunsAsTheBuiltOne) {
  Fixture f;
  auto built = Executable::build(*f.p->m, f.devices, f.backends, *f.p->diags);
  ASSERT_TRUE(built);
  std::string bytes = f.save(*built);
  auto restored =
      Executable::restore(bytes, *f.p->m, f.devices, f.backends, f.constants, ExecutableOptions{});
  ASSERT_TRUE(bool(restored)) << llvm::toString(restored.takeError());
  Executable &r = **restored;
  ASSERT_EQ(r.steps().size(), built->steps().size());
  for (size_t s = 0; s < r.steps().size(); ++s) {
    EXPECT_EQ(r.steps()[s].kind, built->steps()[s].kind);
    EXPECT_EQ(r.steps()[s].kernel, built->steps()[s].kernel);
    EXPECT_EQ(r.steps()[s].buffers, built->steps()[s].buffers);
    EXPECT_EQ(r.steps()[s].label, built->steps()[s].label);
  }
  ASSERT_EQ(r.buffers().size(), built->buffers().size());
  EXPECT_EQ(r.memoryPlan().arenaBytes, built->memoryPlan().arenaBytes);
  EXPECT_EQ(r.outputBuffers(), built->outputBuffers());
  for (bool cond : {true, false}) {
    auto want = built->run(f.inputs(cond));
    auto got = r.run(f.inputs(cond));
    ASSERT_TRUE(want && got);
    ASSERT_EQ(got->size(), 1u);
    EXPECT_EQ(0, memcmp((*got)[0].data(), (*want)[0].data(), (*want)[0].byteSize()));
  }
  // What it saves again is what it was read from.
  EXPECT_EQ(f.save(r), bytes);
}

TEST(SavedScheduleTest, DamagedBytesAreRefusedOrHarmless) {
  Fixture f;
  auto built = Executable::build(*f.p->m, f.devices, f.backends, *f.p->diags);
  ASSERT_TRUE(built);
  std::string bytes = f.save(*built);
  ExecutableOptions noBind;
  noBind.compileOnly = true; // checked, not allocated
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = Executable::restore(llvm::StringRef(bytes).take_front(n), *f.p->m, f.devices,
                                 f.backends, f.constants, noBind);
    ASSERT_FALSE(bool(r)) << "a schedule cut to " << n << " bytes was restored";
    llvm::consumeError(r.takeError());
  }
  for (size_t i = 0; i < bytes.size(); ++i)
    for (uint8_t bit : {0x01, 0x80}) {
      std::string damaged = bytes;
      damaged[i] = char(damaged[i] ^ bit);
      auto r = Executable::restore(damaged, *f.p->m, f.devices, f.backends, f.constants, noBind);
      if (!r)
        llvm::consumeError(r.takeError());
    }
}

TEST(SavedScheduleTest, AnotherModulesScheduleIsRefused) {
  Fixture f;
  auto built = Executable::build(*f.p->m, f.devices, f.backends, *f.p->diags);
  ASSERT_TRUE(built);
  std::string bytes = f.save(*built);
  std::string other = kModule;
  other.replace(other.find("(2, 3)"), 6, "(1, 3)"); // broadcast by the add
  auto q = plan(other);
  auto r =
      Executable::restore(bytes, *q->m, f.devices, f.backends, f.constants, ExecutableOptions{});
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(llvm::toString(r.takeError()),
            "the saved schedule does not fit: buffer 0: it is not @main's parameter 0");
  // Fewer kernels in the backend than the schedule names.
  auto fresh = createCPUBackend();
  ASSERT_TRUE(bool(fresh));
  std::vector<Backend *> empty{fresh->get(), fresh->get()};
  r = Executable::restore(bytes, *f.p->m, f.devices, empty, f.constants, ExecutableOptions{});
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("is not in its device's backend"),
            std::string::npos);
}

} // namespace
