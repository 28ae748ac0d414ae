//===- FuzzCommon.h - What the hx libFuzzer targets share -------*- C++ -*-===//
//
// The fuzz targets (hx-fuzz, hx-fuzz-plan, hx-fuzz-metadata, hx-fuzz-exec)
// parse text with a diagnostics handler that renders every diagnostic (so a
// location outside the buffer is caught by ASan) and keeps the first for the
// abort message; they check that printed text parses back to itself and
// that a pipeline is idempotent. A user error is fine; anything else aborts,
// so libFuzzer records the input. Header-only: each target is one file.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_HX_FUZZ_FUZZCOMMON_H
#define HX_TOOLS_HX_FUZZ_FUZZCOMMON_H

#include "hx/IR/Printer.h"
#include "hx/IR/Verifier.h"
#include "hx/Parser/Parser.h"
#include "hx/Pass/Pass.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <string>

namespace hx::fuzz {
using namespace llvm;

/// A parse of `text` whose diagnostics are rendered, then dropped.
struct Parsed {
  SourceMgr sm;
  DiagEngine diags{sm};
  std::unique_ptr<Module> module;
  /// The first diagnostic, kept for the abort message.
  std::string firstError;

  explicit Parsed(StringRef text, StringRef name, const ParserOptions &opts = {}) {
    diags.setHandler([this](const Diagnostic &d) {
      std::string rendered;
      raw_string_ostream os(rendered);
      diags.print(os, d);
      if (firstError.empty())
        firstError = std::move(rendered);
    });
    unsigned id = sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, name), SMLoc());
    module = parseModule(id, diags, opts);
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

inline std::string print(const Module &m, bool types = false) {
  std::string s;
  raw_string_ostream os(s);
  PrintOptions po;
  po.printTypes = types;
  printModule(os, m, po);
  return s;
}

/// `text` was printed by hx: it must parse, verify and print as `expected`.
inline void checkRoundTrip(StringRef text, StringRef expected, StringRef stage) {
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

inline const PassRegistry &registry() {
  static PassRegistry r = [] {
    PassRegistry reg;
    registerAllPasses(reg);
    return reg;
  }();
  return r;
}

/// Runs `pipeline` (hx-opt --passes syntax) on `p.module`. Returns false when
/// a pass reports a user error; aborts when the module does not verify after
/// a pass.
inline bool runPipeline(Parsed &p, StringRef pipeline, StringRef text) {
  PassManagerOptions pmo;
  pmo.verifyEach = true;
  PassManager pm(pmo);
  if (!parsePassPipeline(pipeline, registry(), pm, p.diags))
    p.fail("invalid pipeline '" + pipeline.str() + "'", "");
  PassContext ctx{p.diags};
  bool internal = false;
  bool ok = pm.run(*p.module, ctx, &internal);
  if (internal)
    p.fail("the module does not verify after the pipeline '" + pipeline.str() + "'", text);
  return ok;
}

/// After `pipeline` succeeded on `p`: its output round-trips (with and
/// without `--print-types`), and the pipeline run on that output succeeds
/// and prints it unchanged. Returns the output.
inline std::string checkPipelineOutput(Parsed &p, StringRef pipeline) {
  std::string out = print(*p.module);
  checkRoundTrip(out, out, "after the pipeline");
  checkRoundTrip(print(*p.module, /*types=*/true), out, "after the pipeline, --print-types");
  Parsed again(out, "<pipeline output>");
  if (!again.module || !runPipeline(again, pipeline, out))
    again.fail("the pipeline '" + pipeline.str() + "' fails on its own output", out);
  std::string twice = print(*again.module);
  if (twice != out) {
    errs() << "hx-fuzz: the pipeline '" << pipeline << "' is not idempotent\n---- once ----\n"
           << out << "---- twice ----\n"
           << twice << "---- end ----\n";
    std::abort();
  }
  return out;
}

} // namespace hx::fuzz

#endif
