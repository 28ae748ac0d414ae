//===- CUDADriverTest.cpp - The CUDA driver loader and the cuda device ----===//
//
// Three kinds of tests:
//  - Loader: the loader's errors, on any machine: no library, a library that
//    is no driver, this machine's own state, $HX_CUDA_DRIVER.
//  - CUDADeviceTest, run twice: against the fake driver (FakeCUDADriver.h),
//    which runs everywhere and polices how hx uses the driver API (and that
//    a device frees everything), and against the real driver, skipped where
//    there is no GPU. The same test bodies, so what passes against the fake
//    is what runs on the GPU.
//  - FakeDriver: what only a fake can stage (cuInit failing, an entry point
//    missing) or observe (module loads, the launch's parameters).
//
// Faults (an illegal address) poison a real context for the whole process,
// so that test runs in a child process (a death test, "threadsafe" style:
// the child re-executes the test binary).
//
//===----------------------------------------------------------------------===//
#include "CUDADriver.h"
#include "CUDAKernel.h"
#include "FakeCUDADriver.h"
#include "hx/Targets/CPU/CPUBackend.h"
#include "hx/Targets/CUDA/CUDABackend.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <numeric>
#include <vector>

using namespace hx;

namespace {

// c[i] = a[i] + b[i] for i < 1000, and a kernel that stores through a null
// pointer. Checked with ptxas -arch=sm_80 and sm_90.
const std::string kTestPTX = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry hx_test_add(.param .u64 a, .param .u64 b, .param .u64 c)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<11>;

  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  setp.ge.s32 %p1, %r4, 1000;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mul.wide.s32 %rd7, %r4, 4;
  add.s64 %rd8, %rd4, %rd7;
  add.s64 %rd9, %rd5, %rd7;
  add.s64 %rd10, %rd6, %rd7;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd9];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd10], %f3;
DONE:
  ret;
}

.visible .entry hx_test_fault(.param .u64 a)
{
  .reg .b64 %rd<2>;
  .reg .f32 %f<2>;
  mov.u64 %rd1, 0;
  mov.f32 %f1, 0f3F800000;
  st.global.f32 [%rd1], %f1;
  ret;
}
)";

// ptxas: "Not a name of any known instruction: 'frobnicate'".
const std::string kBadPTX = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry hx_test_bad(.param .u64 a)
{
  frobnicate.u32 %r1;
  ret;
}
)";

std::string errorText(llvm::Error e) { return e ? llvm::toString(std::move(e)) : ""; }
template <class T> std::string errorText(llvm::Expected<T> &x) {
  return x ? "" : llvm::toString(x.takeError());
}
template <class T> std::string errorText(llvm::Expected<T> &&x) { return errorText(x); }

CUDAKernel kernel(const std::string &ptx, const char *symbol, unsigned module = 0) {
  CUDAKernel k;
  k.ptx = &ptx;
  k.module = module;
  k.symbolName = symbol;
  k.gridDim = 4;
  k.blockDim = 256;
  return k;
}

/// The fake driver's test hooks, from the library the loader opens too.
struct Fake {
  HxFakeCUDAResetFn reset;
  HxFakeCUDAHideFn hide;
  HxFakeCUDACountsFn counts;
  HxFakeCUDALastMisuseFn lastMisuse;
  HxFakeCUDALastLaunchFn lastLaunch;

