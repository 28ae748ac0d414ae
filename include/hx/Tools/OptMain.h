//===- OptMain.h - The logic of hx-opt --------------------------*- C++ -*-===//
//
// hx-opt's main is a few lines: it turns its command line into an OptConfig
// and calls runOpt. Everything else lives here, reusable by other tools.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_OPTMAIN_H
#define HX_TOOLS_OPTMAIN_H

#include "hx/IR/Printer.h"
#include "hx/Parser/Parser.h"
#include "hx/Pass/Pass.h"
#include <string>
#include <vector>

namespace hx {

/// One step of the pipeline: a registered pass (from a `-<name>` flag) or
/// pipeline text (from `--passes=`), in command-line order.
struct PipelineItem {
  const PassInfo *pass = nullptr;
  std::string text;
};

struct OptConfig {
  std::string inputFile = "-";
  std::string outputFile = "-";
  std::vector<PipelineItem> pipeline;
  bool splitInputFile = false;
  bool verifyDiagnostics = false;
  bool verifyEach = true;
  bool printIRAfterAll = false;
  bool timePasses = false;
  PrintOptions print;
  /// What to write: the IR, or a Graphviz view of the placement.
  enum class Emit { IR, Dot } emit = Emit::IR;
  ParserOptions parser;
  PassOptions passes;
};

/// Exit statuses.
enum : int { kExitSuccess = 0, kExitUserError = 1, kExitInternalError = 2 };

/// Runs hx-opt. Output is written to config.outputFile only on success.
int runOpt(const OptConfig &config, const PassRegistry &registry);

/// Compares the diagnostics `got` with the `expected-*` annotations in
/// `buffer` (`// expected-error @+1 {{text}}`, `@-N`, `@above`, `@below`, none
/// for the same line; also expected-note, expected-warning, expected-remark).
/// Reports mismatches to `diags` printing directly. Returns true when they
/// match one to one.
bool verifyExpectedDiagnostics(unsigned bufferId, const std::vector<Diagnostic> &got,
                               llvm::SourceMgr &sm);

} // namespace hx

#endif
