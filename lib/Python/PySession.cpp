//===- PySession.cpp - hx::Session as the Python module sees it -----------===//
//
// See PySession.h. What hx-run does around a Session, for Python:
//  - load: Session::loadText / loadFile with the caller's LoadOptions; a
//    pass option no registered pass declares is an error (the pipeline
//    would ignore it);
//  - compile: the device list is hx-run's --device list, with one
//    difference, the library's (DeviceMapOptions::substituteNamed): a named
//    device the machine lacks (a cuda one without a GPU) runs on a cpu
//    instance of its own, with a note, as a virtual device does without
//    --device; virtual devices the planner appended (the cpu for operators
//    another device lacks) take a device of their type;
//  - run: inputs converted (Arrays.h) and checked against @main's
//    parameters as declared (checkInput: the error names the parameter);
//    `?` dims bound to the inputs' shapes first.
//
//===----------------------------------------------------------------------===//
#include "PySession.h"
#include "hx/IR/Printer.h"
#include "hx/Interpreter/FoldConstant.h"
#include "hx/Run/Compare.h"
#include "hx/Run/CompileCache.h"
#include "hx/Run/Inputs.h"
#include "hx/Targets/Registry.h"
#include "hx/Transforms/DeviceReport.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <map>
#include <utility>

namespace py = pybind11;
using namespace llvm;

namespace hx::python {

/// hx-run's flag names in messages become the Python keywords.
static std::string pythonWording(std::string msg) {
  for (auto [flag, keyword] :
       {std::pair{"--device=", "device "}, {"--device", "devices"}, {"--threads=", "threads="}})
    for (size_t at = msg.find(flag); at != std::string::npos; at = msg.find(flag, at))
      msg.replace(at, strlen(flag), keyword);
  return msg;
}

PySession::PySession() {
  mainThread =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  s.diags().setProgramName("hx");
  s.diags().setHandler([this](const Diagnostic &d) {
    std::string text;
    raw_string_ostream os(text);
    s.diags().print(os, d);
    while (!text.empty() && text.back() == '\n')
      text.pop_back();
    (d.severity == Severity::Error ? errors : warnings).push_back(text);
  });
}

void PySession::fail(const std::string &fallback) {
  std::string msg = join(errors, "\n");
  errors.clear();
  if (!fallback.empty())
    msg += (msg.empty() ? "" : "\n") + fallback;
  throw HxError(msg.empty() ? "hx: error (no diagnostic)" : msg);
}

/// Whether a registered pass declares option `name`.
static bool isPassOption(StringRef name) {
  static const std::vector<std::string> names = [] {
    PassRegistry registry;
    registerAllPasses(registry);
    registerInterpreterPasses(registry);
    std::vector<std::string> out;
    for (const PassInfo &info : registry.entries()) {
      std::unique_ptr<Pass> probe = info.create();
      for (const PassOption &o : probe->getOptions())
        out.push_back(o.name);
    }
    return out;
  }();
  return llvm::is_contained(names, name);
}

static LoadOptions loadOptions(const LoadConfig &c) {
  for (const auto &[name, value] : c.passOptions)
    if (!isPassOption(name))
      throw HxError("hx: error: no pass of this hx has the option '" + name + "'");
  LoadOptions lo;
  lo.plan = c.plan;
  lo.simplify = c.simplify;
  lo.fuse = c.fuse;
  lo.passOptions = c.passOptions;
  lo.parser.virtualDevices = c.virtualDevices;
  for (const auto &[name, value] : c.importValues)
    lo.importValues[name] = std::make_shared<const HostTensor>(value.clone());
  return lo;
}

void PySession::loadText(const std::string &text, const std::string &name, const LoadConfig &c) {
  LoadOptions lo = loadOptions(c);
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mutex);
  errors.clear();
  loaded = false;
  failOn(s.loadText(text, name, lo));
  loaded = true;
  checkLoaded();
}

void PySession::loadFile(const std::string &path, const LoadConfig &c) {
  LoadOptions lo = loadOptions(c);
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mutex);
  errors.clear();
  loaded = false;
  failOn(s.loadFile(path, lo));
  loaded = true;
  checkLoaded();
}

