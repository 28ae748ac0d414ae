//===- MemoryPlanTest.cpp - Static memory per device ----------------------===//
#include "hx/Runtime/MemoryPlan.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

PlannedBuffer buf(unsigned device, uint64_t bytes, unsigned first, unsigned last) {
  PlannedBuffer b;
  b.device = device;
  b.bytes = bytes;
  b.firstStep = first;
  b.lastStep = last;
  return b;
}

bool overlaps(const PlannedBuffer &a, const PlannedBuffer &b) {
  bool live = a.firstStep <= b.lastStep && b.firstStep <= a.lastStep;
  bool space = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
  return a.device == b.device && live && space;
}

TEST(MemoryPlanTest, ChainReusesTwoBuffers) {
  // t_i = f(t_{i-1}): each buffer lives from its step to the next one.
  std::vector<PlannedBuffer> bs;
  for (unsigned i = 0; i < 10; ++i)
    bs.push_back(buf(0, 1000, i, i + 1));
  MemoryPlan p = planMemory(bs, 1);
  EXPECT_EQ(p.totalBytes[0], 10u * 1024);
  EXPECT_EQ(p.arenaBytes[0], 2u * 1024);
  for (size_t i = 0; i < bs.size(); ++i) {
    EXPECT_EQ(bs[i].offset % kBufferAlignment, 0u);
    for (size_t j = i + 1; j < bs.size(); ++j)
      EXPECT_FALSE(overlaps(bs[i], bs[j])) << i << " " << j;
  }
}

TEST(MemoryPlanTest, DiamondKeepsBothBranchesAlive) {
  // a = f(x) at 0; b = g(a) at 1; c = h(a) at 2; d = k(b, c) at 3.
  std::vector<PlannedBuffer> bs = {buf(0, 256, 0, 2), buf(0, 256, 1, 3), buf(0, 256, 2, 3),
                                   buf(0, 256, 3, 3)};
  MemoryPlan p = planMemory(bs, 1);
  EXPECT_EQ(p.totalBytes[0], 1024u);
  // a, b and c are live together at step 2; d can take a's place.
  EXPECT_EQ(p.arenaBytes[0], 768u);
  for (size_t i = 0; i < bs.size(); ++i)
    for (size_t j = i + 1; j < bs.size(); ++j)
      EXPECT_FALSE(overlaps(bs[i], bs[j])) << i << " " << j;
}

TEST(MemoryPlanTest, DevicesNeverShare) {
  std::vector<PlannedBuffer> bs = {buf(0, 100, 0, 0), buf(1, 100, 1, 1), buf(1, 100, 2, 2)};
  MemoryPlan p = planMemory(bs, 2);
  EXPECT_EQ(p.arenaBytes[0], 128u);
  EXPECT_EQ(p.arenaBytes[1], 128u);
  EXPECT_EQ(p.totalBytes[1], 256u);
}

TEST(MemoryPlanTest, DeterministicAndLargestFirst) {
  std::vector<PlannedBuffer> a = {buf(0, 64, 0, 5), buf(0, 4096, 1, 2), buf(0, 64, 3, 4)};
  std::vector<PlannedBuffer> b = a;
  planMemory(a, 1);
  planMemory(b, 1);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i].offset, b[i].offset);
  EXPECT_EQ(a[1].offset, 0u); // the largest goes first
}

} // namespace
