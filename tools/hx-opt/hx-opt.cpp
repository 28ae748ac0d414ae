//===- hx-opt.cpp - The hx optimizer driver -------------------------------===//
//
// Command-line options only; the work is hx::runOpt (lib/Tools/OptMain.cpp).
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/OptMain.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {
/// Makes every registered pass a `-<argument>` flag.
struct PassNameParser : public cl::parser<const hx::PassInfo *> {
  explicit PassNameParser(cl::Option &o) : cl::parser<const hx::PassInfo *>(o) {}
  static const hx::PassRegistry *registry;
  void initialize() {
    cl::parser<const hx::PassInfo *>::initialize();
    for (const hx::PassInfo &p : registry->entries())
      addLiteralOption(p.argument, &p, p.description);
  }
};
const hx::PassRegistry *PassNameParser::registry = nullptr;
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  static hx::PassRegistry registry;
  hx::registerAllPasses(registry);
  PassNameParser::registry = &registry;

  static cl::OptionCategory cat("hx-opt options");
  static cl::opt<std::string> input(cl::Positional, cl::desc("<input .ir file>"), cl::init("-"),
                                    cl::cat(cat));
  static cl::opt<std::string> output("o", cl::desc("Output file (default: stdout)"),
                                     cl::value_desc("file"), cl::init("-"), cl::cat(cat));
  static cl::list<const hx::PassInfo *, bool, PassNameParser> passFlags(
      cl::desc("Passes to run, in command-line order:"), cl::cat(cat));
  static cl::list<std::string> passes(
      "passes", cl::desc("A pipeline of passes, e.g. --passes=infer-type,plan-devices"),
      cl::value_desc("a,b,..."), cl::cat(cat));
  static cl::opt<bool> split("split-input-file",
                             cl::desc("Process each '// -----' chunk of the input separately"),
                             cl::cat(cat));
  static cl::opt<bool> verifyDiags(
      "verify-diagnostics",
      cl::desc("Check diagnostics against expected-error/note/warning annotations"), cl::cat(cat));
  static cl::opt<bool> verifyEach("verify-each",
                                  cl::desc("Verify the IR after every pass (default on)"),
                                  cl::init(true), cl::cat(cat));
  static cl::opt<bool> printAfterAll(
      "print-ir-after-all", cl::desc("Print the IR to stderr after every pass"), cl::cat(cat));
  // libLLVM already defines -time-passes (llvm::TimePassesIsEnabled): reuse it.
  if (cl::Option *tp = cl::getRegisteredOptions().lookup("time-passes")) {
    tp->addCategory(cat);
    tp->setHiddenFlag(cl::NotHidden);
    tp->setDescription("Report the time of parsing, verifying, every pass and printing");
  }
  static cl::opt<bool> printTypes(
      "print-types", cl::desc("Print each binding's type as /* ty=... */"), cl::cat(cat));
  static cl::opt<std::string> virtualDevices(
      "virtual-devices",
      cl::desc("The virtual-device table as JSON (wins over the file's #[metadata])"),
      cl::value_desc("json"), cl::cat(cat));
  static cl::opt<std::string> defaultDevice(
      "default-device",
      cl::desc("Device for unconstrained expressions: cpu, cuda or a DLPack number "
               "(overrides the PassConfig)"),
      cl::value_desc("cpu|cuda|N"), cl::cat(cat));
  static cl::opt<bool> strictPlacement(
      "strict-placement",
      cl::desc("An operator the device's target lacks is an error, not a cpu fallback"),
      cl::cat(cat));
  static cl::opt<bool> replicateCheap(
      "replicate-cheap",
      cl::desc("plan-devices: recompute constants and calls of constants on each device "
               "instead of copying them"),
      cl::cat(cat));
  static cl::opt<bool> placementReport(
      "placement-report",
      cl::desc("plan-devices: print each call's device and each copy to stderr"), cl::cat(cat));
  static cl::opt<hx::OptConfig::Emit> emit(
      "emit", cl::desc("What to write"), cl::init(hx::OptConfig::Emit::IR),
      cl::values(
          clEnumValN(hx::OptConfig::Emit::IR, "ir", "the IR (default)"),
          clEnumValN(hx::OptConfig::Emit::Dot, "dot", "a Graphviz graph coloured by device")),
      cl::cat(cat));
  // cl::desc keeps a StringRef: the text must outlive the option.
  static const std::string maxNestingDesc =
      "Deepest bracket nesting accepted (default 256, at most " +
      std::to_string(hx::kMaxNestingLimit) + ")";
  static cl::opt<unsigned> maxNesting("max-nesting", cl::desc(maxNestingDesc), cl::init(256),
                                      cl::cat(cat));

  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(argc, argv, "hx optimizer driver\n");
  if (maxNesting > hx::kMaxNestingLimit) {
    errs() << "hx-opt: error: --max-nesting=" << maxNesting << " is more than "
           << hx::kMaxNestingLimit << ", the deepest nesting hx can parse\n";
    return hx::kExitUserError;
  }

  hx::OptConfig config;
  config.inputFile = input;
  config.outputFile = output;
  // Interleave `-<pass>` flags and `--passes=` text in command-line order.
  std::vector<std::pair<unsigned, hx::PipelineItem>> items;
  for (unsigned i = 0; i < passFlags.size(); ++i)
    items.push_back({passFlags.getPosition(i), {passFlags[i], ""}});
  for (unsigned i = 0; i < passes.size(); ++i)
    items.push_back({passes.getPosition(i), {nullptr, passes[i]}});
  llvm::sort(items, [](auto &a, auto &b) { return a.first < b.first; });
  for (auto &[pos, item] : items)
    config.pipeline.push_back(item);
  config.splitInputFile = split;
  config.verifyDiagnostics = verifyDiags;
  config.verifyEach = verifyEach;
  config.printIRAfterAll = printAfterAll;
  config.timePasses = TimePassesIsEnabled;
  config.print.printTypes = printTypes;
  if (virtualDevices.getNumOccurrences())
    config.parser.virtualDevices = virtualDevices;
  config.parser.maxNesting = maxNesting;
  if (defaultDevice.getNumOccurrences())
    config.passes.defaultDevice = defaultDevice;
  config.passes.strictPlacement = strictPlacement;
  config.passes.replicateCheap = replicateCheap;
  if (placementReport)
    config.passes.placementReport = &errs();
  config.emit = emit;
  return hx::runOpt(config, registry);
}
