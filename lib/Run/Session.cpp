//===- Session.cpp - The public compile-and-run API -----------------------===//
//
// load:    parseModule, verifyModule, then the pipeline "infer-type[,
//          plan-devices][,extra]" with the passes' option defaults.
// compile: mapDevices, then per virtual device the backend of its physical
//          device (BackendCache::backendFor) — or, compile-only, the
//          registered backend of its own device type — and
//          Executable::build.
// loadCompiled / saveCompiled: a compiled model file (CompiledFile.h): its
//          module is only typed on load, and its kernels are preloaded into
//          each compile's backend cache (BackendCache::preload), whose
//          backends then start with them instead of compiling.
//
//===----------------------------------------------------------------------===//
#include "hx/Run/Session.h"
#include "hx/IR/Printer.h"
#include "hx/IR/TargetKind.h"
#include "hx/IR/Verifier.h"
#include "hx/Import/Onnx.h"
#include "hx/Interpreter/FoldConstant.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Run/CompiledFile.h"
#include "hx/Run/Inputs.h"
#include "hx/Support/Files.h"
#include "hx/Transforms/Passes.h"

using namespace llvm;

namespace hx {

char DiagnosedError::ID = 0;
void DiagnosedError::log(raw_ostream &os) const { os << "the errors reported above"; }
std::error_code DiagnosedError::convertToErrorCode() const { return inconvertibleErrorCode(); }

Session::Session() = default;
Session::~Session() = default;

Function *Session::main() { return mod ? mod->lookup("main") : nullptr; }

std::vector<std::string> Session::outputNames() {
  Function *m = main();
  if (!m)
    return {};
  // The leaves of the result type, depth first (no recursion on depth).
  size_t count = 0;
  std::vector<const Type *> work = {m->body->checkedType.get()};
  while (!work.empty()) {
    const Type *t = work.back();
    work.pop_back();
    if (auto *tuple = dyn_cast_or_null<TupleType>(t))
      for (const TypeRef &f : tuple->fields)
        work.push_back(f.get());
    else
      ++count;
  }
  std::vector<std::string> names;
  for (const auto &[key, value] : mod->extraMetadata)
    if (key == "OutputNames")
      if (const json::Array *list = value.getAsArray(); list && list->size() == count)
        for (const json::Value &v : *list)
          if (std::optional<StringRef> s = v.getAsString())
            names.push_back(s->str());
  if (names.size() == count)
    return names;
  names.clear();
  for (size_t i = 0; i < count; ++i)
    names.push_back("output_" + std::to_string(i));
  return names;
}

void Session::resetCompiled() {
  // The executables first: they free their memory on the devices and hold
  // the backends' code.
  shapeCache.clear();
  compiledFor.clear();
  staged.reset();
  exe.reset();
  cache = nullptr;
  physical.clear();
  ownedCache.reset();
  ownedDevices.clear();
}

Session::Status Session::load(std::unique_ptr<MemoryBuffer> buffer, const LoadOptions &opts) {
  resetCompiled();
  compiled.reset();
  unsigned id = sm.AddNewSourceBuffer(std::move(buffer), SMLoc());
  sourceBuffer = id;
  boundShapes.clear();
  {
    TimeScope t(opts.timing, "(parse)");
    mod = parseModule(id, diag, opts.parser);
  }
  if (!mod || !verifyModule(*mod, diag)) {
    mod.reset();
    return Status::UserError;
  }
  return plan(opts);
}

Session::Status Session::loadText(StringRef text, StringRef name, const LoadOptions &opts) {
  return load(MemoryBuffer::getMemBufferCopy(text, name), opts);
}

Session::Status Session::loadFile(StringRef path, const LoadOptions &opts) {
  // An ONNX model is imported to text; its weights are held here for the
  // parser (and for bindShapes, which parses the text again).
  importedWeights.clear();
  OnnxImportOptions importOpts;
  if (!opts.importValues.empty())
    importOpts.inputValue = [&opts](StringRef name) -> Expected<std::optional<HostTensor>> {
      auto it = opts.importValues.find(name.str());
      if (it == opts.importValues.end())
        return std::nullopt;
      return std::optional<HostTensor>(it->second->clone());
    };
  Expected<std::unique_ptr<MemoryBuffer>> file = readModuleFile(path, importedWeights, importOpts);
  if (!file) {
    diag.error(SMLoc(), toString(file.takeError()));
    return Status::UserError;
  }
  if (isCompiledModel((*file)->getBuffer()))
    return loadCompiled(std::move(*file), path, opts);
  LoadOptions withWeights = opts;
  if (!importedWeights.empty())
    withWeights.parser.npyFiles = &importedWeights;
  Status st = load(std::move(*file), withWeights);
  if (st == Status::Ok && !hasDynamicShapes())
    importedWeights.clear(); // the module holds its own copy
  return st;
}

Session::Status Session::loadCompiled(std::unique_ptr<MemoryBuffer> buffer, StringRef name,
                                      const LoadOptions &opts) {
  Expected<LoadedCompiledModel> parsed = [&] {
    TimeScope t(opts.timing, "(read compiled model)");
    return parseCompiled(std::move(buffer), name);
  }();
  if (!parsed) {
    resetCompiled();
    compiled.reset();
    mod.reset();
    diag.error(SMLoc(), toString(parsed.takeError()));
    return Status::UserError;
  }
  return loadCompiled(std::make_unique<LoadedCompiledModel>(std::move(*parsed)), name, opts);
}

Session::Status Session::loadCompiled(std::unique_ptr<LoadedCompiledModel> file, StringRef name,
                                      const LoadOptions &opts) {
  // Typed again, nothing more: it was planned, simplified and fused when
  // it was compiled.
  LoadOptions lo;
  lo.parser.heldConstants = &file->constants;
  lo.parser.npyFilesOnly = true;
  lo.plan = false;
  lo.verifyEach = opts.verifyEach;
  lo.timing = opts.timing;
  Status st = load(MemoryBuffer::getMemBufferCopy(file->moduleText, name), lo);
  if (st != Status::Ok)
    return st;
  file->constants.clear(); // the module holds its own copies
  loadOptions.parser.heldConstants = nullptr;
  compiled = std::move(file);
  return Status::Ok;
}

void Session::noteCompiledHere(function_ref<void(const Twine &)> note) {
  for (const Backend *b : cache->made()) {
    std::optional<unsigned> loaded = cache->loadedKernels(b);
    unsigned compiledNow = b->numKernels() - loaded.value_or(0);
    if (!compiledNow)
      continue;
    note(Twine("note: compiled ") + Twine(compiledNow) + " " + b->name() + " kernel" +
         (compiledNow == 1 ? "" : "s") + " that " + compiled->buffer->getBufferIdentifier() +
         " does not hold" +
         (loaded ? "" : " (it holds none for a device mapped to " + b->name() + ")"));
  }
}

bool Session::canRestoreSchedule(ArrayRef<Backend *> backends) const {
  if (!compiled || compiled->schedule.empty() || !boundShapes.empty() ||
      compiled->scheduleBackends.size() != backends.size())
    return false;
  for (size_t i = 0; i < backends.size(); ++i) {
    std::optional<std::pair<std::string, std::string>> id =
        backends[i] ? cache->idOf(backends[i]) : std::nullopt;
    auto [name, key] = compiled->scheduleBackends[i];
    if (!id || id->first != name || id->second != key || !cache->loadedKernels(backends[i]))
      return false;
  }
  return true;
}

Error Session::saveCompiled(StringRef path, StringRef log) {
  if (!mod || !cache || (!exe && !staged))
    return createStringError("the module is not compiled");
  CompiledModelParts parts;
  parts.log = log.str();
  PrintOptions po;
  po.constantName = [&](const TensorData &t, unsigned i) {
    if (i == parts.constants.size())
      parts.constants.push_back(&t);
    return compiledConstantName(i);
  };
  raw_string_ostream os(parts.moduleText);
  printModule(os, *mod, po);
  Expected<std::vector<BackendCache::SavedKernels>> kernels = cache->savedKernels();
  if (!kernels)
    return createStringError("cannot save the kernels: " + toString(kernels.takeError()));
  parts.kernels = std::move(*kernels);
  // The schedule of the module as printed (bound to its shapes where they
  // were bound), unless it runs in stages (built as the run reaches them).
  if (exe && !staged) {
    DenseMap<const TensorData *, unsigned> constantIndex;
    for (unsigned i = 0; i < parts.constants.size(); ++i)
      constantIndex[parts.constants[i]] = i;
    if (Error e = exe->save(parts.schedule, [&](const TensorData &t) -> std::optional<unsigned> {
          auto it = constantIndex.find(&t);
          return it == constantIndex.end() ? std::nullopt : std::optional<unsigned>(it->second);
        }))
      return createStringError("cannot save the schedule: " + toString(std::move(e)));
    for (Backend *b : backendsUsed) {
      std::optional<std::pair<std::string, std::string>> id = b ? cache->idOf(b) : std::nullopt;
      if (!id) { // a backend the cache did not make: no schedule
        parts.schedule.clear();
        parts.scheduleBackends.clear();
        break;
      }
      parts.scheduleBackends.push_back(*id);
    }
  }
  if (Error e = writeFileAtomically(path, serializeCompiled(parts)))
    return createStringError(path + ": " + toString(std::move(e)));
  return Error::success();
}

Session::Status Session::loadModule(std::unique_ptr<Module> module, const LoadOptions &opts) {
  resetCompiled();
  compiled.reset();
  mod = std::move(module);
  sourceBuffer = 0;
  boundShapes.clear();
  if (!mod || !verifyModule(*mod, diag)) {
    mod.reset();
    return Status::UserError;
  }
  if (hasDynamicShapes()) { // bindShapes parses it again from its text
    std::string text;
    raw_string_ostream os(text);
    printModule(os, *mod);
    sourceBuffer = sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "<module>"), SMLoc());
  }
  return plan(opts);
}

