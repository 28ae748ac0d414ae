//===- Verifier.h - IR well-formedness --------------------------*- C++ -*-===//
#ifndef HX_IR_VERIFIER_H
#define HX_IR_VERIFIER_H

#include "hx/IR/Module.h"
#include "hx/Support/Diagnostics.h"

namespace hx {

/// Checks that every variable use is bound by a parameter, let or free_var
/// of its def (and each variable bound once), that every global called is
/// defined, that device references index the device table, that types are
/// well formed and that operator calls have an operator. Reports located
/// errors; returns false if any.
bool verifyModule(const Module &m, DiagEngine &diags);

} // namespace hx

#endif
