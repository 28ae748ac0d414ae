//===- AllocationTableTest.cpp - Blocks a device allocated ----------------===//
#include "hx/Runtime/AllocationTable.h"
#include "gtest/gtest.h"

using namespace hx;

TEST(AllocationTableTest, ContainsAndBytesFrom) {
  char mem[64];
  AllocationTable t;
  t.insert(mem + 8, 16);
  t.insert(mem + 32, 0);
  EXPECT_FALSE(t.contains(mem));
  EXPECT_TRUE(t.contains(mem + 8));
  EXPECT_TRUE(t.contains(mem + 23));
  EXPECT_FALSE(t.contains(mem + 24));
  EXPECT_TRUE(t.contains(mem + 32)); // a 0-byte block holds its start
  EXPECT_EQ(t.bytesFrom(mem), std::nullopt);
  EXPECT_EQ(t.bytesFrom(mem + 8), 16u);
  EXPECT_EQ(t.bytesFrom(mem + 20), 4u);
  EXPECT_EQ(t.bytesFrom(mem + 24), 0u); // its end: nothing left
  EXPECT_EQ(t.bytesFrom(mem + 25), std::nullopt);
  EXPECT_EQ(t.bytesFrom(mem + 32), 0u);
  EXPECT_EQ(t.erase(mem + 8), 16u);
  EXPECT_EQ(t.bytesFrom(mem + 8), std::nullopt);
}
