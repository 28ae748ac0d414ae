//===- Printer.h - The canonical text form ----------------------*- C++ -*-===//
#ifndef HX_IR_PRINTER_H
#define HX_IR_PRINTER_H

#include "hx/IR/Module.h"
#include <functional>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace hx {

struct PrintOptions {
  /// Append `/* ty=... */` after every binding whose type is known.
  bool printTypes = false;
  /// A comment line printed under the version header, without its `// `
  /// (hx-import-onnx names the model it imported); empty for none.
  std::string headerComment;
  /// Where given: each tensor constant's table entry names a file by what
  /// this returns for it (its value and its index in the table) instead
  /// of holding its value, which the caller keeps (a compiled model file
  /// holds the values beside the text: ParserOptions::npyFiles).
  std::function<std::string(const TensorData &, unsigned)> constantName;
};

/// Prints `m` in the canonical form of docs/ir-format.md section 4.
void printModule(llvm::raw_ostream &os, const Module &m, const PrintOptions &opts = {});

/// A literal as the printer writes it: `1f`, `0.5f`, `3i64`, `True`.
void printConstant(llvm::raw_ostream &os, const Constant &c);
void printAttrValue(llvm::raw_ostream &os, const AttrValue &v);
/// A call's attributes as the printer writes them, `name=value` each, those
/// equal to the operator's default left out; each is preceded by ", " unless
/// `first` (which is cleared once one is printed).
void printCallAttrs(llvm::raw_ostream &os, const Call &c, bool &first);

} // namespace hx

#endif
