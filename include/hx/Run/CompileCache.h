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

/// The entry of a model in `dir`: `<dir>/<key>.hxc`, keyed by hx's version,
/// the host, `options` and the model's bytes, and, for an ONNX model read
/// from `path` ("" for text given as is) that keeps tensors in other files,
/// by those files' bytes. None for a compiled model (nothing to cache), or
/// when such a file cannot be read (the load reports it).
std::optional<std::string> compileCacheEntry(llvm::StringRef dir, llvm::StringRef path,
                                             llvm::StringRef model, llvm::StringRef options);

/// The entry as read, or nullopt when there is none; an error says why an
/// existing entry cannot be used (the caller warns, and compiles).
llvm::Expected<std::optional<LoadedCompiledModel>> readCompileCacheEntry(llvm::StringRef entry);

/// Writes the compiled session (compiled with keepKernels) to `entry`,
/// creating the directory; `log` is what its compile printed.
llvm::Error writeCompileCacheEntry(Session &s, llvm::StringRef entry, llvm::StringRef log);

} // namespace hx

#endif
