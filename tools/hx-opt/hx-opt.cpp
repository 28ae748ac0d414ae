//===- hx-opt.cpp - The hx optimizer driver -------------------------------===//
//
// Parses, runs passes, prints. Everything is hx::optMain (lib/Tools).
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/OptMain.h"
#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return hx::optMain(argc, argv);
}
