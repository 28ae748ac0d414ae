//===- ReduceMain.h - The logic of hx-reduce --------------------*- C++ -*-===//
//
// hx-reduce's command line, after llvm-reduce's: an input module, an
// interestingness test (--test, --test-arg), a timeout per test run and the
// output file. The search itself is hx::reduceModule (lib/Reduce).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_REDUCEMAIN_H
#define HX_TOOLS_REDUCEMAIN_H

namespace hx {

/// hx-reduce's whole command line: registers the flags, parses argv, runs.
int reduceMain(int argc, char **argv);

} // namespace hx

#endif
