//===- Bindings.cpp - The hx._hx extension module -------------------------===//
//
// The compiled half of the `hx` Python package (python/hx): the Error
// exception, the Session wrapper (PySession.h) and a helper that writes a
// virtual-device table for a device list. The package's Python half builds
// the user-facing API (hx.load, hx.compile, Module, Compiled) on these.
//
//===----------------------------------------------------------------------===//
#include "PySession.h"
#include "hx/IR/TargetKind.h"
#include "hx/IR/VirtualDevice.h"
#include "hx/Run/CompileCache.h"
#include "hx/Support/Files.h"
#include "hx/Targets/Registry.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

namespace py = pybind11;
using namespace llvm;
using namespace hx;
using namespace hx::python;

/// The virtual-device table of a module that has none, for `devices`
/// (hx.compile's list: NAME or NAME:N): one entry per device, of its
/// backend's device type with that type's default target, numbered per
/// type; the PassConfig's fallback device is `defaultDevice`, else the
/// first device that is not a cpu, else the cpu.
static std::string deviceTable(const std::vector<std::string> &devices,
                               const std::optional<std::string> &defaultDevice) {
  json::Array table;
  std::map<DeviceType, int64_t> ids;
  std::optional<DeviceType> fallback;
  if (defaultDevice) {
    fallback = parseDeviceType(*defaultDevice);
    if (!fallback)
      throw HxError("hx: error: default_device='" + *defaultDevice + "': expected " +
                    deviceTypeChoices());
  }
  for (StringRef spec : devices) {
    auto [kind, num] = spec.split(':');
    int64_t n = 0;
    const BackendInfo *b = lookupBackend(kind);
    if (!b || (!num.empty() && (num.getAsInteger(10, n) || n < 0)))
      throw HxError("hx: error: devices: '" + spec.str() +
                    "' is not a device (expected NAME or NAME:N, NAME one of " + backendNames() +
                    ")");
    DeviceType t = b->deviceType();
    table.push_back(json::Object{{"device_type", deviceTypeName(t)},
                                 {"virtual_device_id", ids[t]++},
                                 {"target", Target::defaultFor(t).str()}});
    if (!fallback && t != DeviceType::CPU)
      fallback = t;
  }
  json::Object o{
      {"VirtualDevice", std::move(table)},
      {"PassConfig", json::Object{{"relay.fallback_device_type",
                                   deviceTypeName(fallback.value_or(DeviceType::CPU))}}}};
  std::string out;
  raw_string_ostream os(out);
  os << json::Value(std::move(o));
  return out;
}

/// The compile cache's entry for a model (a file, or text) and the options
/// text of hx.compile, or None where there is no cache directory (HX_CACHE=0)
/// or the file cannot be read (the load reports it).
static std::optional<std::string> compileCacheEntryFor(const std::string &source, bool isPath,
                                                       const std::string &options) {
  std::string dir = compileCacheDir();
  if (dir.empty())
    return std::nullopt;
  if (!isPath)
    return compileCacheEntry(dir, "", source, options);
  ReadFileOptions ro;
  ro.nullTerminated = false;
  Expected<std::unique_ptr<MemoryBuffer>> file = readUserFile(source, ro);
  if (!file) {
    consumeError(file.takeError());
    return std::nullopt;
  }
  return compileCacheEntry(dir, source, (*file)->getBuffer(), options);
}

static LoadConfig loadConfig(bool plan, bool simplify, bool fuse,
                             std::vector<std::pair<std::string, std::string>> passOptions,
                             std::optional<std::string> virtualDevices) {
  return LoadConfig{plan, simplify, fuse, std::move(passOptions), std::move(virtualDevices)};
}

PYBIND11_MODULE(_hx, m) {
  m.doc() = "hx's compiled core; use the `hx` package";
  py::register_exception<HxError>(m, "Error");
  // Ctrl-C stopped a run: KeyboardInterrupt is already set (PySession.cpp).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const Interrupted &) {
      if (!PyErr_Occurred())
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });

  m.def("device_table", &deviceTable, py::arg("devices"), py::arg("default_device") = py::none(),
        "The virtual-device table (JSON) for a module without one, for a device list");
  m.def("backend_names", &backendNames, "The registered backends: 'cpu, ...'");
  m.def("compile_cache_entry", &compileCacheEntryFor, py::arg("source"), py::arg("is_path"),
        py::arg("options"), "The compile cache's entry for a model and hx.compile's options");

  py::class_<PySession>(m, "Session")
      .def(py::init<>())
      .def(
          "load_text",
          [](PySession &s, const std::string &text, const std::string &name, bool plan,
             bool simplify, bool fuse, std::vector<std::pair<std::string, std::string>> passOptions,
             std::optional<std::string> virtualDevices) {
            s.loadText(text, name,
                       loadConfig(plan, simplify, fuse, std::move(passOptions),
                                  std::move(virtualDevices)));
          },
          py::arg("text"), py::arg("name"), py::arg("plan") = false, py::arg("simplify") = false,
          py::arg("fuse") = false, py::arg("pass_options") = py::list(),
          py::arg("virtual_devices") = py::none())
      .def(
          "load_file",
          [](PySession &s, const std::string &path, bool plan, bool simplify, bool fuse,
             std::vector<std::pair<std::string, std::string>> passOptions,
             std::optional<std::string> virtualDevices, py::dict values) {
            LoadConfig c =
                loadConfig(plan, simplify, fuse, std::move(passOptions), std::move(virtualDevices));
            for (auto [key, value] : values) {
              std::string name = py::str(key);
              c.importValues.emplace_back(name,
                                          toHostTensor(value, "hx: error: values['" + name + "']"));
            }
            s.loadFile(path, c);
          },
          py::arg("path"), py::arg("plan") = false, py::arg("simplify") = false,
          py::arg("fuse") = false, py::arg("pass_options") = py::list(),
          py::arg("virtual_devices") = py::none(), py::arg("values") = py::dict())
      .def("params", &PySession::params)
      .def("device_table", &PySession::deviceTable)
      .def_property_readonly("dynamic", &PySession::dynamic)
      .def(
          "compile",
          [](PySession &s, std::vector<std::string> devices, unsigned threads, bool emulate,
             bool checkDevices) {
            return s.compile(DeviceConfig{std::move(devices), threads, emulate, checkDevices});
          },
          py::arg("devices") = py::list(), py::arg("threads") = 0, py::arg("emulate") = false,
          py::arg("check_devices") = false)
      .def_property_readonly("compile_count", &PySession::compileCount)
      .def_property_readonly("from_compiled", &PySession::fromCompiled)
      .def("save", &PySession::save, py::arg("path"))
      .def("output_names", &PySession::outputNames)
      .def("begin_progress", &PySession::beginProgress, py::arg("stage"), py::arg("delay"))
      .def("load_cached", &PySession::loadCached, py::arg("entry"))
      .def("save_cached", &PySession::saveCached, py::arg("entry"), py::arg("log"))
      .def("notes", &PySession::lastNotes)
      .def("device_names", &PySession::deviceNames)
      .def("run", &PySession::run)
      .def("profile", &PySession::profile)
      .def("check", &PySession::check, py::arg("inputs"), py::arg("reference") = py::none(),
           py::arg("tolerance") = py::none())
      .def("interpret", &PySession::interpret)
      .def("placement", &PySession::placement)
      .def("text", &PySession::text)
      .def("take_warnings", &PySession::takeWarnings);
}
