//===- hx-run.cpp - Run a planned module on CPU and GPU -------------------===//
//
// Everything is hx::runMain (lib/Tools/RunMain.cpp).
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/RunMain.h"
#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return hx::runMain(argc, argv);
}
