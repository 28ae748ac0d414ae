//===- GenericCPUBackend.cpp - A test target: the cpu without its features ===//
//
// `cpu-generic`: the cpu target's compiler for the architecture's baseline
// CPU (`llvm -mcpu=generic`: on x86-64 SSE2, no AVX or FMA) and cpu device
// instances named cpu-generic:N. It exists to test hx, and shows what
// adding a target takes (docs/adding-a-target.md): this folder, whose
// CMakeLists.txt registers genericCPUBackendInfo with hx_target, and
// nothing else — no file outside it names it
// (test/Targets/self-contained.test). `hx-run --device=cpu-generic:0` runs
// a virtual device on it (test/Targets/GenericCPU), and the conformance
// suite runs every operator through every test-only target of the
// registry, so code generation without the host's vector features is
// checked against the interpreter on every machine.
//
//===----------------------------------------------------------------------===//
#include "hx/Targets/CPU/CPUBackend.h"
#include "hx/Targets/Registry.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace hx {

static Expected<std::unique_ptr<Backend>> createGenericCPUBackend(const Target &target,
                                                                  const BackendOptions &opts) {
  // This backend is the baseline CPU: a target that asks for a CPU or
  // features of its own is not one it can honour.
  if (!target.options.empty() && !(target.options.size() == 1 && target.options[0].first == "keys"))
    return createStringError("the cpu-generic backend compiles for the generic CPU only, not for "
                             "target '" +
                             target.str() + "'");
  CPUBackendOptions o;
  o.keepIR = opts.keepCode;
  o.keepObjects = opts.keepKernels;
  o.saved = opts.saved;
  o.name = "cpu-generic";
  o.target = target;
  o.target.options = {{"mcpu", "generic"}};
  return createCPUBackend(o);
}

static Expected<std::unique_ptr<Device>> createGenericCPUDevice(unsigned ordinal,
                                                                const DeviceOptions &opts) {
  return createCPUDevice(ordinal, opts.threads, opts.memoryLimit, "cpu-generic");
}

BackendInfo genericCPUBackendInfo() {
  BackendInfo b;
  b.name = "cpu-generic";
  b.summary = "the cpu backend for the baseline CPU of the host's architecture (testing)";
  b.targetKind = "llvm";
  b.codeFormat = "llvm";
  b.codeName = "LLVM IR";
  b.testOnly = true;
  b.createBackend = createGenericCPUBackend;
  b.createDevice = createGenericCPUDevice;
  return b;
}

} // namespace hx
