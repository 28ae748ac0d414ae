//===- Smith.h - Random well-typed modules (hx-smith) -----------*- C++ -*-===//
//
// What Csmith is for C compilers: generateModule writes one random, valid,
// well-typed module in hx's text format from a seed, mixing every operator
// of the registry (hx/Ops/OpRegistry.h) with broadcasting, tensor constants,
// tuples and projections, lets, several functions and global calls, random
// `on_device` annotations (normal, fixed, free), explicit `device_copy`s,
// parameter and result devices, and a random default device over a cpu and
// a cuda virtual device. Values stay small and numerically tame (guards keep
// the operands of log, sqrt, rsqrt, divide and power in their domain, and
// magnitudes bounded), and operators whose result is discontinuous in their
// input (comparisons, argsort, topk, float-to-integer casts, take's indices)
// only see values that the compiled kernels and the reference interpreter
// compute bit for bit alike, so a module's two executions may be compared.
//
// The output depends on the seed and the options alone: the generator uses
// its own PRNG (xoshiro256** seeded by splitmix64) and prints numbers with
// integer arithmetic, so the same seed gives the same bytes everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SMITH_SMITH_H
#define HX_SMITH_SMITH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace hx {

struct SmithOptions {
  uint64_t seed = 0;
  /// Operator calls to generate (guards, annotations and copies come on top).
  unsigned calls = 24;
  /// The most defs, @main included (each module draws 1 to this many).
  unsigned functions = 3;
  /// Tensor constants (`meta[relay.Constant][i]`) among the inputs.
  bool constants = true;
  /// Device annotations, parameter and result devices, copies.
  bool annotations = true;
  /// Only these operators (registry names); empty: every operator. Guards
  /// and type adaptations may still use abs, add, clip, cast, reshape and
  /// strided_slice.
  std::vector<std::string> ops;
};

struct SmithModule {
  std::string text;
  /// The operators the module calls, sorted, each once.
  std::vector<std::string> opsUsed;
};

/// Checks `ops` against the registry; false with `error` naming the first
/// unknown operator.
bool validateSmithOps(llvm::ArrayRef<std::string> ops, std::string &error);

/// Whether hx-smith has a recipe that writes calls of `op` (the registry
/// check of hx/Tools/OpPieces.h asks it of every operator).
bool hasSmithRecipe(llvm::StringRef op);

/// One module, a function of `opts` alone.
SmithModule generateModule(const SmithOptions &opts);

} // namespace hx

#endif
