//===- OptMain.cpp - The logic of hx-opt ----------------------------------===//
//
// For the input (or each `// -----` chunk of it with --split-input-file):
// parse, verify, run the pipeline, print. Output goes to a buffer and reaches
// the output file only if every chunk succeeded, so a failed run leaves
// nothing half-written. User errors exit 1, internal errors 2.
//
// Each chunk runs with a crash reproducer armed (CrashReproducer.h): a
// crash, an exception or a pass that breaks the IR writes the chunk and the
// command (pipeline and options) to a file that --run-reproducer replays.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/OptMain.h"
#include "hx/IR/Verifier.h"
#include "hx/Import/Onnx.h"
#include "hx/Interpreter/FoldConstant.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Tools/CrashReproducer.h"
#include "hx/Tools/OpPieces.h"
#include "hx/Transforms/DeviceReport.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>

using namespace hx;
using namespace llvm;

namespace {

enum class ChunkResult { Ok, UserError, InternalError };

/// The reproducer's header: what runs one chunk the way this run did.
std::vector<std::string> reproducerArgs(const OptConfig &config) {
  std::vector<std::string> args = renderCommonArgs(config.common);
  if (config.verifyDiagnostics)
    args.push_back("--verify-diagnostics");
  if (config.print.printTypes)
    args.push_back("--print-types");
  if (config.emit == OptConfig::Emit::Dot)
    args.push_back("--emit=dot");
  return args;
}

ChunkResult processChunk(std::unique_ptr<MemoryBuffer> buffer, const OptConfig &config,
                         const PassRegistry &registry, raw_ostream &out) {
  CrashReproducer repro("hx-opt", reproducerArgs(config), buffer->getBuffer(),
                        config.crashReproducer);
  SourceMgr sm;
  unsigned id = sm.AddNewSourceBuffer(std::move(buffer), SMLoc());
  DiagEngine diags(sm);
  diags.setProgramName("hx-opt");
  std::vector<Diagnostic> captured;
  if (config.verifyDiagnostics)
    diags.setHandler([&](const Diagnostic &d) { captured.push_back(d); });

  bool internal = false;
  TimingReport timing;
  auto timed = [&](StringRef name, auto &&step) {
    TimeScope t(config.common.timePasses ? &timing : nullptr, name);
    return step();
  };
  auto work = [&]() -> bool {
    PassManagerOptions pmo;
    pmo.verifyEach = config.common.verifyEach;
    pmo.printIRAfterAll = config.common.printIRAfterAll;
    pmo.timing = config.common.timePasses ? &timing : nullptr;
    PassManager pm(pmo);
    if (!buildPipeline(config.common, registry, pm, diags))
      return false;
    std::unique_ptr<Module> m =
        timed("(parse)", [&] { return parseModule(id, diags, config.common.parser); });
    if (!m || !timed("(verify)", [&] { return verifyModule(*m, diags); }))
      return false;
    PassContext ctx{diags, pmo.timing};
    if (!pm.run(*m, ctx, &internal))
      return false;
    return timed("(print)", [&] {
      if (config.emit == OptConfig::Emit::Dot)
        return printDeviceGraph(out, *m, diags);
      printModule(out, *m, config.print);
      return true;
    });
  };

  bool ok = false;
  std::optional<std::string> exception;
  if (!repro.runSafely([&] {
        try {
          ok = work();
        } catch (std::exception &e) {
          exception = std::string("an exception: ") + e.what();
        } catch (...) {
          exception = "an exception that is not a std::exception";
        }
      }))
    return ChunkResult::InternalError;
  if (exception) {
    repro.reportInternalError(*exception);
    return ChunkResult::InternalError;
  }
  if (config.common.timePasses)
    timing.print(errs());
  if (internal) {
    repro.reportInternalError("a pass left a module that does not verify (the error above)");
    return ChunkResult::InternalError;
  }
  if (config.verifyDiagnostics)
    return verifyExpectedDiagnostics(id, captured, sm) ? ChunkResult::Ok : ChunkResult::UserError;
  return ok && !diags.hadError() ? ChunkResult::Ok : ChunkResult::UserError;
}

} // namespace

