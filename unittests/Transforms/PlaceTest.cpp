//===- PlaceTest.cpp - --place rules and the placement as data ------------===//
//
// parsePlaceRules and placeCalls (hx/Transforms/Place.h), and what
// collectPlacement (hx/Transforms/DeviceReport.h) gives for a placed and
// planned module: the data the placement report and the Python API read.
//
//===----------------------------------------------------------------------===//
#include "hx/Transforms/Place.h"
#include "hx/IR/Printer.h"
#include "hx/Parser/Parser.h"
#include "hx/Transforms/DeviceReport.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

const char *kModel = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(4, 8), float32]) {
  %0 = nn.dense(%x, %w); %1 = nn.relu(%0); // onnx:Gemm /model/fc/Gemm
  %2 = argsort(%1, axis=1); // onnx:ArgSort /model/sort
  %3 = nn.softmax(%1); // onnx:Softmax /model/softmax
  %4 = cast(%2, dtype="float32");
  add(%4, %3)
}
#[metadata]
{"VirtualDevice": [{"device_type": "cpu"}]}
)";

struct Loaded {
  llvm::SourceMgr sm;
  std::vector<Diagnostic> diagnostics;
  DiagEngine diags{sm};
  std::unique_ptr<Module> m;

  explicit Loaded(const char *text) {
    diags.setHandler([this](const Diagnostic &d) { diagnostics.push_back(d); });
    unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "m.ir"), {});
    m = parseModule(id, diags);
  }
  std::string print() {
    std::string s;
    llvm::raw_string_ostream os(s);
    printModule(os, *m);
    return s;
  }
};

std::vector<PlaceRule> rules(llvm::StringRef text) {
  std::vector<PlaceRule> r;
  std::string error;
  EXPECT_TRUE(parsePlaceRules(text, r, error)) << error;
  return r;
}

TEST(PlaceTest, ParsesRules) {
  std::vector<PlaceRule> r = rules(" Softmax=cpu , /a=b/*=cuda:1,nn.add=2");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].pattern, "Softmax");
  EXPECT_EQ(r[0].deviceType, DeviceType::CPU);
  EXPECT_FALSE(r[0].virtualDeviceId);
  // Split at the last '='.
  EXPECT_EQ(r[1].pattern, "/a=b/*");
  EXPECT_EQ(r[1].text, "/a=b/*=cuda:1");
  EXPECT_EQ(r[1].deviceType, *parseDeviceType("cuda"));
  EXPECT_EQ(r[1].virtualDeviceId, 1);
  EXPECT_EQ(r[2].deviceType, *parseDeviceType("cuda"));
  EXPECT_TRUE(rules("").empty());
}

