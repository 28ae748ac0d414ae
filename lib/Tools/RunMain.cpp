//===- RunMain.cpp - The logic of hx-run and hx-compile -------------------===//
//
// hx-run is the command line of the compile-and-run API (hx/Run/Session.h),
// its flags read by RunFlags.cpp:
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
// hx-compile stops after step 4's compile, which needs no device (each
// virtual device's code for its own target, or the backend --device names),
// and writes a compiled model (Session::saveCompiled). A compiled model as
// hx-run's input skips step 1 and most of 4 (Session::loadCompiled).
//
// Every user error is a message naming the file, parameter or device, exit
// status 1; internal errors exit 2 and write a crash reproducer
// (CrashReproducer.h) that `hx-run --run-reproducer=FILE` replays.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/RunMain.h"
#include "RunConfig.h"
#include "hx/IR/Printer.h"
#include "hx/IR/TargetKind.h"
#include "hx/IR/Verifier.h"
#include "hx/Import/Onnx.h"
#include "hx/Interpreter/FoldConstant.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Run/Compare.h"
#include "hx/Run/CompileCache.h"
#include "hx/Run/CompiledFile.h"
#include "hx/Run/Inputs.h"
#include "hx/Run/Outputs.h"
#include "hx/Run/Progress.h"
#include "hx/Run/Session.h"
#include "hx/Runtime/Executable.h"
#include "hx/Support/Files.h"
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
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <thread>

using namespace hx;
using namespace llvm;

