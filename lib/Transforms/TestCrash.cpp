//===- TestCrash.cpp - A pass that fails on purpose -----------------------===//
//
// `test-crash{mode=M}` fails the way a buggy pass would, so that the tools'
// crash handling (lib/Tools/CrashReproducer.cpp) can be tested end to end.
// It is a test pass (PassInfo::testOnly): reachable only through pipeline
// text, `--passes='infer-type,test-crash{mode=segv}'`, or hx-run's hidden
// `--test-crash=M`, and listed nowhere in --help. The modes:
//
//   abort        std::abort(), as a failed assert() does
//   segv         a store through a null pointer (SIGSEGV)
//   segv-thread  the same on a thread of its own, where no recovery context
//                runs: the process dies of the signal
//   unreachable  llvm_unreachable's handler (it prints and aborts even in a
//                release build, where llvm_unreachable itself is only a hint)
//   fatal        llvm::report_fatal_error
//   throw        a std::runtime_error nobody catches on the way out
//   break-ir     leaves IR the verifier rejects: every function's result
//                device refers past the end of the device table
//
// Every mode but break-ir never returns.
//
//===----------------------------------------------------------------------===//
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include <cstdlib>
#include <stdexcept>
#include <thread>

using namespace hx;
using namespace llvm;

namespace {

enum class Mode { Abort, Segv, SegvThread, Unreachable, Fatal, Throw, BreakIR };

[[noreturn]] void storeThroughNull() {
  // A volatile pointer to volatile: the compiler can neither prove it null
  // (and emit a trap of its own choosing) nor drop the store before abort.
  volatile int *volatile p = nullptr;
  *p = 1;
  std::abort(); // not reached
}

class TestCrashPass : public Pass {
public:
  TestCrashPass() {
    addOption("mode", "abort|segv|segv-thread|unreachable|fatal|throw|break-ir", "How to fail",
              [this](StringRef v, std::string &err) {
                std::optional<Mode> m = StringSwitch<std::optional<Mode>>(v)
                                            .Case("abort", Mode::Abort)
                                            .Case("segv", Mode::Segv)
                                            .Case("segv-thread", Mode::SegvThread)
                                            .Case("unreachable", Mode::Unreachable)
                                            .Case("fatal", Mode::Fatal)
                                            .Case("throw", Mode::Throw)
                                            .Case("break-ir", Mode::BreakIR)
                                            .Default(std::nullopt);
                if (!m) {
                  err = ("unknown mode '" + v +
                         "' (expected abort, segv, segv-thread, unreachable, fatal, throw or "
                         "break-ir)")
                            .str();
                  return false;
                }
                mode = *m;
                return true;
              });
  }
  StringRef getArgument() const override { return "test-crash"; }
  StringRef getDescription() const override {
    return "(testing hx) Fail on purpose, to exercise crash reproducers";
  }

  bool run(Module &m, PassContext &) override {
    switch (mode) {
    case Mode::Abort:
      std::abort();
    case Mode::Segv:
      storeThroughNull();
    case Mode::SegvThread: {
      std::thread t(storeThroughNull);
      t.join();
      std::abort(); // not reached
    }
    case Mode::Unreachable:
      llvm_unreachable_internal("test-crash: unreachable on purpose", __FILE__, __LINE__);
    case Mode::Fatal:
      report_fatal_error("test-crash: a fatal error on purpose");
    case Mode::Throw:
      throw std::runtime_error("test-crash: an exception on purpose");
    case Mode::BreakIR:
      for (Module::Def &d : m.defs)
        d.fn->resultDevice = static_cast<DeviceIndex>(m.devices.size() + 7);
      return true;
    }
    return true;
  }

private:
  Mode mode = Mode::Abort;
};

} // namespace

std::unique_ptr<Pass> hx::createTestCrashPass() { return std::make_unique<TestCrashPass>(); }