  static const Fake &get() {
    static const Fake fake = [] {
      void *lib = dlopen(HX_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
      if (!lib) {
        std::fprintf(stderr, "cannot open the fake driver: %s\n", dlerror());
        std::abort();
      }
      Fake f;
      f.reset = reinterpret_cast<HxFakeCUDAResetFn>(dlsym(lib, "hxFakeCUDAReset"));
      f.hide = reinterpret_cast<HxFakeCUDAHideFn>(dlsym(lib, "hxFakeCUDAHide"));
      f.counts = reinterpret_cast<HxFakeCUDACountsFn>(dlsym(lib, "hxFakeCUDACounts"));
      f.lastMisuse = reinterpret_cast<HxFakeCUDALastMisuseFn>(dlsym(lib, "hxFakeCUDALastMisuse"));
      f.lastLaunch = reinterpret_cast<HxFakeCUDALastLaunchFn>(dlsym(lib, "hxFakeCUDALastLaunch"));
      if (!f.reset || !f.hide || !f.counts || !f.lastMisuse || !f.lastLaunch)
        std::abort();
      return f;
    }();
    return fake;
  }
};

constexpr size_t kFakeCapacity = 64 << 20;

/// Checks the fake saw no misuse and that everything was freed, by hx
/// rather than by the context's destruction unless `reclaimed`.
void expectFakeClean(bool reclaimed = false) {
  const Fake &fake = Fake::get();
  HxFakeCUDACounts c = fake.counts();
  if (!reclaimed) {
    EXPECT_EQ(c.reclaimed, 0);
  }
  EXPECT_EQ(c.misuse, 0) << "last misuse: " << fake.lastMisuse();
  EXPECT_EQ(c.badRequests, 0);
  EXPECT_EQ(c.allocations, 0);
  EXPECT_EQ(c.streams, 0);
  EXPECT_EQ(c.events, 0);
  EXPECT_EQ(c.modules, 0);
  EXPECT_EQ(c.registeredRanges, 0);
  EXPECT_EQ(c.contextRefs, 0);
}

// ---- the loader, on any machine ---------------------------------------------

TEST(Loader, MissingLibrary) {
  auto d = loadCUDADriverFrom("/nonexistent/libcuda.so.1");
  EXPECT_EQ(errorText(d), "no CUDA driver (/nonexistent/libcuda.so.1 not found)");
}

TEST(Loader, LibraryWithoutTheDriverAPI) {
  auto d = loadCUDADriverFrom("libm.so.6");
  EXPECT_EQ(errorText(d), "no usable CUDA driver: libm.so.6 lacks cuGetProcAddress_v2 (not a "
                          "CUDA driver, or one older than CUDA 12.0)");
}

// The toolkit's stub libcuda.so (what linking against CUDA::cuda_driver
// gives on a machine without a driver) exports the API but fails every call.
TEST(Loader, ToolkitStubLibrary) {
  const char *stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!llvm::sys::fs::exists(stub))
    GTEST_SKIP() << "no CUDA toolkit";
  auto d = loadCUDADriverFrom(stub);
  EXPECT_EQ(errorText(d), std::string("no usable CUDA driver: ") + stub +
                              " is the CUDA toolkit's stub library (CUDA_ERROR_STUB_LIBRARY), "
                              "not a driver");
}

TEST(Loader, FileThatIsNoLibrary) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("hx-not-a-driver", "so", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << "not an ELF file\n";
  }
  auto d = loadCUDADriverFrom(path);
  std::string error = errorText(d);
  llvm::sys::fs::remove(path);
  EXPECT_EQ(error.rfind("no CUDA driver (cannot load " + path.str().str() + ": ", 0), 0u) << error;
}

TEST(Loader, ThisMachine) {
  if (std::getenv("HX_CUDA_DRIVER"))
    GTEST_SKIP() << "HX_CUDA_DRIVER is set";
  if (void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(lib);
    // A driver: either a device works or the reason says why not.
    auto info = probeCUDA();
    std::string reason = cudaUnavailableReason();
    EXPECT_EQ(bool(info), reason.empty()) << reason;
    if (!info)
      llvm::consumeError(info.takeError());
    GTEST_SKIP() << "this machine has a CUDA driver";
  }
  auto info = probeCUDA();
  EXPECT_EQ(errorText(info), "no CUDA driver (libcuda.so.1 not found)");
  EXPECT_EQ(cudaUnavailableReason(), "no CUDA driver (libcuda.so.1 not found)");
  auto dev = createCUDADevice(0);
  EXPECT_EQ(errorText(dev), "cuda:0: no CUDA driver (libcuda.so.1 not found)");
}

// The process-wide driver is loaded once, so these set $HX_CUDA_DRIVER in a
// child process that has not loaded it yet.
TEST(Loader, EnvironmentVariableNamesTheLibrary) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("HX_CUDA_DRIVER", "libm.so.6", 1);
        std::fprintf(stderr, "%s\n", cudaUnavailableReason().c_str());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "no usable CUDA driver: libm.so.6 lacks cuGetProcAddress_v2");
}