static bool isDynamicTensor(const Type *t) {
  const auto *tt = dyn_cast_or_null<TensorType>(t);
  return !t || (tt && !tt->isStatic());
}

bool Session::hasDynamicShapes() {
  Function *m = main();
  return m && llvm::any_of(m->params, [](const Ref<Var> &p) {
           return isDynamicTensor(p->checkedType ? p->checkedType.get() : p->annotation.get());
         });
}

Session::Status Session::bindShapes(ArrayRef<HostTensor> inputs) {
  Function *m = main();
  if (!m || inputs.size() != m->params.size()) {
    diag.error(SMLoc(), "bindShapes: " + Twine(inputs.size()) + " inputs for " +
                            Twine(m ? m->params.size() : 0) + " parameters of @main");
    return Status::UserError;
  }
  // A static module (not bound before) has nothing to bind.
  if (boundShapes.empty() && !hasDynamicShapes())
    return Status::Ok;
  if (!sourceBuffer) {
    diag.error(SMLoc(), "bindShapes: the module's source is not kept");
    return Status::UserError;
  }
  // The parameters as the source declares them (@main's may be bound to
  // other shapes already, or bound as constants: matched by name).
  std::unique_ptr<Module> again = parseModule(sourceBuffer, diag, loadOptions.parser);
  Function *m2 = again ? again->lookup("main") : nullptr;
  if (!m2)
    return Status::UserError;
  StringMap<const HostTensor *> byName;
  for (size_t i = 0; i < inputs.size(); ++i)
    byName[m->params[i]->name] = &inputs[i];
  std::string signature;
  raw_string_ostream sig(signature);
  for (const Ref<Var> &p : m2->params) {
    const HostTensor *t = byName.lookup(p->name);
    if (!t)
      continue;
    if (Error e = checkInput(*p, *t)) {
      diag.error(SMLoc(), toString(std::move(e)));
      return Status::UserError;
    }
    sig << '%' << p->name << ':' << t->typeString() << ' ';
  }
  if (signature == boundShapes)
    return Status::Ok;
  // The shapes bound now are set aside with their executable; shapes bound
  // before come back without planning or compiling.
  bool stashed = !boundShapes.empty() && isCompiled();
  if (stashed) {
    if (shapeCache.size() == kShapeCacheSize)
      shapeCache.erase(shapeCache.begin());
    shapeCache.push_back({boundShapes, std::move(mod), std::move(exe), std::move(staged)});
  }
  auto hit =
      llvm::find_if(shapeCache, [&](const ShapeEntry &e) { return e.signature == signature; });
  if (hit != shapeCache.end()) {
    mod = std::move(hit->mod);
    exe = std::move(hit->exe);
    staged = std::move(hit->staged);
    shapeCache.erase(hit);
    boundShapes = signature;
    return Status::Ok;
  }
  for (const Ref<Var> &p : m2->params)
    if (const HostTensor *t = byName.lookup(p->name))
      p->annotation = make<TensorType>(SmallVector<int64_t, 4>(t->shape()), t->dtype());
  std::unique_ptr<Module> previous = std::move(mod); // bound, not compiled
  std::string previousShapes = boundShapes;
  mod = std::move(again);
  boundShapes.clear();
  Status st = verifyModule(*mod, diag) ? plan(loadOptions) : Status::UserError;
  if (st == Status::Ok) {
    boundShapes = signature;
    return st;
  }
  // A failed bind leaves the module bound as it was.
  if (stashed) {
    mod = std::move(shapeCache.back().mod);
    exe = std::move(shapeCache.back().exe);
    staged = std::move(shapeCache.back().staged);
    boundShapes = shapeCache.back().signature;
    shapeCache.pop_back();
  } else {
    mod = std::move(previous);
    boundShapes = previousShapes;
  }
  return st;
}

