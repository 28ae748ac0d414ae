//===- hx-fuzz.cpp - libFuzzer target: parse, verify, print, round trip ---===//
//
// For each input:
//  1. Parse it (hx::parseModule) with a diagnostics handler that renders every
//     diagnostic into a null stream: nothing is printed, but each location is
//     still resolved against the SourceMgr, so a diagnostic pointing outside
//     the buffer is caught by ASan. A failed parse must have reported an error.
//  2. Verify it and print it (text A).
//  3. Round trip: A must parse, verify and print back to exactly A.
//  4. Run `infer-type` (with verify-each) on the module; if it succeeds, the
//     typed module (text B) must round-trip too, and so must the
//     `--print-types` form (its `/* ty=... */` comments are ignored on input).
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
           << expected << "---- second ----\n" << again << "---- end ----\n";
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef input(reinterpret_cast<const char *>(data), size);
  Parsed p(input, "<fuzz>");
  if (!p.module || !verifyModule(*p.module, p.diags))
    return 0;

  std::string text = print(*p.module);
  checkRoundTrip(text, text, "parse");

  PassManagerOptions pmo;
  pmo.verifyEach = true;
  PassManager pm(pmo);
  pm.addPass(createInferTypePass());
  PassOptions options;
  PassContext ctx{p.diags, options};
  bool internal = false;
  bool typed = pm.run(*p.module, ctx, &internal);
  if (internal)
    p.fail("the module does not verify after infer-type", text);
  if (!typed)
    return 0;
  std::string typedText = print(*p.module);
  checkRoundTrip(typedText, typedText, "infer-type");
  checkRoundTrip(print(*p.module, /*types=*/true), typedText, "infer-type, --print-types");
  return 0;
}
