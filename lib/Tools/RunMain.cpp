//===- RunMain.cpp - The logic of hx-run ----------------------------------===//
//
// hx-run is the command line of the compile-and-run API (hx/Run/Session.h):
//  1. Parse, verify, infer-type, (unless --no-fold) simplify-inference,
//     fold-scale-axis and fold-constant, (unless --no-plan) plan-devices,
//     and (unless --no-fuse) fuse-ops, with the pass options given as flags
//     (CommonFlags).
//  2. Map the planned virtual devices (the metadata table's, plus any the
//     planner appended) to physical devices (hx/Run/Devices.h): --device
//     options in order, or by default each to a device of its type; one
//     whose hardware the machine lacks (a cuda device without a GPU) runs
//     on a further cpu instance, and hx-run says so. Each device's target
//     compiles its kernels (hx/Targets).
//  3. Inputs: --input NAME=file.npy, else --params DIR/NAME.npy, else
//     --random-inputs (seeded), checked against @main's parameter types.
//     What --params reads is bound as constants before step 1's passes
//     (unless --params-as-inputs), so the executable is built with it.
//     Every file is read once, here, before anything is compiled: what the
//     run uses is what was checked, whatever happens to the file later.
//  4. Compile (Executable::build) and run --repeat times, or interpret
//     (--interpret); --check compares with the interpreter.
//  5. Outputs: a summary line each, and DIR/output_<i>.npy, written only
//     when everything succeeded: every file under a temporary name first,
//     then all renamed, so a failure leaves none of them (nor a directory
//     hx-run created).
//
// Every user error is a message naming the file, parameter or device, exit
// status 1; internal errors exit 2 and write a crash reproducer
// (CrashReproducer.h) that `hx-run --run-reproducer=FILE` replays.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/RunMain.h"
#include "hx/IR/Printer.h"
#include "hx/IR/TargetKind.h"
#include "hx/IR/Verifier.h"
#include "hx/Import/Onnx.h"
#include "hx/Interpreter/FoldConstant.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Run/Compare.h"
#include "hx/Run/Inputs.h"
#include "hx/Run/Outputs.h"
#include "hx/Run/Session.h"
#include "hx/Runtime/Executable.h"
#include "hx/Targets/Registry.h"
#include "hx/Tensor/Npy.h"
#include "hx/Tools/CommonFlags.h"
#include "hx/Tools/CrashReproducer.h"
#include "hx/Tools/EmulateFlags.h"
#include "hx/Tools/MeasuredCosts.h"
#include "hx/Tools/OptMain.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <thread>

using namespace hx;
using namespace llvm;

namespace {

/// --emit: a stage, or the code of the targets that print a format (their
/// BackendInfo::codeFormat, `llvm` or `ptx`): Code + the format's index in
/// codeFormats().
enum Emit : unsigned { None, IR, Schedule, Code };

/// The code formats the registered targets print, in registration order.
std::vector<StringRef> codeFormats() {
  std::vector<StringRef> out;
  for (const BackendInfo &b : allBackends())
    if (!b.codeFormat.empty() && !is_contained(out, b.codeFormat))
      out.push_back(b.codeFormat);
  return out;
}

/// The first target that prints `format` and is not only for testing.
const BackendInfo *codeTarget(StringRef format) {
  for (const BackendInfo &b : allBackends())
    if (b.codeFormat == format && !b.testOnly)
      return &b;
  return nullptr;
}

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
};

