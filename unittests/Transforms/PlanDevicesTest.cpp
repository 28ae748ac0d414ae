//===- PlanDevicesTest.cpp - Determinism of plan-devices -----------------===//
#include "SeedProgram.h"
#include "hx/IR/Printer.h"
#include "hx/IR/Walk.h"
#include "hx/Tools/OptMain.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

/// Plans `text` and returns the printed defs in `order` (by name), so that
/// outputs of differently ordered inputs can be compared. `beforePlanning`
/// may change the parsed module first.
std::map<std::string, std::string>
plan(const std::string &text, llvm::function_ref<void(Module &)> beforePlanning = nullptr) {
  llvm::SourceMgr sm;
  unsigned id =
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t.ir"), llvm::SMLoc());
  DiagEngine diags(sm);
  auto m = parseModule(id, diags);
  EXPECT_TRUE(m);
  if (beforePlanning)
    beforePlanning(*m);
  PassContext ctx{diags};
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

const char *kF =
    R"(def @f(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) -> Tensor[(4), float32] {
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

// The capture changes nodes in place only when the def owns them all; a node
// someone else holds is copied instead, and the program is the same. (In the
// seed program %b is used on both devices, so the capture inserts a copy,
// removes the on_devices and changes the subtract.)
TEST(PlanDevicesTest, NodesHeldOutsideTheModuleAreNotChanged) {
  auto expected = plan(test::kSeedProgram);
  std::vector<ExprRef> held;
  std::vector<llvm::SmallVector<Expr *, 4>> operandsBefore;
  auto planned = plan(test::kSeedProgram, [&](Module &m) {
    for (Expr *e : postOrder(m.defs[0].fn.get())) {
      held.push_back(e);
      operandsBefore.emplace_back();
      getOperands(e, operandsBefore.back());
    }
  });
  EXPECT_EQ(planned, expected);
  ASSERT_FALSE(held.empty());
  for (size_t i = 0; i < held.size(); ++i) {
    llvm::SmallVector<Expr *, 4> now;
    getOperands(held[i].get(), now);
    EXPECT_EQ(now, operandsBefore[i]) << "node " << i << " was changed";
  }
}

// A node reached from two defs (the parser never builds one, a pass might) is
// not changed in place: @f's capture would hand @g's capture operands the
// analysis never saw (it crashed). Each def is rebuilt instead.
TEST(PlanDevicesTest, NodesSharedByTwoDefsAreNotChangedInPlace) {
  const char *text = R"(#[version = "0.0.5"]
def @f() {
  %0 = add(1f, 2f);
  %1 = on_device(%0, virtual_device=meta[VirtualDevice][1]);
  negative(%1)
}
def @g() {
  %0 = add(1f, 2f);
  %1 = on_device(%0, virtual_device=meta[VirtualDevice][1]);
  %2 = negative(%1);
  multiply(%2, %2)
}
#[metadata]
{"VirtualDevice": [{"device_type": "cpu"}, {"device_type": "cuda"}]}
)";
  auto planned = plan(text, [](Module &m) {
    // @g multiplies @f's body (which holds @f's on_device) by itself.
    auto *mul = llvm::cast<Call>(m.defs[1].fn->body.get());
    mul->args[0] = m.defs[0].fn->body;
    mul->args[1] = m.defs[0].fn->body;
  });
  // The shared on_device is used twice, so it is placed by cost: with its
  // users, on cuda, and nothing is copied.
  EXPECT_EQ(planned["f"], "def @f(virtual_device=meta[VirtualDevice][1]) -> float32 {\n"
                          "  %0 = add(1f, 2f);\n"
                          "  negative(%0)\n"
                          "}");
  EXPECT_EQ(planned["g"], "def @g(virtual_device=meta[VirtualDevice][1]) -> float32 {\n"
                          "  %0 = add(1f, 2f);\n"
                          "  %1 = negative(%0);\n"
                          "  multiply(%1, %1)\n"
                          "}");
}

} // namespace
