//===- CompileCache.cpp - Compiled models kept between processes ----------===//
//
// See CompileCache.h. The key is xxh3-128 over length-prefixed fields, so
// that no two different field lists give the same bytes.
//
//===----------------------------------------------------------------------===//
#include "hx/Run/CompileCache.h"
#include "hx/Import/Onnx.h"
#include "hx/Run/Session.h"
#include "hx/Support/ByteStream.h"
#include "hx/Support/Files.h"
#include "hx/Support/Version.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"
#include <algorithm>
#include <cstdlib>
#include <vector>

using namespace llvm;

namespace hx {

std::string compileCacheDir() {
  auto env = [](const char *name) -> std::string {
    const char *v = std::getenv(name);
    return v ? v : "";
  };
  if (env("HX_CACHE") == "0")
    return "";
  if (std::string dir = env("HX_CACHE_DIR"); !dir.empty())
    return dir;
  SmallString<256> dir;
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty())
    dir = xdg;
  else if (std::string home = env("HOME"); !home.empty())
    sys::path::append(dir, home, ".cache");
  else
    return "";
  sys::path::append(dir, "hx");
  return dir.str().str();
}

/// The host's CPU and its features, sorted: code compiled here runs where
/// they are the same.
static std::string hostCPU() {
  std::vector<std::string> features;
  for (const auto &[name, on] : sys::getHostCPUFeatures())
    features.push_back((on ? "+" : "-") + name.str());
  std::sort(features.begin(), features.end());
  std::string out = sys::getHostCPUName().str() + ";" + sys::getProcessTriple();
  for (const std::string &f : features)
    out += "," + f;
  return out;
}

/// The name, size and hash of each file an ONNX model keeps tensors in
/// ("" when it keeps none); none when one cannot be read.
static std::optional<std::string> externalDataKey(StringRef path, StringRef bytes) {
  std::string out;
  if (path.empty() || !isOnnxFile(path, bytes))
    return out;
  ReadFileOptions ro;
  ro.nullTerminated = false;
  for (const std::string &f : onnxExternalDataFiles(bytes, path)) {
    Expected<std::unique_ptr<MemoryBuffer>> data = readUserFile(f, ro);
    if (!data) {
      consumeError(data.takeError());
      return std::nullopt;
    }
    StringRef b = (*data)->getBuffer();
    out += formatv("\nexternal {0}={1}:{2:x-16}", f, b.size(),
                   xxh3_64bits(ArrayRef<uint8_t>(b.bytes_begin(), b.bytes_end())))
               .str();
  }
  return out;
}

std::optional<std::string> compileCacheEntry(StringRef dir, StringRef path, StringRef model,
                                             StringRef options) {
  if (isCompiledModel(model))
    return std::nullopt;
  std::optional<std::string> external = externalDataKey(path, model);
  if (!external)
    return std::nullopt;
  std::string fields;
  ByteWriter w(fields);
  w.bytes(hxVersion());
  w.bytes(hostCPU());
  w.bytes(options);
  w.bytes(*external);
  w.u64(xxh3_64bits(ArrayRef<uint8_t>(model.bytes_begin(), model.bytes_end())));
  w.u64(model.size());
  XXH128_hash_t h = xxh3_128bits(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(fields.data()), fields.size()));
  SmallString<256> entry(dir);
  sys::path::append(entry, formatv("{0:x-16}{1:x-16}.hxc", h.high64, h.low64).str());
  return entry.str().str();
}

Expected<std::optional<LoadedCompiledModel>> readCompileCacheEntry(StringRef entry) {
  if (!sys::fs::exists(entry))
    return std::nullopt;
  ReadFileOptions ro;
  ro.nullTerminated = false;
  Expected<std::unique_ptr<MemoryBuffer>> file = readUserFile(entry, ro);
  if (!file)
    return createStringError(entry + ": " + toString(file.takeError()));
  Expected<LoadedCompiledModel> m = parseCompiled(std::move(*file), entry);
  if (!m)
    return m.takeError();
  return std::optional<LoadedCompiledModel>(std::move(*m));
}

Error writeCompileCacheEntry(Session &s, StringRef entry, StringRef log) {
  if (std::error_code ec = sys::fs::create_directories(sys::path::parent_path(entry)))
    return createStringError("cannot create the compile cache '" + sys::path::parent_path(entry) +
                             "': " + ec.message());
  return s.saveCompiled(entry, log);
}

} // namespace hx
