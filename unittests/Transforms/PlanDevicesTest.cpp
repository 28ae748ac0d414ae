//===- PlanDevicesTest.cpp - Determinism of plan-devices -----------------===//
#include "hx/Tools/OptMain.h"
#include "hx/IR/Printer.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

/// Plans `text` and returns the printed defs in `order` (by name), so that
/// outputs of differently ordered inputs can be compared.
std::map<std::string, std::string> plan(const std::string &text) {
  llvm::SourceMgr sm;
  unsigned id =
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t.ir"), llvm::SMLoc());
  DiagEngine diags(sm);
  auto m = parseModule(id, diags);
  EXPECT_TRUE(m);
  PassOptions opts;
  PassContext ctx{diags, opts};
  EXPECT_TRUE(createPlanDevicesPass()->run(*m, ctx));
  std::string out;
  llvm::raw_string_ostream os(out);
  printModule(os, *m);
  std::map<std::string, std::string> defs;
  size_t pos = 0;
  while ((pos = out.find("def @", pos)) != std::string::npos) {
    size_t end = out.find("\n}\n", pos);
    std::string def = out.substr(pos, end + 2 - pos);
    defs[def.substr(5, def.find('(') - 5)] = def;
    pos = end;
  }
  return defs;
}

const char *kF = R"(def @f(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) -> Tensor[(4), float32] {
  %0 = on_device(add(%x, %y), virtual_device=meta[VirtualDevice][0]);
  multiply(%0, %y)
}
)";
const char *kMain = R"(def @main(%a: Tensor[(4), float32], %b: Tensor[(4), float32]) {
  %0 = @f(%a, %b);
  %1 = on_device(negative(%b), virtual_device=meta[VirtualDevice][1]);
  subtract(%0, %1)
}
)";
const char *kMeta = R"(#[metadata]
{"VirtualDevice": [{"device_type": "cpu"}, {"device_type": "cuda"}]}
)";

TEST(PlanDevicesTest, OutputDoesNotDependOnDefinitionOrder) {
  std::string header = "#[version = \"0.0.5\"]\n";
  auto a = plan(header + kF + kMain + kMeta);
  auto b = plan(header + kMain + kF + kMeta);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a, b);
}

TEST(PlanDevicesTest, RepeatedRunsAreIdentical) {
  std::string text = std::string("#[version = \"0.0.5\"]\n") + kF + kMain + kMeta;
  auto first = plan(text);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(plan(text), first);
}

} // namespace
