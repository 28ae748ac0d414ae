//===- Differential.cpp - Differential testing of one module --------------===//
//
// The checks of Differential.h, in order, each on the previous one's
// output; the first failure is the result. Diagnostics are captured (a
// warning, such as a cpu fallback, is not a failure). Texts are compared
// byte for byte; a mismatch reports the first differing line of each.
//
//===----------------------------------------------------------------------===//
#include "hx/Differential/Differential.h"
#include "hx/IR/Printer.h"
#include "hx/IR/Verifier.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Parser/Parser.h"
#include "hx/Run/Compare.h"
#include "hx/Run/Inputs.h"
#include "hx/Run/Session.h"
#include "hx/Runtime/Executable.h"
#include "hx/Targets/Registry.h"
#include "hx/Transforms/Passes.h"
#include "hx/Transforms/VerifyPlacement.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace hx;
using namespace llvm;

namespace {

/// A SourceMgr and DiagEngine whose errors are collected as text.
struct TextSession {
  SourceMgr sm;
  DiagEngine diags{sm};
  std::string errors;
  unsigned buffer;

  TextSession(StringRef text, StringRef name) {
    buffer = sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, name), SMLoc());
    diags.setHandler([this](const Diagnostic &d) {
      if (d.severity != Severity::Error)
        return;
      raw_string_ostream os(errors);
      diags.print(os, d);
    });
  }

  std::unique_ptr<Module> parse() {
    std::unique_ptr<Module> m = parseModule(buffer, diags);
    if (m && !verifyModule(*m, diags))
      return nullptr;
    return m;
  }

  bool plan(Module &m, const PassRegistry &registry) {
    PassManager pm;
    if (!parsePassPipeline("infer-type,plan-devices", registry, pm, diags))
      return false;
    PassContext ctx{diags};
    std::string reports;
    raw_string_ostream os(reports);
    ctx.reports = &os;
    bool internal = false;
    bool ok = pm.run(m, ctx, &internal);
    if (internal)
      errors += "(an internal error: the module failed verification after a pass)\n";
    return ok && !internal;
  }
};

std::string print(const Module &m) {
  std::string s;
  raw_string_ostream os(s);
  printModule(os, m);
  return s;
}

/// The first line where `a` and `b` differ.
std::string firstDifference(StringRef a, StringRef b) {
  unsigned line = 1;
  while (!a.empty() || !b.empty()) {
    auto [la, ra] = a.split('\n');
    auto [lb, rb] = b.split('\n');
    if (la != lb)
      return "line " + std::to_string(line) + ":\n  - " + la.str() + "\n  + " + lb.str() + "\n";
    a = ra, b = rb, ++line;
  }
  return "the texts are equal";
}

} // namespace

struct DifferentialTester::Impl {
  PassRegistry registry;
  /// The backends, kept across modules (their kernel caches).
  BackendCache backends;
  /// Per virtual device i: a cpu instance, and for one of an emulated
  /// type its emulator's device (null otherwise).
  std::vector<std::unique_ptr<Device>> devices, emulated;

  Impl() { registerAllPasses(registry); }

  DiffResult fail(StringRef stage, const Twine &message) {
    DiffResult r;
    r.ok = false;
    r.stage = stage.str();
    r.message = message.str();
    return r;
  }

  DiffResult check(StringRef text, StringRef name, const DiffOptions &opts);

  /// The stages compile, run, interpret and compare, on the planned
  /// module printed as `planned`.
  DiffResult execute(StringRef planned, StringRef name, const DiffOptions &opts);
  DiffResult executeOnce(StringRef planned, StringRef name, const DiffOptions &opts, bool fuse);

  /// The stages run, interpret and compare, on `inputs`.
  DiffResult compareOn(hx::Session &run, ArrayRef<HostTensor> inputs) {
    Expected<std::vector<HostTensor>> got = run.run(inputs);
    if (!got)
      return fail("run", toString(got.takeError()));
    Expected<std::vector<HostTensor>> want = run.interpret(inputs);
    if (!want)
      return fail("interpret", toString(want.takeError()));
    Comparison cmp = compareResults(*got, *want, inputs);
    if (!cmp.mismatch.empty())
      return fail("compare", cmp.mismatch);
    if (!cmp.ok())
      return fail("compare",
                  cmp.where() + ": " + cmp.explain() + " (" + cmp.tolerance.describe() + ")");
    return {};
  }
};

