//===- Session.h - The public compile-and-run API ---------------*- C++ -*-===//
//
// What hx-run does, as a library: one Session holds one module from text
// to results.
//
//   Session s;
//   if (s.loadText(text, "model.ir", LoadOptions()) != Session::Status::Ok)
//     ...                                   // located diagnostics printed
//   if (Error e = s.compile(CompileOptions()))  // devices, backends, kernels
//     ...
//   auto inputs = randomInputs(*s.main(), /*seed=*/0, RandomInputMode::Scaled);
//   auto outputs = s.run(*inputs);          // repeatable
//   auto cmp = s.check(*inputs, *outputs);  // against the interpreter
//
//  - load: parse (the text format, or an `hx::Module` built elsewhere),
//    verify, infer-type and plan-devices with the passes' options;
//  - compile: map each virtual device to a physical one (hx/Run/Devices.h),
//    pick its backend (hx/Targets/Registry.h), compile and build the
//    executable (hx/Runtime/Executable.h);
//  - the device policy, hx-run's and the Python API's alike (the one place
//    it is written: mapDevices): without a device list each virtual device
//    gets a device of its type from its default target; one the machine
//    lacks (a cuda device without a GPU: the target's countDevices says
//    why) runs on a cpu instance with memory of its own, and `note` hears
//    "note: virtual device 1 (cuda) runs on cpu:1: <why>"; with
//    DeviceMapOptions::emulate, a type with an emulating target runs there
//    instead. A device list names the devices; with substituteNamed (the
//    Python API) the names get the same policy;
//  - run, profile, interpret, check (hx/Run/Compare.h's rule).
//
// hx-run, hx-smith --check (through the differential tester) and the
// benches are its users, and it is what a Python binding would wrap. Diagnostics go to the
// session's DiagEngine: printed to stderr unless a handler is set.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUN_SESSION_H
#define HX_RUN_SESSION_H

#include "hx/IR/Module.h"
#include "hx/Parser/Parser.h"
#include "hx/Pass/Pass.h"
#include "hx/Run/Compare.h"
#include "hx/Run/Devices.h"
#include "hx/Run/Stages.h"
#include "hx/Runtime/Executable.h"
#include "hx/Support/Diagnostics.h"
#include "hx/Targets/Registry.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hx {

struct LoadedCompiledModel;

struct LoadOptions {
  ParserOptions parser;
  /// Run plan-devices after infer-type (hx-run --no-plan: the module runs
  /// as written).
  bool plan = true;
  /// Simplify for inference before planning: simplify-inference,
  /// fold-scale-axis, fold-constant (hx-run does, unless --no-fold).
  bool simplify = false;
  /// Group operator calls into one kernel each after planning: fuse-ops
  /// (hx-run does, unless --no-fuse).
  bool fuse = false;
  /// Defaults for the passes' options: {"default-device", "cuda"}, ...
  PassOptionDefaults passOptions;
  /// Passes run after planning, as pipeline text (testing hx).
  std::string extraPasses;
  bool verifyEach = true;
  bool printIRAfterAll = false;
  /// Where the passes' times go (null: not timed).
  TimingReport *timing = nullptr;
  /// Before the passes, bind @main's parameters with a file in this
  /// directory as constants (bindParamsAsConstants, hx/Run/Inputs.h),
  /// except those named in constantParamsKeep. Empty: none.
  std::string constantParamsDir;
  std::vector<std::string> constantParamsKeep;
  /// For an ONNX model: the values of graph inputs the importer needs when
  /// it builds the module (Reshape's shape, an axes list), by input name
  /// (OnnxImportOptions::inputValue).
  std::map<std::string, std::shared_ptr<const HostTensor>> importValues;
};

struct CompileOptions {
  /// Which physical device runs each virtual device.
  DeviceMapOptions devices;
  /// Before each kernel, check that its arguments live on its device.
  bool checkDevices = false;
  /// Keep the generated code for printing (hx-run --emit=llvm).
  bool keepCode = false;
  /// Compile each virtual device's kernels for its own target's backend
  /// (cuda code for a cuda virtual device) with no device allocated or
  /// loaded, whatever runs it: such an executable prints, it does not run
  /// (hx-run --emit=ptx without a GPU).
  bool compileOnly = false;
  /// With compileOnly: the registered backend that compiles each virtual
  /// device's code, in table order (hx-compile --device=cuda-emu:0); an
  /// empty or missing entry: its own target's default backend.
  std::vector<std::string> backends;
  /// Keep every backend's kernels for saveCompiled (hx-compile).
  bool keepKernels = false;
  /// Hears each backend's compile as it starts (ExecutableOptions); a
  /// module with value-dependent shapes calls it from its runs too, so it
  /// must outlive them.
  std::function<void(const std::string &)> progress;
};