/// The reproducer's header: the options that shape the run, with file
/// paths made absolute so it replays from any directory. --output-dir and
/// --trace are left out: a replay writes nothing.
std::vector<std::string> reproducerArgs(const RunConfig &c) {
  std::vector<std::string> args = renderCommonArgs(c.common);
  auto absolute = [](StringRef path) {
    SmallString<256> p(path);
    sys::fs::make_absolute(p);
    return p.str().str();
  };
  for (StringRef spec : c.inputs) {
    auto [name, file] = spec.split('=');
    args.push_back("--input");
    args.push_back((name + "=" + absolute(file)).str());
  }
  if (!c.paramsDir.empty())
    args.push_back("--params=" + absolute(c.paramsDir));
  if (c.randomInputs)
    args.push_back(*c.randomInputs == RandomInputMode::Uniform
                       ? std::string("--random-inputs")
                       : "--random-inputs=" + randomInputModeName(*c.randomInputs).str());
  if (c.seed)
    args.push_back("--seed=" + std::to_string(c.seed));
  for (const std::string &d : c.devices)
    args.push_back("--device=" + d);
  for (auto [on, flag] : {std::pair{c.check, "--check"},
                          {c.checkDevices, "--check-devices"},
                          {c.interpret, "--interpret"},
                          {c.profile, "--profile"},
                          {c.noPlan, "--no-plan"},
                          {c.noFold, "--no-fold"},
                          {c.noFuse, "--no-fuse"},
                          {c.paramsAsInputs, "--params-as-inputs"}})
    if (on)
      args.push_back(flag);
  for (DeviceType t : c.emulate)
    args.push_back(EmulateFlags::flagFor(t));
  if (!c.checkAgainst.empty())
    args.push_back("--check-against=" + absolute(c.checkAgainst));
  if (c.tolerance)
    args.push_back("--tolerance=" + c.tolerance->flagValue());
  if (c.repeat != 1)
    args.push_back("--repeat=" + std::to_string(c.repeat));
  if (c.threads)
    args.push_back("--threads=" + std::to_string(c.threads));
  if (c.emit != Emit::None)
    args.push_back("--emit=" + (c.emit == Emit::IR ? std::string("ir")
                                : c.emit == Emit::Schedule
                                    ? std::string("schedule")
                                    : codeFormats()[c.emit - Emit::Code].str()));
  if (c.deviceMemoryLimit)
    args.push_back("--device-memory-limit=" + std::to_string(c.deviceMemoryLimit));
  if (!c.testCrash.empty())
    args.push_back("--test-crash=" + c.testCrash);
  return args;
}

int userError(const Twine &msg) {
  errs() << "hx-run: error: " << msg << "\n";
  return kExitUserError;
}

/// Writes --emit=FORMAT's code: that of every backend that prints FORMAT
/// (`ptx`: every cuda backend's PTX), and with --output-dir
/// DIR/module_<i>.FORMAT for each module it keeps as text.
int emitCode(const RunConfig &c, Session &s) {
  StringRef format = codeFormats()[c.emit - Emit::Code];
  unsigned n = 0;
  bool any = false;
  for (Backend *b : s.backends()) {
    const BackendInfo *info = lookupBackend(b->name());
    if (!info || info->codeFormat != format)
      continue;
    any = true;
    b->printCode(outs());
    std::vector<std::string> modules = b->codeModules();
    if (c.outputDir.empty() || modules.empty())
      continue;
    if (std::error_code ec = sys::fs::create_directories(c.outputDir))
      return userError("--output-dir: cannot create '" + c.outputDir + "': " + ec.message());
    for (const std::string &text : modules) {
      SmallString<128> path(c.outputDir);
      sys::path::append(path, "module_" + std::to_string(n++) + "." + format);
      std::error_code ec;
      ToolOutputFile f(path, ec, sys::fs::OF_None);
      if (ec)
        return userError("--output-dir: cannot write '" + path + "': " + ec.message());
      f.os() << text;
      f.keep();
    }
  }
  const BackendInfo *target = codeTarget(format);
  if (!any && target && !isHostType(target->deviceType())) {
    StringRef type = deviceTypeName(target->deviceType());
    errs() << "hx-run: note: --emit=" << format << ": no virtual device is " << type
           << ", so there are no " << type << " kernels\n";
  }
  return kExitSuccess;
}

/// Writes what the run measured: --profile, --trace, --cost-table-out.
int writeMeasurements(const RunConfig &c, Session &s, const RunProfile &profile) {
  Executable &exe = s.executable();
  if (c.profile)
    exe.printProfile(errs(), profile, std::max(1u, c.repeat));
  if (!c.trace.empty()) {
    std::error_code ec;
    ToolOutputFile f(c.trace, ec, sys::fs::OF_None);
    if (ec)
      return userError("--trace: cannot write '" + c.trace + "': " + ec.message());
    exe.writeTrace(f.os(), profile);
    f.keep();
  }
  if (!c.costTableOut.empty()) {
    std::error_code ec;
    ToolOutputFile f(c.costTableOut, ec, sys::fs::OF_None);
    if (ec)
      return userError("--cost-table-out: cannot write '" + c.costTableOut + "': " + ec.message());
    measuredCosts(exe, profile, s.module()).write(f.os());
    f.keep();
  }
  return kExitSuccess;
}

