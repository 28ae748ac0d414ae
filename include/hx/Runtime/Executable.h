//===- Executable.h - A planned module, compiled and bound ------*- C++ -*-===//
//
// What TVM's graph executor is for a planned module: one flat schedule of
// steps for @main — kernel | copy | alias | if | jump — with every value a
// buffer on one virtual device, storage planned statically per device
// (MemoryPlan.h), copies as runtime steps, and a list of physical devices
// that the virtual devices map to. Calls of global functions and of
// let-bound or literal fns are inlined into the schedule; an `if` is a
// conditional step over its two branches' steps. Every kernel's argument
// pointers are bound once, when the executable is built; running it
// allocates nothing and looks nothing up.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUNTIME_EXECUTABLE_H
#define HX_RUNTIME_EXECUTABLE_H

#include "hx/IR/Module.h"
#include "hx/Runtime/Backend.h"
#include "hx/Runtime/MemoryPlan.h"
#include "hx/Support/Diagnostics.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace hx {

struct ExecutableOptions {
  /// Before each kernel, check that every argument lives in the memory of
  /// the kernel's device (--check-devices).
  bool checkDevices = false;
  /// Hears each backend's compile as it starts: "compiling 58 kernels for
  /// cpu" (hx/Run/Progress.h).
  std::function<void(const std::string &)> progress;
  /// Build the schedule and compile the kernels, but allocate nothing and
  /// load no kernel on a device (--emit=ptx without a GPU): such an
  /// executable can be printed, not run.
  bool compileOnly = false;
  /// When not empty: compute these nodes of @main's body (each of a static
  /// type) as the results, in order, instead of @main's result. A stage of
  /// a run whose later values have value-dependent shapes (hx/Run/Stages.h).
  std::vector<const Expr *> roots;
};

/// The largest buffer the executor makes (2^48 bytes): a module with a
/// larger value is refused before any kernel is compiled, so every size,
/// offset and stride the kernels compute fits in int64.
constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 48;

/// One buffer of the schedule: a tensor on one virtual device.
struct Buffer {
  enum class Kind : uint8_t { Param, Constant, Intermediate, Output, Alias };
  Kind kind = Kind::Intermediate;
  unsigned device = 0;
  DType dtype = DType::Float32;
  llvm::SmallVector<int64_t, 4> shape;
  uint64_t bytes = 0;
  /// Param: the parameter's index; Alias: the buffer it aliases.
  unsigned index = 0;
  /// Constant: the scalar value, or the tensor constant's (uploaded once
  /// per device: every use on a device shares the buffer).
  double value = 0;
  std::shared_ptr<const TensorData> data;
  /// What it holds, for messages: "%a", "add at 3:8".
  std::string name;
};

struct Step {
  enum class Kind : uint8_t { Kernel, Copy, Alias, If, Jump };
  Kind kind = Kind::Kernel;
  /// Kernel and Alias: the device it runs on; Copy: the destination.
  unsigned device = 0;
  /// Kernel: the backend's kernel id.
  unsigned kernel = 0;
  /// Kernel: operands then results; Copy and Alias: {source, destination};
  /// If: {condition}.
  llvm::SmallVector<unsigned, 4> buffers;
  unsigned numInputs = 0;
  /// If: the first step of the else branch; Jump: where to go.
  unsigned target = 0;
  /// The operator (or "device_copy", "if"), and where in the source.
  std::string label;
  /// Kernel: the operator call's signature (hx/Ops/OpCost.h), the key of a
  /// cost table (hx-run --cost-table-out).
  std::string signature;
};

/// Times and traffic of runs (--profile, --trace).
struct RunProfile {
  struct StepTime {
    unsigned step;
    double start, seconds; // since the run began
    /// Executable::trackName: the device whose host work it was, or the
    /// stream of an asynchronous device it ran on.
    unsigned track = 0;
  };
  std::vector<StepTime> steps;
};

