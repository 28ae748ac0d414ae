//===- RandomInputs.h - The one generator of random inputs ------*- C++ -*-===//
//
// Every tool that makes up inputs for @main draws them here: hx-run
// --random-inputs, hx-smith --check and the differential tester, the
// conformance suite and the benches. One portable generator (splitmix64,
// the same stream on every platform and standard library) drawn parameter
// by parameter in order, so `hx-run --random-inputs --seed=N` on a module
// that `hx-smith --check` reported for seed N runs it on the same inputs.
//
// Two distributions:
//
//   uniform  floats uniform in [-1, 1), integers in [-9, 9] without 0 (safe
//            as divisors), booleans either way. Simple and reproducible,
//            but a deep network's activations overflow (and a batch_norm
//            variance drawn negative makes NaN).
//   scaled   what a framework's initializers give, read off how @main uses
//            each parameter: the weight of nn.conv1d / nn.conv2d / nn.dense
//            / nn.batch_matmul from N(0, 2 / fan_in) (He), batch_norm's
//            gamma and variance and layer_norm's gamma uniform in
//            [0.9, 1.1], their beta and mean and every bias uniform in
//            [-0.1, 0.1]; other parameters as `uniform`. Deep networks then
//            give finite outputs from random inputs.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUN_RANDOMINPUTS_H
#define HX_RUN_RANDOMINPUTS_H

#include "hx/IR/Expr.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace hx {

enum class RandomInputMode { Uniform, Scaled };

/// "uniform" / "scaled", or nullopt.
std::optional<RandomInputMode> parseRandomInputMode(llvm::StringRef name);
llvm::StringRef randomInputModeName(RandomInputMode mode);

/// How a parameter of @main is used, for RandomInputMode::Scaled.
struct ParamRole {
  enum Kind : uint8_t { Data, Weight, Gain, Offset } kind = Data;
  /// Weight: the number of inputs each output sums over.
  int64_t fanIn = 1;
};

class RandomInputGenerator {
public:
  /// `main` is read (never changed) for the parameters' roles under Scaled.
  RandomInputGenerator(const Function &main, uint64_t seed, RandomInputMode mode);

  /// The next parameter's tensor, of `type` (a tensor of static shape).
  /// Call it for the parameters in order, skipping those whose values come
  /// from elsewhere: the stream advances only for what is drawn.
  HostTensor draw(const Var &param, const TensorType &type);

  /// The role the generator gives `param`.
  ParamRole roleOf(const Var &param) const;

private:
  double uniform(double lo, double hi);
  double normal();

  uint64_t state;
  RandomInputMode mode;
  llvm::DenseMap<const Var *, ParamRole> roles;
};

/// One tensor per parameter of `main`, every one drawn; an error names a
/// parameter that is not a tensor of static shape.
llvm::Expected<std::vector<HostTensor>>
randomInputs(const Function &main, uint64_t seed, RandomInputMode mode = RandomInputMode::Uniform);

} // namespace hx

#endif
