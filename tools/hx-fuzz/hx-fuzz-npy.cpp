//===- hx-fuzz-npy.cpp - libFuzzer target: the .npy reader ----------------===//
//
// Target (c), .npy half: parseNpy on arbitrary bytes either fails with an
// error naming the input or returns a tensor; a tensor's serialized bytes
// parse back to the same bytes (dtype, shape and data survive the round
// trip, whatever order, version or byte order the input used).
//
// Built only with -DHX_ENABLE_FUZZER=ON; run it with utils/run-fuzzer.sh npy.
//
//===----------------------------------------------------------------------===//
#include "hx/Tensor/Npy.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace hx;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef input(reinterpret_cast<const char *>(data), size);
  Expected<HostTensor> t = parseNpy(input, "<fuzz>.npy");
  if (!t) {
    std::string msg = toString(t.takeError());
    if (StringRef(msg).find("<fuzz>.npy") == StringRef::npos) {
      errs() << "hx-fuzz-npy: an error that does not name the file: " << msg << "\n";
      std::abort();
    }
    return 0;
  }
  std::string once = serializeNpy(*t);
  Expected<HostTensor> back = parseNpy(once, "<serialized>.npy");
  if (!back) {
    errs() << "hx-fuzz-npy: serialized tensor does not parse: " << toString(back.takeError())
           << "\n";
    std::abort();
  }
  if (serializeNpy(*back) != once) {
    errs() << "hx-fuzz-npy: the round trip changed the tensor\n";
    std::abort();
  }
  return 0;
}
