//===- CompileCache.h - Compiled models kept between processes ---*- C++ -*-===//
//
// hx-run and hx.compile keep what they compile in a cache directory as
// compiled model files (CompiledFile.h), so that the next process given the
// same model with the same options loads it instead of compiling: ccache
// for models.
//
//  - The directory: $HX_CACHE_DIR, else $XDG_CACHE_HOME/hx, else
//    $HOME/.cache/hx. hx-run --no-cache and hx.compile(cache=False) turn it
//    off, and so does HX_CACHE=0 for every process (the test suites).
//  - The key: a hash of hx's version, the host's CPU and its features, the
//    model's bytes, and the caller's text for every option that shapes the
//    compile (planning, fusing, folding, devices, ...). An entry is
//    `<dir>/<key>.hxc`.
//  - Entries are written whole or not at all (writeFileAtomically): two
//    processes filling one entry at once each rename a complete file over
//    it, and a reader sees one of them.
//  - An entry that cannot be read (truncated, corrupted, another hx) is a
//    miss, with the reason for a warning; the compile then replaces it.
//  - Each entry holds the diagnostics its compile printed (CompiledFile's
//    log), which a hit prints again.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUN_COMPILECACHE_H
#define HX_RUN_COMPILECACHE_H

#include "hx/Run/CompiledFile.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>

namespace hx {

class Session;

/// The cache directory ("" when the environment names none, or HX_CACHE=0).
std::string compileCacheDir();

/// The entry of a model in `dir`: `<dir>/<key>.hxc`.
std::string compileCacheEntry(llvm::StringRef dir, llvm::StringRef model, llvm::StringRef options);

/// What a key must hold besides the model's bytes when the model `bytes`,
/// read from `path`, is an ONNX model that keeps tensors in other files:
/// each file's name, size and hash ("" when it keeps none). None when such
/// a file cannot be read: no entry then, and the load reports it.
std::optional<std::string> externalDataKey(llvm::StringRef path, llvm::StringRef bytes);

/// The entry as read, or nullopt when there is none; an error says why an
/// existing entry cannot be used (the caller warns, and compiles).
llvm::Expected<std::optional<LoadedCompiledModel>> readCompileCacheEntry(llvm::StringRef entry);

/// Writes the compiled session (compiled with keepKernels) to `entry`,
/// creating the directory; `log` is what its compile printed.
llvm::Error writeCompileCacheEntry(Session &s, llvm::StringRef entry, llvm::StringRef log);

} // namespace hx

#endif
