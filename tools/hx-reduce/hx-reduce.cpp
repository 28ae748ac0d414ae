//===- hx-reduce.cpp - The hx test-case reducer ---------------------------===//
//
// Shrinks a module while an interestingness test still accepts it.
// Everything is hx::reduceMain (lib/Tools).
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/ReduceMain.h"
#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return hx::reduceMain(argc, argv);
}
