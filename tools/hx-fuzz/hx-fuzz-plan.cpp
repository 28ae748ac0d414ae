//===- hx-fuzz-plan.cpp - libFuzzer target: parse, plan, verify, print ----===//
//
// Target (b): parse → infer-type → plan-devices → verify → print. Each input
// runs under one of a few plan-devices configurations, chosen by a hash of
// the input so a crash replays alone: the default, a default device of the
// target-kind table's first kind that is not the host,
// --strict-placement, --replicate-cheap. With verify-each, a pass that
// leaves IR the verifier rejects aborts. A planned module must round-trip
// and plan again to itself (idempotence, as hx-opt's tests require).
//
// Built only with -DHX_ENABLE_FUZZER=ON; run it with utils/run-fuzzer.sh plan.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/Hashing.h"

using namespace hx;
using namespace hx::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string kPipelines[] = {
      "infer-type,plan-devices",
      "infer-type,plan-devices{default-device=" +
          deviceTypeName(firstNonHostKind()->deviceType).str() + "}",
      "infer-type,plan-devices{strict-placement=true}",
      "infer-type,plan-devices{replicate-cheap=true}",
  };
  StringRef input(reinterpret_cast<const char *>(data), size);
  StringRef pipeline = kPipelines[hash_value(input) % std::size(kPipelines)];
  Parsed p(input, "<fuzz>");
  if (!p.module || !verifyModule(*p.module, p.diags))
    return 0;
  std::string text = print(*p.module);
  if (runPipeline(p, pipeline, text))
    checkPipelineOutput(p, pipeline);
  return 0;
}
