//===- hx-fuzz-hxc.cpp - libFuzzer target: the compiled model reader -------===//
//
// Arbitrary bytes, as a compiled model file (.hxc), are either refused with
// an error naming the file or read; a file that reads loads its module
// (parsed and typed, or refused with diagnostics). The same payload is tried
// again under this hx's header (resealCompiled), so that mutations reach the
// payload's fields past the checksum. Kernels are not linked: a .hxc holds
// machine code, trusted as a shared library is (docs/compiled.md); the
// checksum is what guards against a damaged file.
//
// Built with -DHX_ENABLE_FUZZER=ON; utils/run-fuzzer.sh hxc runs it. In
// other builds the replay driver runs each input once (test/Fuzz).
//
//===----------------------------------------------------------------------===//
#include "hx/Run/CompiledFile.h"
#include "hx/Run/Session.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace hx;
using namespace llvm;

static void check(StringRef bytes, StringRef name) {
  Expected<LoadedCompiledModel> m = parseCompiled(MemoryBuffer::getMemBufferCopy(bytes), name);
  if (!m) {
    std::string msg = toString(m.takeError());
    if (StringRef(msg).find(name) == StringRef::npos) {
      errs() << "hx-fuzz-hxc: an error that does not name the file: " << msg << "\n";
      std::abort();
    }
    return;
  }
  Session s;
  bool reported = false;
  s.diags().setHandler([&](const Diagnostic &) { reported = true; });
  Session::Status st = s.loadCompiled(MemoryBuffer::getMemBufferCopy(bytes, name), name, {});
  if (st == Session::Status::InternalError || (st == Session::Status::UserError && !reported)) {
    errs() << "hx-fuzz-hxc: the module of a readable file failed without a diagnostic\n";
    std::abort();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef input(reinterpret_cast<const char *>(data), size);
  check(input, "<fuzz>.hxc");
  if (isCompiledModel(input))
    check(resealCompiled(input), "<resealed>.hxc");
  return 0;
}
