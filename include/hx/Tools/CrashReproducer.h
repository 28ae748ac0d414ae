//===- CrashReproducer.h - Reproducers for internal errors ------*- C++ -*-===//
//
// When hx-opt or hx-run hits a bug — a signal (SIGSEGV, SIGABRT from an
// assert, llvm_unreachable or report_fatal_error), an exception nobody
// caught, a pass that leaves IR the verifier rejects — it writes a
// reproducer: one self-contained text file, the input module with its
// metadata preceded by the command that failed,
//
//   // hx-reproducer: hx-opt '--passes=infer-type,plan-devices' --strict-placement
//   #[version = "0.0.5"]
//   ...
//
// and says where it is. `hx-opt --run-reproducer=FILE` (or hx-run's, for an
// hx-run reproducer) replays it: the header's arguments with FILE as the
// input.
//
// Everything the crash path writes is rendered before the work starts (the
// file's bytes, its path, the messages), so that a signal handler only
// calls open, write, rename and close. The armed reproducer is process state
// and therefore lives here, in the tool layer, one at a time.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_CRASHREPRODUCER_H
#define HX_TOOLS_CRASHREPRODUCER_H

#include "hx/Tools/CommonFlags.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include <string>
#include <vector>

namespace hx {

/// The first line of a reproducer starts with this.
inline constexpr llvm::StringLiteral kReproducerPrefix = "// hx-reproducer: ";

/// `arg`, single-quoted for a POSIX shell when it needs quoting.
std::string quoteArg(llvm::StringRef arg);

/// The shared flags of `c` as arguments (the pipeline as one --passes=, each
/// pass option, the parser's options, the instrumentation), without the input.
std::vector<std::string> renderCommonArgs(const CommonConfig &c);

/// Checks a --crash-reproducer path before anything runs: its directory must
/// exist. Prints `<tool>: error: ...` and returns false when it does not.
bool checkReproducerPath(llvm::StringRef tool, llvm::StringRef path);

class CrashReproducer {
public:
  /// Arms a reproducer for `tool` (hx-opt, hx-run) whose header holds `args`
  /// and whose body is `input` (a leading reproducer header of its own is
  /// dropped). `path` is --crash-reproducer's value; empty: a new unique file
  /// in the temporary directory ($TMPDIR).
  CrashReproducer(llvm::StringRef tool, llvm::ArrayRef<std::string> args, llvm::StringRef input,
                  llvm::StringRef path);
  /// Disarms it.
  ~CrashReproducer();
  CrashReproducer(const CrashReproducer &) = delete;
  CrashReproducer &operator=(const CrashReproducer &) = delete;

  /// Runs `fn` in an llvm::CrashRecoveryContext. After a crash on this
  /// thread: prints the stack dump, writes the reproducer, reports it and
  /// returns false. A crash on another thread writes the reproducer from the
  /// signal handler and the process dies of the signal.
  bool runSafely(llvm::function_ref<void()> fn);

  /// An internal error found without a crash: writes the reproducer and
  /// prints `<tool>: internal error: <reason>; a reproducer was written ...`.
  void reportInternalError(llvm::StringRef reason);
};

/// --run-reproducer=FILE for `tool`: the arguments FILE's header gives, then
/// FILE as the input. Prints `<tool>: error: ...` and returns false when
/// FILE cannot be read, has no header, or was written by another tool (with
/// the command that runs it).
bool readReproducerArgs(llvm::StringRef tool, llvm::StringRef file, std::vector<std::string> &args);

/// Re-parses the command line for --run-reproducer: argv[0], the header's
/// `args`, then the rest of argv without the --run-reproducer option.
/// Resets every option first. False after cl has reported an error.
bool reparseWithReproducer(int argc, char **argv, llvm::ArrayRef<std::string> args,
                           llvm::StringRef overview);

/// --crash-reproducer and --run-reproducer, which hx-opt and hx-run share
/// (declared in the tool's option category).
class ReproducerFlags {
public:
  explicit ReproducerFlags(llvm::cl::OptionCategory &cat);
  /// After cl::ParseCommandLineOptions: with --run-reproducer=FILE, parses
  /// the command line again with FILE's arguments (readReproducerArgs,
  /// reparseWithReproducer). False after an error.
  bool replay(llvm::StringRef tool, int argc, char **argv, llvm::StringRef overview);
  /// The --crash-reproducer path, checked (checkReproducerPath); false after
  /// an error.
  bool crashPath(llvm::StringRef tool, std::string &path) const;

private:
  llvm::cl::opt<std::string> crashReproducer;
  llvm::cl::opt<std::string> runReproducer;
};

} // namespace hx

#endif
