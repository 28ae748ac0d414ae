//===- ParallelPool.h - The cpu device's workers for parallel loops -*- C++ -*-===//
//
// Private to lib/Targets/CPU. One pool per cpu device: threads - 1
// persistent workers, and the thread that calls run() works too. A parallel
// loop of n iterations is cut into chunks of n / (4 * threads) contiguous
// iterations, which the threads take one by one from an atomic counter, so
// a thread that finishes early takes the next chunk (tiles of a matrix
// product differ in cost at the edges). A loop of at most 16 iterations per
// thread (a GEMM's tiles) is spread one iteration per chunk, so that the
// last thread to finish waits on one tile at most (googlenet's 64->192 3x3
// at 56x56 on two threads: 1565 -> 1466 us).
//
// Between loops a worker spins (a pause per turn) for about
// kSpinMicroseconds, so that the next loop of the same kernel or the next
// kernel starts without a wake-up, then sleeps on a condition variable.
// run() wakes sleepers only when there are some. A run() while another is
// in flight (a second host thread on the same device) runs its loop on the
// calling thread alone.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGETS_CPU_PARALLELPOOL_H
#define HX_LIB_TARGETS_CPU_PARALLELPOOL_H

#include "hx/Targets/KernelABI.h"
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace hx {

class ParallelPool {
public:
  /// A pool for `threads` threads in all (the caller and threads - 1
  /// workers); 0 or 1 starts no worker.
  explicit ParallelPool(unsigned threads);
  ~ParallelPool();
  ParallelPool(const ParallelPool &) = delete;
  ParallelPool &operator=(const ParallelPool &) = delete;

  unsigned threads() const { return unsigned(workers.size()) + 1; }
  /// body(closure, begin, end) over [0, n), split among the threads;
  /// returns when every iteration has run.
  void run(ParallelBodyFn body, void *closure, int64_t n);

  static constexpr int kSpinMicroseconds = 100;

private:
  /// One parallel loop, as run() publishes it.
  struct Job {
    ParallelBodyFn body = nullptr;
    void *closure = nullptr;
    int64_t n = 0, chunkSize = 1, numChunks = 0;
    uint32_t generation = 0;
  };
  void workerLoop();
  /// Takes chunks of `job` until none of it is left, or a later loop has
  /// replaced it.
  void work(const Job &job);

  std::vector<std::thread> workers;
  std::mutex runMutex; // one loop at a time
  std::mutex jobMutex; // guards job, sleeping, stopping
  std::condition_variable wake;
  Job job;
  unsigned sleeping = 0;
  bool stopping = false;
  /// The current loop's generation (workers watch it) and its claim word:
  /// generation in the high 32 bits, the next chunk in the low 32. A worker
  /// holding an older loop's copy finds the generation changed and claims
  /// nothing.
  std::atomic<uint32_t> generation{0};
  std::atomic<uint64_t> claim{0};
  std::atomic<int64_t> chunksDone{0};
};

} // namespace hx

#endif