TEST(Loader, PublicAPIThroughTheFakeDriver) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Fake::get().reset(2, kFakeCapacity, 0);
        setenv("HX_CUDA_DRIVER", HX_FAKE_CUDA_DRIVER, 1);
        auto info = probeCUDA();
        auto dev = createCUDADevice(1);
        auto none = createCUDADevice(2);
        std::fprintf(stderr, "devices %zu, %s, [%s], [%s]\n", info ? info->devices.size() : 0,
                     dev ? (*dev)->name().c_str() : errorText(dev).c_str(),
                     cudaUnavailableReason().c_str(), errorText(none).c_str());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "devices 2, cuda:1, \\[\\], \\[cuda:2: no such device \\(2 found\\)\\]");
}

// ---- the device, against the fake and the real driver ----------------------

enum class DriverKind { Fake, GPU };

class CUDADeviceTest : public ::testing::TestWithParam<DriverKind> {
protected:
  void SetUp() override {
    if (GetParam() == DriverKind::GPU) {
      auto d = loadCUDADriver();
      if (!d)
        GTEST_SKIP() << "no GPU: " << llvm::toString(d.takeError());
      driver = &*d;
      return;
    }
    Fake::get().reset(2, kFakeCapacity, 0);
    auto d = loadCUDADriverFrom(HX_FAKE_CUDA_DRIVER);
    ASSERT_TRUE(bool(d)) << errorText(d);
    owned = std::move(*d);
    driver = owned.get();
  }
  void TearDown() override {
    if (GetParam() == DriverKind::Fake && driver)
      expectFakeClean();
  }

  std::unique_ptr<Device> device(unsigned ordinal = 0, const CUDADeviceOptions &opts = {}) {
    auto dev = createCUDADevice(*driver, ordinal, opts);
    EXPECT_TRUE(bool(dev)) << errorText(dev);
    return dev ? std::move(*dev) : nullptr;
  }
  bool fake() const { return GetParam() == DriverKind::Fake; }

  const CUDADriver *driver = nullptr;
  std::unique_ptr<CUDADriver> owned;
};

std::string kindName(const ::testing::TestParamInfo<DriverKind> &info) {
  return info.param == DriverKind::Fake ? "FakeDriver" : "GPU";
}
INSTANTIATE_TEST_SUITE_P(CUDA, CUDADeviceTest, ::testing::Values(DriverKind::Fake, DriverKind::GPU),
                         kindName);

TEST_P(CUDADeviceTest, Probe) {
  auto info = probeCUDA(*driver);
  ASSERT_TRUE(bool(info)) << errorText(info);
  ASSERT_FALSE(info->devices.empty());
  EXPECT_GE(info->driverVersion, 12000);
  for (const CUDADeviceInfo &d : info->devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.totalMemory, 0u);
    EXPECT_GE(d.ccMajor, 7);
    EXPECT_GT(d.multiprocessors, 0);
  }
  if (fake()) {
    EXPECT_EQ(info->driverVersion, 13000);
    EXPECT_EQ(info->devices[1].ordinal, 1u);
    EXPECT_EQ(info->devices[1].name, "hx fake GPU 1");
    EXPECT_EQ(info->devices[0].totalMemory, kFakeCapacity);
    EXPECT_EQ(info->devices[0].ccMajor, 9);
    EXPECT_EQ(info->devices[0].ccMinor, 0);
    EXPECT_EQ(info->devices[0].multiprocessors, 132);
  }
}

TEST_P(CUDADeviceTest, NoSuchDevice) {
  auto dev = createCUDADevice(*driver, 99);
  EXPECT_EQ(errorText(dev),
            "cuda:99: no such device (" + std::to_string(driver->deviceCount) + " found)");
}

TEST_P(CUDADeviceTest, Properties) {
  auto dev = device(0);
  ASSERT_TRUE(dev);
  EXPECT_EQ(dev->name(), "cuda:0");
  EXPECT_EQ(dev->type(), cudaDeviceType());
  EXPECT_FALSE(dev->hostAccessible());
  EXPECT_TRUE(dev->asynchronous());
}