/// Prints a comparison by Compare.h's rule ("check" against the
/// interpreter, "check against DIR" against reference outputs): the worst
/// element and the rule's numbers when it fails.
int reportComparison(const RunConfig &c, StringRef label, const Comparison &cmp) {
  if (!cmp.mismatch.empty()) {
    outs() << label << ": " << cmp.mismatch << ": FAILED\n";
    return kExitUserError;
  }
  if (cmp.vacuous())
    errs() << "hx-run: warning: --" << (label == "check" ? "check" : "check-against") << ": "
           << cmp.vacuousList() << (cmp.vacuousOutputs.size() == 1 ? " is" : " are")
           << " entirely inf or NaN on both sides, so the check says nothing of "
           << (cmp.vacuousOutputs.size() == 1 ? "it" : "them")
           << (c.randomInputs == RandomInputMode::Uniform ? " (try --random-inputs=scaled)" : "")
           << "\n";
  std::string rule = cmp.tolerance.describe();
  if (!cmp.ok()) {
    outs() << label << ": FAILED at " << cmp.where() << "\n  " << cmp.ruleAtWorst() << "\n";
    if (std::string n = cmp.failingCount(); !n.empty())
      outs() << "  " << n << "\n";
    return kExitUserError;
  }
  outs() << label
         << format(": max relative error %.3g against the %s (normwise; ", cmp.maxError,
                   cmp.wantName.c_str())
         << rule << ")";
  if (cmp.vacuous())
    outs() << ": vacuous (" << cmp.vacuousList() << " inf/NaN on both sides)\n";
  else
    outs() << ": ok\n";
  return kExitSuccess;
}

/// --check: the interpreter on the same inputs; --check-against: the
/// reference outputs of a directory. Both by Compare.h's rule.
int checkResults(const RunConfig &c, Session &s, ArrayRef<HostTensor> inputs,
                 ArrayRef<HostTensor> results, ArrayRef<HostTensor> reference) {
  CompareOptions opts;
  opts.tolerance = c.tolerance;
  if (c.check) {
    Expected<Comparison> cmp = s.check(inputs, results, opts);
    if (!cmp)
      return userError("--check: the interpreter: " + toString(cmp.takeError()));
    if (int status = reportComparison(c, "check", *cmp))
      return status;
  }
  if (!c.checkAgainst.empty()) {
    opts.wantName = "reference";
    Comparison cmp = compareResults(results, reference, inputs, opts);
    if (int status = reportComparison(c, "check against " + c.checkAgainst, cmp))
      return status;
  }
  return kExitSuccess;
}

