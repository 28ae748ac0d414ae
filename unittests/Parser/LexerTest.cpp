//===- LexerTest.cpp - The hand-written lexer agrees with the grammar ----===//
//
// grammar/HxLexer.g4 is the specification of the tokens; lib/Parser/Lexer.cpp
// is what hx runs. Both must produce the same token types and texts.
//
//===----------------------------------------------------------------------===//
#include "Lexer.h"
#include "HxLexer.h"
#include "hx/Support/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

std::vector<std::pair<size_t, std::string>> antlrTokens(const std::string &text) {
  antlr4::ANTLRInputStream in(text);
  HxLexer lexer(&in);
  std::vector<std::pair<size_t, std::string>> out;
  for (auto t = lexer.nextToken(); t->getType() != antlr4::Token::EOF; t = lexer.nextToken())
    out.push_back({t->getType(), t->getText()});
  return out;
}

std::vector<std::pair<size_t, std::string>> handTokens(const std::string &text) {
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t"), llvm::SMLoc());
  DiagEngine diags(sm);
  std::vector<HxToken> toks;
  EXPECT_TRUE(lexBuffer(sm.getMemoryBuffer(1)->getBuffer(), diags, {}, toks));
  std::vector<std::pair<size_t, std::string>> out;
  for (auto &t : toks)
    if (t.getType() != antlr4::Token::EOF)
      out.push_back({t.getType(), t.getText()});
  return out;
}

const char *kSamples[] = {
    R"(#[version = "0.0.5"]
def @main(%a: Tensor[(5, 7), float32], %b {virtual_device=meta[VirtualDevice][0]}: Tensor[(?, 7), float32],
          virtual_device=meta[VirtualDevice][1]) -> Tensor[(5, 7), float32] {
  %0 = add(%a, %b); /* a /* nested */ comment */
  %1 = on_device(%0, virtual_device=meta[VirtualDevice][0], constrain_result=True);
  let %x: float32 = 1.5f; // line comment
  %2 = nn.conv2d(%1, %w, strides=[1, 1], padding=(0, 0), data_layout="NCHW");
  %3 = (%2, %x,);
  %4 = %3.0.1;
  %5 = fn (%y: int64) -> int64 { %y };
  if (True) { 3i64 } else { -2 }
}
#[metadata]
{
  "VirtualDevice": [{"device_type": "cpu", "virtual_device_id": 0, "target": "llvm -mcpu=native"},
                    {"device_type": 2, "target": "cuda"}],
  "PassConfig": {"relay.fallback_device_type": "cuda", "x": [true, false, null, -1.5e3]}
}
)",
    "free_var %x: float32; @f(%x, None, 1e-3f, 2.5f64, \"s\\\"\\u00e9\")",
    // Non-finite floats are numbers; names that only start like them are not.
    "@f(inff, -inff, nanf, -nanf64, inff16, infbf16, inf, nan, info, inff8, nanf32x, %inff)",
};

TEST(LexerTest, AgreesWithTheGrammar) {
  for (const char *s : kSamples) {
    auto a = antlrTokens(s);
    auto h = handTokens(s);
    ASSERT_EQ(a.size(), h.size()) << s;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].first, h[i].first) << "token " << i << ": " << a[i].second;
      EXPECT_EQ(a[i].second, h[i].second) << "token " << i;
    }
  }
}

TEST(LexerTest, ReportsBadInputWithoutCrashing) {
  const char *bad[] = {"\"unterminated", "/* open", "%",  "@",  "\xff\xfe",
                       "a\0b",           "#x",      "-x", ".x", "1_"};
  for (const char *s : bad) {
    llvm::SourceMgr sm;
    std::string text(s, s == bad[5] ? 3 : strlen(s));
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t"), llvm::SMLoc());
    DiagEngine diags(sm);
    std::string out;
    llvm::raw_string_ostream os(out);
    diags.setOutput(&os);
    std::vector<HxToken> toks;
    EXPECT_FALSE(lexBuffer(sm.getMemoryBuffer(1)->getBuffer(), diags, {}, toks)) << text;
    EXPECT_EQ(diags.getNumErrors(), 1u) << text;
  }
}

TEST(LexerTest, NestingIsBounded) {
  std::string deep(1000, '(');
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(deep, "t"), llvm::SMLoc());
  DiagEngine diags(sm);
  std::string out;
  llvm::raw_string_ostream os(out);
  diags.setOutput(&os);
  std::vector<HxToken> toks;
  EXPECT_FALSE(lexBuffer(sm.getMemoryBuffer(1)->getBuffer(), diags, {}, toks));
  EXPECT_NE(out.find("nesting too deep"), std::string::npos);
}

} // namespace