Session::Status Session::plan(const LoadOptions &opts) {
  loadOptions = opts;
  if (!opts.constantParamsDir.empty())
    if (Function *m = mod->lookup("main")) {
      Expected<unsigned> n =
          bindParamsAsConstants(*m, opts.constantParamsDir, opts.constantParamsKeep);
      if (!n) {
        diag.error(SMLoc(), toString(n.takeError()));
        mod.reset();
        return Status::UserError;
      }
    }
  std::string pipeline = "infer-type";
  if (opts.simplify)
    pipeline +=
        ",simplify-inference,infer-type,fold-scale-axis,infer-type,fold-constant,infer-type";
  if (opts.plan)
    pipeline += ",plan-devices";
  if (opts.fuse)
    pipeline += ",fuse-ops";
  if (!opts.extraPasses.empty())
    pipeline += "," + opts.extraPasses;
  return runPipeline(*mod, pipeline, opts);
}

Session::Status Session::runPipeline(Module &m, const std::string &pipeline,
                                     const LoadOptions &opts) {
  PassRegistry registry;
  registerAllPasses(registry);
  registerInterpreterPasses(registry);
  registerTestPasses(registry);
  PassManagerOptions pmo;
  pmo.verifyEach = opts.verifyEach;
  pmo.printIRAfterAll = opts.printIRAfterAll;
  pmo.timing = opts.timing;
  PassManager pm(pmo);
  if (!parsePassPipeline(pipeline, registry, pm, diag, opts.passOptions))
    return Status::UserError;
  PassContext ctx{diag, opts.timing};
  bool internal = false;
  if (!pm.run(m, ctx, &internal))
    return internal ? Status::InternalError : Status::UserError;
  return Status::Ok;
}

