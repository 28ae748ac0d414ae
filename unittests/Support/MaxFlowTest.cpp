//===- MaxFlowTest.cpp - Maximum flow and its smallest minimum cut ---------===//
#include "hx/Support/MaxFlow.h"
#include "gtest/gtest.h"
#include <random>

using namespace hx;

namespace {

TEST(MaxFlowTest, ClassicNetwork) {
  // The CLRS example: the maximum flow is 23.
  MaxFlow f(6);
  f.addArc(0, 1, 16);
  f.addArc(0, 2, 13);
  f.addArc(1, 3, 12);
  f.addArc(2, 1, 4);
  f.addArc(2, 4, 14);
  f.addArc(3, 2, 9);
  f.addArc(3, 5, 20);
  f.addArc(4, 3, 7);
  f.addArc(4, 5, 4);
  EXPECT_EQ(f.run(0, 5), 23);
}

TEST(MaxFlowTest, SinkSideIsTheSmallestOfEqualCuts) {
  // s -1-> a -1-> t: cutting either arc costs 1; the smallest sink side
  // leaves `a` with the source.
  MaxFlow f(3);
  f.addArc(0, 2, 1);
  f.addArc(2, 1, 1);
  EXPECT_EQ(f.run(0, 1), 1);
  std::vector<bool> sink = f.sinkSide(1);
  EXPECT_FALSE(sink[2]);
  EXPECT_TRUE(sink[1]);
}

TEST(MaxFlowTest, InfiniteArcsAreNeverCut) {
  MaxFlow f(4);
  f.addArc(0, 2, 5);
  f.addArc(2, 3, MaxFlow::kInfinite);
  f.addArc(3, 1, 3);
  EXPECT_EQ(f.run(0, 1), 3);
  std::vector<bool> sink = f.sinkSide(1);
  EXPECT_FALSE(sink[2]); // 2 -> 3 is uncuttable: both stay with the source
  EXPECT_FALSE(sink[3]);
}

TEST(MaxFlowTest, LongChainWithoutRecursion) {
  // A path a million arcs long: the search is iterative.
  const unsigned n = 1000000;
  MaxFlow f(n + 2);
  f.addArc(0, 2, 7);
  for (unsigned i = 2; i + 1 < n + 2; ++i)
    f.addArc(i, i + 1, 9);
  f.addArc(n + 1, 1, 8);
  EXPECT_EQ(f.run(0, 1), 7);
}

TEST(MaxFlowTest, RandomGraphsMatchEveryCut) {
  // The maximum flow equals the cheapest of all 2^k cuts (max-flow/min-cut),
  // and the sink side found is a cheapest cut.
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    unsigned k = 1 + rng() % 8, n = k + 2;
    MaxFlow f(n);
    std::vector<std::tuple<unsigned, unsigned, int64_t>> arcs;
    unsigned m = rng() % 24;
    for (unsigned e = 0; e < m; ++e) {
      unsigned a = rng() % n, b = rng() % n;
      if (a == b)
        continue;
      int64_t c = rng() % 10;
      f.addArc(a, b, c);
      arcs.push_back({a, b, c});
    }
    auto cutCost = [&](unsigned mask) { // bit i: inner node i on the sink side
      auto sinkSide = [&](unsigned v) { return v == 1 || (v >= 2 && (mask >> (v - 2) & 1)); };
      int64_t cost = 0;
      for (auto [a, b, c] : arcs)
        if (!sinkSide(a) && sinkSide(b))
          cost += c;
      return cost;
    };
    int64_t best = INT64_MAX;
    for (unsigned mask = 0; mask < (1u << k); ++mask)
      best = std::min(best, cutCost(mask));
    ASSERT_EQ(f.run(0, 1), best) << "round " << round;
    std::vector<bool> sink = f.sinkSide(1);
    unsigned mask = 0;
    for (unsigned v = 2; v < n; ++v)
      mask |= unsigned(sink[v]) << (v - 2);
    EXPECT_EQ(cutCost(mask), best) << "round " << round;
  }
}

TEST(MaxFlowTest, ReversePairsInfiniteArcsAndTheSmallestSinkSide) {
  // Arcs followed by their reverse (one residual pair), terminal arcs both
  // ways, uncuttable arcs: the flow is the cheapest cut (saturating at
  // kInfinite), and the sink side is the smallest of the cheapest cuts,
  // which is the intersection of all of them.
  std::mt19937 rng(11);
  const int64_t inf = MaxFlow::kInfinite;
  for (int round = 0; round < 2000; ++round) {
    unsigned k = 1 + rng() % 8, n = k + 2;
    MaxFlow f(n);
    std::vector<std::tuple<unsigned, unsigned, int64_t>> arcs;
    auto add = [&](unsigned a, unsigned b, int64_t c) {
      f.addArc(a, b, c);
      arcs.push_back({a, b, c});
    };
    unsigned m = rng() % 20;
    for (unsigned e = 0; e < m; ++e) {
      unsigned a = rng() % n, b = rng() % n;
      if (a == b)
        continue;
      int64_t c = rng() % 10 == 0 ? inf : int64_t(rng() % 6);
      add(a, b, c);
      if (rng() % 3 == 0)
        add(b, a, rng() % 6);
    }
    auto cutCost = [&](unsigned mask) {
      auto sinkSide = [&](unsigned v) { return v == 1 || (v >= 2 && (mask >> (v - 2) & 1)); };
      int64_t cost = 0;
      for (auto [a, b, c] : arcs)
        if (!sinkSide(a) && sinkSide(b))
          cost = std::min(inf, cost + c);
      return cost;
    };
    int64_t best = INT64_MAX;
    for (unsigned mask = 0; mask < (1u << k); ++mask)
      best = std::min(best, cutCost(mask));
    unsigned smallest = (1u << k) - 1;
    for (unsigned mask = 0; mask < (1u << k); ++mask)
      if (cutCost(mask) == best)
        smallest &= mask;
    int64_t flow = f.run(0, 1);
    if (best >= inf) {
      EXPECT_EQ(flow, inf) << "round " << round;
      continue;
    }
    ASSERT_EQ(flow, best) << "round " << round;
    std::vector<bool> sink = f.sinkSide(1);
    unsigned mask = 0;
    for (unsigned v = 2; v < n; ++v)
      mask |= unsigned(sink[v]) << (v - 2);
    EXPECT_EQ(mask, smallest) << "round " << round;
  }
}

} // namespace
