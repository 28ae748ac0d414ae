//===- LargeVectorTest.cpp - Huge-page vectors and their recycler ----------===//
#include "hx/Support/LargeVector.h"
#include "gtest/gtest.h"
#include <cstdint>

using namespace hx;

namespace {
constexpr size_t kMiB = size_t(1) << 20;

TEST(LargeVectorTest, RecycledPagesAreReusedFirstFitAndMerged) {
  PageRecycler r;
  HugePageAllocator<char> pages(&r);
  const char *a, *b;
  {
    LargeVector<char> x(6 * kMiB, 1, pages), y(4 * kMiB, 2, pages);
    a = x.data();
    b = y.data();
    EXPECT_EQ(b, a + 6 * kMiB);                                 // one range, in order
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % (2 * kMiB), 0u); // on a huge page
  }
  // Both released and merged: a vector larger than either fits where they were.
  LargeVector<uint64_t> z(9 * kMiB / 8, 7, pages);
  EXPECT_EQ(reinterpret_cast<const char *>(z.data()), a);
  for (size_t i = 0; i < z.size(); i += 4096)
    EXPECT_EQ(z[i], 7u); // a reused page starts as the vector says, not as it was
  // Small vectors are not the recycler's; vectors without one map their own.
  LargeVector<char> small(1024, 0, pages), own(4 * kMiB, 3);
  EXPECT_EQ(own[4 * kMiB - 1], 3);
  EXPECT_EQ(small.get_allocator(), pages);
  EXPECT_NE(own.get_allocator(), HugePageAllocator<char>(&r));
}

TEST(LargeVectorTest, GrowingThroughTheRecyclerKeepsTheElements) {
  PageRecycler r;
  LargeVector<uint32_t> v{HugePageAllocator<uint32_t>(&r)};
  for (uint32_t i = 0; i < 3'000'000; ++i)
    v.push_back(i);
  for (uint32_t i = 0; i < v.size(); i += 997)
    ASSERT_EQ(v[i], i);
  LargeVector<uint32_t>(v.get_allocator()).swap(v); // released
  EXPECT_TRUE(v.empty());
}
} // namespace
