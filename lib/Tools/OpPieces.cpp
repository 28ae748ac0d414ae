//===- OpPieces.cpp - Every operator has every piece it promises ----------===//
//
// The annotations (on_device, device_copy) are the one family without
// kernels or recipes: the executor turns them into copies, and hx-smith
// writes them itself. Operators with a value-dependent shape (nonzero,
// NMS) have no kernel: the runtime evaluates them between stages.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/OpPieces.h"
#include "hx/CodeGen/KernelDefs.h"
#include "hx/IR/TargetKind.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Smith/Smith.h"

using namespace llvm;

namespace hx {

std::vector<std::string> checkOperatorPieces() {
  std::vector<std::string> missing;
  for (const OpDef &d : allOps()) {
    std::string name = d.name.str();
    if (d.family.empty())
      missing.push_back(name + ": no family");
    if (!hasInterpreterImpl(d.name))
      missing.push_back(name + ": no interpreter implementation");
    if (d.family == "annotation")
      continue;
    if (someTargetKindSupports(d) && !d.valueDependentShape && !lookupKernelGenerator(d.name))
      missing.push_back(name + ": no kernel generator (its targets promise one)");
    if (!hasSmithRecipe(d.name))
      missing.push_back(name + ": no hx-smith recipe");
  }
  return missing;
}

} // namespace hx