/// The error compile returns when the diagnostics engine has already said
/// why (located errors in the module).
class DiagnosedError : public llvm::ErrorInfo<DiagnosedError> {
public:
  static char ID;
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
};

class Session {
public:
  Session();
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  enum class Status {
    Ok,
    /// The input is wrong: located diagnostics say where.
    UserError,
    /// A pass left a module that does not verify: a bug in hx.
    InternalError,
  };
  /// Parses, verifies, types and plans the module in `buffer`.
  Status load(std::unique_ptr<llvm::MemoryBuffer> buffer, const LoadOptions &opts);
  Status loadText(llvm::StringRef text, llvm::StringRef name, const LoadOptions &opts);
  /// Loads a file: hx text, a compiled model (loadCompiled), or an ONNX
  /// model (a `.onnx` name or protobuf bytes), imported first (hx/Import/Onnx.h) with its weights held in
  /// memory. "-" reads stdin. A file that cannot be read is a diagnostic
  /// naming it.
  Status loadFile(llvm::StringRef path, const LoadOptions &opts);
  /// Loads a compiled model file (hx-compile's, hx/Run/CompiledFile.h):
  /// its module, typed but not planned, simplified or fused again (it was
  /// when it was compiled: the LoadOptions' passes do not apply), and its
  /// kernels, which compile then takes instead of compiling them, for
  /// every virtual device mapped to the backend they were compiled by (a
  /// device mapped elsewhere compiles its own). An unreadable, truncated,
  /// corrupted or foreign file is a diagnostic naming it.
  Status loadCompiled(std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::StringRef name,
                      const LoadOptions &opts);
  /// The same for a file already read (the compile cache's).
  Status loadCompiled(std::unique_ptr<LoadedCompiledModel> file, llvm::StringRef name,
                      const LoadOptions &opts);
  /// Writes the compiled module, with its constants and every backend's
  /// kernels, to `path` (atomically): needs a compile with
  /// CompileOptions::keepKernels. A module with `?` dims is written as
  /// bound.
  llvm::Error saveCompiled(llvm::StringRef path, llvm::StringRef log = "");
  /// Whether the module came from a compiled model file.
  bool isFromCompiled() const { return compiled != nullptr; }

  /// Types and plans a module built elsewhere (its locations, if any, must
  /// point into sourceMgr()).
  Status loadModule(std::unique_ptr<Module> module, const LoadOptions &opts);

  /// The loaded (typed, planned) module, and its @main (null if none).
  Module &module() { return *mod; }
  Function *main();
  /// The names of @main's results, flattened as run returns them: the
  /// module's "OutputNames" metadata (an ONNX model's graph outputs) where
  /// it names each one, else output_0, output_1, ... (hx-run's files).
  std::vector<std::string> outputNames();

  /// Whether a parameter of @main has a shape with `?` dims (TVM's Any):
  /// bindShapes must then give them sizes before compile.
  bool hasDynamicShapes();
  /// Gives @main's `?` dims the sizes of `inputs` (one tensor per
  /// parameter of @main, each checked against its parameter's type:
  /// checkInput in hx/Run/Inputs.h, an error naming the parameter and the
  /// dim) and loads the module again for them: parsed anew from its source,
  /// the parameters typed with those shapes, the same passes (so a shape
  /// the operators reject is a located type error), and what compile made
  /// set aside. Each shape signature is planned and compiled once: the
  /// last kShapeCacheSize signatures keep their module and executable, so
  /// binding one of them again (or the one bound now) plans and compiles
  /// nothing — isCompiled() then says no compile is needed.
  Status bindShapes(llvm::ArrayRef<HostTensor> inputs);
  static constexpr size_t kShapeCacheSize = 8;
  /// Whether an executable is ready for the module as bound now.
  bool isCompiled() const { return exe != nullptr || staged != nullptr; }

