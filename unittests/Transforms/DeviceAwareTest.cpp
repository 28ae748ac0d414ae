//===- DeviceAwareTest.cpp - The planned-module contract ------------------===//
//
// readPlannedDevices reads devices from a planned module's annotations alone
// (hx/IR/DeviceAware.h). These tests hold it to the device analysis: on every
// plan-devices test input that plans, the device it reads for each value
// equals the one the analysis computes for the planned module.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/DeviceAware.h"
#include "DeviceAnalysis.h"
#include "hx/IR/Walk.h"
#include "hx/Parser/Parser.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace hx;
using llvm::dyn_cast;
using llvm::isa;

namespace {

bool isFirstOrderValue(const Expr *e) {
  if (isa<GlobalVar>(e) || isa<Op>(e) || isa<Function>(e))
    return false;
  if (auto *c = dyn_cast<Call>(e); c && (c->isOp(kOnDevice) || c->isOp(kDeviceCopy)))
    return false;
  return e->checkedType && !isa<FuncType>(e->checkedType.get());
}

/// Plans `text`; returns how many values it compared, or -1 when the input
/// does not plan (error tests). Mismatches are test failures.
int compare(llvm::StringRef text, llvm::StringRef name) {
  llvm::SourceMgr sm;
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name), {});
  DiagEngine diags(sm);
  diags.setHandler([](const Diagnostic &) {});
  auto m = parseModule(id, diags, {});
  PassContext ctx{diags};
  if (!m || !createPlanDevicesPass()->run(*m, ctx))
    return -1;
  PlannedDevices read;
  EXPECT_TRUE(readPlannedDevices(*m, diags, read, "test")) << name.str();
  DeviceAnalysisOptions opts;
  resolveDeviceOptions(*m, PlacementOptions{}, opts);
  DeviceAnalysis analysis(*m, diags, opts);
  EXPECT_TRUE(analysis.run()) << name.str();
  int compared = 0;
  for (const Module::Def &d : m->defs) {
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (!isFirstOrderValue(e))
        return;
      ++compared;
      EXPECT_EQ(read.deviceOf(e), analysis.deviceOf(e))
          << name.str() << ": @" << d.global->name << " at offset "
          << (e->loc.isValid() ? e->loc.getPointer() - text.data() : -1);
    });
  }
  return compared;
}

TEST(DeviceAwareTest, AgreesWithTheAnalysisOnEveryPlanDevicesTest) {
  std::error_code ec;
  llvm::SmallString<128> dir(HX_SOURCE_DIR);
  llvm::sys::path::append(dir, "test", "Transforms", "PlanDevices");
  int files = 0, values = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".ir" ||
        llvm::StringRef(it->path()).contains("chain"))
      continue;
    auto buf = llvm::MemoryBuffer::getFile(it->path());
    ASSERT_TRUE(bool(buf));
    // Each `// -----` chunk is its own module.
    llvm::SmallVector<llvm::StringRef, 4> chunks;
    (*buf)->getBuffer().split(chunks, "// -----");
    for (llvm::StringRef chunk : chunks) {
      int n = compare(chunk, it->path());
      if (n >= 0) {
        ++files;
        values += n;
      }
    }
  }
  EXPECT_GT(files, 25);
  EXPECT_GT(values, 150);
}

TEST(DeviceAwareTest, CalleeParametersDecideArgumentDevices) {
  // @f's parameters are on different devices; its call site passes an
  // argument computed on the cpu with no annotation around it.
  const char *text = R"(#[version = "0.0.5"]
def @f(%x {virtual_device=meta[VirtualDevice][0]}: Tensor[(2), float32], %y: Tensor[(2), float32], virtual_device=meta[VirtualDevice][1]) {
  %0 = negative(%x);
  %1 = on_device(%0, virtual_device=meta[VirtualDevice][0]);
  add(%1, %y)
}
def @main(%a: Tensor[(2), float32], %b: Tensor[(2), float32]) {
  %0 = exp(%a);
  %1 = @f(%0, %b);
  let %z = fn (%p: Tensor[(2), float32]) { %2 = on_device(%p, virtual_device=meta[VirtualDevice][0], constrain_result=True); negative(%2) };
  %3 = %z(%1);
  (%3, %1)
}
#[metadata]
{"VirtualDevice": [{"device_type": "cpu"}, {"device_type": "cuda"}]}
)";
  EXPECT_GT(compare(text, "callee.ir"), 5);
}

TEST(DeviceAwareTest, UnplannedModuleIsALocatedError) {
  llvm::SourceMgr sm;
  const char *text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n"
                     "  negative(%x)\n}\n";
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "u.ir"), {});
  DiagEngine diags(sm);
  std::vector<std::string> messages;
  diags.setHandler([&](const Diagnostic &d) { messages.push_back(d.message); });
  auto m = parseModule(id, diags, {});
  ASSERT_TRUE(m);
  PlannedDevices read;
  EXPECT_FALSE(readPlannedDevices(*m, diags, read, "lowering"));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0],
            "lowering needs a planned module: @main has no device (run -plan-devices first)");
}

} // namespace
