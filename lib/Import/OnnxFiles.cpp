//===- OnnxFiles.cpp - Model files for the tools --------------------------===//
//
// hx-opt, hx-run and Session::loadFile read every input through
// readModuleFile: hx text as it is, an ONNX model imported to text and
// weights held in memory for the parser.
//
//===----------------------------------------------------------------------===//
#include "hx/Import/Onnx.h"
#include "hx/Support/Files.h"
#include "llvm/Support/Path.h"

using namespace hx;
using namespace llvm;

bool hx::isOnnxFile(StringRef path, StringRef bytes) {
  return path.ends_with_insensitive(".onnx") || (!bytes.empty() && bytes[0] == '\x08');
}

std::string hx::modelDirOf(StringRef path) {
  if (path == "-")
    return "";
  StringRef dir = sys::path::parent_path(path);
  return dir.empty() ? "." : dir.str();
}

Expected<std::unique_ptr<MemoryBuffer>>
hx::readModuleFile(StringRef path, StringMap<HostTensor> &weights, const OnnxImportOptions &given) {
  ReadFileOptions ro;
  ro.allowStdin = true;
  Expected<std::unique_ptr<MemoryBuffer>> file = readUserFile(path, ro);
  if (!file)
    return createStringError("cannot open '" + path + "': " + toString(file.takeError()));
  return readModuleFile(std::move(*file), path, weights, given);
}

Expected<std::unique_ptr<MemoryBuffer>> hx::readModuleFile(std::unique_ptr<MemoryBuffer> file,
                                                           StringRef path,
                                                           StringMap<HostTensor> &weights,
                                                           const OnnxImportOptions &given) {
  if (!isOnnxFile(path, file->getBuffer()))
    return std::move(file);
  OnnxImportOptions opts = given;
  opts.weightsDir = (path == "-" ? std::string("model") : sys::path::stem(path).str()) + ".weights";
  opts.modelDir = modelDirOf(path);
  Expected<ImportedModule> imported = importOnnx(file->getBuffer(), path, opts);
  if (!imported)
    return imported.takeError();
  for (auto &[name, tensor] : imported->weights)
    weights[name] = std::move(tensor);
  return MemoryBuffer::getMemBufferCopy(imported->text, path);
}
