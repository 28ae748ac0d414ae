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
  /// Read with its plan from a compiled model (SavedSchedule.cpp).
  bool restored = false;
  ExecutableOptions opts;
  /// Per virtual device: the backend that compiles its kernels.
  std::vector<Backend *> backends;

  /// A concatenate's part that lives in its slice of the result (`whole`),
  /// `offset` bytes in: planOffsets places it there, and its uses count
  /// as the whole's (Schedule.cpp).
  struct View {
    unsigned part, whole;
    uint64_t offset;
  };
  std::vector<View> views;

  // Planned at build time (or read with the schedule: SavedSchedule.cpp).
  MemoryPlan plan;
  std::vector<uint64_t> offsets; // per buffer: an Intermediate's offset in its arena
  // Bound at build time.
  std::vector<void *> arenas;                              // per device
  std::vector<std::pair<unsigned, void *>> ownAllocations; // device, pointer
  std::vector<void *> pointers;                            // per buffer
  std::vector<const void *> kernels;                       // per step: loaded kernels
  std::vector<void *> argStorage;
  std::vector<unsigned> argOffset;  // per step
  std::vector<uint64_t> extraBytes; // per device: params, constants, outputs
  /// The host side of scalar constants' uploads. An asynchronous device
  /// reads a copy's source when its stream gets there, not when the copy is
  /// issued, so these live until the devices have synchronized (the end of
  /// bind(), or ~Impl's synchronizeAll when bind() fails).
  std::vector<HostTensor> constantUploads;

  // Streams (Streams.cpp). Queue 0 is the host: every step of a
  // synchronous device, and the executor's own work. Each virtual device on
  // an asynchronous device has three queues of its own: its kernels, the
  // copies into it, the copies out of it.
  struct Queue {
    enum class Kind : uint8_t { Host, Compute, CopyIn, CopyOut };
    Kind kind = Kind::Host;
    unsigned device = 0; // virtual device
    std::unique_ptr<Stream> stream;
    std::string name; // a trace track
  };
  std::vector<Queue> queues;
  std::vector<unsigned> stepQueue;               // per step
  std::vector<std::vector<unsigned>> waitsFor;   // per step: steps on other queues
  std::vector<std::unique_ptr<Event>> doneEvent; // per step: recorded after it, if awaited
  std::vector<bool> barrierBefore;               // per step: everything finishes first
  std::vector<std::pair<Device *, void *>> pinned;
  bool anyAsync = false;
  // Timing events per step (--profile, --trace), made on first use.
  std::vector<std::unique_ptr<Event>> startEvent, endEvent;

  ~Impl();
  /// The devices, backends (one per device, null past those given),
  /// options and the module's virtual device names: what build and restore
  /// start from.
  void init(const Module &m, llvm::ArrayRef<Device *> devices, llvm::ArrayRef<Backend *> backends,
            const ExecutableOptions &opts);
  /// Plans memory: `plan` and `offsets` from the buffers' lifetimes.
  void planOffsets();
  /// Allocates (by `plan` and `offsets`), fills constants, binds kernel
  /// arguments.
  llvm::Error bind();
  /// Assigns steps to queues, derives the waits between queues from the
  /// buffers steps read and write, pins host memory that async copies use.
  llvm::Error planStreams();
  /// The device and stream a step is issued to (null stream on the host).
  Device &deviceOfQueue(unsigned q) const { return *devices[queues[q].device]; }
  Stream *streamOf(unsigned q) const { return queues[q].stream.get(); }
  /// Waits until every device is idle.
  llvm::Error synchronizeAll();
};

/// Builds the steps and buffers of `@main` into `impl` (Schedule.cpp).
bool buildSchedule(Module &m, Executable::Impl &impl, DiagEngine &diags);

} // namespace hx

#endif
