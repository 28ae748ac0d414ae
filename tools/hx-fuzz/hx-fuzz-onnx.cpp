//===- hx-fuzz-onnx.cpp - libFuzzer target: the ONNX importer -------------===//
//
// importOnnx on arbitrary bytes either fails with an error naming the file
// or writes a module that parses: an imported model is never half a module.
// (The protobuf parser and ONNX's checker are Debian's, not instrumented;
// the fuzzer's coverage is hx's importer and parser.)
//
// Built only with -DHX_ENABLE_FUZZER=ON; run it with utils/run-fuzzer.sh onnx.
//
//===----------------------------------------------------------------------===//
#include "hx/Import/Onnx.h"
#include "hx/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace hx;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef input(reinterpret_cast<const char *>(data), size);
  Expected<ImportedModule> m = importOnnx(input, "<fuzz>.onnx");
  if (!m) {
    std::string msg = toString(m.takeError());
    if (!StringRef(msg).starts_with("<fuzz>.onnx: ")) {
      errs() << "hx-fuzz-onnx: an error that does not name the file: " << msg << "\n";
      std::abort();
    }
    return 0;
  }
  StringMap<HostTensor> weights;
  for (auto &[name, tensor] : m->weights)
    weights[name] = std::move(tensor);
  SourceMgr sm;
  DiagEngine diags(sm);
  std::string errors;
  diags.setHandler([&](const Diagnostic &d) { errors += d.message + "\n"; });
  unsigned id =
      sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(m->text, "<fuzz>.ir"), SMLoc());
  ParserOptions opts;
  opts.npyFiles = &weights;
  if (!parseModule(id, diags, opts)) {
    errs() << "hx-fuzz-onnx: the imported module does not parse:\n" << errors << m->text << "\n";
    std::abort();
  }
  return 0;
}
