//===- Stages.h - Runs of modules with value-dependent shapes ---*- C++ -*-===//
//
// A module whose values include shapes known only from other values (the
// `?` dims of nonzero and vision.non_max_suppression, an `if` whose branches
// differ in shape) runs in stages. Each stage is an ordinary executable: a
// static schedule and memory plan over the values whose shapes are known.
//
//   stage 0: everything computable from @main's parameters alone, up to the
//            frontier: the first calls with a value-dependent result, and
//            the ifs whose branches hold such values;
//   between: the host evaluates each frontier call (the interpreter's
//            implementation) and reads each frontier if's condition;
//   stage 1: @main again, with the frontier's results and the values stage 0
//            computed for later use as new parameters (on the devices they
//            were computed on), each if replaced by its taken branch, typed
//            anew (now static up to the next frontier) and fused;
//   ...      until a stage computes @main's result.
//
// A stage after the first is compiled the first time a run reaches it with
// those shapes and branches, and kept: the next run with the same frontier
// shapes and branches reuses it, whatever the values. The values crossing a
// frontier are copied out of their devices and into the next stage's
// parameter memory, allocated when that stage is built; a stage's
// parameters are only the values it or a later stage reads.
//
// A recursive global runs as a loop: a run of its own whose first stage is
// run again with each call of itself's arguments. When its parameters have
// `?` dims (an accumulator that grows by one slice per iteration, as a
// while loop's scan outputs do), its stages are built for each list of
// argument shapes a run meets, and kept like later stages: a loop whose
// accumulator grows compiles each iteration's stages (only the kernels
// whose shapes changed; the backends keep the rest).
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUN_STAGES_H
#define HX_RUN_STAGES_H

#include "hx/IR/Module.h"
#include "hx/Runtime/Executable.h"
#include "hx/Support/Diagnostics.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <map>
#include <memory>

namespace hx {

/// What the stages need from their owner (the Session).
struct StageHooks {
  /// Types a stage's module again and fuses it (infer-type, fuse-ops);
  /// false after diagnostics.
  std::function<bool(Module &)> prepare;
  /// Builds an executable (null after diagnostics).
  std::function<std::unique_ptr<Executable>(Module &, const ExecutableOptions &)> build;
};

class StagedRun {
public:
  /// Whether @main of the typed module `m` has a value whose shape depends
  /// on values (its parameters' shapes bound): then it runs in stages.
  static bool needed(const Module &m);
  /// Plans and builds the first stage of `m` (which must outlive the run);
  /// null after located diagnostics.
  static std::unique_ptr<StagedRun> create(Module &m, DiagEngine &diags, StageHooks hooks,
                                           const ExecutableOptions &opts);
  ~StagedRun();

  /// The first stage's executable (--emit=schedule, --profile).
  Executable &first();
  /// Runs every stage; `profile` records the first one.
  llvm::Expected<std::vector<HostTensor>> run(llvm::ArrayRef<HostTensor> inputs,
                                              RunProfile *profile = nullptr,
                                              InterruptCheck interrupted = nullptr);
  /// The stages built so far, the first included.
  size_t numStages() const;
  /// At most this many stages are kept; past it, the later stages are
  /// dropped and built again when a run needs them.
  static constexpr size_t kMaxStages = 64;
  /// Runs of recursive functions inside one another, at most.
  static constexpr unsigned kMaxNesting = 16;
  /// A recursive function's calls of itself in one run, at most.
  static constexpr size_t kMaxIterations = 100000;

  struct Stage;

private:
  StagedRun(DiagEngine &diags, StageHooks hooks, const ExecutableOptions &opts);
  /// A call of a recursive global (a frontier call), run by a StagedRun of
  /// its own whose @main is the global.
  llvm::Expected<std::vector<HostTensor>>
  callGlobal(const Call &c, llvm::ArrayRef<const HostTensor *> args, InterruptCheck interrupted);
  DiagEngine &diags;
  StageHooks hooks;
  ExecutableOptions opts;
  // For the run of a recursive global: its module (outliving the stages),
  // its name, how many runs of recursive globals it is inside.
  std::unique_ptr<Module> ownModule;
  std::string self;
  unsigned nesting = 0;
  std::unique_ptr<Stage> root;
  /// The run of a recursive global whose parameters have `?` dims: its
  /// first stages by argument types (`root` is then null).
  bool byShapes = false;
  std::map<std::string, std::unique_ptr<Stage>> shaped;
  /// The first stage for `inputs`: `root`, or the one built for their
  /// types (null after located diagnostics).
  Stage *rootFor(llvm::ArrayRef<HostTensor> inputs);
  size_t count = 0;
  std::map<std::string, std::unique_ptr<StagedRun>> callees;
};

} // namespace hx

#endif
