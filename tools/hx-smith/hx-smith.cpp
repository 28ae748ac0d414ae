//===- hx-smith.cpp - Random modules and differential testing -------------===//
//
// Everything is hx::smithMain (lib/Tools/SmithMain.cpp).
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/SmithMain.h"
#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return hx::smithMain(argc, argv);
}