int hx::runOpt(const OptConfig &config, const PassRegistry &registry) {
  // An ONNX model is imported first; its weights reach the parser in memory.
  StringMap<HostTensor> weights;
  Expected<std::unique_ptr<MemoryBuffer>> fileOrErr =
      readModuleFile(config.common.inputFile, weights);
  if (!fileOrErr) {
    errs() << "hx-opt: error: " << toString(fileOrErr.takeError()) << "\n";
    return kExitUserError;
  }
  std::unique_ptr<MemoryBuffer> input = std::move(*fileOrErr);
  OptConfig withWeights = config;
  if (!weights.empty())
    withWeights.common.parser.npyFiles = &weights;
  StringRef name = input->getBufferIdentifier();

  // Chunks keep their line numbers: each is preceded by as many newlines as
  // there were lines before it.
  std::vector<std::unique_ptr<MemoryBuffer>> chunks;
  if (config.splitInputFile) {
    StringRef text = input->getBuffer();
    size_t start = 0, linesBefore = 0, chunkStartLine = 0;
    size_t pos = 0;
    auto flush = [&](size_t end) {
      std::string s(chunkStartLine, '\n');
      s += text.slice(start, end).str();
      chunks.push_back(MemoryBuffer::getMemBufferCopy(s, name));
    };
    while (pos < text.size()) {
      size_t eol = text.find('\n', pos);
      if (eol == StringRef::npos)
        eol = text.size();
      StringRef line = text.slice(pos, eol);
      if (line.trim().starts_with("// -----")) {
        flush(pos);
        start = eol + 1 <= text.size() ? eol + 1 : text.size();
        chunkStartLine = linesBefore + 1;
      }
      ++linesBefore;
      pos = eol + 1;
    }
    flush(text.size());
  } else {
    chunks.push_back(std::move(input));
  }

  std::string output;
  raw_string_ostream out(output);
  int status = kExitSuccess;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i)
      out << "// -----\n";
    ChunkResult r = processChunk(std::move(chunks[i]), withWeights, registry, out);
    if (r == ChunkResult::InternalError)
      status = kExitInternalError;
    else if (r == ChunkResult::UserError && status == kExitSuccess)
      status = kExitUserError;
  }
  if (status != kExitSuccess)
    return status;

  std::error_code ec;
  ToolOutputFile file(config.outputFile, ec, sys::fs::OF_None);
  if (ec) {
    errs() << "hx-opt: error: cannot write '" << config.outputFile << "': " << ec.message() << "\n";
    return kExitUserError;
  }
  file.os() << output;
  file.keep();
  return kExitSuccess;
}

int hx::optMain(int argc, char **argv) {
  PassRegistry registry;
  registerAllPasses(registry);
  registerInterpreterPasses(registry);
  registerTestPasses(registry);
  cl::OptionCategory cat("hx-opt options");
  CommonFlags common(registry, cat);
  cl::opt<std::string> output("o", cl::desc("Output file (default: stdout)"),
                              cl::value_desc("file"), cl::init("-"), cl::cat(cat));
  cl::opt<bool> split("split-input-file",
                      cl::desc("Process each '// -----' chunk of the input separately"),
                      cl::cat(cat));
  cl::opt<bool> verifyDiags(
      "verify-diagnostics",
      cl::desc("Check diagnostics against expected-error/note/warning annotations"), cl::cat(cat));
  cl::opt<bool> printTypes("print-types", cl::desc("Print each binding's type as /* ty=... */"),
                           cl::cat(cat));
  cl::opt<OptConfig::Emit> emit(
      "emit", cl::desc("What to write"), cl::init(OptConfig::Emit::IR),
      cl::values(clEnumValN(OptConfig::Emit::IR, "ir", "the IR (default)"),
                 clEnumValN(OptConfig::Emit::Dot, "dot", "a Graphviz graph coloured by device")),
      cl::cat(cat));
  cl::opt<std::string> listOps(
      "list-ops", cl::ValueOptional,
      cl::desc("Print every operator with its targets, fusion pattern and dtypes (=markdown: "
               "as the page docs/ops.md), after checking that each has every piece it promises"),
      cl::value_desc("text|markdown"), cl::cat(cat));
  ReproducerFlags reproducer(cat);
  cl::HideUnrelatedOptions(cat);
  const char *overview = "hx optimizer driver\n";
  argv = common.joinSpacedValues(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, overview);
  if (!reproducer.replay("hx-opt", argc, argv, overview))
    return kExitUserError;
  if (listOps.getNumOccurrences()) {
    if (!listOps.empty() && listOps != "text" && listOps != "markdown") {
      errs() << "hx-opt: error: --list-ops=" << listOps << ": expected text or markdown\n";
      return kExitUserError;
    }
    std::vector<std::string> missing = checkOperatorPieces();
    for (const std::string &m : missing)
      errs() << "hx-opt: error: operator " << m << "\n";
    if (!missing.empty())
      return kExitInternalError;
    if (listOps == "markdown")
      printOperatorMarkdown(outs());
    else
      printOperatorTable(outs());
    return kExitSuccess;
  }

  OptConfig config;
  if (!common.read("hx-opt", config.common))
    return kExitUserError;
  config.outputFile = output;
  config.splitInputFile = split;
  config.verifyDiagnostics = verifyDiags;
  config.print.printTypes = printTypes;
  config.emit = emit;
  if (!reproducer.crashPath("hx-opt", config.crashReproducer))
    return kExitUserError;
  return runOpt(config, registry);
}
