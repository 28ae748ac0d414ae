//===- hx-import-onnx.cpp - ONNX models to hx text ------------------------===//
//
// Everything is hx::importMain (lib/Tools).
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/ImportMain.h"
#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return hx::importMain(argc, argv);
}
