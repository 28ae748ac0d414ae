//===- Registry.h - The backends hx can compile for and run on --*- C++ -*-===//
//
// Each backend lives in a folder of its own under lib/Targets (CPU/, CUDA/,
// CUDAEmu/, GenericCPU/) and registers here, in lib/Targets/Registry.cpp,
// with one line: its name (what `hx-run --device=NAME:N` and a Device's
// backend() say), the device type of its devices, the target kinds it
// compiles for (hx/IR/TargetKind.h, which also holds what those kinds
// implement and cost), a compiler factory and a device factory.
//
// BackendCache is the one lookup every runner makes (hx-run, the
// differential tester, the GPU bench): the backend that compiles a virtual
// device's code for the physical device that runs it is the device's
// backend, made once per (backend, target).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_REGISTRY_H
#define HX_TARGETS_REGISTRY_H

#include "hx/IR/VirtualDevice.h"
#include "hx/Runtime/Backend.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hx {

struct BackendOptions {
  /// Keep the generated code for printCode (--emit=llvm).
  bool keepCode = false;
};

struct DeviceOptions {
  /// Worker threads of a cpu device (0: one per core).
  unsigned threads = 0;
  /// The most bytes the device allocates (0: no limit but its own).
  uint64_t memoryLimit = 0;
};

struct BackendInfo {
  /// "cpu", "cuda", "cuda-emu", "cpu-generic".
  llvm::StringRef name;
  llvm::StringRef summary;
  /// The type of its devices (and of the virtual devices it serves).
  DeviceType deviceType;
  /// The target kind it compiles for (hx/IR/TargetKind.h): what that kind
  /// lists is what this backend implements and costs (its operators, its
  /// roofline, its copy links, the target options it honours).
  llvm::StringRef targetKind;
  /// Made for testing hx (not a default for any device type).
  bool testOnly = false;
  /// Emulates its device type on the host (its times say nothing).
  bool emulated = false;
  /// Its compiler reads the target's options (cuda-emu's does not: the
  /// emulator runs the same kernels whatever the architecture).
  bool usesTarget = true;
  /// The compiler for the code of a virtual device with `target`.
  llvm::Expected<std::unique_ptr<Backend>> (*createBackend)(const Target &target,
                                                            const BackendOptions &opts);
  /// Device `ordinal` of this backend (`name:ordinal`).
  llvm::Expected<std::unique_ptr<Device>> (*createDevice)(unsigned ordinal,
                                                          const DeviceOptions &opts);
};

/// Every registered backend, in registration order.
llvm::ArrayRef<BackendInfo> allBackends();
/// The backend registered as `name`, or null.
const BackendInfo *lookupBackend(llvm::StringRef name);
/// "cpu, cuda, cuda-emu, cpu-generic", for messages.
std::string backendNames();
/// The backend that compiles for target kind `kind` by default: the first
/// registered one that is neither test-only nor emulated (cpu for llvm,
/// cuda for cuda); null when none does.
const BackendInfo *defaultBackendFor(llvm::StringRef kind);

/// Backends made on demand, each once per (backend, target string): the
/// one place runners pick the compiler for a virtual device.
class BackendCache {
public:
  explicit BackendCache(BackendOptions opts = {}) : opts(opts) {}

  /// The backend that compiles virtual device `vd`'s code for `device`:
  /// the device's own backend, for `vd`'s target (for the device's default
  /// target when it stands in for another type, as a cpu instance for a
  /// cuda virtual device without a GPU).
  llvm::Expected<Backend *> backendFor(const VirtualDevice &vd, const Device &device);
  /// The backend `name` for `target` (hx-run --emit=ptx compiles cuda code
  /// with no cuda device at hand).
  llvm::Expected<Backend *> get(llvm::StringRef name, const Target &target);
  /// Every backend made so far, in the order made.
  llvm::ArrayRef<Backend *> made() const { return order; }

private:
  /// What makes two targets compile the same for backend `b`: the kind's
  /// own name (not an alias), the options sorted, without what changes
  /// nothing (-keys, -mcpu=native); nothing when `b` ignores the target.
  static std::string key(const BackendInfo &b, const Target &target);

  BackendOptions opts;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Backend>> backends;
  std::vector<Backend *> order;
};

} // namespace hx

#endif