/// Asked between the steps of a run, on the thread that runs: true stops
/// the run, which then fails with an InterruptedError (Python's Ctrl-C).
using InterruptCheck = llvm::function_ref<bool()>;

/// The error of a run stopped by its InterruptCheck.
class InterruptedError : public llvm::ErrorInfo<InterruptedError> {
public:
  static char ID;
  void log(llvm::raw_ostream &os) const override { os << "the run was interrupted"; }
  std::error_code convertToErrorCode() const override {
    return std::make_error_code(std::errc::interrupted);
  }
};

class Executable {
public:
  ~Executable();
  /// Builds the executable of `@main` of a typed, planned module (see
  /// hx/IR/DeviceAware.h); `devices[i]` runs virtual device i and
  /// `backends[i]` compiles its kernels (one backend may serve several). Errors (a construct the
  /// executor does not support, a dynamic shape, a kernel that fails to compile) are located
  /// diagnostics; returns null after them.
  static std::unique_ptr<Executable> build(Module &m, llvm::ArrayRef<Device *> devices,
                                           llvm::ArrayRef<Backend *> backends, DiagEngine &diags,
                                           const ExecutableOptions &opts = {});

  /// The schedule and memory plan as bytes, which a compiled model file
  /// keeps (hx/Run/CompiledFile.h): buffers, steps, outputs and offsets,
  /// each tensor constant by the number `constantIndex` gives it (an error
  /// where it gives none). Kernels are named by their ids in the backends.
  llvm::Error
  save(std::string &out,
       llvm::function_ref<std::optional<unsigned>(const TensorData &)> constantIndex) const;
  /// The executable of save's bytes for `m` (the module it was built from,
  /// read back), bound as build binds it, without planning or scheduling:
  /// `constants[i]` is constant i, and `backends[i]` must hold the kernels
  /// of the ids the schedule names (the ones the file's kernels restored).
  /// Bytes that do not fit the module, the devices or the kernels are an
  /// error saying what.
  static llvm::Expected<std::unique_ptr<Executable>>
  restore(llvm::StringRef saved, const Module &m, llvm::ArrayRef<Device *> devices,
          llvm::ArrayRef<Backend *> backends,
          llvm::ArrayRef<std::shared_ptr<const TensorData>> constants,
          const ExecutableOptions &opts = {});

  /// Runs on `inputs` (one per parameter of @main, already checked against
  /// the parameter types); returns the result flattened depth first.
  /// `interrupted`, when given, is asked before each step.
  llvm::Expected<std::vector<HostTensor>> run(llvm::ArrayRef<HostTensor> inputs,
                                              RunProfile *profile = nullptr,
                                              InterruptCheck interrupted = nullptr);

  llvm::ArrayRef<Step> steps() const;
  llvm::ArrayRef<Buffer> buffers() const;
  /// The buffers run returns, in order.
  llvm::ArrayRef<unsigned> outputBuffers() const;
  const MemoryPlan &memoryPlan() const;
  /// Bytes a device holds: its arena plus parameters, constants, outputs.
  uint64_t deviceBytes(unsigned device) const;
  unsigned numDevices() const;
  std::string deviceName(unsigned device) const;

  /// Tracks of a profile: one per device (work the host does), then one per
  /// queue of an asynchronous device ("cuda:0 kernels (virtual device 1)").
  unsigned numTracks() const;
  std::string trackName(unsigned track) const;

  /// --emit=schedule: the steps, and per device the buffers with offsets.
  void printSchedule(llvm::raw_ostream &os) const;
  /// --profile: time per step kind and operator, per device; bytes copied
  /// per device pair; peak memory per device.
  void printProfile(llvm::raw_ostream &os, const RunProfile &p, unsigned runs) const;
  /// --trace: a Chrome trace, one track per device.
  void writeTrace(llvm::raw_ostream &os, const RunProfile &p) const;

  /// The state lib/Runtime builds and runs (ExecutableImpl.h).
  struct Impl;

private:
  Executable();
  std::unique_ptr<Impl> impl;
};

} // namespace hx

#endif
