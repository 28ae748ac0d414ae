//===- CommonFlags.h - Command-line flags hx-opt and hx-run share -*- C++ -*-===//
//
// The tools' command lines are built here, once, so that a flag means the
// same in every tool and is never defined twice. A CommonFlags object lives
// in a tool's main (its llvm::cl options register when it is constructed and
// unregister when it dies; nothing here is a global). It holds:
//  - the input file;
//  - the parser's options (--virtual-devices, --max-nesting);
//  - the pipeline: a `-<pass>` flag per registered pass and `--passes=` text,
//    in command-line order;
//  - one flag per option a registered pass declares (`--default-device`,
//    `--strict-placement`, ...), with the pass's own description, applied to
//    every pass in the pipeline that declares it and validated up front; a
//    list option's flag may be repeated (`--place=a=cpu --place=b=cuda`),
//    and one named like a pass is that pass's `-<name>` flag as well;
//  - the pass manager's instrumentation (--verify-each,
//    --print-ir-after-all, --time-passes).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_COMMONFLAGS_H
#define HX_TOOLS_COMMONFLAGS_H

#include "hx/Parser/Parser.h"
#include "hx/Pass/Pass.h"
#include "llvm/Support/CommandLine.h"
#include <memory>
#include <string>
#include <vector>

namespace hx {

/// One step of the pipeline: a registered pass (from a `-<name>` flag) or
/// pipeline text (from `--passes=`), in command-line order.
struct PipelineItem {
  const PassInfo *pass = nullptr;
  std::string text;
};

/// What the shared flags say, once parsed.
struct CommonConfig {
  std::string inputFile = "-";
  ParserOptions parser;
  std::vector<PipelineItem> pipeline;
  PassOptionDefaults passOptions;
  bool verifyEach = true;
  bool printIRAfterAll = false;
  bool timePasses = false;
};

class CommonFlags {
public:
  /// `pipelineFlags`: the `-<pass>` flags and `--passes=` (hx-opt); a tool
  /// with a fixed pipeline (hx-run) takes only the passes' options.
  CommonFlags(const PassRegistry &registry, llvm::cl::OptionCategory &category,
              bool pipelineFlags = true);
  ~CommonFlags();

  /// Before llvm::cl::ParseCommandLineOptions: the arguments with a spaced
  /// value of a flag that is also a pass (`--place Softmax=cpu`) joined to it
  /// by '=', since llvm::cl never gives such a flag the next word. The array
  /// lives as long as this object; `argc` is updated.
  char **joinSpacedValues(int &argc, char **argv);

  /// After llvm::cl::ParseCommandLineOptions: fills `out`, or prints
  /// `<tool>: error: ...` for an invalid value and returns false.
  bool read(llvm::StringRef tool, CommonConfig &out) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Builds the pass manager for a config's pipeline; false after reporting an
/// error in pipeline text.
bool buildPipeline(const CommonConfig &config, const PassRegistry &registry, PassManager &pm,
                   DiagEngine &diags);

} // namespace hx

#endif
