//===- Onnx.h - ONNX models in, hx text out ----------------------*- C++ -*-===//
//
// importOnnx reads an ONNX ModelProto (opsets 1 to 21; one older than 11 is
// raised to 11 by onnx's version converter), checks it with ONNX's checker,
// types it with ONNX's shape inference (as far as the installed onnx knows
// the opset; hx's type relations type what is built), builds the
// equivalent hx module (each node converted by the converter registered for
// its op type and the model's opset) and writes it with hx's printer:
//
//  - graph inputs that are not initializers become @main's parameters
//    (names made identifiers: `input.1` -> `%input_1`; dynamic dims `?`);
//  - initializers and folded constants become entries of the constant
//    table: small ones inline, the others `.npy` files returned in
//    `weights` (hx-import-onnx writes them beside the text; hx-opt and
//    hx-run hand them to the parser in memory);
//  - each ONNX node becomes hx calls that carry the node (their Loc's
//    SourceNode, hx/Support/SourceNames.h), printed on one line that ends
//    with `// onnx:<OpType> <node name>` and read back by the parser, so
//    located diagnostics, the placement report and --place name the node;
//  - shape computations (Shape, Gather, Concat, ConstantOfShape, ...) on
//    values known at import time are folded, as TVM's frontend does.
//
// An operator or attribute hx cannot express is an error naming the node,
// its op type and opset, and the supported op types. The mapping of each
// operator is in docs/onnx.md.
//
//===----------------------------------------------------------------------===//
#ifndef HX_IMPORT_ONNX_H
#define HX_IMPORT_ONNX_H

#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hx {

struct OnnxImportOptions {
  /// The directory, relative to the text, that the table's `.npy` paths
  /// name: "model.weights".
  std::string weightsDir = "weights";
  /// The directory of the model file, where tensors that keep their data
  /// in another file (ONNX's external data: PyTorch's exporter writes
  /// `model.onnx.data` beside `model.onnx`) are found. Empty: the model has
  /// no file (standard input), and such tensors are refused.
  std::string modelDir;
  /// Constants of at most this many elements are written inline (base64).
  int64_t inlineElements = 16;
  /// The value a run will give a graph input, asked for only where a
  /// converter needs an input's value at import time (Reshape's shape,
  /// Slice's starts, an axes list) and the input is not a constant: the
  /// module is then built for that value, which stays a parameter too.
  /// Returns nullopt when the run has none; an error names the input.
  /// Unset: such an input is refused, naming it and what to pass.
  std::function<llvm::Expected<std::optional<HostTensor>>(llvm::StringRef name)> inputValue;
};

struct ImportedModule {
  /// The hx module as text.
  std::string text;
  /// The `.npy` files the text's constant table names, by their path
  /// relative to the text ("model.weights/conv1.weight.npy").
  std::vector<std::pair<std::string, HostTensor>> weights;
  /// The ONNX opset (default domain) the module was converted from.
  int64_t opset = 0;
  /// The model's own opset when onnx's version converter raised it to
  /// `opset` first (0 otherwise).
  int64_t sourceOpset = 0;
  /// What the model held, for a summary: the main graph's nodes, their op
  /// types by count (most first, ties by name), and its initializers.
  int64_t nodes = 0;
  std::vector<std::pair<std::string, int64_t>> opTypes;
  int64_t initializers = 0, weightElements = 0, weightBytes = 0;
};

/// The oldest and newest opset hx imports. Models before opset 11 are
/// raised to 11 by onnx's version converter first.
constexpr int64_t kMinOnnxOpset = 1, kMaxOnnxOpset = 21;

/// Imports the serialized model `bytes`; `name` (the file) starts every
/// error message.
llvm::Expected<ImportedModule> importOnnx(llvm::StringRef bytes, llvm::StringRef name,
                                          const OnnxImportOptions &opts = {});

/// Whether a file is an ONNX model rather than hx text: a `.onnx` name, or
/// bytes that start as a ModelProto does (field 1, ir_version, a varint:
/// 0x08, which no hx text starts with).
bool isOnnxFile(llvm::StringRef path, llvm::StringRef bytes);

/// OnnxImportOptions::modelDir for a model read from `path` ("-": none).
std::string modelDirOf(llvm::StringRef path);

/// Reads a model file for hx-opt, hx-run and Session::loadFile ("-" is
/// stdin): hx text as it is, or an ONNX model imported, its text in the
/// buffer (named `path`) and its weights moved into `weights` for the
/// parser (ParserOptions::npyFiles). The error names the file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readModuleFile(llvm::StringRef path, llvm::StringMap<HostTensor> &weights,
               const OnnxImportOptions &opts = {});
/// The same for a file already read (`file`, read from `path`).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readModuleFile(std::unique_ptr<llvm::MemoryBuffer> file, llvm::StringRef path,
               llvm::StringMap<HostTensor> &weights, const OnnxImportOptions &opts = {});

/// The files the model `bytes`, read from `path`, keeps tensors' data in
/// (ONNX's external data), as paths beside `path`: what a compile cache's
/// key must cover besides the model's own bytes. Empty for a model that
/// keeps none, or that does not parse.
std::vector<std::string> onnxExternalDataFiles(llvm::StringRef bytes, llvm::StringRef path);

/// The ONNX op types importOnnx converts, sorted.
std::vector<std::string> supportedOnnxOps();

} // namespace hx

#endif
