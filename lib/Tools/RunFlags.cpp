//===- RunFlags.cpp - hx-run's and hx-compile's command lines -------------===//
//
// Registers the flags (CommonFlags' shared ones, hx-run's own, and for
// hx-compile -o), parses argv, checks what can be checked before anything
// is read (hx-compile refuses the flags that run a model), and hands a
// RunConfig to run() (RunMain.cpp).
//
//===----------------------------------------------------------------------===//
#include "RunConfig.h"
#include "hx/IR/TargetKind.h"
#include "hx/Interpreter/FoldConstant.h"
#include "hx/Run/Devices.h"
#include "hx/Tools/CrashReproducer.h"
#include "hx/Tools/EmulateFlags.h"
#include "hx/Tools/OptMain.h"
#include "hx/Tools/RunMain.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <initializer_list>
#include <optional>

using namespace hx;
using namespace hx::runtool;
using namespace llvm;

/// hx-run's command line, or hx-compile's (`compile`: -o, and no flag
/// that runs the model).
static int toolMain(int argc, char **argv, bool compile) {
  const char *tool = compile ? "hx-compile" : "hx-run";
  PassRegistry registry;
  registerAllPasses(registry);
  registerInterpreterPasses(registry);
  registerTestPasses(registry);
  cl::OptionCategory cat(compile ? "hx-compile options" : "hx-run options");
  std::optional<cl::opt<std::string>> output;
  if (compile)
    output.emplace("o",
                   cl::desc("Write the compiled model (planned module, constants and every "
                            "device's kernels) to FILE.hxc, which hx-run runs"),
                   cl::value_desc("FILE.hxc"), cl::Required, cl::cat(cat));
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
  cl::opt<bool> quiet("quiet",
                      cl::desc("Print nothing about a compile that takes long (by default its "
                               "stages are printed once it has taken 2 s)"),
                      cl::cat(cat));
  cl::opt<double> progressAfter("progress-after",
                                cl::desc("Testing hx: print a compile's stages once it has "
                                         "taken this long"),
                                cl::value_desc("SECONDS"), cl::init(2.0), cl::ReallyHidden,
                                cl::cat(cat));
  cl::opt<bool> noCache(
      "no-cache",
      cl::desc("Neither load the model from the compile cache nor add it there ($HX_CACHE_DIR, "
               "else $XDG_CACHE_HOME/hx, else ~/.cache/hx)"),
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
  const char *overview = compile ? "hx-compile: compile a module for CPU and GPU into one file\n"
                                 : "hx: run a module on CPU and GPU\n";
  cl::ParseCommandLineOptions(argc, argv, overview);
  if (!reproducer.replay(tool, argc, argv, overview))
    return kExitUserError;
  if (list) {
    listDevices(outs());
    return kExitSuccess;
  }

  RunConfig c;
  c.tool = tool;
  if (compile) {
    c.compileOutput = output->getValue();
    // What runs the model belongs to hx-run, which runs the file.
    for (const cl::Option *o : std::initializer_list<const cl::Option *>{
             &check, &checkAgainst, &outputDir, &saveInputs, &repeat, &profile, &timeRuns, &trace,
             &interpretOnly, &emit, &costTableOut})
      if (o->getNumOccurrences())
        return userError(c, "--" + o->ArgStr + " runs the model: give it to hx-run " +
                                (c.compileOutput.empty() ? "FILE.hxc" : c.compileOutput));
  }
  if (!common.read(tool, c.common))
    return kExitUserError;
  c.inputs.assign(inputs.begin(), inputs.end());
  if (randomInputs.getNumOccurrences()) {
    c.randomInputs =
        randomInputs.empty() ? RandomInputMode::Uniform : parseRandomInputMode(randomInputs);
    if (!c.randomInputs)
      return userError(c, "--random-inputs=" + randomInputs + ": expected uniform or scaled");
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
      return userError(c, "--tolerance: " + toString(t.takeError()));
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
  c.noCache = noCache;
  c.quiet = quiet;
  c.progressAfter = progressAfter;
  c.threads = threads;
  c.emit = emit;
  c.testCrash = testCrash;
  c.emulate = emulate.given();
  if (!reproducer.crashPath(tool, c.crashReproducer))
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
      return userError(c, "--device-memory-limit=" + memoryLimit +
                              ": expected a positive number of bytes, optionally with K, M or G");
    c.deviceMemoryLimit = n * scale;
  }
  return run(c);
}

int hx::runMain(int argc, char **argv) { return toolMain(argc, argv, /*compile=*/false); }

int hx::compileMain(int argc, char **argv) { return toolMain(argc, argv, /*compile=*/true); }