TEST_P(CUDADeviceTest, AsyncCopiesOrderedByEvents) {
  // The host buffers outlive the device, which unpins `out` when it goes.
  constexpr size_t n = 1 << 18, bytes = n * sizeof(float);
  std::vector<float> in(n), out(n, -1.0f);
  std::iota(in.begin(), in.end(), 0.0f);
  auto dev = device(0);
  ASSERT_TRUE(dev);
  ASSERT_EQ(errorText(dev->pinHost(in.data(), bytes)), "");
  ASSERT_EQ(errorText(dev->pinHost(out.data(), bytes)), "");

  auto a = dev->allocate(bytes), b = dev->allocate(bytes);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(dev->owns(*a));
  EXPECT_TRUE(dev->owns(static_cast<char *>(*b) + bytes - 1));
  EXPECT_FALSE(dev->owns(in.data()));

  auto s1 = dev->createStream(), s2 = dev->createStream();
  auto copied = dev->createEvent(), done = dev->createEvent();
  auto t0 = dev->createEvent(true), t1 = dev->createEvent(true);
  ASSERT_EQ(errorText(dev->copyFromHost(*a, in.data(), bytes, s1.get())), "");
  ASSERT_EQ(errorText(dev->record(*copied, s1.get())), "");
  ASSERT_EQ(errorText(dev->wait(*copied, s2.get())), "");
  ASSERT_EQ(errorText(dev->record(*t0, s2.get())), "");
  ASSERT_EQ(errorText(dev->copyWithin(*b, *a, bytes, s2.get())), "");
  ASSERT_EQ(errorText(dev->record(*t1, s2.get())), "");
  ASSERT_EQ(errorText(dev->copyToHost(out.data(), *b, bytes, s2.get())), "");
  ASSERT_EQ(errorText(dev->record(*done, s2.get())), "");
  ASSERT_EQ(errorText(dev->hostWait(*done)), "");
  EXPECT_EQ(in, out);

  auto seconds = dev->elapsed(*t0, *t1);
  ASSERT_TRUE(bool(seconds)) << errorText(seconds);
  EXPECT_GE(*seconds, 0.0);
  auto untimed = dev->elapsed(*copied, *done);
  EXPECT_EQ(errorText(untimed), "cuda:0: elapsed time asked of an event created without timing");

  // The device's own stream.
  std::vector<float> back(n);
  ASSERT_EQ(errorText(dev->copyFromHost(*b, out.data(), bytes)), "");
  ASSERT_EQ(errorText(dev->copyToHost(back.data(), *b, bytes)), "");
  ASSERT_EQ(errorText(dev->synchronize()), "");
  EXPECT_EQ(back, in);

  dev->unpinHost(in.data());
  dev->deallocate(*a);
  EXPECT_FALSE(dev->owns(*a));
  // `out` stays pinned and `b` allocated: the device's destructor frees them.
}

TEST_P(CUDADeviceTest, KernelAddsArrays) {
  auto dev = device(0);
  ASSERT_TRUE(dev);
  constexpr size_t n = 1000, bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = i * 0.5f;
    b[i] = 1000.0f - i;
  }
  auto da = dev->allocate(bytes), db = dev->allocate(bytes), dc = dev->allocate(bytes);
  ASSERT_TRUE(da && db && dc);
  ASSERT_EQ(errorText(dev->copyFromHost(*da, a.data(), bytes)), "");
  ASSERT_EQ(errorText(dev->copyFromHost(*db, b.data(), bytes)), "");

  CUDAKernel k = kernel(kTestPTX, "hx_test_add");
  auto handle = dev->load(k);
  ASSERT_TRUE(bool(handle)) << errorText(handle);
  // Loaded once: the same kernel, and the same text in another string.
  std::string copy = kTestPTX;
  auto again = dev->load(k), same = dev->load(kernel(copy, "hx_test_add", 5));
  ASSERT_TRUE(again && same);
  EXPECT_EQ(*again, *handle);
  EXPECT_EQ(*same, *handle);

  // The inputs were copied on the device's stream, the kernel runs on
  // another: an event orders them.
  auto stream = dev->createStream();
  auto ready = dev->createEvent(), done = dev->createEvent();
  ASSERT_EQ(errorText(dev->record(*ready)), "");
  ASSERT_EQ(errorText(dev->wait(*ready, stream.get())), "");
  void *buffers[] = {*da, *db, *dc};
  ASSERT_EQ(errorText(dev->launch(*handle, buffers, 3, stream.get())), "");
  ASSERT_EQ(errorText(dev->record(*done, stream.get())), "");
  ASSERT_EQ(errorText(dev->wait(*done)), "");
  ASSERT_EQ(errorText(dev->copyToHost(c.data(), *dc, bytes)), "");
  ASSERT_EQ(errorText(dev->synchronize()), "");
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << i;

  // Where the driver can count parameters (CUDA 12.4), a wrong count is
  // caught before the launch.
  if (driver->cuFuncGetParamInfo) {
    EXPECT_EQ(errorText(dev->launch(*handle, buffers, 2, stream.get())),
              "cuda:0: kernel 'hx_test_add' takes 3 parameters, launched with 2 buffers");
  }
}