/// `weights`: an imported ONNX model's (null for hx text).
int runLoaded(const RunConfig &c, std::unique_ptr<MemoryBuffer> file,
              const StringMap<HostTensor> *weights, CrashReproducer &repro) {
  TimingReport timing;
  TimingReport *report = c.common.timePasses ? &timing : nullptr;
  // Printed however the run ends.
  struct PrintAtExit {
    TimingReport *r;
    ~PrintAtExit() {
      if (r)
        r->print(errs());
    }
  } printTiming{report};
  Session s;
  s.diags().setProgramName("hx-run");
  LoadOptions lo;
  lo.parser = c.common.parser;
  lo.parser.npyFiles = weights;
  lo.plan = !c.noPlan;
  lo.simplify = !c.noFold;
  // The cost table times each operator on its own: no fusion then.
  lo.fuse = !c.noFuse && c.costTableOut.empty();
  lo.passOptions = c.common.passOptions;
  if (!c.testCrash.empty())
    lo.extraPasses = "test-crash{mode=" + c.testCrash + "}";
  lo.verifyEach = c.common.verifyEach;
  lo.printIRAfterAll = c.common.printIRAfterAll;
  lo.timing = report;
  if (!c.paramsAsInputs) {
    lo.constantParamsDir = c.paramsDir;
    for (StringRef spec : c.inputs) {
      StringRef name = spec.split('=').first;
      name.consume_front("%");
      lo.constantParamsKeep.push_back(name.str());
    }
  }
  // The exit status of a failed load (or bindShapes); Ok gives none.
  auto loadFailure = [&](Session::Status st) -> std::optional<int> {
    if (st == Session::Status::UserError)
      return kExitUserError;
    if (st == Session::Status::InternalError) {
      repro.reportInternalError("a pass left a module that does not verify (the error above)");
      return kExitInternalError;
    }
    return std::nullopt;
  };
  if (std::optional<int> rc = loadFailure(s.load(std::move(file), lo)))
    return *rc;
  if (c.emit == Emit::IR) {
    printModule(outs(), s.module());
    return kExitSuccess;
  }
  Function *main = s.main();
  if (!main)
    return userError(c.common.inputFile + ": the module has no @main to run");

  std::vector<HostTensor> inputs, results;
  // Read before compiling: a bad input fails fast, and no file is read twice.
  // `?` dims take their sizes from the inputs (for --emit too): the module
  // is typed, planned and fused again for them.
  bool dynamic = s.hasDynamicShapes();
  if (c.emit == Emit::None || dynamic) {
    Expected<std::vector<HostTensor>> in =
        gatherInputs(*main, {c.inputs, c.paramsDir, c.randomInputs, c.seed, c.deviceMemoryLimit});
    if (!in)
      return userError(toString(in.takeError()));
    inputs = std::move(*in);
  }
  if (dynamic) {
    if (std::optional<int> rc = loadFailure(s.bindShapes(inputs)))
      return *rc;
    main = s.main();
  }
  // Reference outputs are read with the inputs, before anything runs.
  std::vector<HostTensor> reference;
  if (!c.checkAgainst.empty()) {
    Expected<std::vector<HostTensor>> ref = readReferenceOutputs(c.checkAgainst);
    if (!ref)
      return userError("--check-against: " + toString(ref.takeError()));
    reference = std::move(*ref);
  }
  if (!c.saveInputs.empty())
    if (Error e = writeInputs(c.saveInputs, paramNames(*main), inputs))
      return userError("--save-inputs: " + toString(std::move(e)));
  if (c.interpret) {
    Expected<std::vector<HostTensor>> r = s.interpret(inputs);
    if (!r)
      return userError(toString(r.takeError()));
    results = std::move(*r);
  } else {
    CompileOptions co;
    co.devices = {c.devices, c.threads, c.deviceMemoryLimit, c.emulate};
    co.checkDevices = c.checkDevices;
    // The host's code is kept as it is compiled; any other target's is
    // compiled for its own kind, with no device of it at hand.
    const BackendInfo *target =
        c.emit >= Emit::Code ? codeTarget(codeFormats()[c.emit - Emit::Code]) : nullptr;
    co.keepCode = target && isHostType(target->deviceType());
    co.compileOnly = target && !isHostType(target->deviceType());
    Error e = [&] {
      TimeScope t(report, "(compile)");
      return s.compile(co, [&](const Twine &msg) { errs() << "hx-run: " << msg << "\n"; });
    }();
    if (e) {
      if (e.isA<DiagnosedError>()) {
        consumeError(std::move(e));
        return kExitUserError;
      }
      return userError(toString(std::move(e)));
    }
    if (!c.costTableOut.empty())
      for (Device *d : s.devices())
        if (d->emulated())
          return userError("--cost-table-out: " + d->name() +
                           " is an emulated GPU, whose times say nothing of a GPU's");
    if (c.emit >= Emit::Code)
      return emitCode(c, s);
    if (c.emit == Emit::Schedule) {
      s.executable().printSchedule(outs());
      return kExitSuccess;
    }
    RunProfile profile;
    bool wantProfile = c.profile || !c.trace.empty() || !c.costTableOut.empty();
    TimeScope runTime(report, "(run)");
    std::vector<double> wall;
    for (unsigned r = 0; r < std::max(1u, c.repeat); ++r) {
      auto start = std::chrono::steady_clock::now();
      Expected<std::vector<HostTensor>> out = s.run(inputs, wantProfile ? &profile : nullptr);
      wall.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (!out)
        return userError(toString(out.takeError()));
      results = std::move(*out);
    }
    if (c.timeRuns) {
      std::sort(wall.begin(), wall.end());
      errs() << format("hx-run: wall time per run: best %.3f ms, median %.3f ms (%zu runs)\n",
                       1e3 * wall.front(), 1e3 * wall[wall.size() / 2], wall.size());
    }
    if (int status = writeMeasurements(c, s, profile))
      return status;
  }

  if (c.check || !c.checkAgainst.empty())
    if (int status = checkResults(c, s, inputs, results, reference))
      return status;
  for (unsigned i = 0; i < results.size(); ++i)
    summarizeOutput(outs(), i, results[i]);
  if (!c.outputDir.empty())
    if (Error e = writeOutputs(c.outputDir, results))
      return userError(toString(std::move(e)));
  return kExitSuccess;
}