void PySession::checkLoaded() {
  isDynamic = s.hasDynamicShapes();
  sourceParams.clear();
  if (Function *m = s.main())
    sourceParams = m->params;
}

void PySession::failOn(Session::Status st) {
  if (st == Session::Status::InternalError)
    fail("hx: internal error: a pass left a module that does not verify");
  if (st != Session::Status::Ok)
    fail("");
}

py::list PySession::params() const {
  py::list out;
  for (const Ref<Var> &p : sourceParams) {
    const Type *ty = p->checkedType ? p->checkedType.get() : p->annotation.get();
    const auto *tt = dyn_cast_or_null<TensorType>(ty);
    py::object dtype = py::none(), shape = py::none();
    if (tt) {
      dtype = py::str(dtypeName(tt->dtype).str());
      py::list dims;
      for (int64_t d : tt->shape)
        dims.append(d == TensorType::kDynamic ? py::object(py::none()) : py::int_(d));
      shape = py::tuple(dims);
    }
    out.append(py::make_tuple(p->name, ty ? typeToString(ty) : std::string("?"), dtype, shape));
  }
  return out;
}

py::list PySession::deviceTable() {
  std::vector<std::pair<std::string, std::string>> rows;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mutex);
    if (loaded)
      for (const VirtualDevice &vd : s.module().devices)
        rows.push_back({deviceTypeName(vd.deviceType).str(), vd.target.str()});
  }
  py::list out;
  for (auto &[type, target] : rows)
    out.append(py::make_tuple(type, target));
  return out;
}

std::vector<std::string> PySession::compile(const DeviceConfig &c) {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mutex);
  errors.clear();
  if (!loaded || !s.main())
    throw HxError("hx: error: the module has no @main to run");
  deviceConfig = c;
  compiledFor.reset();
  devicesChanged = true;
  notes.clear();
  if (!isDynamic) { // else at the first run, for its shapes
    compileNow();
    devicesChanged = false;
    compiledFor = "";
  }
  return notes;
}

void PySession::compileNow() {
  const DeviceConfig &c = *deviceConfig;
  CompileOptions co;
  co.devices.devices = c.devices;
  co.devices.threads = c.threads;
  if (c.emulate)
    co.devices.emulate = emulatedTypes();
  co.devices.substituteNamed = true;
  co.checkDevices = c.checkDevices;
  co.keepKernels = c.keepKernels;
  if (progress)
    co.progress = [p = progress.get()](const std::string &stage) { p->stage(stage); };
  Error e = s.compile(co, [&](const Twine &msg) { notes.push_back(pythonWording(msg.str())); });
  if (e) {
    if (e.isA<DiagnosedError>()) {
      consumeError(std::move(e));
      fail("");
    }
    fail("hx: error: " + pythonWording(toString(std::move(e))));
  }
  if (progress)
    progress->done();
  ++compiles;
}

std::vector<std::string> PySession::outputNames() {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mutex);
  return loaded ? s.outputNames() : std::vector<std::string>();
}

void PySession::beginProgress(const std::string &stage, double delaySeconds) {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mutex);
  progress = std::make_unique<CompileProgress>(errs(), "hx", delaySeconds);
  progress->stage(stage);
}

void PySession::save(const std::string &path) {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mutex);
  errors.clear();
  if (!loaded || !s.isCompiled())
    throw HxError(isDynamic ? "hx: error: save: a module with '?' dims is compiled for the "
                              "shapes of a run: run it first"
                            : "hx: error: save: the module is not compiled");
  if (Error e = s.saveCompiled(path))
    throw HxError("hx: error: save: " + toString(std::move(e)));
}

std::optional<std::string> PySession::loadCached(const std::string &entry) {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mutex);
  errors.clear();
  Expected<std::optional<LoadedCompiledModel>> hit = readCompileCacheEntry(entry);
  if (!hit) {
    warnings.push_back("hx: warning: the compile cache: " + toString(hit.takeError()) +
                       ": compiling again");
    return std::nullopt;
  }
  if (!*hit)
    return std::nullopt;
  std::string log = (*hit)->log.str();
  loaded = false;
  failOn(s.loadCompiled(std::make_unique<LoadedCompiledModel>(std::move(**hit)), entry,
                        LoadOptions()));
  loaded = true;
  checkLoaded();
  return log;
}