TEST_P(CUDADeviceTest, MissingKernel) {
  auto dev = device(0);
  ASSERT_TRUE(dev);
  auto handle = dev->load(kernel(kTestPTX, "hx_test_nope", 2));
  EXPECT_EQ(errorText(handle).rfind("cuda:0: cuModuleGetFunction(kernel 'hx_test_nope' of "
                                    "module 2): CUDA_ERROR_NOT_FOUND",
                                    0),
            0u);
}

TEST_P(CUDADeviceTest, RejectedPTXCarriesTheJITLog) {
  auto dev = device(0);
  ASSERT_TRUE(dev);
  auto handle = dev->load(kernel(kBadPTX, "hx_test_bad", 7));
  std::string error = errorText(handle);
  EXPECT_EQ(error.rfind("cuda:0: the driver rejected the PTX of module 7: "
                        "CUDA_ERROR_INVALID_PTX",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("'frobnicate'"), std::string::npos) << error;
}

TEST_P(CUDADeviceTest, MemoryLimit) {
  CUDADeviceOptions opts;
  opts.memoryLimit = 1 << 20;
  auto dev = device(0, opts);
  ASSERT_TRUE(dev);
  auto a = dev->allocate(1 << 19), b = dev->allocate(1 << 19);
  ASSERT_TRUE(a && b);
  auto c = dev->allocate(1 << 19);
  EXPECT_EQ(errorText(c), "cuda:0: out of memory allocating 524288 bytes: the device memory "
                          "limit is 1048576 bytes (--device-memory-limit) and 1048576 bytes are "
                          "allocated");
  dev->deallocate(*a);
  auto d = dev->allocate(1 << 19);
  EXPECT_TRUE(bool(d)) << errorText(d);
}

TEST_P(CUDADeviceTest, DriverOutOfMemory) {
  auto info = probeCUDA(*driver);
  ASSERT_TRUE(bool(info));
  auto dev = device(0);
  ASSERT_TRUE(dev);
  uint64_t bytes = info->devices[0].totalMemory * 2;
  auto p = dev->allocate(bytes);
  std::string error = errorText(p);
  EXPECT_EQ(error.rfind("cuda:0: cuMemAlloc(" + std::to_string(bytes) +
                            " bytes): CUDA_ERROR_OUT_OF_MEMORY (out of memory); ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find(" of " + std::to_string(info->devices[0].totalMemory) +
                       " bytes of the device are free"),
            std::string::npos)
      << error;
}

TEST_P(CUDADeviceTest, PinningOverlapsIsNoError) {
  std::vector<char> host(1 << 16, 'x');
  auto dev = device(0), other = device(0);
  ASSERT_TRUE(dev && other);
  ASSERT_EQ(errorText(dev->pinHost(host.data(), host.size())), "");
  EXPECT_EQ(errorText(dev->pinHost(host.data() + 1000, 100)), "");
  // Registration is process-wide: another device finds the range taken.
  EXPECT_EQ(errorText(other->pinHost(host.data(), host.size())), "");
  auto p = other->allocate(host.size());
  ASSERT_TRUE(bool(p));
  EXPECT_EQ(errorText(other->copyFromHost(*p, host.data(), host.size())), "");
  EXPECT_EQ(errorText(other->synchronize()), "");
  other->unpinHost(host.data());
  dev->unpinHost(host.data());
  dev->unpinHost(host.data());
}

TEST_P(CUDADeviceTest, StreamsAndEventsOutliveTheDevice) {
  auto dev = device(0);
  ASSERT_TRUE(dev);
  auto stream = dev->createStream();
  auto event = dev->createEvent(true);
  ASSERT_EQ(errorText(dev->record(*event, stream.get())), "");
  dev.reset();
  event.reset();
  stream.reset();
}

TEST_P(CUDADeviceTest, ForeignStreamsAndEvents) {
  auto dev = device(0);
  ASSERT_TRUE(dev);
  auto cpu = createCPUDevice(0, 1);
  auto cpuStream = cpu->createStream();
  auto cpuEvent = cpu->createEvent();
  auto p = dev->allocate(16);
  ASSERT_TRUE(bool(p));
  char host[16] = {};
  EXPECT_EQ(errorText(dev->copyFromHost(*p, host, 16, cpuStream.get())),
            "cuda:0: a stream of another kind of device");
  EXPECT_EQ(errorText(dev->record(*cpuEvent)), "cuda:0: an event of another kind of device");
  if (driver->deviceCount < 2)
    return;
  auto dev1 = device(1);
  ASSERT_TRUE(dev1);
  auto stream1 = dev1->createStream();
  auto event1 = dev1->createEvent();
  EXPECT_EQ(errorText(dev->copyFromHost(*p, host, 16, stream1.get())),
            "cuda:0: a stream of cuda:1");
  EXPECT_EQ(errorText(dev->record(*event1)), "cuda:0: cannot record an event of cuda:1");
  // Waiting on another GPU's event is how copies between GPUs are ordered.
  ASSERT_EQ(errorText(dev1->record(*event1, stream1.get())), "");
  EXPECT_EQ(errorText(dev->wait(*event1)), "");
}

TEST_P(CUDADeviceTest, CopyBetweenGPUs) {
  if (driver->deviceCount < 2)
    GTEST_SKIP() << "one GPU";
  auto dev0 = device(0), dev1 = device(1);
  ASSERT_TRUE(dev0 && dev1);
  std::vector<int> in(4096), out(4096);
  std::iota(in.begin(), in.end(), 7);
  size_t bytes = in.size() * sizeof(int);
  auto p0 = dev0->allocate(bytes), p1 = dev1->allocate(bytes);
  ASSERT_TRUE(p0 && p1);
  EXPECT_FALSE(dev1->owns(*p0));
  ASSERT_EQ(errorText(dev0->copyFromHost(*p0, in.data(), bytes)), "");
  auto ready = dev0->createEvent();
  ASSERT_EQ(errorText(dev0->record(*ready)), "");
  // Interleaved calls on two devices from one thread: each makes its own
  // context current.
  ASSERT_EQ(errorText(dev1->wait(*ready)), "");
  ASSERT_EQ(errorText(dev1->copyWithin(*p1, *p0, bytes)), "");
  ASSERT_EQ(errorText(dev1->copyToHost(out.data(), *p1, bytes)), "");
  ASSERT_EQ(errorText(dev1->synchronize()), "");
  EXPECT_EQ(in, out);
}

// A fault is reported at the next synchronization, by name, and the device
// is still destroyed without hanging or crashing.
TEST_P(CUDADeviceTest, KernelFaultIsACleanErrorAtTheNextSync) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto dev = device(0);
        auto handle = dev->load(kernel(kTestPTX, "hx_test_fault"));
        void *buffers[] = {nullptr};
        std::string launch = errorText(dev->launch(*handle, buffers, 1));
        std::string sync = errorText(dev->synchronize());
        std::string later = errorText(dev->synchronize());
        dev.reset();
        std::fprintf(stderr, "launch [%s] sync [%s] later [%s] destroyed\n", launch.c_str(),
                     sync.c_str(), later.c_str());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "launch \\[\\] sync \\[cuda:0: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS \\(an illegal "
      "memory access was encountered\\)\\] later \\[cuda:0: .*CUDA_ERROR_ILLEGAL_ADDRESS.*\\] "
      "destroyed");
}