Error Session::compile(const CompileOptions &opts, function_ref<void(const Twine &)> note) {
  if (!mod)
    return createStringError("no module is loaded");
  // The same devices as the compile of other shapes of this module: kept,
  // with their compiled kernels, for those shapes' executables.
  std::string key;
  raw_string_ostream k(key);
  for (const std::string &d : opts.devices.devices)
    k << d << ',';
  k << opts.devices.threads << ',' << opts.devices.memoryLimit << ',';
  for (DeviceType t : opts.devices.emulate)
    k << int32_t(t) << ' ';
  k << ',' << opts.devices.substituteNamed << ',' << opts.keepCode << ',' << opts.compileOnly << ','
    << opts.keepKernels;
  if (!compiledFor.empty() && key == compiledFor && ownedCache) {
    exe.reset();
    staged.reset();
    std::vector<Device *> same = physical;
    return compileFor(same, *ownedCache, opts);
  }
  resetCompiled();
  compiledFor = key;
  BackendOptions bo;
  bo.keepCode = opts.keepCode;
  bo.keepKernels = opts.keepKernels;
  ownedCache = std::make_unique<BackendCache>(bo);
  if (compiled)
    for (const LoadedCompiledModel::Kernels &k : compiled->kernels)
      ownedCache->preload(k.backend, k.targetKey, k.bytes);
  std::vector<Device *> mapped;
  if (Error e = mapDevices(*mod, opts.devices, ownedDevices, mapped, note))
    return e;
  if (Error e = compileFor(mapped, *ownedCache, opts))
    return e;
  if (compiled && note)
    noteCompiledHere(note);
  return Error::success();
}

