//===- Registry.h - The targets hx can compile for and run on ---*- C++ -*-===//
//
// A target (a backend: a compiler and its devices) is a folder of
// lib/Targets that registers itself: its CMakeLists.txt declares it with
// hx_target(... REGISTER <function>), and <function> returns its
// BackendInfo. The build collects those functions (RegisteredTargets.def),
// so nothing outside the folder names it: not this registry, not the
// runners. A BackendInfo says what the runners ask of a target: its name
// (what `hx-run --device=NAME:N` and a Device's backend() say), the target
// kind it compiles for (hx/IR/TargetKind.h, which also holds what that kind
// implements and costs, and its device type), a compiler factory and a
// device factory, and the hooks that keep the runners free of any one
// target: how many devices the machine has for it (or why none), its lines
// of --list-devices, the code it prints for --emit, whether it emulates its
// type on the host.
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
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hx {

struct BackendOptions {
  /// Keep the generated code for printCode (--emit=llvm).
  bool keepCode = false;
  /// Keep what Backend::saveKernels writes (hx-compile).
  bool keepKernels = false;
  /// Kernels an earlier saveKernels of this backend wrote, for the same
  /// target: the backend starts with them, compiled (a backend that cannot
  /// load saved kernels refuses the bytes). Empty: none.
  llvm::StringRef saved;
};

struct DeviceOptions {
  /// Worker threads of a cpu device (0: one per core).
  unsigned threads = 0;
  /// The most bytes the device allocates (0: no limit but its own).
  uint64_t memoryLimit = 0;
};

struct BackendInfo {
  /// "cpu", "cuda", "cuda-emu", ...
  llvm::StringRef name;
  /// Other names `--device` accepts for it (cuda: gpu).
  llvm::ArrayRef<llvm::StringRef> aliases;
  llvm::StringRef summary;
  /// The target kind it compiles for (hx/IR/TargetKind.h): what that kind
  /// lists is what this backend implements and costs (its operators, its
  /// roofline, its copy links, the target options it honours).
  llvm::StringRef targetKind;
  /// Made for testing hx (not a default for any device type).
  bool testOnly = false;
  /// Emulates its device type on the host (its times say nothing): the
  /// runners' --emulate-<type> (hx-run --emulate-cuda) put that type's
  /// virtual devices on it. `emulation` says how, for that flag's help.
  bool emulated = false;
  llvm::StringRef emulation;
  /// Its compiler reads the target's options (cuda-emu's does not: the
  /// emulator runs the same kernels whatever the architecture).
  bool usesTarget = true;
  /// The compiler for the code of a virtual device with `target`.
  llvm::Expected<std::unique_ptr<Backend>> (*createBackend)(const Target &target,
                                                            const BackendOptions &opts);
  /// Device `ordinal` of this backend (`name:ordinal`).
  llvm::Expected<std::unique_ptr<Device>> (*createDevice)(unsigned ordinal,
                                                          const DeviceOptions &opts);
  /// How many devices the machine has for it, or why it has none (cuda:
  /// "no CUDA driver (libcuda.so.1 not found)"); null: as many as asked for
  /// (host instances, emulated devices). A virtual device of its type that
  /// finds none runs on a host instance instead (hx/Run/Devices.h).
  llvm::Expected<unsigned> (*countDevices)() = nullptr;
  /// Its lines of `hx-run --list-devices` (the cpu: the host's CPU; cuda:
  /// the driver and each GPU); null: none.
  void (*listDevices)(llvm::raw_ostream &os) = nullptr;
  /// What printCode gives, as `hx-run --emit=FORMAT` names it ("llvm",
  /// "ptx"), and in words ("LLVM IR", "PTX"); empty: nothing to print.
  llvm::StringRef codeFormat, codeName;

  /// The type of its devices (and of the virtual devices it serves): its
  /// target kind's.
  DeviceType deviceType() const;
};

/// Every registered backend, in registration order (the order of their
/// folders' names).
llvm::ArrayRef<BackendInfo> allBackends();
/// The backend registered as `name` (or with that alias), or null.
const BackendInfo *lookupBackend(llvm::StringRef name);
/// "cpu, cuda, cuda-emu, ...", for messages.
std::string backendNames();
/// The backend that compiles for target kind `kind` by default: the first
/// registered one that is neither test-only nor emulated (cpu for llvm,
/// cuda for cuda); null when none does.
const BackendInfo *defaultBackendFor(llvm::StringRef kind);
/// The default backend of the first kind that runs on `t`; null when none.
const BackendInfo *defaultBackendForType(DeviceType t);
/// The backend of the host's cpu instances (cpu).
const BackendInfo &hostBackend();
/// The first backend that emulates device type `t` (cuda-emu for cuda), or
/// null.
const BackendInfo *emulatorFor(DeviceType t);
/// The device types some backend emulates, in registration order.
std::vector<DeviceType> emulatedTypes();

/// Backends made on demand, each once per (backend, target string): the
/// one place runners pick the compiler for a virtual device.
class BackendCache {
public:
  explicit BackendCache(BackendOptions opts = {}) : opts(opts) {}

  /// The backend that compiles virtual device `vd`'s code for `device`:
  /// the device's own backend, for `vd`'s target (for the device's default
  /// target when it stands in for another type, as a cpu instance for a
  /// virtual device whose hardware is missing).
  llvm::Expected<Backend *> backendFor(const VirtualDevice &vd, const Device &device);
  /// The backend `name` for `target` (hx-run --emit=ptx compiles the code
  /// of a device that is not at hand).
  llvm::Expected<Backend *> get(llvm::StringRef name, const Target &target);
  /// Every backend made so far, in the order made.
  llvm::ArrayRef<Backend *> made() const { return order; }

  /// Backend `name` for a target with key `targetKey` (as savedKernels
  /// lists them), when made, starts with the kernels in `saved` (which the
  /// caller keeps alive): a compiled model file's.
  void preload(llvm::StringRef name, llvm::StringRef targetKey, llvm::StringRef saved);
  struct SavedKernels {
    std::string backend, targetKey, bytes;
  };
  /// How many kernels backend `b` started with from preloaded bytes;
  /// nullopt when it was made without any.
  std::optional<unsigned> loadedKernels(const Backend *b) const;
  /// Every backend made so far with its saved kernels (saveKernels).
  llvm::Expected<std::vector<SavedKernels>> savedKernels() const;
  /// The backend name and target key that made `b` here (as savedKernels
  /// lists them); nullopt for a backend this cache did not make.
  std::optional<std::pair<std::string, std::string>> idOf(const Backend *b) const;

private:
  /// What makes two targets compile the same for backend `b`: the kind's
  /// own name (not an alias), the options sorted, without what changes
  /// nothing (-keys, -mcpu=native); nothing when `b` ignores the target.
  static std::string key(const BackendInfo &b, const Target &target);

  BackendOptions opts;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Backend>> backends;
  std::map<std::pair<std::string, std::string>, llvm::StringRef> preloaded;
  std::map<const Backend *, unsigned> loaded;
  std::vector<Backend *> order;
};

} // namespace hx

#endif
