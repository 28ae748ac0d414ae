//===- SourceNodeTest.cpp - Framework nodes as data on expressions --------===//
//
// The comment grammar of a node, the printer writing the nodes of a module
// built in code (no text behind it), the parser reading them back to equal
// data, and rewrites keeping them.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/Printer.h"
#include "hx/IR/Rewrite.h"
#include "hx/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace hx;
using namespace llvm;

namespace {

SourceNodeRef node(StringRef op, StringRef name) { return SourceNode::create("onnx", op, name); }

ExprRef call(Module &m, StringRef op, SmallVector<ExprRef, 2> args, Loc loc) {
  return make<Call>(ExprRef(m.getOp(op)), std::move(args), Attrs(), std::move(loc));
}

std::string print(const Module &m) {
  std::string s;
  raw_string_ostream os(s);
  printModule(os, m);
  return s;
}

std::unique_ptr<Module> parse(StringRef text, SourceMgr &sm, DiagEngine &diags) {
  unsigned id = sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "t.ir"), SMLoc());
  return parseModule(id, diags);
}

TEST(SourceNodeTest, CommentGrammar) {
  SourceNodeRef n = SourceNode::fromComment("// onnx:Conv /layer1/0//conv1/Conv");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->framework(), "onnx");
  EXPECT_EQ(n->opType(), "Conv");
  EXPECT_EQ(n->name(), "/layer1/0//conv1/Conv");
  EXPECT_EQ(n->comment(), "// onnx:Conv /layer1/0//conv1/Conv");

  SourceNodeRef bare = SourceNode::fromComment("// tf:Relu\r");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->opType(), "Relu");
  EXPECT_EQ(bare->name(), "");
  EXPECT_EQ(bare->comment(), "// tf:Relu");

  // The first `// ` whose text reads <word>:<word> names the node.
  SourceNodeRef later = SourceNode::fromComment("// see below // onnx:Add /add");
  ASSERT_TRUE(later);
  EXPECT_EQ(later->name(), "/add");
  EXPECT_FALSE(SourceNode::fromComment("// note: a space after the colon"));
  EXPECT_FALSE(SourceNode::fromComment("// :Conv x"));
  EXPECT_FALSE(SourceNode::fromComment("// a comment"));

  // Printed names stay one line of UTF-8.
  EXPECT_EQ(SourceNode::create("onnx", "Relu", "/a\nb\xff")->comment(), "// onnx:Relu /a b?");
  EXPECT_TRUE(sameSourceNode(node("Relu", "/r").get(), node("Relu", "/r").get()));
  EXPECT_FALSE(sameSourceNode(node("Relu", "/r").get(), node("Relu", "/s").get()));
  EXPECT_FALSE(sameSourceNode(node("Relu", "/r").get(), nullptr));
}

// A module built in code: the bindings of one node share a line that ends
// with its comment, and the text reads back to the same nodes.
TEST(SourceNodeTest, PrintedAndParsedBack) {
  Module m;
  auto x = make<Var>("x", makeTensorType({2, 3}, DType::Float32), SMLoc());
  SourceNodeRef gemm = node("Gemm", "/fc/Gemm"), relu = node("Relu", "/relu/Relu");
  ExprRef a = call(m, "negative", {x}, Loc(SMLoc(), gemm));
  ExprRef b = call(m, "exp", {a}, Loc(SMLoc(), gemm));
  ExprRef c = call(m, "nn.relu", {b}, Loc(SMLoc(), relu));
  ExprRef d = call(m, "abs", {c}, SMLoc());
  ExprRef e = call(m, "add", {d, c}, Loc(SMLoc(), relu));
  m.addDef("main", make<Function>(std::vector<Ref<Var>>{x}, e, nullptr, SMLoc()));
  std::string text = print(m);
  EXPECT_EQ(text, "#[version = \"0.0.5\"]\n"
                  "def @main(%x: Tensor[(2, 3), float32]) {\n"
                  "  %0 = negative(%x); %1 = exp(%0); // onnx:Gemm /fc/Gemm\n"
                  "  %2 = nn.relu(%1); // onnx:Relu /relu/Relu\n"
                  "  %3 = abs(%2);\n"
                  "  add(%3, %2) // onnx:Relu /relu/Relu\n"
                  "}\n");

  SourceMgr sm;
  DiagEngine diags(sm);
  std::unique_ptr<Module> back = parse(text, sm, diags);
  ASSERT_TRUE(back);
  EXPECT_EQ(print(*back), text);
  auto *root = cast<Call>(back->lookup("main")->body.get());
  ASSERT_TRUE(root->loc.getNode());
  EXPECT_EQ(*root->loc.getNode(), *relu);
  EXPECT_FALSE(root->args[0]->loc.getNode()); // abs
  auto *exp = cast<Call>(cast<Call>(root->args[1].get())->args[0].get());
  ASSERT_TRUE(exp->loc.getNode());
  EXPECT_EQ(exp->loc.getNode()->name(), "/fc/Gemm");
  // Equal comments on consecutive lines share one node object.
  EXPECT_EQ(exp->loc.getNode(), cast<Call>(exp->args[0].get())->loc.getNode());
}

// A rewrite that rebuilds a call keeps its location, the node with it.
TEST(SourceNodeTest, RewritesKeepTheNode) {
  Module m;
  auto x = make<Var>("x", nullptr, SMLoc());
  SourceNodeRef n = node("Sigmoid", "/s");
  ExprRef s = call(m, "sigmoid", {x}, Loc(SMLoc(), n));
  ExprRef root = call(m, "negative", {s}, SMLoc());
  auto y = make<Var>("y", nullptr, SMLoc());
  ExprRef out = rewritePostOrder(root.get(), [&](Expr *old, ArrayRef<ExprRef> ops) {
    return old == x.get() ? ExprRef(y) : withOperands(old, ops);
  });
  auto *rebuilt = cast<Call>(cast<Call>(out.get())->args[0].get());
  EXPECT_NE(rebuilt, s.get());
  EXPECT_EQ(rebuilt->loc.getNode(), n.get());
}

} // namespace