// ---- what only the fake driver shows ------------------------------------------

class FakeDriver : public ::testing::Test {
protected:
  void SetUp() override { Fake::get().reset(2, kFakeCapacity, 0); }
  void TearDown() override { expectFakeClean(reclaimed); }
  /// Whether the test leaves things to the context's destruction.
  bool reclaimed = false;
  std::unique_ptr<CUDADriver> load() {
    auto d = loadCUDADriverFrom(HX_FAKE_CUDA_DRIVER);
    EXPECT_TRUE(bool(d)) << errorText(d);
    return d ? std::move(*d) : nullptr;
  }
};

TEST_F(FakeDriver, EveryEntryPointAtThePinnedVersion) {
  auto d = load();
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, HX_FAKE_CUDA_DRIVER);
  EXPECT_EQ(d->driverVersion, 13000);
  EXPECT_EQ(d->deviceCount, 2);
#define HX_CUDA_ENTRY(name, abi, required, params) EXPECT_NE(d->name, nullptr) << #name;
#include "CUDAEntryPoints.def"
  // expectFakeClean: no entry point was asked for at another version.
}

TEST_F(FakeDriver, MissingEntryPoint) {
  Fake::get().hide("cuLaunchKernel");
  auto d = loadCUDADriverFrom(HX_FAKE_CUDA_DRIVER);
  EXPECT_EQ(errorText(d), std::string("no usable CUDA driver: ") + HX_FAKE_CUDA_DRIVER +
                              " has no cuLaunchKernel for CUDA 12.0 (symbol not found; the "
                              "driver may be older than CUDA 12.0)");
}