void PySession::saveCached(const std::string &entry, const std::string &log) {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mutex);
  if (!loaded || !s.isCompiled())
    return;
  if (Error e = writeCompileCacheEntry(s, entry, log))
    warnings.push_back("hx: warning: the compile cache: " + toString(std::move(e)));
}

std::vector<std::string> PySession::lastNotes() {
  py::gil_scoped_release nogil; // never wait for the mutex holding the GIL
  std::lock_guard<std::mutex> lock(mutex);
  return notes;
}

std::vector<std::string> PySession::deviceNames() {
  py::gil_scoped_release nogil; // never wait for the mutex holding the GIL
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<std::string> out;
  for (Device *d : s.devices())
    out.push_back(d->name());
  return out;
}

std::vector<HostTensor> PySession::gather(py::sequence inputs) {
  if (inputs.size() != sourceParams.size())
    throw HxError("hx: error: @main takes " + std::to_string(sourceParams.size()) +
                  " inputs, got " + std::to_string(inputs.size()));
  std::vector<HostTensor> out;
  for (size_t i = 0; i < sourceParams.size(); ++i) {
    const Var &p = *sourceParams[i];
    out.push_back(toHostTensor(inputs[i], "hx: error: input %" + p.name));
    if (auto *tt = dyn_cast_or_null<TensorType>(p.checkedType.get())) // float32 for bfloat16
      out.back() = npyAs(std::move(out.back()), tt->dtype);
    if (Error e = checkInput(p, out.back()))
      throw HxError("hx: error: input " + toString(std::move(e)));
  }
  return out;
}

void PySession::prepare(ArrayRef<HostTensor> inputs) {
  errors.clear();
  if (!loaded || !deviceConfig)
    throw HxError("hx: error: the module is not compiled");
  std::string signature;
  if (isDynamic) {
    for (const HostTensor &t : inputs)
      signature += t.typeString() + ";";
    if (compiledFor == signature)
      return;
    compiledFor.reset();
    // A failed binding leaves the module bound as it was.
    Session::Status st = s.bindShapes(inputs);
    if (st != Session::Status::Ok && !s.main())
      loaded = false;
    failOn(st);
    // Shapes bound before keep their executable (for the same devices).
    if (s.isCompiled() && !devicesChanged) {
      compiledFor = signature;
      return;
    }
  } else if (compiledFor) {
    return;
  }
  notes.clear();
  compileNow();
  devicesChanged = false;
  compiledFor = signature;
}

namespace {
/// Ctrl-C during a run (Executable's InterruptCheck). Python runs its signal
/// handlers on the main thread when it holds the GIL, which a run has
/// released; so between steps, on the main thread and at most every 20 ms,
/// this takes the GIL and lets PyErr_CheckSignals run them. When a handler
/// raises (KeyboardInterrupt), the run stops and the exception, already set,
/// propagates (Interrupted). No thread waits for a session's mutex while
/// holding the GIL, so taking it here cannot deadlock.
class SignalCheck {
public:
  explicit SignalCheck(bool onMainThread) : enabled(onMainThread) {}
  bool operator()() {
    if (!enabled)
      return false;
    auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::milliseconds(20))
      return false;
    last = now;
    py::gil_scoped_acquire gil;
    return PyErr_CheckSignals() != 0;
  }

private:
  bool enabled;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};
} // namespace

std::vector<HostTensor> PySession::runNow(ArrayRef<HostTensor> inputs, RunProfile *profile) {
  prepare(inputs);
  SignalCheck signals(PyThread_get_thread_ident() == mainThread);
  Expected<std::vector<HostTensor>> out = s.run(inputs, profile, [&] { return signals(); });
  if (!out) {
    if (out.errorIsA<InterruptedError>()) {
      consumeError(out.takeError());
      throw Interrupted();
    }
    fail("hx: error: " + toString(out.takeError()));
  }
  return std::move(*out);
}

