//===- hx-fuzz-metadata.cpp - libFuzzer target: the metadata readers ------===//
//
// Target (c), metadata half: the input is the `#[metadata]` section of a
// fixed module — hx's tables (VirtualDevice, PassConfig, relay.Constant with
// inline data) or TVM's object graph (nodes, b64ndarrays) — read by
// lib/Parser's readers. The first byte picks the module: one that uses no
// metadata, or one that uses two constants and a virtual device. A module
// that parses is printed; the printed text (hx's table) must parse back to
// itself, and infer-type, plan-devices round trip as in hx-fuzz-plan.
// Relative `npy` paths resolve in an empty directory; run with stdin
// redirected (utils/run-fuzzer.sh does), as a path may name /dev/stdin.
//
// Built only with -DHX_ENABLE_FUZZER=ON; run it with utils/run-fuzzer.sh
// metadata.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "llvm/Support/FileSystem.h"

using namespace hx;
using namespace hx::fuzz;

namespace {
const char *const kModules[] = {
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2, 3), float32]) {\n"
    "  negative(%x)\n"
    "}\n"
    "#[metadata]\n",
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2, 3), float32]) {\n"
    "  %0 = add(%x, meta[relay.Constant][0]);\n"
    "  %1 = on_device(%0, virtual_device=meta[VirtualDevice][0]);\n"
    "  multiply(%1, meta[relay.Constant][1])\n"
    "}\n"
    "#[metadata]\n",
};

const ParserOptions &options() {
  static const ParserOptions opts = [] {
    ParserOptions o;
    SmallString<128> dir;
    if (!sys::fs::createUniqueDirectory("hx-fuzz-metadata", dir))
      o.baseDirectory = std::string(dir);
    return o;
  }();
  return opts;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string text = std::string(kModules[data[0] % std::size(kModules)]) +
                     std::string(reinterpret_cast<const char *>(data) + 1, size - 1);
  Parsed p(text, "<fuzz>", options());
  if (!p.module || !verifyModule(*p.module, p.diags))
    return 0;
  std::string printed = print(*p.module);
  checkRoundTrip(printed, printed, "parse");
  if (runPipeline(p, "infer-type,plan-devices", printed))
    checkPipelineOutput(p, "infer-type,plan-devices");
  return 0;
}
