//===- Pass.h - Module passes, the registry and the pass manager -*- C++ -*-===//
//
// A pass transforms or analyses a Module. Passes register with a kebab-case
// argument and a one-line summary; hx-opt turns each registry entry into a
// `-<argument>` flag and accepts pipeline text (`--passes=a,b`).
//
// Options belong to the pass that reads them: its constructor declares each
// one (addFlag / addOption) with a parser that validates the value when it is
// set, so a bad value is reported before anything runs. Pipeline text sets
// them as MLIR does: `plan-devices{default-device=cuda strict-placement}`.
// lib/Tools turns every declared option into a command-line flag of the
// tools (`--default-device=cuda`), applied to each pass that declares it; a
// list option's flag may be repeated (`--place=a=cpu --place=b=cuda`).
//
//===----------------------------------------------------------------------===//
#ifndef HX_PASS_PASS_H
#define HX_PASS_PASS_H

#include "hx/IR/Module.h"
#include "hx/Support/Diagnostics.h"
#include "llvm/ADT/StringRef.h"
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace hx {

/// Wall times of the steps of a run (parse, each pass, verification, print),
/// printed as --time-passes' report. A pass may time its phases: they are
/// nested under the pass (indented, prefixed with "- ") and not counted again
/// in the total.
class TimingReport {
public:
  /// Opens a step (nested in the steps still open); returns its handle for
  /// end(). TimeScope does both.
  size_t begin(llvm::StringRef name);
  void end(size_t handle, double seconds);
  /// Adds a step at the current depth without opening it; its time is the
  /// sum of what addTime() gives it. SplitTimer does both.
  size_t addStep(llvm::StringRef name);
  void addTime(size_t handle, double seconds) { entries[handle].seconds += seconds; }
  void print(llvm::raw_ostream &os) const;

private:
  struct Entry {
    std::string name;
    double seconds;
    unsigned depth;
  };
  std::vector<Entry> entries;
  unsigned openDepth = 0;
};

/// Times the enclosing scope as a step of `report` (nothing when it is null).
class TimeScope {
public:
  TimeScope(TimingReport *report, llvm::StringRef name);
  ~TimeScope();
  TimeScope(const TimeScope &) = delete;
  TimeScope &operator=(const TimeScope &) = delete;

private:
  TimingReport *report;
  size_t handle = 0;
  std::chrono::steady_clock::time_point start;
};

/// A step of `report` timed in pieces, for phases that take turns
/// (plan-devices types a def, then plans it, def by def). The row appears
/// where the timer is constructed; each Lap adds the time of its scope.
class SplitTimer {
public:
  SplitTimer(TimingReport *report, llvm::StringRef name)
      : report(report), handle(report ? report->addStep(name) : 0) {}

  class Lap {
  public:
    explicit Lap(SplitTimer &t) : timer(t) {
      if (timer.report)
        start = std::chrono::steady_clock::now();
    }
    ~Lap() {
      if (timer.report)
        timer.report->addTime(
            timer.handle,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    Lap(const Lap &) = delete;
    Lap &operator=(const Lap &) = delete;

  private:
    SplitTimer &timer;
    std::chrono::steady_clock::time_point start;
  };

private:
  TimingReport *report;
  size_t handle;
};

struct PassContext {
  DiagEngine &diags;
  /// Where a pass reports the times of its phases (null: not timed).
  TimingReport *timing = nullptr;
  /// Where reports a pass was asked for go (--placement-report); null:
  /// standard error.
  llvm::raw_ostream *reports = nullptr;
};

/// One option a pass declares.
struct PassOption {
  std::string name;
  std::string description;
  /// The value's placeholder (`cpu|cuda|N`); empty for a flag, whose value
  /// is optional and one of true/false/1/0.
  std::string valueName;
  /// Validates and stores a value; on failure sets the error ("unknown device
  /// 'tpu' (expected cpu, cuda, 1 or 2)") and returns false.
  std::function<bool(llvm::StringRef value, std::string &error)> set;
  /// A list (`PATTERN=DEVICE,...`): a tool flag for it may be given several
  /// times, its values joined with ','. Setting the option replaces the
  /// whole list.
  bool isList = false;

  bool isFlag() const { return valueName.empty(); }
};

class Pass {
public:
  virtual ~Pass() = default;
  /// The kebab-case name: `infer-type`.
  virtual llvm::StringRef getArgument() const = 0;
  virtual llvm::StringRef getDescription() const = 0;
  /// Runs on `m`. Returns false after emitting diagnostics on failure.
  virtual bool run(Module &m, PassContext &ctx) = 0;

  /// The options this pass declares, in declaration order.
  const std::vector<PassOption> &getOptions() const { return options; }
  const PassOption *findOption(llvm::StringRef name) const;
  /// Sets option `name`; false with `error` set when there is no such option
  /// or the value is invalid.
  bool setOption(llvm::StringRef name, llvm::StringRef value, std::string &error);

protected:
  /// Declares a boolean option stored in `storage`.
  void addFlag(llvm::StringRef name, llvm::StringRef description, bool &storage);
  /// Declares an option with a value, parsed by `set`.
  void addOption(llvm::StringRef name, llvm::StringRef valueName, llvm::StringRef description,
                 std::function<bool(llvm::StringRef, std::string &)> set);
  /// Declares an option whose value is a ','-separated list (PassOption::isList).
  void addListOption(llvm::StringRef name, llvm::StringRef valueName, llvm::StringRef description,
                     std::function<bool(llvm::StringRef, std::string &)> set);

private:
  std::vector<PassOption> options;
};

/// Parses a flag's value: "" (the flag alone), true, false, 1 or 0.
std::optional<bool> parseFlagValue(llvm::StringRef value);

struct PassInfo {
  std::string argument;
  std::string description;
  std::function<std::unique_ptr<Pass>()> create;
  /// A pass for testing hx itself (`test-crash`): reachable only through
  /// pipeline text, never a `-<argument>` flag, and its options are not tool
  /// flags, so neither shows in --help.
  bool testOnly = false;
};

/// The passes a tool knows about, in registration order.
class PassRegistry {
public:
  void add(llvm::StringRef argument, llvm::StringRef description,
           std::function<std::unique_ptr<Pass>()> create, bool testOnly = false);
  template <typename P> void add() {
    P probe;
    add(probe.getArgument(), probe.getDescription(), [] { return std::make_unique<P>(); });
  }
  const PassInfo *lookup(llvm::StringRef argument) const;
  const std::vector<PassInfo> &entries() const { return infos; }

private:
  std::vector<PassInfo> infos;
};

struct PassManagerOptions {
  bool verifyEach = true;
  bool printIRAfterAll = false;
  /// Collects the time of every pass and verification (null: not timed).
  TimingReport *timing = nullptr;
  /// Where --print-ir-after-all writes (default: stderr).
  llvm::raw_ostream *debugOut = nullptr;
};

class PassManager {
public:
  explicit PassManager(PassManagerOptions opts = {}) : opts(std::move(opts)) {}
  void addPass(std::unique_ptr<Pass> p) { passes.push_back(std::move(p)); }
  bool empty() const { return passes.empty(); }
  /// Runs the passes in order. Returns false on the first failure. A module
  /// that fails verification after a pass is an internal error: `internalError`
  /// is set and diagnostics are emitted.
  bool run(Module &m, PassContext &ctx, bool *internalError = nullptr);

private:
  PassManagerOptions opts;
  std::vector<std::unique_ptr<Pass>> passes;
};

/// Options given for every pass that declares them (the tools' command-line
/// flags), applied before an item's own `{...}` options.
using PassOptionDefaults = std::vector<std::pair<std::string, std::string>>;

/// Parses pipeline text `a,b{opt=v flag},c` against the registry and appends
/// the passes to `pm`, each with the `defaults` it declares and then its own
/// options. Reports an unknown pass, an unknown option or a bad value with a
/// caret under it (the text is given its own buffer named `<pipeline>` in the
/// engine's SourceMgr).
bool parsePassPipeline(llvm::StringRef text, const PassRegistry &registry, PassManager &pm,
                       DiagEngine &diags, const PassOptionDefaults &defaults = {});

/// Creates the pass `info` with the `defaults` it declares applied; an
/// invalid value is reported (`--<name>: ...`) and gives null.
std::unique_ptr<Pass> createPassWithDefaults(const PassInfo &info,
                                             const PassOptionDefaults &defaults, DiagEngine &diags);

} // namespace hx

#endif
