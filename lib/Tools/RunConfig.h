//===- RunConfig.h - What hx-run and hx-compile were asked to do -*- C++ -*-===//
//
// Private to lib/Tools: the configuration RunFlags.cpp reads off the
// command line (hx-run's flags, or hx-compile's) and RunMain.cpp carries
// out.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TOOLS_RUNCONFIG_H
#define HX_LIB_TOOLS_RUNCONFIG_H

#include "hx/IR/VirtualDevice.h"
#include "hx/Run/Compare.h"
#include "hx/Run/RandomInputs.h"
#include "hx/Targets/Registry.h"
#include "hx/Tools/CommonFlags.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hx::runtool {

/// --emit: a stage, or the code of the targets that print a format (their
/// BackendInfo::codeFormat, `llvm` or `ptx`): Code + the format's index in
/// codeFormats().
enum Emit : unsigned { None, IR, Schedule, Code };

/// The code formats the registered targets print, in registration order.
std::vector<llvm::StringRef> codeFormats();
/// The first target that prints `format` and is not only for testing.
const BackendInfo *codeTarget(llvm::StringRef format);

struct RunConfig {
  CommonConfig common;
  std::vector<std::string> inputs;
  /// --params: DIR/NAME.npy for each parameter without --input, bound as
  /// constants unless --params-as-inputs.
  std::string paramsDir;
  bool paramsAsInputs = false;
  /// --random-inputs[=uniform|scaled] (RandomInputs.h).
  std::optional<RandomInputMode> randomInputs;
  uint64_t seed = 0;
  std::string outputDir;
  /// --save-inputs: DIR/NAME.npy of every input the run used.
  std::string saveInputs;
  std::vector<std::string> devices;
  bool check = false;
  /// --check-against: DIR/output_<i>.npy, reference outputs.
  std::string checkAgainst;
  /// --tolerance: replaces Compare.h's default for floating outputs.
  std::optional<Tolerance> tolerance;
  bool checkDevices = false;
  bool interpret = false;
  unsigned repeat = 1;
  bool profile = false;
  /// --time-runs: the wall time of each run(), best and median.
  bool timeRuns = false;
  std::string trace;
  /// --cost-table-out: the measured cost table (hx/Transforms/CostModel.h).
  std::string costTableOut;
  bool noPlan = false;
  /// --no-fold: no simplify-inference, fold-scale-axis, fold-constant.
  bool noFold = false;
  /// --no-fuse: no fuse-ops (one kernel per operator call).
  bool noFuse = false;
  unsigned threads = 0;
  Emit emit = Emit::None;
  uint64_t deviceMemoryLimit = 0;
  /// --emulate-<type> (--emulate-cuda): those virtual devices run on their
  /// emulator.
  std::vector<DeviceType> emulate;
  /// Hidden, for testing: a test-crash pass after planning.
  std::string testCrash;
  std::string crashReproducer;
  /// --quiet: no progress lines for a long compile (hx/Run/Progress.h).
  bool quiet = false;
  /// Hidden, for testing: print the progress after this many seconds.
  double progressAfter = 2.0;
  /// --no-cache: no compile cache (hx/Run/CompileCache.h).
  bool noCache = false;
  /// hx-compile: write the compiled model here instead of running.
  std::string compileOutput;
  /// hx-run or hx-compile, for messages.
  const char *tool = "hx-run";
};

/// Prints `<tool>: error: msg`; returns the user-error exit status.
int userError(const RunConfig &c, const llvm::Twine &msg);
/// Reads, compiles and runs (or, for hx-compile, writes) as `c` says.
int run(const RunConfig &c);

} // namespace hx::runtool

#endif
