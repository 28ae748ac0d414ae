//===- hx-compile.cpp - Compile a module into one file --------------------===//
//
// Everything is hx::compileMain (lib/Tools/RunMain.cpp): hx-run's flags
// that shape the compile, and -o FILE.hxc.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/RunMain.h"
#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return hx::compileMain(argc, argv);
}