static py::list toList(std::vector<HostTensor> tensors) {
  py::list out;
  for (HostTensor &t : tensors)
    out.append(toArray(std::move(t)));
  return out;
}

py::list PySession::run(py::sequence inputs) {
  std::vector<HostTensor> in = gather(inputs), out;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mutex);
    out = runNow(in, nullptr);
  }
  return toList(std::move(out));
}

py::list PySession::interpret(py::sequence inputs) {
  std::vector<HostTensor> in = gather(inputs), out;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mutex);
    errors.clear();
    Expected<std::vector<HostTensor>> r = s.interpret(in);
    if (!r)
      fail("hx: error: " + toString(r.takeError()));
    out = std::move(*r);
  }
  return toList(std::move(out));
}

namespace {
/// A profile as data, gathered under the session's lock.
struct ProfileData {
  struct StepRow {
    unsigned step;
    std::string kind, name, op, device, track, from, to;
    double start, seconds;
    uint64_t bytes;
  };
  struct DeviceRow {
    std::string name;
    double seconds;
    uint64_t peakBytes, arenaBytes;
  };
  struct CopyRow {
    std::string from, to;
    unsigned count = 0;
    uint64_t bytes = 0;
  };
  std::vector<StepRow> steps;
  std::vector<DeviceRow> devices;
  std::vector<CopyRow> copies;
  double total = 0;
  std::string text;

  ProfileData(const Executable &exe, const RunProfile &p) {
    ArrayRef<Step> all = exe.steps();
    ArrayRef<Buffer> buffers = exe.buffers();
    for (unsigned d = 0; d < exe.numDevices(); ++d)
      devices.push_back({exe.deviceName(d), 0, exe.deviceBytes(d), exe.memoryPlan().arenaBytes[d]});
    std::map<std::pair<unsigned, unsigned>, CopyRow> byPair;
    for (const RunProfile::StepTime &t : p.steps) {
      const Step &st = all[t.step];
      if (st.kind == Step::Kind::Jump || st.kind == Step::Kind::Alias)
        continue;
      StepRow row{
          t.step, "kernel", st.label,  "", exe.deviceName(st.device), exe.trackName(t.track), "",
          "",     t.start,  t.seconds, 0};
      row.op = st.label.substr(0, st.label.find(" at "));
      if (st.kind == Step::Kind::If) {
        row.kind = row.op = "if";
      } else if (st.kind == Step::Kind::Copy) {
        const Buffer &src = buffers[st.buffers[0]];
        row.kind = row.op = "copy";
        row.from = exe.deviceName(src.device);
        row.to = row.device;
        row.bytes = src.bytes;
        CopyRow &c = byPair[{src.device, st.device}];
        c.from = row.from;
        c.to = row.to;
        ++c.count;
        c.bytes += src.bytes;
      }
      devices[st.device].seconds += t.seconds;
      total += t.seconds;
      steps.push_back(std::move(row));
    }
    for (auto &[pair, row] : byPair)
      copies.push_back(row);
    raw_string_ostream os(text);
    exe.printProfile(os, p, 1);
  }

  py::dict toDict() const {
    py::list stepList, deviceList, copyList;
    for (const StepRow &r : steps) {
      py::dict d;
      d["step"] = r.step;
      d["kind"] = r.kind;
      d["name"] = r.name;
      d["op"] = r.op;
      d["device"] = r.device;
      d["track"] = r.track;
      d["start"] = r.start;
      d["seconds"] = r.seconds;
      if (r.kind == "copy") {
        d["from"] = r.from;
        d["to"] = r.to;
        d["bytes"] = r.bytes;
      }
      stepList.append(d);
    }
    for (const DeviceRow &r : devices) {
      py::dict d;
      d["name"] = r.name;
      d["seconds"] = r.seconds;
      d["peak_bytes"] = r.peakBytes;
      d["arena_bytes"] = r.arenaBytes;
      deviceList.append(d);
    }
    for (const CopyRow &r : copies) {
      py::dict d;
      d["from"] = r.from;
      d["to"] = r.to;
      d["count"] = r.count;
      d["bytes"] = r.bytes;
      copyList.append(d);
    }
    py::dict out;
    out["total_seconds"] = total;
    out["steps"] = stepList;
    out["devices"] = deviceList;
    out["copies"] = copyList;
    out["text"] = text;
    return out;
  }
};
} // namespace

