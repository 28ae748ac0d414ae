//===- hx-fuzz.cpp - libFuzzer target: parse, verify, print, round trip ---===//
//
// For each input:
//  1. Parse it (hx::parseModule) with a diagnostics handler that swallows the
//     diagnostics but still renders each one into a string (the first is kept
//     for the abort message), so every location is resolved against the
//     SourceMgr and a diagnostic pointing outside the buffer is caught by
//     ASan. A failed parse must have reported an error.
//  2. Verify it and print it (text A).
//  3. Round trip: A must parse, verify and print back to exactly A.
//  4. Run the pipeline (`infer-type`, or $HX_FUZZ_PIPELINE, e.g.
//     `infer-type,plan-devices`) with verify-each; if it succeeds, its output
//     (text B) must round-trip too, and so must the `--print-types` form (its
//     `/* ty=... */` comments are ignored on input).
//  5. Idempotence: the pipeline run again on the parsed text B must succeed
//     and print B.
//
// Any user error is fine; a crash, a sanitizer report, an exception escaping
// the library, a module that does not verify after a pass, or a round-trip
// mismatch aborts, so libFuzzer records the input.
//
// Built only with -DHX_ENABLE_FUZZER=ON; run it with utils/run-fuzzer.sh.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/Printer.h"
#include "hx/IR/Verifier.h"
#include "hx/Parser/Parser.h"
#include "hx/Pass/Pass.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace hx;
using namespace llvm;

namespace {

/// A parse of `text` whose diagnostics are rendered, then dropped.
struct Parsed {
  SourceMgr sm;
  DiagEngine diags{sm};
  std::unique_ptr<Module> module;
  /// The first diagnostic, kept for the abort message.
  std::string firstError;

  explicit Parsed(StringRef text, StringRef name) {
    diags.setHandler([this](const Diagnostic &d) {
      std::string rendered;
      raw_string_ostream os(rendered);
      diags.print(os, d);
      if (firstError.empty())
        firstError = std::move(rendered);
    });
    unsigned id = sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, name), SMLoc());
    module = parseModule(id, diags);
    if (!module && !diags.hadError())
      fail("parseModule failed without reporting an error", text);
  }

  [[noreturn]] void fail(StringRef what, StringRef text) {
    errs() << "hx-fuzz: " << what << "\n";
    if (!firstError.empty())
      errs() << firstError;
    errs() << "---- text ----\n" << text << "\n---- end ----\n";
    std::abort();
  }
};

std::string print(const Module &m, bool types = false) {
  std::string s;
  raw_string_ostream os(s);
  PrintOptions po;
  po.printTypes = types;
  printModule(os, m, po);
  return s;
}

/// `text` was printed by hx: it must parse, verify and print as `expected`.
void checkRoundTrip(StringRef text, StringRef expected, StringRef stage) {
  Parsed p(text, "<printed>");
  if (!p.module)
    p.fail(("printed module does not parse back (" + stage + ")").str(), text);
  if (!verifyModule(*p.module, p.diags))
    p.fail(("printed module does not verify (" + stage + ")").str(), text);
  std::string again = print(*p.module);
  if (again != expected) {
    errs() << "hx-fuzz: round trip changed the module (" << stage << ")\n---- first ----\n"
           << expected << "---- second ----\n"
           << again << "---- end ----\n";
    std::abort();
  }
}

/// The passes run on every module that parses: `infer-type` unless
/// $HX_FUZZ_PIPELINE names others (hx-opt --passes syntax).
std::string &pipelineText() {
  static std::string text = [] {
    const char *env = std::getenv("HX_FUZZ_PIPELINE");
    return std::string(env && *env ? env : "infer-type");
  }();
  return text;
}

const PassRegistry &registry() {
  static PassRegistry r = [] {
    PassRegistry reg;
    registerAllPasses(reg);
    return reg;
  }();
  return r;
}

/// Runs the pipeline on `p.module`. Returns false when a pass reports a user
/// error; aborts when the module does not verify after a pass.
bool runPipeline(Parsed &p, StringRef text) {
  PassManagerOptions pmo;
  pmo.verifyEach = true;
  PassManager pm(pmo);
  if (!parsePassPipeline(pipelineText(), registry(), pm, p.diags))
    p.fail("invalid HX_FUZZ_PIPELINE '" + pipelineText() + "'", "");
  PassContext ctx{p.diags};
  bool internal = false;
  bool ok = pm.run(*p.module, ctx, &internal);
  if (internal)
    p.fail("the module does not verify after the pipeline '" + pipelineText() + "'", text);
  return ok;
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

  if (!runPipeline(p, text))
    return 0;
  std::string typedText = print(*p.module);
  checkRoundTrip(typedText, typedText, "after the pipeline");
  checkRoundTrip(print(*p.module, /*types=*/true), typedText, "after the pipeline, --print-types");

  Parsed again(typedText, "<pipeline output>");
  if (!again.module || !runPipeline(again, typedText))
    again.fail("the pipeline fails on its own output", typedText);
  std::string twice = print(*again.module);
  if (twice != typedText) {
    errs() << "hx-fuzz: the pipeline is not idempotent\n---- once ----\n"
           << typedText << "---- twice ----\n"
           << twice << "---- end ----\n";
    std::abort();
  }
  return 0;
}