TEST(PlaceTest, RejectsBadRules) {
  for (const char *bad : {"nn.add", "=cuda", "nn.add=tpu", "nn.add=", "a=cpu,,b=cpu",
                          "nn.add=cuda:", "nn.add=cuda:-1", "[=cpu"}) {
    std::vector<PlaceRule> r;
    std::string error;
    EXPECT_FALSE(parsePlaceRules(bad, r, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

TEST(PlaceTest, PlacesAndCollects) {
  Loaded l(kModel);
  ASSERT_TRUE(l.m);
  placeCalls(*l.m, rules("ArgSort=cuda,Softmax=cuda,cast=cuda,add=cuda"), l.diags);
  EXPECT_TRUE(l.diagnostics.empty());
  // cuda was appended; the default device stays the cpu.
  ASSERT_EQ(l.m->devices.size(), 2u);
  EXPECT_EQ(l.m->devices[1].deviceType, *parseDeviceType("cuda"));
  PassContext ctx{l.diags};
  ASSERT_TRUE(createPlanDevicesPass()->run(*l.m, ctx));

  PlacementData data;
  ASSERT_TRUE(collectPlacement(*l.m, l.diags, data));
  ASSERT_EQ(data.functions.size(), 1u);
  EXPECT_EQ(data.functions[0].name, "main");
  EXPECT_EQ(data.functions[0].resultDevice, "cuda");
  ASSERT_EQ(data.functions[0].params.size(), 2u);
  EXPECT_EQ(data.functions[0].params[0].first, "x");
  // The dense and the relu follow the softmax to cuda (TVM's rule).
  EXPECT_EQ(data.functions[0].params[0].second, "cuda");

  ASSERT_EQ(data.calls.size(), 6u);
  const PlacedCall &dense = data.calls[0];
  EXPECT_EQ(dense.op, "nn.dense");
  EXPECT_EQ(dense.device, "cuda");
  EXPECT_EQ(dense.deviceIndex, 1);
  EXPECT_EQ(dense.where, "3:8");
  EXPECT_EQ(dense.framework, "onnx");
  EXPECT_EQ(dense.nodeOpType, "Gemm");
  EXPECT_EQ(dense.node, "/model/fc/Gemm");
  EXPECT_EQ(data.calls[1].where, "3:31");
  EXPECT_EQ(data.calls[1].node, "/model/fc/Gemm"); // the relu, on the same line
  const PlacedCall &sort = data.calls[2];
  EXPECT_EQ(sort.op, "argsort");
  EXPECT_EQ(sort.device, "cpu");
  EXPECT_EQ(sort.deviceIndex, 0);
  EXPECT_EQ(sort.fallback, "no cuda implementation");
  const PlacedCall &cast = data.calls[3];
  EXPECT_EQ(cast.op, "cast");
  EXPECT_EQ(cast.device, "cuda");
  EXPECT_TRUE(cast.node.empty());
  EXPECT_TRUE(cast.nodeOpType.empty());
  EXPECT_TRUE(cast.framework.empty());
  EXPECT_EQ(data.calls[4].op, "nn.softmax");
  EXPECT_TRUE(data.calls[4].fallback.empty());

  // The relu's result goes to the argsort on the cpu, and back to the cast.
  ASSERT_EQ(data.copies.size(), 2u);
  EXPECT_EQ(data.copies[0].what, "nn.relu at 3:31 (/model/fc/Gemm)");
  EXPECT_EQ(data.copies[0].from, "cuda");
  EXPECT_EQ(data.copies[0].to, "cpu");
  EXPECT_EQ(data.copies[0].fromIndex, 1);
  EXPECT_EQ(data.copies[0].toIndex, 0);
  EXPECT_EQ(data.copies[0].bytes, 2u * 4u * 4u);
  EXPECT_EQ(data.copies[1].what, "argsort at 4:8 (/model/sort)");
  EXPECT_EQ(data.copies[1].bytes, 2u * 4u * 4u);
  EXPECT_LT(data.calls[1].order, data.copies[0].order);
  EXPECT_LT(data.copies[0].order, data.calls[2].order);
  // Program order, shared by calls and copies.
  for (size_t i = 1; i < data.calls.size(); ++i)
    EXPECT_LT(data.calls[i - 1].order, data.calls[i].order);
}

TEST(PlaceTest, PlacingTwiceChangesNothing) {
  Loaded l(kModel);
  ASSERT_TRUE(l.m);
  std::vector<PlaceRule> r = rules("/model/*=cuda,Softmax=cpu,cast=cuda:1");
  placeCalls(*l.m, r, l.diags);
  std::string once = l.print();
  placeCalls(*l.m, r, l.diags);
  EXPECT_EQ(l.print(), once);
  EXPECT_TRUE(l.diagnostics.empty());
}

TEST(PlaceTest, WarnsAboutRulesThatMatchNothing) {
  Loaded l(kModel);
  ASSERT_TRUE(l.m);
  placeCalls(*l.m, rules("nn.conv2d=cuda,Softmax=cuda"), l.diags);
  ASSERT_EQ(l.diagnostics.size(), 1u);
  EXPECT_EQ(l.diagnostics[0].severity, Severity::Warning);
  EXPECT_EQ(l.diagnostics[0].message, "--place: rule 'nn.conv2d=cuda' matches no operator call");
}

} // namespace
