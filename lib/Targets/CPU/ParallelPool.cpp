//===- ParallelPool.cpp - The cpu device's workers for parallel loops -----===//
//
// See ParallelPool.h. run() writes the loop under jobMutex and then bumps
// `generation`; a worker that sees the bump copies the loop under the same
// mutex. Chunks are claimed by compare-and-swap on `claim`, which carries
// the loop's generation, so a worker late with an old copy claims nothing;
// run() returns once every chunk of its loop is done.
//
//===----------------------------------------------------------------------===//

#include "ParallelPool.h"
#include <algorithm>
#include <chrono>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hx {

static inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

ParallelPool::ParallelPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i)
    workers.emplace_back([this] { workerLoop(); });
}

ParallelPool::~ParallelPool() {
  {
    std::lock_guard<std::mutex> lock(jobMutex);
    stopping = true;
    generation.fetch_add(1, std::memory_order_release);
  }
  wake.notify_all();
  for (std::thread &t : workers)
    t.join();
}

void ParallelPool::work(const Job &j) {
  uint64_t tag = uint64_t(j.generation) << 32;
  for (;;) {
    uint64_t w = claim.load(std::memory_order_acquire);
    do {
      if ((w & ~uint64_t(0xffffffff)) != tag || int64_t(w & 0xffffffff) >= j.numChunks)
        return;
    } while (!claim.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel));
    int64_t begin = int64_t(w & 0xffffffff) * j.chunkSize;
    j.body(j.closure, begin, std::min(j.n, begin + j.chunkSize));
    chunksDone.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ParallelPool::workerLoop() {
  uint32_t seen = 0;
  for (;;) {
    // Spin, then sleep, until a new loop (or the end) is published.
    auto spinUntil =
        std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
    unsigned turns = 0;
    while (generation.load(std::memory_order_acquire) == seen) {
      cpuRelax();
      if (++turns % 64 == 0 && std::chrono::steady_clock::now() > spinUntil) {
        std::unique_lock<std::mutex> lock(jobMutex);
        ++sleeping;
        wake.wait(lock, [&] { return generation.load(std::memory_order_acquire) != seen; });
        --sleeping;
      }
    }
    Job j;
    {
      std::lock_guard<std::mutex> lock(jobMutex);
      if (stopping)
        return;
      j = job;
      seen = generation.load(std::memory_order_acquire);
    }
    work(j);
  }
}

void ParallelPool::run(ParallelBodyFn fn, void *cl, int64_t count) {
  if (count <= 0)
    return;
  std::unique_lock<std::mutex> only(runMutex, std::try_to_lock);
  if (workers.empty() || count == 1 || !only.owns_lock()) {
    fn(cl, 0, count);
    return;
  }
  Job j;
  j.body = fn;
  j.closure = cl;
  j.n = count;
  // Chunks as ParallelPool.h says: one iteration each where a thread has
  // at most 16.
  const int64_t perThread = count / int64_t(threads());
  j.chunkSize = perThread <= 16 ? 1 : std::max<int64_t>(1, perThread / 4);
  j.numChunks = (count + j.chunkSize - 1) / j.chunkSize;
  {
    std::lock_guard<std::mutex> lock(jobMutex);
    j.generation = generation.load(std::memory_order_relaxed) + 1;
    job = j;
    chunksDone.store(0, std::memory_order_relaxed);
    claim.store(uint64_t(j.generation) << 32, std::memory_order_release);
    generation.store(j.generation, std::memory_order_release);
    if (sleeping)
      wake.notify_all();
  }
  work(j);
  // Wait for chunks other threads still run; yield now and then, so that a
  // preempted worker (more threads than cores) gets the core back.
  for (unsigned turns = 1; chunksDone.load(std::memory_order_acquire) != j.numChunks; ++turns)
    if (turns % 1024 == 0)
      std::this_thread::yield();
    else
      cpuRelax();
}

} // namespace hx
