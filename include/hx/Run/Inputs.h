//===- Inputs.h - The inputs of a run, from files or drawn ------*- C++ -*-===//
//
// One tensor per parameter of @main, from the first source that has it:
// a named .npy file (hx-run --input NAME=FILE), DIR/NAME.npy (--params DIR),
// else a random draw (--random-inputs, hx/Run/RandomInputs.h). Each value
// is checked against the parameter's type; an error names the file or the
// parameter, and the hx-run flag the source comes from.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUN_INPUTS_H
#define HX_RUN_INPUTS_H

#include "hx/IR/Expr.h"
#include "hx/Run/RandomInputs.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace hx {

struct InputSources {
  /// "NAME=file.npy" (a leading % on NAME is allowed).
  std::vector<std::string> inputs;
  /// DIR/NAME.npy for each parameter not in `inputs`, where it exists.
  std::string paramsDir;
  /// Draw the rest (else a parameter without a file is an error).
  std::optional<RandomInputMode> randomInputs;
  uint64_t seed = 0;
  /// --device-memory-limit (0: none): a drawn input larger than it is
  /// refused before it is allocated, as one larger than the machine's
  /// memory always is.
  uint64_t memoryLimit = 0;
};

/// Whether `t` can be the value of `param`: the same dtype and rank, and
/// each static dim equal (a `?` dim takes any size). The error names the
/// parameter and the first dim that differs.
llvm::Error checkInput(const Var &param, const HostTensor &t);

/// Reads or draws one tensor per parameter of `main`, in order.
llvm::Expected<std::vector<HostTensor>> gatherInputs(const Function &main,
                                                     const InputSources &sources);

/// Binds parameters of `main` to constants (hx-run --params DIR, unless
/// --params-as-inputs): each parameter NAME with a file DIR/NAME.npy, not
/// named in `keep` and without a device annotation, becomes a tensor
/// constant of that file's value (`meta[relay.Constant]`, printed as a
/// reference to the file) wherever it is used, and leaves the parameter
/// list. Runs before the passes, so that the constant is planned, folded
/// and compiled as one (its value known when the executable is built).
/// The value is checked against the parameter's declared type; an error
/// names the file and the parameter. Returns how many were bound.
llvm::Expected<unsigned> bindParamsAsConstants(Function &main, llvm::StringRef dir,
                                               llvm::ArrayRef<std::string> keep);

/// The names of `main`'s parameters, in order.
std::vector<std::string> paramNames(const Function &main);

/// Writes DIR/NAME.npy for each name and input, in order (what hx-run
/// --params DIR reads back), creating DIR.
llvm::Error writeInputs(llvm::StringRef dir, llvm::ArrayRef<std::string> names,
                        llvm::ArrayRef<HostTensor> inputs);

} // namespace hx

#endif
