//===- Parser.h - Text to IR ------------------------------------*- C++ -*-===//
#ifndef HX_PARSER_PARSER_H
#define HX_PARSER_PARSER_H

#include "hx/IR/Module.h"
#include "hx/Support/Diagnostics.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <optional>
#include <string>

namespace hx {

/// The deepest bracket nesting any caller may ask for: parsing recurses on
/// nesting, and deeper input would overflow an 8 MiB stack (measured: 16384
/// levels do, 8192 do not).
constexpr unsigned kMaxNestingLimit = 4096;
/// The stack of the thread that parses when --max-nesting is above 256.
constexpr unsigned kDeepParseStackBytes = 256u << 20;

struct ParserOptions {
  /// A virtual-device table given on the command line (TVM's Python
  /// "metatable"): JSON, either `{"VirtualDevice": [...], "PassConfig": {...}}`
  /// or a bare array of devices. It wins over the file's `#[metadata]`.
  std::optional<std::string> virtualDevices;
  /// Deepest bracket nesting accepted (deeper input is a located error);
  /// values above kMaxNestingLimit count as kMaxNestingLimit.
  unsigned maxNesting = 256;
  /// The directory `.npy` paths in the metadata's constant table are relative
  /// to; by default the parsed file's directory.
  std::optional<std::string> baseDirectory;
  /// `.npy` files held in memory (an imported ONNX model's weights), by the
  /// path the constant table names; looked up before the disk. Not owned.
  const llvm::StringMap<HostTensor> *npyFiles = nullptr;
  /// Constants held in memory, by the name the constant table gives as its
  /// `npy`: the module shares them as they are (a compiled model file's,
  /// no copy). Looked up first. Not owned.
  const llvm::StringMap<std::shared_ptr<const TensorData>> *heldConstants = nullptr;
  /// A constant table's `.npy` names only npyFiles and heldConstants: no
  /// file is read (a compiled model file's module).
  bool npyFilesOnly = false;
};

/// Parses the buffer `bufferId` of the engine's SourceMgr. Returns null after
/// reporting a located diagnostic.
std::unique_ptr<Module> parseModule(unsigned bufferId, DiagEngine &diags,
                                    const ParserOptions &opts = {});

} // namespace hx

#endif
