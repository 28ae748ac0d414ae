//===- SmithMain.cpp - The logic of hx-smith ------------------------------===//
//
//   hx-smith --seed=N [--count=K] [--calls=M] [--functions=F] [--ops=a,b]
//            [--no-constants] [--no-annotations]
//            [--check [--static-only] [--keep-failures=DIR] [--save-inputs=DIR]]
//            [--coverage]
//
// Without --check: prints the modules of seeds N .. N+K-1 (separated by
// `// -----` lines, as hx-opt --split-input-file reads them). With --check:
// tests each differentially in this process and prints one line per
// failure (`FAIL seed=S stage: message`), then a summary; the exit status
// is 1 when any failed. --coverage prints, for the seeds, how many modules
// call each operator of the registry, and the operators none calls.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/SmithMain.h"
#include "hx/Differential/Differential.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Run/Inputs.h"
#include "hx/Smith/Smith.h"
#include "hx/Tools/EmulateFlags.h"
#include "hx/Tools/OptMain.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <map>

using namespace hx;
using namespace llvm;

int hx::smithMain(int argc, char **argv) {
  cl::OptionCategory cat("hx-smith options");
  cl::opt<uint64_t> seed("seed", cl::desc("The seed of the first module"), cl::init(0),
                         cl::cat(cat));
  cl::opt<unsigned> count("count", cl::desc("Modules: seeds N to N+K-1"), cl::init(1),
                          cl::cat(cat));
  cl::opt<unsigned> calls("calls", cl::desc("Operator calls per module"), cl::init(24),
                          cl::cat(cat));
  cl::opt<unsigned> functions("functions", cl::desc("The most defs per module, @main included"),
                              cl::init(3), cl::cat(cat));
  cl::list<std::string> ops("ops", cl::desc("Only these operators"), cl::CommaSeparated,
                            cl::value_desc("a,b"), cl::cat(cat));
  cl::opt<bool> noConstants("no-constants", cl::desc("No tensor constants"), cl::cat(cat));
  cl::opt<bool> noAnnotations("no-annotations",
                              cl::desc("No on_device, device_copy, parameter or result devices"),
                              cl::cat(cat));
  cl::opt<bool> check("check", cl::desc("Test each module differentially instead of printing it"),
                      cl::cat(cat));
  cl::opt<bool> staticOnly("static-only",
                           cl::desc("--check: the static checks only (no compile, run, compare)"),
                           cl::cat(cat));
  EmulateFlags emulate(cat, [](DeviceType t, const BackendInfo &) {
    return ("--check: " + deviceTypeName(t) + " virtual devices run on emulated GPUs (hx-run " +
            EmulateFlags::flagFor(t) + ")")
        .str();
  });
  cl::opt<std::string> saveInputs(
      "save-inputs",
      cl::desc("--check: write the random inputs of seed S's @main to DIR/seed-S/NAME.npy "
               "(the inputs of hx-run --random-inputs --seed=S)"),
      cl::value_desc("DIR"), cl::cat(cat));
  cl::opt<std::string> keep("keep-failures", cl::desc("--check: write DIR/seed-S.ir per failure"),
                            cl::value_desc("DIR"), cl::cat(cat));
  cl::opt<bool> coverage("coverage", cl::desc("Print how many modules call each operator"),
                         cl::cat(cat));
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(argc, argv, "hx-smith: random modules and differential testing\n");

  auto userError = [](const Twine &msg) {
    errs() << "hx-smith: error: " << msg << "\n";
    return int(kExitUserError);
  };
  SmithOptions base;
  base.calls = calls;
  base.functions = functions;
  base.constants = !noConstants;
  base.annotations = !noAnnotations;
  base.ops.assign(ops.begin(), ops.end());
  std::string error;
  if (!validateSmithOps(base.ops, error))
    return userError("--ops: " + error);
  if (functions == 0)
    return userError("--functions must be at least 1");
  if (count == 0)
    return userError("--count must be at least 1");
  if ((staticOnly || !keep.empty() || !saveInputs.empty()) && !check)
    return userError("--static-only, --keep-failures and --save-inputs go with --check");
  if (!keep.empty())
    if (std::error_code ec = sys::fs::create_directories(keep))
      return userError("--keep-failures: cannot create '" + keep + "': " + ec.message());

  std::map<std::string, unsigned> used;
  DifferentialTester tester;
  unsigned failures = 0;
  auto start = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < count; ++i) {
    SmithOptions o = base;
    o.seed = seed + i;
    SmithModule m = generateModule(o);
    for (const std::string &op : m.opsUsed)
      ++used[op];
    if (coverage)
      continue;
    if (!check) {
      if (i)
        outs() << "// -----\n";
      outs() << m.text;
      continue;
    }
    DiffOptions d;
    d.execute = !staticOnly;
    d.inputSeed = o.seed;
    d.emulate = emulate.given();
    std::string name = "seed-" + std::to_string(o.seed) + ".ir";
    DiffResult r = tester.check(m.text, name, d);
    if (!saveInputs.empty() && !r.inputs.empty()) {
      SmallString<128> dir(saveInputs);
      sys::path::append(dir, "seed-" + std::to_string(o.seed));
      if (Error e = writeInputs(dir, r.inputNames, r.inputs))
        return userError("--save-inputs: " + toString(std::move(e)));
    }
    if (r.ok)
      continue;
    ++failures;
    outs() << "FAIL seed=" << o.seed << " " << r.stage << ": " << r.message << "\n";
    outs().flush();
    if (!keep.empty()) {
      SmallString<128> path(keep);
      sys::path::append(path, name);
      std::error_code ec;
      raw_fd_ostream f(path, ec);
      if (!ec)
        f << m.text;
    }
  }
  if (coverage) {
    unsigned missing = 0;
    std::vector<StringRef> names;
    for (const OpDef &d : allOps())
      names.push_back(d.name);
    llvm::sort(names);
    for (StringRef n : names)
      outs() << n << " " << used[n.str()] << "\n";
    for (StringRef n : names)
      if (!used[n.str()]) {
        outs() << "missing: " << n << "\n";
        ++missing;
      }
    outs() << "coverage: " << names.size() - missing << " of " << names.size() << " operators in "
           << count << " modules\n";
    return missing ? kExitUserError : kExitSuccess;
  }
  if (check) {
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outs() << "checked " << count << " modules (seeds " << seed << " to " << seed + count - 1
           << "): " << failures << " failed, " << format("%.1f", secs) << " s\n";
  }
  return failures ? kExitUserError : kExitSuccess;
}
