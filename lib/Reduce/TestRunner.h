//===- TestRunner.h - Running the interestingness test ----------*- C++ -*-===//
//
// Runs the user's test on candidate files, in a temporary directory of its
// own that is removed at the end. Each run is a process group of its own
// (posix_spawn with setpgid), started in that directory with stdin, stdout
// and stderr on /dev/null; past the timeout the whole group is killed, so a
// test that hangs, or leaves a child behind, costs no more than the timeout.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_REDUCE_TESTRUNNER_H
#define HX_LIB_REDUCE_TESTRUNNER_H

#include "llvm/ADT/StringRef.h"
#include <memory>
#include <string>
#include <vector>

namespace hx {
namespace reduce {

class TestRunner {
public:
  enum class Outcome { Interesting, Uninteresting, TimedOut };

  /// Checks that the program exists and is executable and makes the
  /// directory; null with `error` set otherwise.
  static std::unique_ptr<TestRunner> create(llvm::StringRef program, std::vector<std::string> args,
                                            unsigned timeoutSeconds, std::string &error);
  ~TestRunner();

  /// Writes `text` to a new file in the directory and runs the test on it.
  /// `error` is set (and the outcome Uninteresting) when the file cannot be
  /// written or the test cannot be started.
  Outcome testText(llvm::StringRef text, std::string &error);
  /// Runs the test on an existing file.
  Outcome testFile(llvm::StringRef path, std::string &error);

private:
  TestRunner() = default;
  std::string program;
  std::vector<std::string> args;
  unsigned timeoutSeconds = 30;
  std::string dir;
  unsigned files = 0;
};

} // namespace reduce
} // namespace hx

#endif