TEST_F(FakeDriver, OptionalEntryPointMissing) {
  Fake::get().hide("cuFuncGetParamInfo");
  auto d = load();
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuFuncGetParamInfo, nullptr);
  auto dev = createCUDADevice(*d, 0, {});
  ASSERT_TRUE(bool(dev));
  auto handle = (*dev)->load(kernel(kTestPTX, "hx_test_add"));
  EXPECT_TRUE(bool(handle)) << errorText(handle);
}

TEST_F(FakeDriver, CuInitFails) {
  Fake::get().reset(1, kFakeCapacity, hx::cu::CUDA_ERROR_STUB_LIBRARY);
  auto d = loadCUDADriverFrom(HX_FAKE_CUDA_DRIVER);
  EXPECT_EQ(errorText(d), "CUDA driver found, but cuInit failed: CUDA_ERROR_STUB_LIBRARY (CUDA "
                          "driver is a stub library)");
}

TEST_F(FakeDriver, NoDevice) {
  Fake::get().reset(0, kFakeCapacity, hx::cu::CUDA_ERROR_NO_DEVICE);
  auto d = loadCUDADriverFrom(HX_FAKE_CUDA_DRIVER);
  EXPECT_EQ(errorText(d), "driver found, no device");
  Fake::get().reset(0, kFakeCapacity, hx::cu::CUDA_SUCCESS);
  auto e = loadCUDADriverFrom(HX_FAKE_CUDA_DRIVER);
  EXPECT_EQ(errorText(e), "driver found, no device");
}