py::tuple PySession::profile(py::sequence inputs) {
  std::vector<HostTensor> in = gather(inputs), out;
  std::optional<ProfileData> data;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mutex);
    RunProfile p;
    out = runNow(in, &p);
    data.emplace(s.executable(), p);
  }
  return py::make_tuple(toList(std::move(out)), data->toDict());
}

py::tuple PySession::check(py::sequence inputs, std::optional<py::sequence> reference,
                           std::optional<std::pair<double, double>> tolerance) {
  std::vector<HostTensor> in = gather(inputs), out, want;
  if (reference)
    for (size_t i = 0; i < reference->size(); ++i)
      want.push_back(
          toHostTensor((*reference)[i], "hx: error: reference output " + std::to_string(i)));
  CompareOptions opts;
  if (tolerance)
    opts.tolerance = Tolerance{tolerance->first, tolerance->second};
  Comparison cmp;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mutex);
    out = runNow(in, nullptr);
    if (reference) {
      opts.wantName = "reference";
      cmp = compareResults(out, want, in, opts);
    } else {
      Expected<Comparison> c = s.check(in, out, opts);
      if (!c)
        fail("hx: error: the interpreter: " + toString(c.takeError()));
      cmp = std::move(*c);
    }
  }
  py::dict d;
  d["ok"] = cmp.ok();
  d["max_error"] = cmp.maxError;
  d["rtol"] = cmp.tolerance.rtol;
  d["atol"] = cmp.tolerance.atol;
  d["where"] = cmp.where();
  d["explanation"] = cmp.explain();
  d["mismatch"] = cmp.mismatch;
  d["vacuous_outputs"] = cmp.vacuousOutputs;
  return py::make_tuple(toList(std::move(out)), d);
}

py::dict PySession::placement() {
  PlacementData data;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mutex);
    errors.clear();
    if (!loaded)
      throw HxError("hx: error: no module is loaded");
    if (!collectPlacement(s.module(), s.diags(), data))
      fail("");
  }
  py::list calls, copies;
  for (const PlacedCall &c : data.calls) {
    py::dict d;
    d["function"] = c.function;
    d["op"] = c.op;
    d["device"] = c.device;
    d["where"] = c.where;
    d["node"] = c.node;
    d["node_op_type"] = c.nodeOpType;
    d["fallback"] = c.fallback;
    calls.append(d);
  }
  for (const PlacedCopy &c : data.copies) {
    py::dict d;
    d["function"] = c.function;
    d["what"] = c.what;
    d["from"] = c.from;
    d["to"] = c.to;
    d["bytes"] = c.bytes;
    copies.append(d);
  }
  auto totals = [](const PlacedTotals &t) {
    py::dict d;
    d["calls"] = t.calls;
    d["bytes"] = t.bytes;
    d["seconds"] = t.seconds;
    return d;
  };
  py::dict devices;
  for (const PlacedTotals &t : data.devices)
    devices[py::str(t.device)] = totals(t);
  py::dict out;
  out["calls"] = calls;
  out["copies"] = copies;
  out["devices"] = devices;
  out["copy_totals"] = totals(data.copyTotals);
  return out;
}

std::string PySession::text() {
  py::gil_scoped_release nogil; // never wait for the mutex holding the GIL
  std::lock_guard<std::mutex> lock(mutex);
  if (!loaded)
    throw HxError("hx: error: no module is loaded");
  std::string out;
  raw_string_ostream os(out);
  printModule(os, s.module());
  return out;
}

std::vector<std::string> PySession::takeWarnings() {
  py::gil_scoped_release nogil; // never wait for the mutex holding the GIL
  std::lock_guard<std::mutex> lock(mutex);
  return std::exchange(warnings, {});
}

} // namespace hx::python
