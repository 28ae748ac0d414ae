//===- RunMain.h - The logic of hx-run --------------------------*- C++ -*-===//
//
// hx-run parses a module, types and plans it (unless --no-plan), compiles
// @main for the physical devices its virtual devices map to, runs it on
// inputs from .npy files or seeded random data, and writes the outputs —
// or runs the reference interpreter alone (--interpret), or checks the
// compiled run against it (--check). A compiled model file (.hxc) runs
// without compiling: its module was planned and its kernels compiled by
// hx-compile, which is the same command line stopping after the compile
// and writing the file (-o).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_RUNMAIN_H
#define HX_TOOLS_RUNMAIN_H

namespace hx {

/// hx-run's whole command line: registers the flags, parses argv, runs.
int runMain(int argc, char **argv);
/// hx-compile's: hx-run's flags that shape the compile, and -o FILE.hxc.
int compileMain(int argc, char **argv);

} // namespace hx

#endif
