//===- OptMain.h - The logic of hx-opt --------------------------*- C++ -*-===//
//
// hx-opt's main is a few lines: optMain turns its command line into an
// OptConfig and calls runOpt. Everything else lives here, reusable by other
// tools.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_OPTMAIN_H
#define HX_TOOLS_OPTMAIN_H

#include "hx/IR/Printer.h"
#include "hx/Tools/CommonFlags.h"
#include <string>
#include <vector>

namespace hx {

struct OptConfig {
  CommonConfig common;
  std::string outputFile = "-";
  bool splitInputFile = false;
  bool verifyDiagnostics = false;
  PrintOptions print;
  /// What to write: the IR, or a Graphviz view of the placement.
  enum class Emit { IR, Dot } emit = Emit::IR;
  /// Where an internal error's reproducer goes (empty: a unique temp file).
  std::string crashReproducer;
};

/// Exit statuses.
enum : int { kExitSuccess = 0, kExitUserError = 1, kExitInternalError = 2 };

/// Runs hx-opt. Output is written to config.outputFile only on success.
int runOpt(const OptConfig &config, const PassRegistry &registry);

/// hx-opt's whole command line: registers the flags, parses argv, runs.
int optMain(int argc, char **argv);

/// Compares the diagnostics `got` with the `expected-*` annotations in
/// `buffer` (`// expected-error @+1 {{text}}`, `@-N`, `@above`, `@below`, none
/// for the same line; also expected-note, expected-warning, expected-remark).
/// Reports mismatches to `diags` printing directly. Returns true when they
/// match one to one.
bool verifyExpectedDiagnostics(unsigned bufferId, const std::vector<Diagnostic> &got,
                               llvm::SourceMgr &sm);

} // namespace hx

#endif