TEST_F(FakeDriver, UnknownErrorCode) {
  auto d = load();
  ASSERT_TRUE(d);
  EXPECT_EQ(errorText(d->check(static_cast<hx::cu::CUresult>(9999), "cuda:0: cuFoo")),
            "cuda:0: cuFoo: CUDA error 9999");
  EXPECT_EQ(errorText(d->check(hx::cu::CUDA_ERROR_OUT_OF_MEMORY, "cuda:0: cuMemAlloc(256 bytes)")),
            "cuda:0: cuMemAlloc(256 bytes): CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  EXPECT_EQ(errorText(d->check(hx::cu::CUDA_SUCCESS, "unused")), "");
}

TEST_F(FakeDriver, LaunchPassesTheBufferPointers) {
  auto d = load();
  ASSERT_TRUE(d);
  auto dev = createCUDADevice(*d, 1, {});
  ASSERT_TRUE(bool(dev));
  CUDAKernel k = kernel(kTestPTX, "hx_test_add");
  k.gridDim = 3;
  k.blockDim = 128;
  auto handle = (*dev)->load(k);
  ASSERT_TRUE(bool(handle));
  auto a = (*dev)->allocate(4000), b = (*dev)->allocate(4000), c = (*dev)->allocate(4000);
  ASSERT_TRUE(a && b && c);
  void *buffers[] = {*a, *b, *c};
  ASSERT_EQ(errorText((*dev)->launch(*handle, buffers, 3)), "");
  HxFakeCUDALaunch launch = Fake::get().lastLaunch();
  EXPECT_EQ(launch.gridDim, 3u);
  EXPECT_EQ(launch.blockDim, 128u);
  ASSERT_EQ(launch.numParams, 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(launch.params[i], buffers[i]);
}

TEST_F(FakeDriver, ModulesAreKeyedByTheirText) {
  auto d = load();
  ASSERT_TRUE(d);
  auto dev = createCUDADevice(*d, 0, {});
  ASSERT_TRUE(bool(dev));
  std::string other = kTestPTX + "\n// another module\n";
  auto k1 = (*dev)->load(kernel(kTestPTX, "hx_test_add", 0));
  auto k2 = (*dev)->load(kernel(kTestPTX, "hx_test_fault", 0));
  // A later executable's module 0: other code under the same index.
  auto k3 = (*dev)->load(kernel(other, "hx_test_add", 0));
  ASSERT_TRUE(k1 && k2 && k3);
  EXPECT_NE(*k1, *k2);
  EXPECT_NE(*k1, *k3);
  EXPECT_EQ(Fake::get().counts().moduleLoads, 2);
}

TEST_F(FakeDriver, StickyErrorThenCleanup) {
  auto d = load();
  ASSERT_TRUE(d);
  auto dev = createCUDADevice(*d, 0, {});
  ASSERT_TRUE(bool(dev));
  auto p = (*dev)->allocate(16);
  ASSERT_TRUE(bool(p));
  auto handle = (*dev)->load(kernel(kTestPTX, "hx_test_fault"));
  ASSERT_TRUE(bool(handle));
  void *buffers[] = {*p};
  ASSERT_EQ(errorText((*dev)->launch(*handle, buffers, 1)), "");
  const char *fault = "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)";
  EXPECT_EQ(errorText((*dev)->synchronize()), std::string("cuda:0: cuCtxSynchronize: ") + fault);
  char host[16] = {};
  EXPECT_EQ(errorText((*dev)->copyFromHost(*p, host, 16)),
            std::string("cuda:0: cuMemcpyHtoDAsync(16 bytes): ") + fault);
  auto event = (*dev)->createEvent();
  EXPECT_EQ(errorText((*dev)->record(*event)), std::string("cuda:0: cuEventCreate: ") + fault);
  // The destructor ignores the errors (nothing can be freed in a faulted
  // context); the context goes with its last user and takes everything in
  // it along.
  reclaimed = true;
}

TEST_F(FakeDriver, InvalidLaunchShapeNamesTheKernel) {
  auto d = load();
  ASSERT_TRUE(d);
  auto dev = createCUDADevice(*d, 0, {});
  ASSERT_TRUE(bool(dev));
  CUDAKernel k = kernel(kTestPTX, "hx_test_add");
  k.blockDim = 4096;
  auto handle = (*dev)->load(k);
  ASSERT_TRUE(bool(handle));
  void *buffers[] = {nullptr, nullptr, nullptr};
  EXPECT_EQ(errorText((*dev)->launch(*handle, buffers, 3)),
            "cuda:0: cuLaunchKernel(kernel 'hx_test_add', 4 blocks of 4096 threads): "
            "CUDA_ERROR_INVALID_VALUE (invalid argument)");
  k.gridDim = 0;
  EXPECT_EQ(errorText((*dev)->load(k)),
            "cuda:0: kernel 'hx_test_add' has an empty launch shape (0 blocks of 4096 threads)");
}

} // namespace
