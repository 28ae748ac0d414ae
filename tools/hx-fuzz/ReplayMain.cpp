//===- ReplayMain.cpp - The fuzz targets without libFuzzer ----------------===//
//
// In a build without HX_ENABLE_FUZZER, each fuzz target links this `main`
// instead of libFuzzer's: it runs LLVMFuzzerTestOneInput once on every file
// named on the command line (a directory: every file in it, sorted), so CI
// replays the seed corpora and the regression inputs of test/Fuzz through
// the same checks the fuzzer makes. A finding aborts, as under libFuzzer.
//
//===----------------------------------------------------------------------===//
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!sys::fs::is_directory(argv[i])) {
      files.push_back(argv[i]);
      continue;
    }
    std::vector<std::string> inDir;
    std::error_code ec;
    for (sys::fs::directory_iterator it(argv[i], ec), end; it != end && !ec; it.increment(ec))
      inDir.push_back(it->path());
    if (ec) {
      errs() << argv[0] << ": " << argv[i] << ": " << ec.message() << "\n";
      return 1;
    }
    llvm::sort(inDir);
    files.insert(files.end(), inDir.begin(), inDir.end());
  }
  for (const std::string &f : files) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> buf =
        MemoryBuffer::getFile(f, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!buf) {
      errs() << argv[0] << ": " << f << ": " << buf.getError().message() << "\n";
      return 1;
    }
    StringRef bytes = (*buf)->getBuffer();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  outs() << sys::path::filename(argv[0]) << ": " << files.size() << " inputs, no finding\n";
  return 0;
}
