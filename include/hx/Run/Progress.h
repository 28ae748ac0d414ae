//===- Progress.h - What a long compile is doing, as it does it --*- C++ -*-===//
//
// hx-run and hx-compile report the stages of a compile that takes long
// (import, plan, each device's kernels with their count) on stderr, and
// stay silent for a quick one: nothing is printed during the first
// `delay` seconds. When the delay passes with the compile still going, the
// stage then running is printed, and from then on every stage as it
// starts; done() prints the total time. A thread of the object's own waits
// out the delay (no global state); --quiet makes no CompileProgress at all.
//
//   hx-compile: importing resnet50.onnx (1.2 s so far)
//   hx-compile: compiling 58 kernels for cpu
//   hx-compile: compiled in 3.4 s
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUN_PROGRESS_H
#define HX_RUN_PROGRESS_H

#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace hx {

class CompileProgress {
public:
  /// Lines go to `os` as `<tool>: <stage>`; a delay of 0 prints every
  /// stage.
  CompileProgress(llvm::raw_ostream &os, std::string tool, double delaySeconds = 2.0);
  ~CompileProgress();
  CompileProgress(const CompileProgress &) = delete;
  CompileProgress &operator=(const CompileProgress &) = delete;

  /// The stage now starting ("compiling 58 kernels for cpu"); printed
  /// after done() too once the progress is shown (a later stage of a
  /// module with value-dependent shapes compiles as it runs). Thread-safe.
  void stage(const std::string &text);
  /// The compile is over: the total time, if anything was printed.
  void done();

private:
  double elapsed() const;
  void waitOutDelay(double delaySeconds);

  llvm::raw_ostream &os;
  std::string tool;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::mutex mutex;
  std::condition_variable wake;
  std::string current;
  bool shown = false, finished = false;
  std::thread waiter;
};

} // namespace hx

#endif
