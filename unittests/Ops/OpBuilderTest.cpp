//===- OpBuilderTest.cpp - Calls built in code print as text reads --------===//
#include "hx/Ops/OpBuilder.h"
#include "hx/IR/Printer.h"
#include "hx/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace hx;
using namespace llvm;

namespace {

std::string print(const Module &m) {
  std::string s;
  raw_string_ostream os(s);
  printModule(os, m);
  return s;
}

TEST(OpBuilderTest, AttributesAsTextHoldsThem) {
  EXPECT_EQ(attrs::integer(3).numType, DType::Int32);
  EXPECT_EQ(attrs::integer(int64_t(1) << 35).numType, DType::Int64);
  EXPECT_EQ(attrs::integer(INT32_MIN).numType, DType::Int32);
  AttrValue list = attrs::ints({1, int64_t(1) << 40});
  ASSERT_EQ(list.list.size(), 2u);
  EXPECT_FALSE(list.isTuple);
  EXPECT_EQ(list.list[1].numType, DType::Int64);
  EXPECT_EQ(attrs::real(0.5).numType, DType::Float32);
}

// Built calls resolve their operator's schema (defaults do not print) and
// their text parses back to the same text; every expression has the
// builder's location.
TEST(OpBuilderTest, BuiltModulePrintsAndParsesBack) {
  Module m;
  auto x = make<Var>("x", makeTensorType({2, 6}, DType::Float32), SMLoc());
  OpBuilder b(m, Loc(SMLoc(), SourceNode::create("onnx", "Reshape", "/r")));
  Ref<Call> r = b.call("reshape", {x}, {{"newshape", attrs::ints({3, -1, int64_t(1) << 33})}});
  ASSERT_TRUE(r->getOp()->def);
  Ref<Call> s = b.call("split", {r},
                       {{"indices_or_sections", attrs::integer(2)}, {"axis", attrs::integer(0)}});
  ExprRef t = b.tuple({b.getItem(s, 0), b.getItem(s, 1)});
  Ref<Call> sum = b.call("sum", {x}, {{"keepdims", attrs::boolean(false)}});
  EXPECT_EQ(sum->loc.getNode()->opType(), "Reshape");
  m.addDef("main", make<Function>(std::vector<Ref<Var>>{x}, b.tuple({t, sum}), nullptr, SMLoc()));
  std::string text = print(m);
  EXPECT_NE(text.find("reshape(%x, newshape=[3, -1, 8589934592i64]);"), std::string::npos) << text;
  EXPECT_NE(text.find("sum(%x)"), std::string::npos) << text; // keepdims=False is the default

  SourceMgr sm;
  DiagEngine diags(sm);
  unsigned id = sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "t.ir"), SMLoc());
  std::unique_ptr<Module> back = parseModule(id, diags);
  ASSERT_TRUE(back);
  EXPECT_EQ(print(*back), text);
}

} // namespace