  /// Maps devices, picks and runs the backends, builds the executable
  /// (dropping what an earlier compile made, except after bindShapes to
  /// new shapes with the same device options: the devices and compiled
  /// kernels are then kept for the other shapes' executables).
  /// `note` hears notes and warnings (a virtual device running on a cpu
  /// instance for want of its hardware: the policy above).
  llvm::Error compile(const CompileOptions &opts,
                      llvm::function_ref<void(const llvm::Twine &)> note = nullptr);
  /// Compiles for the given physical devices (one per virtual device),
  /// with backends from `cache`, which the caller keeps: a runner of many
  /// modules (the differential tester) shares one cache and so compiles
  /// each distinct kernel once. The devices and the cache must outlive the
  /// session's executable.
  llvm::Error compileFor(llvm::ArrayRef<Device *> devices, BackendCache &cache,
                         const CompileOptions &opts);
  /// The executable; of a module with value-dependent shapes, its first
  /// stage's (hx/Run/Stages.h).
  Executable &executable() { return staged ? staged->first() : *exe; }
  /// The stages of a module with value-dependent shapes, else null.
  StagedRun *stages() { return staged.get(); }
  /// The physical device of each virtual device (after compile).
  llvm::ArrayRef<Device *> devices() const { return physical; }
  /// The backends compile made, in the order made (compileFor: every
  /// backend of the caller's cache).
  llvm::ArrayRef<Backend *> backends() const { return cache ? cache->made() : std::nullopt; }

  /// Runs the executable on one tensor per parameter of @main; the results
  /// flattened depth first. Call it as often as you like. A module with
  /// value-dependent shapes runs in stages (hx/Run/Stages.h): a stage not
  /// built yet is built here, and `profile` records the first stage.
  llvm::Expected<std::vector<HostTensor>> run(llvm::ArrayRef<HostTensor> inputs,
                                              RunProfile *profile = nullptr,
                                              InterruptCheck interrupted = nullptr);
  /// The reference interpreter on the same module.
  llvm::Expected<std::vector<HostTensor>> interpret(llvm::ArrayRef<HostTensor> inputs);
  /// The interpreter's results for `inputs`, compared with `results`.
  llvm::Expected<Comparison> check(llvm::ArrayRef<HostTensor> inputs,
                                   llvm::ArrayRef<HostTensor> results,
                                   const CompareOptions &opts = {});

  DiagEngine &diags() { return diag; }
  llvm::SourceMgr &sourceMgr() { return sm; }

private:
  Status plan(const LoadOptions &opts);
  /// Runs `pipeline` on `m` with the load options' pass defaults.
  Status runPipeline(Module &m, const std::string &pipeline, const LoadOptions &opts);
  /// After a compile of a compiled model: notes each backend that had to
  /// compile kernels the file does not hold (a device mapped elsewhere).
  void noteCompiledHere(llvm::function_ref<void(const llvm::Twine &)> note);
  /// Drops the executable, the devices and backends compile made.
  void resetCompiled();
  /// Whether the compiled model file's schedule can be restored for these
  /// backends: the module is the file's, and each virtual device's backend
  /// is the one whose kernel ids the schedule names, holding the file's
  /// kernels.
  bool canRestoreSchedule(llvm::ArrayRef<Backend *> backends) const;

  llvm::SourceMgr sm;
  DiagEngine diag{sm};
  std::unique_ptr<Module> mod;
  /// What bindShapes loads again: the source buffer (0: none) and options.
  unsigned sourceBuffer = 0;
  LoadOptions loadOptions;
  /// An imported ONNX model's weights, while the module may be parsed again.
  llvm::StringMap<HostTensor> importedWeights;
  /// The shape signature the module is bound to ("" while unbound).
  std::string boundShapes;
  /// What compile mapped its devices for ("" after compileFor).
  std::string compiledFor;
  // Devices outlive the executable, which frees its memory on them, and
  // backends hold the compiled code: both outlive it too.
  std::vector<std::unique_ptr<Device>> ownedDevices;
  std::vector<Device *> physical;
  std::unique_ptr<BackendCache> ownedCache;
  BackendCache *cache = nullptr;
  /// Per virtual device, the backend compileFor chose.
  std::vector<Backend *> backendsUsed;
  std::unique_ptr<Executable> exe;
  /// Instead of exe, for a module with value-dependent shapes.
  std::unique_ptr<StagedRun> staged;
  /// Other signatures' modules and executables, oldest first (declared
  /// last: destroyed before the devices and backends they use).
  struct ShapeEntry {
    std::string signature;
    std::unique_ptr<Module> mod;
    std::unique_ptr<Executable> exe;
    std::unique_ptr<StagedRun> staged;
  };
  std::vector<ShapeEntry> shapeCache;
  /// The compiled model file the module came from (its kernels are
  /// preloaded into every compile's backends).
  std::unique_ptr<LoadedCompiledModel> compiled;
};

} // namespace hx

#endif
