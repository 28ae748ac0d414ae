//===- Progress.cpp - What a long compile is doing, as it does it ---------===//
//
// See Progress.h. The waiter thread sleeps on a condition variable until the
// delay passes or done() (or the destructor) wakes it; whoever prints holds
// the mutex, so lines never interleave within this object.
//
//===----------------------------------------------------------------------===//
#include "hx/Run/Progress.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace hx {

CompileProgress::CompileProgress(raw_ostream &os, std::string tool, double delaySeconds)
    : os(os), tool(std::move(tool)) {
  if (delaySeconds <= 0) // every stage, from the first (tests)
    shown = true;
  else
    waiter = std::thread([this, delaySeconds] { waitOutDelay(delaySeconds); });
}

CompileProgress::~CompileProgress() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
  }
  wake.notify_all();
  if (waiter.joinable())
    waiter.join();
}

double CompileProgress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void CompileProgress::waitOutDelay(double delaySeconds) {
  std::unique_lock<std::mutex> lock(mutex);
  if (wake.wait_for(lock, std::chrono::duration<double>(delaySeconds), [&] { return finished; }))
    return;
  shown = true;
  if (!current.empty())
    os << tool << ": " << current << format(" (%.1f s so far)\n", elapsed());
  os.flush();
}

void CompileProgress::stage(const std::string &text) {
  std::lock_guard<std::mutex> lock(mutex);
  current = text;
  // After done() too: a module with value-dependent shapes compiles its
  // later stages while it runs.
  if (shown) {
    os << tool << ": " << text << "\n";
    os.flush();
  }
}

void CompileProgress::done() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (finished)
      return;
    finished = true;
    if (shown) {
      os << tool << ": " << format("compiled in %.1f s\n", elapsed());
      os.flush();
    }
  }
  wake.notify_all();
}

} // namespace hx
