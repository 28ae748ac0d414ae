//===- SortTest.cpp - argsort and topk, ties included ---------------------===//
//
// Ties are broken by the lower index first in both directions: a stable
// sort ascending, and a stable sort on the reversed comparison descending.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace hx;
using namespace hx::test;

namespace {

const char *kF4 = "%x: Tensor[(4), float32]";

TEST(SortTest, ArgsortTies) {
  auto x = [] { return f32({4}, {3, 1, 2, 1}); };
  EXPECT_TRUE(tensorIs(runOne(kF4, "argsort(%x)", {x()}), DType::Int32, {4}, {1, 3, 2, 0}));
  EXPECT_TRUE(tensorIs(runOne(kF4, "argsort(%x, is_ascend=False)", {x()}), DType::Int32, {4},
                       {0, 2, 1, 3}));
  EXPECT_TRUE(tensorIs(runOne(kF4, "argsort(%x, dtype=\"int64\")", {x()}), DType::Int64, {4},
                       {1, 3, 2, 0}));
}

TEST(SortTest, ArgsortAlongAxis0) {
  // Columns [2, 1, 0] and [1, 1, 3].
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(3, 2), int32]", "argsort(%x, axis=0)", {i32({3, 2}, {2, 1, 1, 1, 0, 3})}),
      DType::Int32, {3, 2}, {2, 0, 1, 1, 0, 2}));
}

TEST(SortTest, ArgsortInt64IsExact) {
  // 2^53 + 1 rounds to 2^53 as a double; int64 keys keep them apart.
  int64_t big = int64_t(1) << 53;
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2), int64]", "argsort(%x, is_ascend=False)",
                              {makeInt64({2}, {big, big + 1})}),
                       DType::Int32, {2}, {1, 0}));
}

TEST(SortTest, TopkBoth) {
  Expected<std::vector<HostTensor>> r =
      runModule(mainModule(kF4, "topk(%x, k=2)"), {f32({4}, {1, 3, 3, 2})});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {2}, {3, 3}));
  EXPECT_TRUE(tensorIs((*r)[1], DType::Int32, {2}, {1, 2}));
}

TEST(SortTest, TopkRetTypesAndAscend) {
  auto x = [] { return f32({4}, {1, 3, 3, 2}); };
  EXPECT_TRUE(tensorIs(runOne(kF4, "topk(%x, k=2, ret_type=\"values\", is_ascend=True)", {x()}),
                       DType::Float32, {2}, {1, 2}));
  EXPECT_TRUE(tensorIs(runOne(kF4,
                              "topk(%x, k=2, ret_type=\"indices\", is_ascend=True, "
                              "dtype=\"int64\")",
                              {x()}),
                       DType::Int64, {2}, {0, 3}));
  // Ascending ties: the lower index first.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(3), int32]",
                              "topk(%x, k=2, ret_type=\"indices\", "
                              "is_ascend=True)",
                              {i32({3}, {2, 1, 1})}),
                       DType::Int32, {2}, {1, 2}));
}

TEST(SortTest, TopkKBelowOneMeansAll) {
  for (const char *k : {"0", "-1"}) {
    Expected<std::vector<HostTensor>> r =
        runModule(mainModule(kF4, std::string("topk(%x, k=") + k + ")"), {f32({4}, {1, 3, 3, 2})});
    ASSERT_TRUE(bool(r)) << toString(r.takeError());
    ASSERT_EQ(r->size(), 2u);
    EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {4}, {3, 3, 2, 1}));
    EXPECT_TRUE(tensorIs((*r)[1], DType::Int32, {4}, {1, 2, 3, 0}));
  }
}

TEST(SortTest, TopkAlongAxis0) {
  // Columns [1, 5, 3] and [6, 2, 4]: the top 2 of each.
  Expected<std::vector<HostTensor>> r =
      runModule(mainModule("%x: Tensor[(3, 2), int64]", "topk(%x, k=2, axis=0)"),
                {makeInt64({3, 2}, {1, 6, 5, 2, 3, 4})});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_TRUE(tensorIs((*r)[0], DType::Int64, {2, 2}, {5, 6, 3, 4}));
  EXPECT_TRUE(tensorIs((*r)[1], DType::Int32, {2, 2}, {1, 0, 2, 2}));
}

} // namespace
