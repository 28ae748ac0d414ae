//===- TimingReportTest.cpp - Nested phases in --time-passes --------------===//
#include "hx/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

TEST(TimingReportTest, PhasesNestUnderTheirPassAndCountOnce) {
  TimingReport r;
  r.end(r.begin("(parse)"), 1.0);
  size_t pass = r.begin("p");
  size_t phase = r.begin("a");
  r.end(r.begin("b"), 0.25);
  r.end(phase, 0.5);
  r.end(pass, 1.0);
  {
    TimeScope none(nullptr, "ignored");
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  r.print(os);
  EXPECT_NE(s.find("Total Execution Time: 2.0000 seconds"), std::string::npos) << s;
  EXPECT_NE(s.find("1.0000 ( 50.0%)  p\n"), std::string::npos) << s;
  EXPECT_NE(s.find("0.5000 ( 25.0%)    - a\n"), std::string::npos) << s;
  EXPECT_NE(s.find("0.2500 ( 12.5%)      - b\n"), std::string::npos) << s;
  EXPECT_LT(s.find("  p\n"), s.find("- a\n"));
  EXPECT_LT(s.find("- a\n"), s.find("- b\n"));
}

TEST(TimingReportTest, SplitStepsSumTheirPiecesInConstructionOrder) {
  TimingReport r;
  size_t pass = r.begin("p");
  size_t x = r.addStep("x");
  size_t y = r.addStep("y");
  for (int i = 0; i < 3; ++i) {
    r.addTime(x, 0.25);
    r.addTime(y, 0.125);
  }
  r.end(pass, 1.5);
  {
    SplitTimer none(nullptr, "ignored");
    SplitTimer::Lap lap(none);
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  r.print(os);
  EXPECT_NE(s.find("Total Execution Time: 1.5000 seconds"), std::string::npos) << s;
  EXPECT_NE(s.find("0.7500 ( 50.0%)    - x\n"), std::string::npos) << s;
  EXPECT_NE(s.find("0.3750 ( 25.0%)    - y\n"), std::string::npos) << s;
  EXPECT_LT(s.find("- x\n"), s.find("- y\n"));
}

} // namespace
