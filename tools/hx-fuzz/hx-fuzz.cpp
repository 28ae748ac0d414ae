//===- hx-fuzz.cpp - libFuzzer target: parse, verify, print, round trip ---===//
//
// Target (a). For each input:
//  1. Parse it with every diagnostic rendered (FuzzCommon.h). A failed parse
//     must have reported an error.
//  2. Verify it and print it (text A); A must parse, verify and print back
//     to exactly A.
//  3. Run `infer-type` (or $HX_FUZZ_PIPELINE, hx-opt --passes syntax) with
//     verify-each; if it succeeds, its output round-trips, with and without
//     `--print-types`, and the pipeline run again on it prints it unchanged.
//
// hx-fuzz-plan (target b) does the same with plan-devices. Built only with
// -DHX_ENABLE_FUZZER=ON; run it with utils/run-fuzzer.sh.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"

using namespace hx;
using namespace hx::fuzz;

namespace {
const std::string &pipelineText() {
  static const std::string text = [] {
    const char *env = std::getenv("HX_FUZZ_PIPELINE");
    return std::string(env && *env ? env : "infer-type");
  }();
  return text;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  errs() << "hx-fuzz: pipeline '" << pipelineText() << "'\n";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef input(reinterpret_cast<const char *>(data), size);
  Parsed p(input, "<fuzz>");
  if (!p.module || !verifyModule(*p.module, p.diags))
    return 0;
  std::string text = print(*p.module);
  checkRoundTrip(text, text, "parse");
  if (runPipeline(p, pipelineText(), text))
    checkPipelineOutput(p, pipelineText());
  return 0;
}
