//===- Backend.h - Backends, executables and devices ------------*- C++ -*-===//
//
// The three interfaces every target implements (Glow's compile ->
// executable -> device manager, IREE's HAL queues, kept small):
//
//  - Backend: which operators it implements, and compiling a primitive
//    function (today one operator call) into a kernel (KernelBinary,
//    opaque to all but the backend).
//  - Device: one physical device instance (a cpu instance with its own
//    thread pool, a GPU): allocate and free memory, copy in, out and within,
//    with an asynchronous form from the start — copies and kernels are
//    issued on a Stream and ordered by Events — so that a device whose
//    copies really are asynchronous (cuda) fits without changing the
//    runtime. A cpu device runs everything synchronously: its streams are
//    already done when an operation returns.
//  - Executable (hx/Runtime/Executable.h): a schedule bound to devices; run.
//
// The backends themselves (cpu, cuda, cuda-emu, ...) are the targets of
// lib/Targets, one folder each, which register themselves
// (hx/Targets/Registry.h): the runtime links no compiler.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUNTIME_BACKEND_H
#define HX_RUNTIME_BACKEND_H

#include "hx/IR/Expr.h"
#include "hx/IR/VirtualDevice.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace hx {

/// An ordered queue of device work.
class Stream {
public:
  virtual ~Stream() = default;
};

/// A point in a stream that other streams (or the host) can wait for.
class Event {
public:
  virtual ~Event() = default;
};

/// What a backend made of one kernel: opaque to everything but the backend
/// that made it and that backend's devices (each backend's folder under
/// lib/Targets defines its subclass and reads it back with kernelAs).
class KernelBinary {
public:
  virtual ~KernelBinary() = default;
  /// The registered name of the backend whose code it is
  /// (hx/Targets/Registry.h): the devices that can load it check it. A
  /// backend built on another's compiler (a test target on the cpu's) makes
  /// that backend's kind of kernel.
  virtual llvm::StringRef backend() const = 0;
  /// The kernel's symbol, for messages.
  virtual llvm::StringRef symbol() const = 0;
};

/// `k` as backend `T`'s kernel (T::kBackend names the backend), or null when
/// another backend made it.
template <typename T> const T *kernelAs(const KernelBinary &k) {
  return k.backend() == T::kBackend ? static_cast<const T *>(&k) : nullptr;
}

class Device {
public:
  virtual ~Device() = default;
  /// "cpu:0", "cpu:1", "cuda:0".
  virtual std::string name() const = 0;
  virtual DeviceType type() const = 0;
  /// Whether the host can read and write its memory directly.
  virtual bool hostAccessible() const = 0;
  /// The registered name of the backend whose kernels it runs
  /// (hx/Targets/Registry.h): "cpu", "cuda", "cuda-emu", ...
  virtual llvm::StringRef backend() const = 0;
  /// Whether it emulates its type on the host (cuda-emu): its times say
  /// nothing of the real device's.
  virtual bool emulated() const { return false; }

  virtual llvm::Expected<void *> allocate(size_t bytes) = 0;
  virtual void deallocate(void *p) = 0;
  /// Whether `p` points into memory this device allocated (--check-devices).
  virtual bool owns(const void *p) const = 0;

  /// Copies; on `stream` (null: the device's default stream), asynchronous
  /// where the device is.
  virtual llvm::Error copyFromHost(void *dst, const void *src, size_t bytes,
                                   Stream *stream = nullptr) = 0;
  virtual llvm::Error copyToHost(void *dst, const void *src, size_t bytes,
                                 Stream *stream = nullptr) = 0;
  virtual llvm::Error copyWithin(void *dst, const void *src, size_t bytes,
                                 Stream *stream = nullptr) = 0;

  /// Whether copies and kernels may still run when their call returns (a
  /// GPU). The executor orders an asynchronous device's streams with events;
  /// everything a synchronous device does is complete on return.
  virtual bool asynchronous() const { return false; }

  virtual std::unique_ptr<Stream> createStream() = 0;
  /// `timing`: the event can be measured with elapsed() (--profile).
  virtual std::unique_ptr<Event> createEvent(bool timing = false) = 0;
  virtual llvm::Error record(Event &e, Stream *stream = nullptr) = 0;
  /// Makes `stream` wait for `e` (recorded on any stream of this device).
  virtual llvm::Error wait(Event &e, Stream *stream = nullptr) = 0;
  /// Blocks the host until `e` has happened.
  virtual llvm::Error hostWait(Event &e) = 0;
  /// Seconds from `from` to `to`, both recorded timing events.
  virtual llvm::Expected<double> elapsed(Event &from, Event &to) = 0;
  /// Waits until all work issued to the device is done.
  virtual llvm::Error synchronize() = 0;

  /// Page-locks host memory that this device's copies read or write (cuda:
  /// cuMemHostRegister), until unpinHost. Nothing to do on a cpu.
  virtual llvm::Error pinHost(void *p, size_t bytes) { return llvm::Error::success(); }
  virtual void unpinHost(void *p) {}

  /// Prepares a kernel for launch on this device (cuda: loads its module
  /// once per device); the handle lives as long as the device.
  virtual llvm::Expected<const void *> load(const KernelBinary &k) = 0;
  /// Runs a loaded kernel on `buffers` (numBuffers pointers).
  virtual llvm::Error launch(const void *kernel, void **buffers, unsigned numBuffers,
                             Stream *stream = nullptr) = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  /// Its registered name (hx/Targets/Registry.h).
  virtual llvm::StringRef name() const = 0;
  virtual DeviceType type() const = 0;
  /// Whether the backend has a kernel for the operator.
  virtual bool supports(const OpDef &op) const = 0;
  /// Registers a typed operator call; the same signature gives the same id.
  virtual llvm::Expected<unsigned> addKernel(const Call &call) = 0;
  /// Compiles every kernel added so far.
  virtual llvm::Error finalize() = 0;
  /// How many kernels the next finalize compiles (progress reports).
  virtual unsigned numPending() const { return 0; }
  /// A finalized kernel.
  virtual const KernelBinary &binary(unsigned id) const = 0;
  virtual unsigned numKernels() const = 0;
  /// The generated code of every kernel (--emit=llvm / --emit=ptx).
  virtual void printCode(llvm::raw_ostream &os) const = 0;
  /// The generated code per module, for --output-dir (cuda: one .ptx each);
  /// empty where the code lives only in memory.
  virtual std::vector<std::string> codeModules() const { return {}; }
  /// Appends every kernel compiled so far to `out`, as bytes the backend's
  /// registration loads back in another process without compiling them
  /// (BackendOptions::saved, hx/Targets/Registry.h): a compiled model file.
  /// Needs BackendOptions::keepKernels. A backend that cannot is an error.
  virtual llvm::Error saveKernels(std::string &out) const {
    return llvm::createStringError("the " + name() + " backend cannot save its kernels");
  }
};

} // namespace hx

#endif
