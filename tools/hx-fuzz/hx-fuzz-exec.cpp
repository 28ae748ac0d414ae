//===- hx-fuzz-exec.cpp - libFuzzer target: generated modules, executed --===//
//
// Target (d), structure-aware: the input is not IR but the choices of
// hx-smith's generator, so every input is a valid, well-typed module and the
// fuzzer's mutations move through the space of modules rather than of
// syntax errors. Bytes 0-7: the generator's seed (little-endian); byte 8:
// operator calls (1-24); byte 9: defs (1-4); byte 10: bit 0 no constants,
// bit 1 no annotations; bytes 11-18: the seed of the random inputs. Missing
// bytes read as zero. Each module goes through the differential checks
// (lib/Differential): parse, round trip, plan-devices, the placement
// verifier, re-planning, then the executable on two cpu instances with
// --check-devices against the reference interpreter. Any failure aborts with
// the module's text, so the finding replays alone.
//
// Small modules on purpose: execution dominates, and shapes stay tiny.
// Built only with -DHX_ENABLE_FUZZER=ON for fuzzing (utils/run-fuzzer.sh
// exec); else a replay driver.
//
//===----------------------------------------------------------------------===//
#include "hx/Differential/Differential.h"
#include "hx/Smith/Smith.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>

using namespace hx;
using namespace llvm;

namespace {
uint64_t readU64(const uint8_t *data, size_t size, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i)
    v |= uint64_t(at + i < size ? data[at + i] : 0) << (8 * i);
  return v;
}
uint8_t readU8(const uint8_t *data, size_t size, size_t at) { return at < size ? data[at] : 0; }
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DifferentialTester tester; // compiled kernels are reused across inputs
  SmithOptions so;
  so.seed = readU64(data, size, 0);
  so.calls = 1 + readU8(data, size, 8) % 24;
  so.functions = 1 + readU8(data, size, 9) % 4;
  uint8_t flags = readU8(data, size, 10);
  so.constants = !(flags & 1);
  so.annotations = !(flags & 2);
  SmithModule m = generateModule(so);
  DiffOptions dopts;
  dopts.inputSeed = readU64(data, size, 11);
  DiffResult r = tester.check(m.text, "<hx-fuzz-exec>", dopts);
  if (!r.ok) {
    errs() << "hx-fuzz-exec: seed=" << so.seed << " calls=" << so.calls
           << " functions=" << so.functions << " flags=" << unsigned(flags)
           << " input-seed=" << dopts.inputSeed << ": " << r.stage << ": " << r.message
           << "\n---- module ----\n"
           << m.text << "---- end ----\n";
    std::abort();
  }
  return 0;
}
