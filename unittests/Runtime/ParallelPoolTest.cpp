//===- ParallelPoolTest.cpp - The cpu device's parallel loops -------------===//
//
// ParallelPool (lib/Targets/CPU): every iteration runs exactly once, for
// every range length and thread count; chunks are n / (4 * threads)
// iterations; loops follow each other without a
// pause (workers spinning) and after one (workers asleep); two host
// threads may run loops on one pool at once; a pool is destroyed cleanly
// with its workers asleep.
//
//===----------------------------------------------------------------------===//

#include "CPU/ParallelPool.h"
#include "gtest/gtest.h"
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace hx;

namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(int64_t n) : hits(size_t(n)) {}
  static void body(void *closure, int64_t begin, int64_t end) {
    auto *c = static_cast<Counts *>(closure);
    for (int64_t i = begin; i < end; ++i)
      c->hits[size_t(i)].fetch_add(1, std::memory_order_relaxed);
  }
  bool eachOnce() const {
    for (const auto &h : hits)
      if (h.load() != 1)
        return false;
    return true;
  }
};

TEST(ParallelPoolTest, EveryIterationOnce) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    ParallelPool pool(threads);
    EXPECT_EQ(pool.threads(), std::max(threads, 1u));
    for (int64_t n : {0, 1, 2, 3, 7, 8, 9, 31, 100, 1000, 12345}) {
      Counts c(n);
      pool.run(Counts::body, &c, n);
      EXPECT_TRUE(c.eachOnce()) << threads << " threads, " << n << " iterations";
    }
  }
}

// Chunks are n / (4 * threads) iterations; up to 16 iterations per thread
// (a GEMM's 10 or 18 tiles on 2 threads) are handed out one by one.
TEST(ParallelPoolTest, ChunkSizes) {
  struct Largest {
    std::atomic<int64_t> chunk{0};
    static void body(void *closure, int64_t begin, int64_t end) {
      auto *l = static_cast<Largest *>(closure);
      int64_t seen = l->chunk.load();
      while (end - begin > seen && !l->chunk.compare_exchange_weak(seen, end - begin)) {
      }
    }
  };
  ParallelPool pool(2);
  for (auto [n, chunk] :
       {std::pair<int64_t, int64_t>{10, 1}, {7, 1}, {17, 1}, {32, 1}, {40, 5}, {1000, 125}}) {
    Largest l;
    pool.run(Largest::body, &l, n);
    EXPECT_EQ(l.chunk.load(), chunk) << n << " iterations";
  }
}

TEST(ParallelPoolTest, LoopsBackToBackAndAfterSleeping) {
  ParallelPool pool(4);
  for (int round = 0; round < 3; ++round) {
    for (int r = 0; r < 2000; ++r) {
      int64_t n = 1 + r % 37;
      Counts c(n);
      pool.run(Counts::body, &c, n);
      ASSERT_TRUE(c.eachOnce()) << "round " << round << ", loop " << r;
    }
    // Long enough for every worker to stop spinning and sleep.
    std::this_thread::sleep_for(std::chrono::microseconds(20 * ParallelPool::kSpinMicroseconds));
  }
}

TEST(ParallelPoolTest, TwoHostThreadsAtOnce) {
  ParallelPool pool(3);
  std::atomic<int> bad{0};
  auto client = [&] {
    for (int r = 0; r < 500; ++r) {
      Counts c(64 + r % 5);
      pool.run(Counts::body, &c, int64_t(c.hits.size()));
      if (!c.eachOnce())
        bad.fetch_add(1);
    }
  };
  std::thread a(client), b(client);
  a.join();
  b.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(ParallelPoolTest, DestroyedWhileWorkersSleep) {
  for (int i = 0; i < 3; ++i) {
    ParallelPool pool(4);
    Counts c(100);
    pool.run(Counts::body, &c, 100);
    EXPECT_TRUE(c.eachOnce());
    std::this_thread::sleep_for(std::chrono::microseconds(10 * ParallelPool::kSpinMicroseconds));
  }
}

} // namespace
