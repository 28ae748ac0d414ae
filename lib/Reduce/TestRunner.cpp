//===- TestRunner.cpp - Running the interestingness test ------------------===//
//
// See TestRunner.h. The wait polls waitid with a short, growing sleep (at
// most 2 ms) rather than blocking SIGCHLD, which would change the signal
// mask of the whole process.
//
//===----------------------------------------------------------------------===//
#include "TestRunner.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace hx;
using namespace hx::reduce;
using namespace llvm;

std::unique_ptr<TestRunner> TestRunner::create(StringRef program, std::vector<std::string> args,
                                               unsigned timeoutSeconds, std::string &error) {
  std::unique_ptr<TestRunner> r(new TestRunner());
  // A bare name is looked up in PATH; a path is made absolute, as the test
  // runs in the temporary directory.
  SmallString<256> path(program);
  if (!program.contains('/')) {
    ErrorOr<std::string> found = sys::findProgramByName(program);
    if (!found) {
      error = ("test '" + program + "' not found in PATH").str();
      return nullptr;
    }
    path = *found;
  } else if (std::error_code ec = sys::fs::make_absolute(path)) {
    error = ("test '" + program + "': " + ec.message()).str();
    return nullptr;
  }
  if (!sys::fs::exists(path) || sys::fs::is_directory(path)) {
    error = ("test '" + program + "' not found").str();
    return nullptr;
  }
  if (!sys::fs::can_execute(path)) {
    error = ("test '" + program + "' is not executable").str();
    return nullptr;
  }
  SmallString<256> dir;
  if (std::error_code ec = sys::fs::createUniqueDirectory("hx-reduce", dir)) {
    error = "cannot create a temporary directory: " + ec.message();
    return nullptr;
  }
  r->program = std::string(path);
  r->args = std::move(args);
  r->timeoutSeconds = timeoutSeconds;
  r->dir = std::string(dir);
  return r;
}

TestRunner::~TestRunner() {
  if (!dir.empty())
    sys::fs::remove_directories(dir);
}

TestRunner::Outcome TestRunner::testText(StringRef text, std::string &error) {
  SmallString<256> path(dir);
  sys::path::append(path, "candidate-" + std::to_string(files++) + ".ir");
  {
    std::error_code ec;
    raw_fd_ostream os(path, ec);
    if (!ec) {
      os << text;
      os.close();
      ec = os.error();
    }
    if (ec) {
      error = ("cannot write '" + path + "': " + ec.message()).str();
      return Outcome::Uninteresting;
    }
  }
  Outcome o = testFile(path, error);
  sys::fs::remove(path);
  return o;
}

TestRunner::Outcome TestRunner::testFile(StringRef file, std::string &error) {
  std::vector<std::string> argvStrings;
  argvStrings.push_back(program);
  argvStrings.insert(argvStrings.end(), args.begin(), args.end());
  argvStrings.push_back(file.str());
  std::vector<char *> argv;
  for (std::string &s : argvStrings)
    argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    error = "cannot run '" + program + "': " + std::strerror(rc);
    return Outcome::Uninteresting;
  }

  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::seconds(timeoutSeconds);
  auto pause = std::chrono::microseconds(50);
  // The test is only reaped after its group is killed: until then its pid,
  // which is the group's id, cannot be reused by another process group.
  bool timedOut = false, waitFailed = false;
  for (;;) {
    siginfo_t info;
    info.si_pid = 0;
    if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR) {
      error = std::string("waiting for the test: ") + std::strerror(errno);
      waitFailed = true;
      break;
    }
    if (info.si_pid == pid)
      break;
    if (Clock::now() >= deadline) {
      timedOut = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
  // Whatever the test left running in its group goes with it.
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (waitFailed)
    return Outcome::Uninteresting;
  if (timedOut)
    return Outcome::TimedOut;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? Outcome::Interesting
                                                       : Outcome::Uninteresting;
}
