//===- ParserTest.cpp - Parsing and printing round trips -----------------===//
#include "hx/Parser/Parser.h"
#include "SeedProgram.h"
#include "hx/IR/Printer.h"
#include "hx/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <algorithm>

using namespace hx;

namespace {

/// Parses `text` and prints it; "" on error (the error text goes to `err`).
std::string roundTrip(const std::string &text, std::string *err = nullptr) {
  llvm::SourceMgr sm;
  unsigned id =
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t.ir"), llvm::SMLoc());
  DiagEngine diags(sm);
  std::string errors;
  llvm::raw_string_ostream eos(errors);
  diags.setOutput(&eos);
  auto m = parseModule(id, diags);
  if (err)
    *err = errors;
  if (!m || !verifyModule(*m, diags))
    return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  printModule(os, *m);
  return out;
}

TEST(ParserTest, PrintParsePrintIsStable) {
  const char *inputs[] = {
      test::kSeedProgram,
      R"(#[version = "0.0.5"]
def @f(%x: float32) -> float32 { let %y = negative(%x); let %z = (%y, %x); %z.0 }
def @main(%p: float32) { %0 = fn (%q: float32) { @f(%q) }; if (True) { %0(%p) } else { %p } }
)",
  };
  for (const char *in : inputs) {
    std::string err;
    std::string once = roundTrip(in, &err);
    ASSERT_FALSE(once.empty()) << err;
    EXPECT_EQ(roundTrip(once), once);
  }
}

TEST(ParserTest, MillionStatementBody) {
  std::string text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n"
                     "  %0 = add(%x, %x);\n";
  for (int i = 1; i < 200000; ++i)
    text += "  %" + std::to_string(i) + " = add(%" + std::to_string(i - 1) + ", %x);\n";
  text += "  %199999\n}\n";
  std::string once = roundTrip(text);
  ASSERT_FALSE(once.empty());
  EXPECT_EQ(std::count(once.begin(), once.end(), '\n'), 200000 + 3);
  EXPECT_EQ(roundTrip(once), once);
}

} // namespace
