//===- OpPiecesTest.cpp - The registry's operators are whole --------------===//
#include "hx/Tools/OpPieces.h"
#include "hx/Ops/OpRegistry.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

TEST(OpPiecesTest, EveryOperatorHasEveryPieceItPromises) {
  std::vector<std::string> missing = checkOperatorPieces();
  for (const std::string &m : missing)
    ADD_FAILURE() << m;
  EXPECT_TRUE(missing.empty());
}

TEST(OpPiecesTest, EveryOperatorHasAFamily) {
  for (const OpDef &d : allOps())
    EXPECT_FALSE(d.family.empty()) << d.name.str();
}

TEST(OpPiecesTest, FusionPatternsAreTVMs) {
  struct {
    const char *op;
    OpPattern pattern;
  } expected[] = {
      {"exp", OpPattern::Elementwise},
      {"cast", OpPattern::Elementwise},
      {"add", OpPattern::Broadcast},
      {"where", OpPattern::Broadcast},
      {"nn.bias_add", OpPattern::Broadcast},
      {"reshape", OpPattern::Injective},
      {"concatenate", OpPattern::Injective},
      {"nn.batch_flatten", OpPattern::Injective},
      {"sum", OpPattern::CommReduce},
      {"nn.conv2d", OpPattern::OutElementwiseFusable},
      {"nn.dense", OpPattern::OutElementwiseFusable},
      {"nn.batch_matmul", OpPattern::OutElementwiseFusable},
      {"nn.max_pool2d", OpPattern::OutElementwiseFusable},
      {"nn.softmax", OpPattern::Opaque},
      {"argsort", OpPattern::Opaque},
      {"device_copy", OpPattern::Opaque},
  };
  for (const auto &e : expected) {
    const OpDef *d = lookupOp(e.op);
    ASSERT_TRUE(d) << e.op;
    EXPECT_EQ(d->pattern, e.pattern) << e.op << " is " << opPatternName(d->pattern).str();
  }
}

} // namespace