/// The value --input or --params gives an ONNX graph input that the
/// importer needs at import time (Reshape's shape, an axes list): by the
/// input's ONNX name or the parameter name the importer makes of it.
Expected<std::optional<HostTensor>> givenInputValue(const RunConfig &c, StringRef onnxName) {
  std::string paramName;
  for (char ch : onnxName)
    paramName += isAlnum(ch) || ch == '_' ? ch : '_';
  for (StringRef spec : c.inputs) {
    auto [name, path] = spec.split('=');
    if (name != onnxName && name != paramName)
      continue;
    Expected<HostTensor> t = readNpy(path);
    if (!t)
      return createStringError("--input " + spec + ": " + toString(t.takeError()));
    return std::optional<HostTensor>(std::move(*t));
  }
  if (!c.paramsDir.empty()) {
    SmallString<256> path(c.paramsDir);
    sys::path::append(path, paramName + ".npy");
    if (sys::fs::exists(path)) {
      Expected<HostTensor> t = readNpy(path);
      if (!t)
        return createStringError("--params: " + path + ": " + toString(t.takeError()));
      return std::optional<HostTensor>(std::move(*t));
    }
  }
  return std::nullopt;
}

int run(const RunConfig &c) {
  if (!c.common.pipeline.empty())
    return userError("hx-run runs infer-type and plan-devices itself: give pass options as "
                     "flags (--default-device=...), not passes");
  // Where the outputs go is checked before anything is read or run.
  if (!c.outputDir.empty())
    if (Error e = checkOutputDir(c.outputDir))
      return userError(toString(std::move(e)));
  // An ONNX model is imported first: its text is what runs (and what a
  // crash reproducer holds).
  StringMap<HostTensor> weights;
  OnnxImportOptions importOpts;
  importOpts.inputValue = [&c](StringRef name) { return givenInputValue(c, name); };
  Expected<std::unique_ptr<MemoryBuffer>> file =
      readModuleFile(c.common.inputFile, weights, importOpts);
  if (!file)
    return userError(toString(file.takeError()));
  CrashReproducer repro("hx-run", reproducerArgs(c), (*file)->getBuffer(), c.crashReproducer);
  int status = kExitInternalError;
  std::optional<std::string> exception;
  if (!repro.runSafely([&] {
        try {
          status = runLoaded(c, std::move(*file), weights.empty() ? nullptr : &weights, repro);
        } catch (std::exception &e) {
          exception = std::string("an exception: ") + e.what();
        } catch (...) {
          exception = "an exception that is not a std::exception";
        }
      }))
    return kExitInternalError;
  if (exception) {
    repro.reportInternalError(*exception);
    return kExitInternalError;
  }
  return status;
}

} // namespace

