//===- ParallelRows.h - The interpreter's big loops on every core -*- C++ -*-===//
//
// Private to lib/Interpreter. The reference interpreter is the oracle of
// hx-run --check, and a network's contractions in double take minutes on
// one core. parallelRows splits [0, rows) into one contiguous range per
// hardware thread, each run on its own std::thread (the caller takes the
// first), when the loop is worth it (workPerRow * rows above a few million
// operations); the result of each row must not depend on the split, so
// the output is the same on any machine. No pool and no state: threads
// are started per call, which costs tens of microseconds against loops of
// milliseconds.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_INTERPRETER_PARALLELROWS_H
#define HX_LIB_INTERPRETER_PARALLELROWS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace hx::interp {

inline void parallelRows(int64_t rows, int64_t workPerRow,
                         llvm::function_ref<void(int64_t begin, int64_t end)> body) {
  constexpr int64_t kMinWork = int64_t(1) << 22;
  int64_t threads = std::max(1u, std::thread::hardware_concurrency());
  if (rows <= 0)
    return;
  if (threads == 1 || rows == 1 || rows * std::max<int64_t>(workPerRow, 1) < kMinWork) {
    body(0, rows);
    return;
  }
  threads = std::min(threads, rows);
  int64_t per = (rows + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t) {
    int64_t begin = t * per, end = std::min(rows, begin + per);
    if (begin < end)
      pool.emplace_back([=] { body(begin, end); });
  }
  body(0, std::min(rows, per));
  for (std::thread &t : pool)
    t.join();
}

} // namespace hx::interp

#endif