namespace hx::runtool {

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

int userError(const RunConfig &c, const Twine &msg) {
  errs() << c.tool << ": error: " << msg << "\n";
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
    std::string code;
    raw_string_ostream os(code);
    b->printCode(os);
    outs() << code;
    if (code.empty() && s.isFromCompiled())
      errs() << c.tool << ": note: --emit=" << format << ": the " << b->name() << " kernels of "
             << c.common.inputFile << " were compiled before it was written: it holds their "
             << "machine code, not their " << info->codeName << " (run the model itself)\n";
    std::vector<std::string> modules = b->codeModules();
    if (c.outputDir.empty() || modules.empty())
      continue;
    if (std::error_code ec = sys::fs::create_directories(c.outputDir))
      return userError(c, "--output-dir: cannot create '" + c.outputDir + "': " + ec.message());
    for (const std::string &text : modules) {
      SmallString<128> path(c.outputDir);
      sys::path::append(path, "module_" + std::to_string(n++) + "." + format);
      std::error_code ec;
      ToolOutputFile f(path, ec, sys::fs::OF_None);
      if (ec)
        return userError(c, "--output-dir: cannot write '" + path + "': " + ec.message());
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
      return userError(c, "--trace: cannot write '" + c.trace + "': " + ec.message());
    exe.writeTrace(f.os(), profile);
    f.keep();
  }
  if (!c.costTableOut.empty()) {
    std::error_code ec;
    ToolOutputFile f(c.costTableOut, ec, sys::fs::OF_None);
    if (ec)
      return userError(c,
                       "--cost-table-out: cannot write '" + c.costTableOut + "': " + ec.message());
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
      return userError(c, "--check: the interpreter: " + toString(cmp.takeError()));
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
/// `cached`: the compile cache's entry for the model (`file` is then null);
/// else, with `cacheEntry`, the entry the compile fills.
int runLoaded(const RunConfig &c, std::unique_ptr<MemoryBuffer> file,
              const StringMap<HostTensor> *weights, CrashReproducer &repro,
              std::unique_ptr<LoadedCompiledModel> cached, StringRef cacheEntry,
              CompileProgress *progress) {
  auto stage = [&](const std::string &text) {
    if (progress)
      progress->stage(text);
  };
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
  s.diags().setProgramName(c.tool);
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
  // The diagnostics of a compile that fills the cache are kept with it, and
  // a hit prints them again.
  std::string log;
  bool fillCache = !cached && !cacheEntry.empty();
  if (fillCache)
    s.diags().setHandler([&](const Diagnostic &d) {
      std::string text;
      raw_string_ostream os(text);
      s.diags().print(os, d);
      errs() << text;
      log += text;
    });
  bool fromCompiled = !cached && isCompiledModel(file->getBuffer());
  if (fromCompiled) {
    // What shaped the compile is fixed in the file.
    const char *shaping = c.noPlan   ? "--no-plan"
                          : c.noFold ? "--no-fold"
                          : c.noFuse ? "--no-fuse"
                          : !c.paramsDir.empty() && !c.paramsAsInputs
                              ? "--params (without --params-as-inputs)"
                          : !c.costTableOut.empty()       ? "--cost-table-out"
                          : !c.common.passOptions.empty() ? "a plan-devices option"
                                                          : nullptr;
    if (shaping)
      return userError(c, Twine(shaping) + " does not apply to a compiled model (" +
                              c.common.inputFile + "): give it to hx-compile");
  }
  if (cached)
    errs() << cached->log;
  stage(cached || fromCompiled ? "loading the compiled model"
        : c.noPlan             ? "type-checking"
                               : "planning");
  Session::Status loaded = cached         ? s.loadCompiled(std::move(cached), cacheEntry, lo)
                           : fromCompiled ? s.loadCompiled(std::move(file), c.common.inputFile, lo)
                                          : s.load(std::move(file), lo);
  if (std::optional<int> rc = loadFailure(loaded))
    return *rc;
  if (c.emit == Emit::IR) {
    printModule(outs(), s.module());
    return kExitSuccess;
  }
  Function *main = s.main();
  if (!main)
    return userError(c, c.common.inputFile + ": the module has no @main to run");

  std::vector<HostTensor> inputs, results;
  // Read before compiling: a bad input fails fast, and no file is read twice.
  // `?` dims take their sizes from the inputs (for --emit too): the module
  // is typed, planned and fused again for them.
  bool dynamic = s.hasDynamicShapes();
  bool compileOnly = !c.compileOutput.empty();
  if ((c.emit == Emit::None && !compileOnly) || dynamic) {
    Expected<std::vector<HostTensor>> in =
        gatherInputs(*main, {c.inputs, c.paramsDir, c.randomInputs, c.seed, c.deviceMemoryLimit});
    if (!in)
      return userError(c, toString(in.takeError()));
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
      return userError(c, "--check-against: " + toString(ref.takeError()));
    reference = std::move(*ref);
  }
  if (!c.saveInputs.empty())
    if (Error e = writeInputs(c.saveInputs, paramNames(*main), inputs))
      return userError(c, "--save-inputs: " + toString(std::move(e)));
  if (c.interpret) {
    Expected<std::vector<HostTensor>> r = s.interpret(inputs);
    if (!r)
      return userError(c, toString(r.takeError()));
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
    co.keepKernels = fillCache && !dynamic;
    co.progress = stage;
    if (compileOnly) {
      // The code of each virtual device's own target, or of the backend
      // of the device named for it: no device needs to be at hand.
      co.keepKernels = co.compileOnly = true;
      co.devices.substituteNamed = true;
      Expected<std::vector<std::string>> backends = compileBackends(s.module(), co.devices);
      if (!backends)
        return userError(c, toString(backends.takeError()));
      co.backends = std::move(*backends);
    }
    Error e = [&] {
      TimeScope t(report, "(compile)");
      return s.compile(co, [&](const Twine &msg) {
        if (!compileOnly) // hx-compile needs no device: where they run is hx-run's business
          errs() << c.tool << ": " << msg << "\n";
      });
    }();
    if (e) {
      if (e.isA<DiagnosedError>()) {
        consumeError(std::move(e));
        return kExitUserError;
      }
      return userError(c, toString(std::move(e)));
    }
    if (progress && !compileOnly)
      progress->done();
    if (!c.costTableOut.empty())
      for (Device *d : s.devices())
        if (d->emulated())
          return userError(c, "--cost-table-out: " + d->name() +
                                  " is an emulated GPU, whose times say nothing of a GPU's");
    if (compileOnly) {
      stage("writing " + c.compileOutput);
      if (Error e = s.saveCompiled(c.compileOutput))
        return userError(c, toString(std::move(e)));
      if (progress)
        progress->done();
      uint64_t bytes = 0;
      sys::fs::file_size(c.compileOutput, bytes);
      if (!c.quiet)
        errs() << format("hx-compile: wrote %s (%.1f %s)\n", c.compileOutput.c_str(),
                         bytes < 1000000 ? bytes / 1e3 : bytes / 1e6,
                         bytes < 1000000 ? (const char *)"kB" : (const char *)"MB");
      return kExitSuccess;
    }
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
        return userError(c, toString(out.takeError()));
      results = std::move(*out);
    }
    if (c.timeRuns) {
      std::sort(wall.begin(), wall.end());
      errs() << format("hx-run: wall time per run: best %.3f ms, median %.3f ms (%zu runs)\n",
                       1e3 * wall.front(), 1e3 * wall[wall.size() / 2], wall.size());
    }
    if (int status = writeMeasurements(c, s, profile))
      return status;
    // After the runs: a module with value-dependent shapes compiled its
    // later stages' kernels in them, and the entry keeps those too.
    if (co.keepKernels)
      if (Error e = writeCompileCacheEntry(s, cacheEntry, log))
        errs() << c.tool << ": warning: the compile cache: " << toString(std::move(e)) << "\n";
  }

  if (c.check || !c.checkAgainst.empty())
    if (int status = checkResults(c, s, inputs, results, reference))
      return status;
  for (unsigned i = 0; i < results.size(); ++i)
    summarizeOutput(outs(), i, results[i]);
  if (!c.outputDir.empty())
    if (Error e = writeOutputs(c.outputDir, results))
      return userError(c, toString(std::move(e)));
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

/// The compile cache's entry for the run `c` asks for, or "" where the
/// cache does not apply: off, no directory, a compiled model, stdin, or a
/// run that prints or measures what a compile does (--emit, reports,
/// cost tables) or whose module depends on files the key does not cover
/// (--params bound as constants, --cost-table).
std::string cacheEntryFor(const RunConfig &c, StringRef bytes) {
  if (c.noCache || !c.compileOutput.empty() || c.emit != Emit::None || c.interpret ||
      !c.costTableOut.empty() || !c.testCrash.empty() || c.common.printIRAfterAll ||
      c.common.inputFile == "-" || (!c.paramsDir.empty() && !c.paramsAsInputs))
    return "";
  for (const auto &[name, value] : c.common.passOptions)
    if (name == "placement-report" || name == "cost-table" || name == "verify-optimal-placement")
      return "";
  std::string dir = compileCacheDir();
  if (dir.empty())
    return "";
  ReadFileOptions ro;
  ro.nullTerminated = false;
  std::string options;
  raw_string_ostream os(options);
  os << "hx-run\nplan=" << !c.noPlan << " fold=" << !c.noFold << " fuse=" << !c.noFuse << "\n";
  for (const auto &[name, value] : c.common.passOptions)
    os << name << "=" << value << "\n";
  os << "virtual-devices=" << c.common.parser.virtualDevices.value_or("") << "\ndevices=";
  for (const std::string &d : c.devices)
    os << d << ",";
  os << "\nemulate=";
  for (DeviceType t : c.emulate)
    os << deviceTypeName(t) << ",";
  // The importer may read an input's value (Reshape's shape): the inputs
  // are part of an ONNX model's key.
  if (isOnnxFile(c.common.inputFile, bytes))
    for (const std::string &spec : c.inputs) {
      auto [name, path] = StringRef(spec).split('=');
      Expected<std::unique_ptr<MemoryBuffer>> in = readUserFile(path, ro);
      if (!in) {
        consumeError(in.takeError());
        return "";
      }
      os << "\ninput " << name << "=" << (*in)->getBuffer().size() << ":"
         << xxh3_64bits(ArrayRef<uint8_t>((*in)->getBuffer().bytes_begin(),
                                          (*in)->getBuffer().bytes_end()));
    }
  return compileCacheEntry(dir, c.common.inputFile, bytes, options).value_or("");
}

int run(const RunConfig &c) {
  if (!c.common.pipeline.empty())
    return userError(c, "hx-run runs infer-type and plan-devices itself: give pass options as "
                        "flags (--default-device=...), not passes");
  // Where the outputs go is checked before anything is read or run.
  if (!c.outputDir.empty())
    if (Error e = checkOutputDir(c.outputDir))
      return userError(c, toString(std::move(e)));
  // The model is read once, here.
  ReadFileOptions ro;
  ro.allowStdin = true;
  Expected<std::unique_ptr<MemoryBuffer>> raw = readUserFile(c.common.inputFile, ro);
  if (!raw)
    return userError(c, "cannot open '" + c.common.inputFile + "': " + toString(raw.takeError()));
  // A model compiled before with the same options comes from the cache.
  std::string cacheEntry = cacheEntryFor(c, (*raw)->getBuffer());
  std::unique_ptr<LoadedCompiledModel> cached;
  if (!cacheEntry.empty()) {
    Expected<std::optional<LoadedCompiledModel>> hit = readCompileCacheEntry(cacheEntry);
    if (!hit)
      errs() << c.tool << ": warning: the compile cache: " << toString(hit.takeError())
             << ": compiling again\n";
    else if (*hit)
      cached = std::make_unique<LoadedCompiledModel>(std::move(**hit));
  }
  // An ONNX model is imported first: its text is what runs (and what a
  // crash reproducer holds).
  // A compile that takes long says what it is doing (not --quiet).
  std::optional<CompileProgress> progress;
  if (!c.quiet && !c.interpret && c.emit == Emit::None)
    progress.emplace(errs(), c.tool, c.progressAfter);
  StringMap<HostTensor> weights;
  std::unique_ptr<MemoryBuffer> buffer;
  if (!cached) {
    if (progress && isOnnxFile(c.common.inputFile, (*raw)->getBuffer()))
      progress->stage("importing " + c.common.inputFile);
    OnnxImportOptions importOpts;
    importOpts.inputValue = [&c](StringRef name) { return givenInputValue(c, name); };
    Expected<std::unique_ptr<MemoryBuffer>> file =
        readModuleFile(std::move(*raw), c.common.inputFile, weights, importOpts);
    if (!file)
      return userError(c, toString(file.takeError()));
    buffer = std::move(*file);
  }
  // A compiled model is binary and may be large: its reproducer names it
  // instead of holding it.
  std::string compiledNote;
  if (cached)
    compiledNote = "// the input is " + c.common.inputFile + ", compiled in " + cacheEntry + "\n";
  else if (isCompiledModel(buffer->getBuffer()))
    compiledNote = "// the input is the compiled model " + c.common.inputFile + "\n";
  CrashReproducer repro(c.tool, reproducerArgs(c),
                        compiledNote.empty() ? buffer->getBuffer() : StringRef(compiledNote),
                        c.crashReproducer);
  int status = kExitInternalError;
  std::optional<std::string> exception;
  if (!repro.runSafely([&] {
        try {
          status = runLoaded(c, std::move(buffer), weights.empty() ? nullptr : &weights, repro,
                             std::move(cached), cacheEntry, progress ? &*progress : nullptr);
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

} // namespace hx::runtool