int hx::runMain(int argc, char **argv) {
  PassRegistry registry;
  registerAllPasses(registry);
  registerInterpreterPasses(registry);
  registerTestPasses(registry);
  cl::OptionCategory cat("hx-run options");
  CommonFlags common(registry, cat, /*pipelineFlags=*/false);
  cl::list<std::string> inputs("input", cl::desc("An input for parameter NAME of @main"),
                               cl::value_desc("NAME=file.npy"), cl::cat(cat));
  cl::opt<std::string> params("params",
                              cl::desc("Read each parameter NAME of @main not given with --input "
                                       "from DIR/NAME.npy, where that file exists, as a "
                                       "constant (see --params-as-inputs)"),
                              cl::value_desc("DIR"), cl::cat(cat));
  cl::opt<bool> paramsAsInputs(
      "params-as-inputs",
      cl::desc("Keep what --params reads as run-time inputs of @main (by default each becomes a "
               "constant before planning, known when the executable is built)"),
      cl::cat(cat));
  cl::opt<std::string> randomInputs(
      "random-inputs", cl::ValueOptional,
      cl::desc("Fill parameters without --input with seeded random data: uniform (the default: "
               "floats in [-1, 1), integers in [-9, 9] without 0) or scaled (weights as "
               "frameworks initialize them, so deep networks stay finite)"),
      cl::value_desc("uniform|scaled"), cl::cat(cat));
  cl::opt<uint64_t> seed("seed", cl::desc("The seed of --random-inputs"), cl::init(0),
                         cl::cat(cat));
  cl::opt<std::string> outputDir("output-dir", cl::desc("Write DIR/output_<i>.npy"),
                                 cl::value_desc("DIR"), cl::cat(cat));
  cl::opt<std::string> saveInputs(
      "save-inputs",
      cl::desc("Write every input of @main the run uses to DIR/NAME.npy (--params DIR reads "
               "them back)"),
      cl::value_desc("DIR"), cl::cat(cat));
  // The registered targets' names (cpu|cpu:N|cuda:N|cuda-emu:N), the
  // test-only ones left out: cl keeps StringRefs.
  std::string deviceNames;
  for (const BackendInfo &b : allBackends())
    if (!b.testOnly)
      deviceNames += (deviceNames.empty() ? "" : "|") +
                     (isHostType(b.deviceType()) ? b.name.str() + "|" : "") + b.name.str() + ":N";
  cl::list<std::string> devices(
      "device", cl::desc("The physical device of the next virtual device, in table order"),
      cl::value_desc(deviceNames), cl::cat(cat));
  cl::opt<bool> check("check",
                      cl::desc("Run the reference interpreter on the same inputs; exit 1 when "
                               "the results differ by more than the tolerance"),
                      cl::cat(cat));
  cl::opt<std::string> checkAgainst(
      "check-against",
      cl::desc("Compare the results with reference outputs DIR/output_<i>.npy (as --output-dir "
               "writes them: PyTorch's or ONNX Runtime's, say) by --check's rule; exit 1 when "
               "they differ by more than the tolerance"),
      cl::value_desc("DIR"), cl::cat(cat));
  cl::opt<std::string> tolerance(
      "tolerance",
      cl::desc("The tolerance of --check and --check-against for floating outputs: element i "
               "of an output passes when |a_i - b_i| <= ATOL + RTOL * (the output's largest "
               "|b|); default 1e-3,1e-5 (1e-2,1e-3 with float16)"),
      cl::value_desc("RTOL[,ATOL]"), cl::cat(cat));
  cl::opt<bool> checkDevices(
      "check-devices", cl::desc("Before each kernel, check that its arguments live on its device"),
      cl::cat(cat));
  cl::opt<bool> interpretOnly("interpret", cl::desc("Run with the reference interpreter alone"),
                              cl::cat(cat));
  cl::opt<unsigned> repeat("repeat", cl::desc("Compile once, run N times"), cl::init(1),
                           cl::cat(cat));
  cl::opt<bool> timeRuns("time-runs",
                         cl::desc("Print the wall time per run (best and median of --repeat "
                                  "runs) to stderr"),
                         cl::cat(cat));
  cl::opt<bool> profile("profile",
                        cl::desc("Print time per step and device, bytes copied per device "
                                 "pair and peak memory per device to stderr"),
                        cl::cat(cat));
  cl::opt<std::string> trace("trace", cl::desc("Write a Chrome trace (one track per device)"),
                             cl::value_desc("out.json"), cl::cat(cat));
  cl::opt<std::string> costTableOut(
      "cost-table-out",
      cl::desc("Write the measured cost table (seconds per operator signature and device kind, "
               "bandwidth and latency per device pair) that plan-devices --cost-table reads"),
      cl::value_desc("costs.json"), cl::cat(cat));
  cl::opt<bool> noFold("no-fold",
                       cl::desc("Keep the module's arithmetic as written: no simplify-inference, "
                                "fold-scale-axis or fold-constant before planning"),
                       cl::cat(cat));
  cl::opt<bool> noFuse("no-fuse",
                       cl::desc("One kernel per operator call: no fuse-ops after planning"),
                       cl::cat(cat));
  cl::opt<bool> noPlan("no-plan", cl::desc("Run the module as written, without plan-devices"),
                       cl::cat(cat));
  // libLLVM registers a -threads of its own that hx-run never reads.
  if (cl::Option *llvmThreads = cl::getRegisteredOptions().lookup("threads"))
    llvmThreads->removeArgument();
  cl::opt<unsigned> threads("threads",
                            cl::desc("Worker threads per cpu device (default: one per core)"),
                            cl::init(0), cl::cat(cat));
  cl::opt<Emit> emit("emit", cl::desc("Print a compilation stage instead of running"),
                     cl::init(Emit::None), cl::cat(cat));
  // The stages, and each code format a target prints ("every cuda kernel's
  // PTX"); cl keeps StringRefs.
  std::vector<StringRef> formats = codeFormats();
  std::vector<std::string> formatHelp;
  for (StringRef f : formats) {
    const BackendInfo *b = codeTarget(f);
    formatHelp.push_back("every " + deviceTypeName(b->deviceType()).str() + " kernel's " +
                         b->codeName.str());
  }
  emit.getParser().addLiteralOption("ir", Emit::IR, "the planned module");
  for (size_t i = 0; i < formats.size(); ++i)
    emit.getParser().addLiteralOption(formats[i], Emit(Emit::Code + i), formatHelp[i]);
  emit.getParser().addLiteralOption("schedule", Emit::Schedule,
                                    "the steps, and the buffers and offsets per device");
  cl::opt<bool> list("list-devices", cl::desc("Print the physical devices found"), cl::cat(cat));
  EmulateFlags emulate(cat, [](DeviceType t, const BackendInfo &emulator) {
    StringRef type = deviceTypeName(t);
    return ("Run " + type + " virtual devices on " + emulator.name + ":N (" + emulator.emulation +
            ") unless --device maps them")
        .str();
  });
  // Every device type, the host's last ("cuda or cpu"); cl keeps StringRefs.
  std::vector<std::string> types = deviceTypeNames();
  std::reverse(types.begin(), types.end());
  std::string memoryLimitHelp = "The most memory hx-run allocates on each device, " +
                                joinChoices(types) + " (bytes, or with K, M, G)";
  cl::opt<std::string> memoryLimit("device-memory-limit", cl::desc(memoryLimitHelp),
                                   cl::value_desc("BYTES"), cl::cat(cat));
  ReproducerFlags reproducer(cat);
  cl::opt<std::string> testCrash("test-crash",
                                 cl::desc("Testing hx: run test-crash{mode=M} after planning"),
                                 cl::value_desc("M"), cl::ReallyHidden, cl::cat(cat));
  cl::HideUnrelatedOptions(cat);
  const char *overview = "hx: run a module on CPU and GPU\n";
  cl::ParseCommandLineOptions(argc, argv, overview);
  if (!reproducer.replay("hx-run", argc, argv, overview))
    return kExitUserError;
  if (list) {
    listDevices(outs());
    return kExitSuccess;
  }

  RunConfig c;
  if (!common.read("hx-run", c.common))
    return kExitUserError;
  c.inputs.assign(inputs.begin(), inputs.end());
  if (randomInputs.getNumOccurrences()) {
    c.randomInputs =
        randomInputs.empty() ? RandomInputMode::Uniform : parseRandomInputMode(randomInputs);
    if (!c.randomInputs)
      return userError("--random-inputs=" + randomInputs + ": expected uniform or scaled");
  }
  c.paramsDir = params;
  c.paramsAsInputs = paramsAsInputs;
  c.seed = seed;
  c.outputDir = outputDir;
  c.saveInputs = saveInputs;
  c.devices.assign(devices.begin(), devices.end());
  c.check = check;
  c.checkAgainst = checkAgainst;
  if (tolerance.getNumOccurrences()) {
    Expected<Tolerance> t = parseTolerance(tolerance);
    if (!t)
      return userError("--tolerance: " + toString(t.takeError()));
    c.tolerance = *t;
  }
  c.checkDevices = checkDevices;
  c.interpret = interpretOnly;
  c.repeat = repeat;
  c.profile = profile;
  c.timeRuns = timeRuns;
  c.trace = trace;
  c.costTableOut = costTableOut;
  c.noPlan = noPlan;
  c.noFold = noFold;
  c.noFuse = noFuse;
  c.threads = threads;
  c.emit = emit;
  c.testCrash = testCrash;
  c.emulate = emulate.given();
  if (!reproducer.crashPath("hx-run", c.crashReproducer))
    return kExitUserError;
  if (!memoryLimit.empty()) {
    StringRef text = memoryLimit;
    uint64_t scale = 1;
    if (text.consume_back("K") || text.consume_back("k"))
      scale = 1ull << 10;
    else if (text.consume_back("M"))
      scale = 1ull << 20;
    else if (text.consume_back("G"))
      scale = 1ull << 30;
    uint64_t n = 0;
    if (text.getAsInteger(10, n) || n == 0 || n > UINT64_MAX / scale)
      return userError("--device-memory-limit=" + memoryLimit +
                       ": expected a positive number of bytes, optionally with K, M or G");
    c.deviceMemoryLimit = n * scale;
  }
  return run(c);
}
