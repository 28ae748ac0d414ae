//===- Differential.h - Differential testing of one module ------*- C++ -*-===//
//
// DifferentialTester::check runs every check hx can make of a module on
// itself, in-process (no tool is spawned), and reports the first that
// fails:
//
//   parse       the text parses and verifies;
//   round-trip  print -> parse -> print gives the same text;
//   plan        infer-type and plan-devices succeed (verify-each on);
//   placement   verifyPlacement holds (hx/Transforms/VerifyPlacement.h);
//   idempotence planning the printed plan again changes nothing, and the
//               plan itself round-trips;
//   compile     the executable builds, each virtual device on a cpu
//               instance of its own (one of a type in `emulate` on its
//               emulator: cuda-emu runs the cuda kernels), with
//               --check-devices;
//   run         it runs on seeded random inputs (hx/Run/RandomInputs.h,
//               uniform: the inputs of hx-run --random-inputs --seed=S);
//   interpret   the reference interpreter runs;
//   compare     the results agree by hx/Run/Compare.h's rule;
//   ... (fused) compile, run, interpret and compare again after fuse-ops
//               (one kernel per fused group).
//
// One tester keeps its cpu backend (the kernel cache) and devices across
// modules, so a run of thousands of modules compiles each distinct kernel
// once.
//
//===----------------------------------------------------------------------===//
#ifndef HX_DIFFERENTIAL_DIFFERENTIAL_H
#define HX_DIFFERENTIAL_DIFFERENTIAL_H

#include "hx/IR/VirtualDevice.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hx {

struct DiffOptions {
  /// Compile, run and compare with the interpreter (else stop after the
  /// static checks).
  bool execute = true;
  /// The seed of the random inputs.
  uint64_t inputSeed = 0;
  /// The device types whose virtual devices run on their emulator
  /// (emulatorFor in hx/Targets/Registry.h: cuda-emu, the cuda backend's
  /// kernels on the SIMT emulator) instead of cpu instances.
  std::vector<DeviceType> emulate;
};

struct DiffResult {
  bool ok = true;
  /// The failed check (see above), or "internal" for an exception.
  std::string stage;
  /// What went wrong: the diagnostics, or the two texts' first difference.
  std::string message;
  /// The random inputs @main ran on (RandomInputs.h), once the run was
  /// reached.
  std::vector<HostTensor> inputs;
  /// The names of @main's parameters, one per input.
  std::vector<std::string> inputNames;
};

class DifferentialTester {
public:
  DifferentialTester();
  ~DifferentialTester();
  DifferentialTester(const DifferentialTester &) = delete;
  DifferentialTester &operator=(const DifferentialTester &) = delete;

  /// Checks the module `text` (named `name` in diagnostics).
  DiffResult check(llvm::StringRef text, llvm::StringRef name, const DiffOptions &opts);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace hx

#endif