DiffResult DifferentialTester::Impl::check(StringRef text, StringRef name,
                                           const DiffOptions &opts) {
  TextSession s(text, name);
  std::unique_ptr<Module> m = s.parse();
  if (!m)
    return fail("parse", s.errors);

  std::string p0 = print(*m);
  {
    TextSession again(p0, name.str() + " (printed)");
    std::unique_ptr<Module> m2 = again.parse();
    if (!m2)
      return fail("round-trip", "the printed module does not parse:\n" + again.errors);
    std::string p = print(*m2);
    if (p != p0)
      return fail("round-trip", "print(parse(print(m))) != print(m) at " + firstDifference(p0, p));
  }

  if (!s.plan(*m, registry))
    return fail("plan", s.errors);
  if (!verifyPlacement(*m, s.diags))
    return fail("placement", s.errors);

  std::string p1 = print(*m);
  {
    TextSession again(p1, name.str() + " (planned)");
    std::unique_ptr<Module> m2 = again.parse();
    if (!m2)
      return fail("idempotence", "the planned module does not parse:\n" + again.errors);
    std::string printed = print(*m2);
    if (printed != p1)
      return fail("idempotence",
                  "the planned module does not round-trip at " + firstDifference(p1, printed));
    if (!again.plan(*m2, registry))
      return fail("idempotence", "planning the planned module fails:\n" + again.errors);
    std::string p2 = print(*m2);
    if (p2 != p1)
      return fail("idempotence", "planning again changes the module at " + firstDifference(p1, p2));
  }
  if (!opts.execute)
    return {};

  return execute(p1, name, opts);
}

DiffResult DifferentialTester::Impl::execute(StringRef planned, StringRef name,
                                             const DiffOptions &opts) {
  // One kernel per call, then fused (fuse-ops), as hx-run runs it.
  DiffResult r = executeOnce(planned, name, opts, /*fuse=*/false);
  if (!r.ok)
    return r;
  DiffResult fused = executeOnce(planned, name, opts, /*fuse=*/true);
  if (!fused.ok) {
    fused.stage += " (fused)";
    return fused;
  }
  return r;
}

DiffResult DifferentialTester::Impl::executeOnce(StringRef planned, StringRef name,
                                                 const DiffOptions &opts, bool fuse) {
  // Through the compile-and-run API, as hx-run runs it, on the devices and
  // backends this tester keeps across modules.
  hx::Session run;
  std::string errors;
  run.diags().setHandler([&](const Diagnostic &d) {
    if (d.severity != Severity::Error)
      return;
    raw_string_ostream os(errors);
    run.diags().print(os, d);
  });
  // The planned text (its planning is checked idempotent above): typed
  // again, not planned again.
  LoadOptions lo;
  lo.plan = false;
  lo.fuse = fuse;
  if (run.loadText(planned, name, lo) != hx::Session::Status::Ok)
    return fail("plan", errors);
  const Module &m = run.module();
  Function *main = run.main();
  if (!main)
    return fail("compile", "no @main");
  size_t n = std::max<size_t>(1, m.devices.size());
  DeviceOptions one;
  one.threads = 1;
  while (devices.size() < n)
    devices.push_back(cantFail(hostBackend().createDevice(unsigned(devices.size()), one)));
  std::vector<Device *> devs;
  for (size_t i = 0; i < n; ++i) {
    Device *d = devices[i].get();
    const BackendInfo *emu = nullptr;
    if (i < m.devices.size() && is_contained(opts.emulate, m.devices[i].deviceType))
      emu = emulatorFor(m.devices[i].deviceType);
    if (emu) {
      if (emulated.size() <= i)
        emulated.resize(i + 1);
      if (!emulated[i] || emulated[i]->backend() != emu->name)
        emulated[i] = cantFail(emu->createDevice(unsigned(i), one));
      d = emulated[i].get();
    }
    devs.push_back(d);
  }
  CompileOptions co;
  co.checkDevices = true;
  if (Error e = run.compileFor(devs, backends, co)) {
    if (e.isA<DiagnosedError>()) {
      consumeError(std::move(e));
      return fail("compile", errors);
    }
    return fail("compile", toString(std::move(e)));
  }
  Expected<std::vector<HostTensor>> inputs = randomInputs(*main, opts.inputSeed);
  if (!inputs)
    return fail("run", toString(inputs.takeError()));
  DiffResult r = compareOn(run, *inputs);
  r.inputs = std::move(*inputs);
  r.inputNames = paramNames(*main);
  return r;
}

DifferentialTester::DifferentialTester() : impl(std::make_unique<Impl>()) {}
DifferentialTester::~DifferentialTester() = default;

DiffResult DifferentialTester::check(StringRef text, StringRef name, const DiffOptions &opts) {
  try {
    return impl->check(text, name, opts);
  } catch (std::exception &e) {
    return impl->fail("internal", e.what());
  }
}