Error Session::compileFor(ArrayRef<Device *> devices, BackendCache &backendCache,
                          const CompileOptions &opts) {
  if (!mod)
    return createStringError("no module is loaded");
  exe.reset();
  staged.reset();
  if (&backendCache != ownedCache.get()) { // the caller's devices and cache
    shapeCache.clear();
    compiledFor.clear();
    ownedCache.reset();
    ownedDevices.clear();
  }
  cache = &backendCache;
  physical.assign(devices.begin(), devices.end());
  std::vector<Backend *> backends;
  for (size_t i = 0; i < physical.size(); ++i) {
    VirtualDevice vd = i < mod->devices.size() ? mod->devices[i] : VirtualDevice{};
    // Compile-only: each virtual device's code for the default backend of
    // its own target kind (cuda code for cuda), whatever would run it.
    const BackendInfo *own = defaultBackendFor(targetKindOf(vd.target).name);
    if (i < opts.backends.size() && !opts.backends[i].empty())
      own = lookupBackend(opts.backends[i]);
    // A backend of another type compiles for its own default target (as a
    // cpu instance standing in for a missing GPU does).
    Target target = own && own->deviceType() != vd.deviceType
                        ? Target::defaultFor(own->deviceType())
                        : vd.target;
    Expected<Backend *> b =
        !opts.compileOnly ? cache->backendFor(vd, *physical[i])
        : own             ? cache->get(own->name, target)
                          : Expected<Backend *>(
                    createStringError("no backend compiles for target '" + vd.target.str() + "'"));
    if (!b)
      return createStringError("virtual device " + Twine(i) + " (" + vd.shortName() +
                               "): " + toString(b.takeError()));
    backends.push_back(*b);
  }
  ExecutableOptions eo;
  eo.checkDevices = opts.checkDevices;
  eo.compileOnly = opts.compileOnly;
  eo.progress = opts.progress;
  staged.reset();
  if (StagedRun::needed(*mod)) {
    // Later stages are typed and fused as the module was, and built for
    // the same devices.
    StageHooks hooks;
    hooks.prepare = [this](Module &m) {
      return runPipeline(m, loadOptions.fuse ? "infer-type,fuse-ops" : "infer-type", loadOptions) ==
             Status::Ok;
    };
    hooks.build = [this, backends](Module &m, const ExecutableOptions &o) {
      return Executable::build(m, physical, backends, diag, o);
    };
    staged = StagedRun::create(*mod, diag, std::move(hooks), eo);
    if (!staged)
      return make_error<DiagnosedError>();
    return Error::success();
  }
  backendsUsed = backends;
  if (canRestoreSchedule(backends)) {
    Expected<std::unique_ptr<Executable>> x = Executable::restore(
        compiled->schedule, *mod, physical, backends, compiled->constantList, eo);
    if (!x)
      return createStringError(compiled->buffer->getBufferIdentifier() + ": " +
                               toString(x.takeError()));
    exe = std::move(*x);
    return Error::success();
  }
  exe = Executable::build(*mod, physical, backends, diag, eo);
  if (!exe)
    return make_error<DiagnosedError>();
  return Error::success();
}

Expected<std::vector<HostTensor>> Session::run(ArrayRef<HostTensor> inputs, RunProfile *profile,
                                               InterruptCheck interrupted) {
  if (staged)
    return staged->run(inputs, profile, interrupted);
  if (!exe)
    return createStringError("the module is not compiled");
  return exe->run(inputs, profile, interrupted);
}

Expected<std::vector<HostTensor>> Session::interpret(ArrayRef<HostTensor> inputs) {
  if (!mod)
    return createStringError("no module is loaded");
  return hx::interpret(*mod, inputs);
}

Expected<Comparison> Session::check(ArrayRef<HostTensor> inputs, ArrayRef<HostTensor> results,
                                    const CompareOptions &opts) {
  Expected<std::vector<HostTensor>> want = interpret(inputs);
  if (!want)
    return want.takeError();
  return compareResults(results, *want, inputs, opts);
}

} // namespace hx
