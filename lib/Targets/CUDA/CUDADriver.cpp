//===- CUDADriver.cpp - Loading the CUDA driver at run time ---------------===//
//
// dlopen("libcuda.so.1") (or $HX_CUDA_DRIVER), dlsym of cuGetProcAddress_v2
// only, then every entry point of CUDAEntryPoints.def through it at the
// pinned CUDA version (CUDADriver.h says why), then cuInit and the device
// count. Each failure has its own message, because it ends up in front of
// the user as the reason a cuda virtual device runs on a cpu instance.
//
// The process-wide table is loaded once, on first use, by a function-local
// static, and never freed; loadCUDADriverFrom gives a fresh table for tests.
//
//===----------------------------------------------------------------------===//
#include "CUDADriver.h"
#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <type_traits>

using namespace hx;
using namespace hx::cu;
using namespace llvm;

namespace {

Error makeError(const Twine &msg) { return createStringError(msg); }

/// A dlopen handle, closed on destruction unless released.
class Library {
public:
  explicit Library(void *handle) : handle(handle) {}
  Library(const Library &) = delete;
  Library &operator=(const Library &) = delete;
  ~Library() {
    if (handle)
      dlclose(handle);
  }
  void *get() const { return handle; }
  /// Keeps the library open for the rest of the process.
  void release() { handle = nullptr; }

private:
  void *handle;
};

/// "12.0" for 12000.
std::string versionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

} // namespace

std::string CUDADriver::describe(CUresult r) const {
  const char *name = nullptr, *text = nullptr;
  if (!cuGetErrorName || cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(static_cast<int>(r));
  std::string s = name;
  if (cuGetErrorString && cuGetErrorString(r, &text) == CUDA_SUCCESS && text && *text)
    s += std::string(" (") + text + ")";
  return s;
}

Error CUDADriver::fail(CUresult r, const Twine &call) const {
  return makeError(call + ": " + describe(r));
}

Expected<std::unique_ptr<CUDADriver>> hx::loadCUDADriverFrom(StringRef pathRef) {
  std::string path = pathRef.str();
  dlerror();
  Library lib(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!lib.get()) {
    const char *message = dlerror();
    StringRef why = message ? message : "";
    if (why.empty() || why.contains("No such file or directory"))
      return makeError("no CUDA driver (" + path + " not found)");
    return makeError("no CUDA driver (cannot load " + path + ": " + why + ")");
  }

  auto getProcAddress = reinterpret_cast<GetProcAddressFn>(dlsym(lib.get(), "cuGetProcAddress_v2"));
  if (!getProcAddress)
    return makeError("no usable CUDA driver: " + path +
                     " lacks cuGetProcAddress_v2 (not a CUDA driver, or one older than "
                     "CUDA 12.0)");

  auto d = std::make_unique<CUDADriver>();
  d->path = path;
  // Fetches one entry point with the ABI of max(kPinnedVersion, abi).
  // CU_GET_PROC_ADDRESS_DEFAULT gives the legacy-stream variants; hx never
  // passes the NULL stream, so the per-thread ones would make no difference.
  auto fetch = [&](const char *name, int abi, bool required, auto &slot) -> Error {
    int version = std::max(kPinnedVersion, abi);
    void *fn = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r = getProcAddress(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (r == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && fn) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(fn);
      return Error::success();
    }
    if (r == CUDA_ERROR_STUB_LIBRARY)
      return makeError("no usable CUDA driver: " + path +
                       " is the CUDA toolkit's stub library (CUDA_ERROR_STUB_LIBRARY), not a "
                       "driver");
    if (!required)
      return Error::success();
    std::string why;
    if (r != CUDA_SUCCESS)
      why = "cuGetProcAddress: " + d->describe(r);
    else if (status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)
      why = "the driver has it only for a newer CUDA version";
    else
      why = "symbol not found; the driver may be older than CUDA " + versionText(version);
    return makeError("no usable CUDA driver: " + path + " has no " + name + " for CUDA " +
                     versionText(version) + " (" + why + ")");
  };
#define HX_CUDA_ENTRY(name, abi, required, params)                                                 \
  if (Error e = fetch(#name, abi, required, d->name))                                              \
    return e;
#include "CUDAEntryPoints.def"

  // From here on the library stays loaded: an initialized driver has threads
  // and handlers of its own that dlclose would pull from under them.
  CUresult r = d->cuInit(0);
  lib.release();
  if (r == CUDA_ERROR_NO_DEVICE)
    return makeError("driver found, no device");
  if (r != CUDA_SUCCESS)
    return makeError("CUDA driver found, but cuInit failed: " + d->describe(r));
  if (Error e = d->check(d->cuDriverGetVersion(&d->driverVersion), "cuDriverGetVersion"))
    return e;
  if (Error e = d->check(d->cuDeviceGetCount(&d->deviceCount), "cuDeviceGetCount"))
    return e;
  if (d->deviceCount <= 0)
    return makeError("driver found, no device");
  return d;
}

std::string hx::cudaDriverPath() {
  const char *env = std::getenv("HX_CUDA_DRIVER");
  return env && *env ? env : "libcuda.so.1";
}

Expected<const CUDADriver &> hx::loadCUDADriver() {
  struct Loaded {
    const CUDADriver *driver = nullptr;
    std::string error;
  };
  // Loaded on first use, then immutable; leaked on purpose (see the header).
  static const Loaded *const loaded = [] {
    auto *l = new Loaded;
    Expected<std::unique_ptr<CUDADriver>> d = loadCUDADriverFrom(cudaDriverPath());
    if (d)
      l->driver = d->release();
    else
      l->error = toString(d.takeError());
    return l;
  }();
  if (!loaded->driver)
    return makeError(loaded->error);
  return *loaded->driver;
}
