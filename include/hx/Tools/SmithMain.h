//===- SmithMain.h - The logic of hx-smith ----------------------*- C++ -*-===//
//
// hx-smith prints random modules (hx/Smith/Smith.h) or, with --check, tests
// them differentially in-process (hx/Differential/Differential.h).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_SMITHMAIN_H
#define HX_TOOLS_SMITHMAIN_H

namespace hx {

/// hx-smith's whole command line: registers the flags, parses argv, runs.
int smithMain(int argc, char **argv);

} // namespace hx

#endif
