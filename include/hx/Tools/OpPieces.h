//===- OpPieces.h - Every operator has every piece it promises --*- C++ -*-===//
//
// An operator is one entry of the registry (lib/Ops, its family file) and
// up to three more pieces, each kept by its own library under the same
// name: the interpreter's implementation (lib/Interpreter), a kernel
// generator (lib/CodeGen, one per operator, serving every target the
// OpDef lists) and hx-smith's recipe (lib/Smith). checkOperatorPieces
// asks each library for each registered operator and lists what is
// missing; `hx-opt --list-ops` runs it and fails on a gap, and a unit test
// runs it, so a half-added operator fails the suite before any module
// calls it.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TOOLS_OPPIECES_H
#define HX_TOOLS_OPPIECES_H

#include <string>
#include <vector>

namespace hx {

/// One line per missing piece: "OP: no interpreter implementation", ...;
/// empty when every operator is whole.
std::vector<std::string> checkOperatorPieces();

} // namespace hx

#endif
