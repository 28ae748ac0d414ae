//===- SourceNames.h - The framework node a line of text came from -*- C++ -*-===//
//
// An importer (hx-import-onnx) writes each framework node's calls on one
// line and ends the line with a comment naming the node:
//
//   %12 = nn.conv2d(%11, %w3, ...); %13 = nn.bias_add(%12, %b3); // onnx:Conv /layer1/0/conv1/Conv
//
// Everything that knows a call's location (every expression keeps its
// SMLoc through the passes) can so name the node it came from: located
// diagnostics show the line, the placement report prints the name, and
// `--place` matches node names and framework operator types. Hand-written
// text may use the same comment.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_SOURCENAMES_H
#define HX_SUPPORT_SOURCENAMES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
}

namespace hx {

/// `// <framework>:<op type> <node name>` at the end of a line.
struct SourceNode {
  llvm::StringRef framework; ///< "onnx"
  llvm::StringRef opType;    ///< "Conv"
  llvm::StringRef name;      ///< "/layer1/0/conv1/Conv" (may be empty)
};

/// The node named on the line holding `loc`, if that line ends with such a
/// comment. The strings point into the source buffer.
std::optional<SourceNode> sourceNodeAt(const llvm::SourceMgr &sm, llvm::SMLoc loc);

/// A name as hx text may hold it in a comment: legal UTF-8 kept with its
/// control characters (newlines among them) made spaces, anything else
/// reduced to its ASCII with `?` for the other bytes.
std::string printableName(llvm::StringRef name);

/// The comment sourceNodeAt reads, for an importer to write (through
/// printableName).
std::string sourceNodeComment(llvm::StringRef framework, llvm::StringRef opType,
                              llvm::StringRef name);

} // namespace hx

#endif
