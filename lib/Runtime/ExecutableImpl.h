//===- ExecutableImpl.h - The executable's state (private) ------*- C++ -*-===//
//
// What Schedule.cpp builds (buffers, steps, outputs) and Executor.cpp binds
// and runs (the memory plan, the allocations, each buffer's pointer and each
// kernel step's argument array). Private to lib/Runtime.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_RUNTIME_EXECUTABLEIMPL_H
#define HX_LIB_RUNTIME_EXECUTABLEIMPL_H

#include "hx/Runtime/Executable.h"

namespace hx {

struct Executable::Impl {
  std::vector<Device *> devices;
  /// The virtual device table of the module, for messages.
  std::vector<std::string> virtualNames;
  std::vector<Buffer> buffers;
  std::vector<Step> steps;
  /// Buffers of the result, flattened.
  std::vector<unsigned> outputs;
  unsigned numParams = 0;
  ExecutableOptions opts;
  /// Per virtual device: the backend that compiles its kernels.
  std::vector<Backend *> backends;

  // Bound at build time.
  MemoryPlan plan;
  std::vector<uint64_t> offsets; // Intermediate buffers: offset in the arena
  std::vector<void *> arenas;    // per device
  std::vector<std::pair<unsigned, void *>> ownAllocations; // device, pointer
  std::vector<void *> pointers;                            // per buffer
  std::vector<const void *> kernels;                       // per step: loaded kernels
  std::vector<void *> argStorage;
  std::vector<unsigned> argOffset;  // per step
  std::vector<uint64_t> extraBytes; // per device: params, constants, outputs

  ~Impl();
  /// Plans memory, allocates, fills constants, binds kernel arguments.
  llvm::Error bind();
};

/// Builds the steps and buffers of `@main` into `impl` (Schedule.cpp).
bool buildSchedule(Module &m, Executable::Impl &impl, DiagEngine &diags);

} // namespace hx

#endif
