//===- CompiledFile.h - A compiled model as one file (.hxc) -----*- C++ -*-===//
//
// What hx-compile writes and hx-run, hx.load_compiled and the compile
// cache read: a planned, fused module with its constants and every
// backend's compiled kernels, so that a later process builds the
// executable without running LLVM (Session::saveCompiled and
// Session::loadCompiled, hx/Run/Session.h). docs/compiled.md describes the
// layout; in short:
//
//   magic "\x89HXC\r\n\x1a\n", u32 format version, hx's version (a byte
//   string), the payload's byte count and its xxh3 hash, then the payload:
//   the compile's log (compile cache entries), the module's
//   text (its tensor constants named
//   `hxc:<i>`), the constants (dtype, shape, bytes), per backend its
//   name, target key and saved kernels (Backend::saveKernels), and the
//   executable's schedule and memory plan (Executable::save) with, per
//   virtual device, the backend and target key whose kernel ids it names
//   (no schedule for a module that runs in stages: hx/Run/Stages.h).
//
// Reading checks, in order: the magic, the format version, hx's version
// (another hx's file is refused: kernels and IR change between versions),
// the payload's size (truncated) and hash (corrupted), then every field
// (ByteStream.h). Each refusal is an error naming the file.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUN_COMPILEDFILE_H
#define HX_RUN_COMPILEDFILE_H

#include "hx/IR/Expr.h"
#include "hx/Targets/Registry.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <string>
#include <vector>

namespace hx {

constexpr uint32_t kCompiledFormatVersion = 2;

/// What a compiled model file holds, as written.
struct CompiledModelParts {
  /// What the compile reported (warnings and notes, rendered), which the
  /// compile cache replays when it serves the file; empty otherwise.
  std::string log;
  /// The module's text, its tensor constants named constantName(i).
  std::string moduleText;
  std::vector<const TensorData *> constants;
  std::vector<BackendCache::SavedKernels> kernels;
  /// Executable::save's bytes, and per virtual device its backend's name
  /// and target key; both empty when there is no schedule to keep.
  std::string schedule;
  std::vector<std::pair<std::string, std::string>> scheduleBackends;
};

/// The name a compiled file's module gives its constant `i` ("hxc:3").
std::string compiledConstantName(unsigned i);

/// The file's bytes.
std::string serializeCompiled(const CompiledModelParts &parts);

/// A compiled model file as read: everything points into `buffer`.
struct LoadedCompiledModel {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::string version;
  llvm::StringRef log, moduleText;
  /// The constants, by the names the module's text gives them, and in
  /// order (the numbers the schedule gives them).
  llvm::StringMap<std::shared_ptr<const TensorData>> constants;
  std::vector<std::shared_ptr<const TensorData>> constantList;
  struct Kernels {
    llvm::StringRef backend, targetKey, bytes;
  };
  std::vector<Kernels> kernels;
  llvm::StringRef schedule;
  std::vector<std::pair<llvm::StringRef, llvm::StringRef>> scheduleBackends;
};

/// Whether `bytes` start as a compiled model file does.
bool isCompiledModel(llvm::StringRef bytes);

/// The payload of compiled model `bytes` under this hx's header (its
/// version, the payload's size and hash), for the fuzzer, which so reaches
/// the payload's readers with mutated fields; the bytes as they are when
/// they have no header to reseal.
std::string resealCompiled(llvm::StringRef bytes);

/// Reads the file's bytes (`name` for messages). Errors name it.
llvm::Expected<LoadedCompiledModel> parseCompiled(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                  llvm::StringRef name);

} // namespace hx

#endif
