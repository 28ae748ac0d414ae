//===- PySession.h - hx::Session as the Python module sees it ---*- C++ -*-===//
//
// Private to lib/Python. One PySession is one hx::Session with its
// diagnostics captured: a failed call throws HxError (hx.Error) whose
// message is the rendered diagnostics, `file:line:col: error: ...` with
// the source line and caret; warnings are kept for takeWarnings. Calls
// that compile or run release the GIL and hold the session's mutex.
//
// Dynamic shapes: a module whose @main has `?` dims is compiled at its
// first run, for the inputs' shapes (Session::bindShapes), and again only
// when a run brings shapes the session has no executable for.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_PYTHON_PYSESSION_H
#define HX_LIB_PYTHON_PYSESSION_H

#include "Arrays.h"
#include "hx/Run/Progress.h"
#include "hx/Run/Session.h"
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace hx::python {

/// What load runs (LoadOptions): plan, fold (simplify), fuse, the passes'
/// option defaults and a virtual-device table that wins over the module's.
struct LoadConfig {
  bool plan = false;
  bool simplify = false;
  bool fuse = false;
  std::vector<std::pair<std::string, std::string>> passOptions;
  std::optional<std::string> virtualDevices;
  /// hx.load(path, values=...): ONNX graph inputs the import needs.
  std::vector<std::pair<std::string, HostTensor>> importValues;
};

/// Which physical devices run the virtual devices (hx-run --device,
/// --threads, --emulate-cuda, --check-devices).
struct DeviceConfig {
  std::vector<std::string> devices;
  unsigned threads = 0;
  /// Every device type that a registered target emulates runs on it.
  bool emulate = false;
  bool checkDevices = false;
  /// Keep every backend's kernels for save (Compiled.save).
  bool keepKernels = true;
};

/// Thrown when Ctrl-C stopped a run: the Python exception (KeyboardInterrupt)
/// is already set; the module's exception translator leaves it so.
struct Interrupted {};

class PySession {
public:
  PySession();

  void loadText(const std::string &text, const std::string &name, const LoadConfig &c);
  void loadFile(const std::string &path, const LoadConfig &c);

  /// @main's parameters as the source declares them: (name, type text,
  /// dtype or None, shape with None for `?` or None).
  pybind11::list params() const;
  /// The device table's entries as (device type, target) pairs.
  pybind11::list deviceTable();
  bool dynamic() const { return isDynamic; }

  /// Compiles (deferred to the first run for dynamic shapes); returns the
  /// notes, such as a cuda device that runs on a cpu instance.
  std::vector<std::string> compile(const DeviceConfig &c);
  /// The names of the results (Session::outputNames).
  std::vector<std::string> outputNames();
  /// From now until the next compile ends: a compile that takes long
  /// prints its stages on stderr (hx.compile without quiet=True;
  /// hx/Run/Progress.h), starting with `stage`.
  void beginProgress(const std::string &stage, double delaySeconds);
  /// Writes the compiled module to `path` (Compiled.save).
  void save(const std::string &path);
  /// Loads the compile cache's `entry` (CompileCache.h) if it is there:
  /// its log, else None (a missing entry, or one that cannot be read:
  /// that is a warning).
  std::optional<std::string> loadCached(const std::string &entry);
  /// Adds the compiled module to the cache as `entry`, with `log`; a
  /// failure is a warning.
  void saveCached(const std::string &entry, const std::string &log);
  /// Whether the module came from a compiled model file.
  bool fromCompiled() const { return s.isFromCompiled(); }
  /// What the last compile said.
  std::vector<std::string> lastNotes();
  /// How often an executable was built.
  unsigned compileCount() const { return compiles; }
  /// The physical device of each virtual device (empty before compiling).
  std::vector<std::string> deviceNames();

  /// One array per parameter of @main, in order.
  pybind11::list run(pybind11::sequence inputs);
  /// (outputs, profile data).
  pybind11::tuple profile(pybind11::sequence inputs);
  /// (outputs, comparison with the interpreter, or with `reference` given:
  /// one array per output) by hx/Run/Compare.h's rule, with `tolerance`
  /// (rtol, atol) instead of the default.
  pybind11::tuple check(pybind11::sequence inputs, std::optional<pybind11::sequence> reference,
                        std::optional<std::pair<double, double>> tolerance);
  pybind11::list interpret(pybind11::sequence inputs);

  /// Where each operator call runs and what each copy moves
  /// (collectPlacement): {"calls": [...], "copies": [...]}.
  pybind11::dict placement();
  /// The loaded module as hx text (planned and fused once compiled).
  std::string text();
  /// Warnings reported since the last call, rendered.
  std::vector<std::string> takeWarnings();

private:
  /// Throws HxError: the errors reported (else `fallback`).
  [[noreturn]] void fail(const std::string &fallback);
  /// Throws HxError unless `st` is Ok.
  void failOn(Session::Status st);
  /// Reads what a successful load left.
  void checkLoaded();
  /// Converts and checks the inputs against the parameters as declared.
  std::vector<HostTensor> gather(pybind11::sequence inputs);
  /// Binds the shapes of `inputs` and compiles for them if they are new.
  void prepare(llvm::ArrayRef<HostTensor> inputs);
  void compileNow();
  std::vector<HostTensor> runNow(llvm::ArrayRef<HostTensor> inputs, RunProfile *profile);

  std::mutex mutex;
  /// beginProgress's, until the compile ends (declared before the session,
  /// whose later stages may report to it: destroyed after it).
  std::unique_ptr<CompileProgress> progress;
  Session s;
  std::vector<std::string> errors, warnings;
  bool loaded = false;
  bool isDynamic = false;
  /// @main's parameters as loaded (before any shape was bound).
  std::vector<Ref<Var>> sourceParams;
  std::optional<DeviceConfig> deviceConfig;
  /// The input types the executable was built for ("" for static modules).
  std::optional<std::string> compiledFor;
  /// Set by compile: the session's executables (one per shape signature of
  /// a dynamic module) were made for other devices and must not be reused.
  bool devicesChanged = false;
  unsigned compiles = 0;
  std::vector<std::string> notes;
  /// Python's main thread (threading.main_thread().ident): the one thread
  /// whose runs check for Ctrl-C.
  unsigned long mainThread = 0;
};

} // namespace hx::python

#endif
