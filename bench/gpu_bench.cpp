//===- gpu_bench.cpp - GPU speed (issue 14), each figure with its reference ===//
//
// Prints, from one process, each figure next to a reference measured in the
// same run on the same GPU, then a table, one line per figure:
//
//  add       elementwise add over 2^26 float32 on cuda, GB/s counting the
//            bytes read and written (3 x 4 x 2^26), against a device-to-device
//            copy of the same bytes (Device::copyWithin, 2 x 4 x 2^26): add
//            is memory-bound, and a copy is the most any kernel moves through
//            device memory, so the ratio is the share of the reachable
//            bandwidth (target >= 80%). Both are timed with device events
//            around one launch (or one copy) on the device's stream.
//  dense     nn.dense 4096x4096x4096 float32, hx's own kernel, TFLOP/s
//            (2 N^3 operations) against cuBLAS sgemm computing the same
//            product in float32 (no TF32): what the vendor library reaches
//            on the same chip is the practical ceiling of the arithmetic
//            (target >= 50%). hx's dense is out[i,j] = sum_k data[i,k] *
//            weight[j,k], C = A B^T row-major, which column-major cuBLAS
//            computes as C^T = B A^T: sgemm(T, N, n, m, k, 1, weight, k,
//            data, k, 0, out, n). cuBLAS runs on the legacy default stream,
//            so both are timed alike: batches of calls between two
//            synchronizations, host clock.
//  copy      device_copy of 256 MiB cpu -> cuda -> cpu through the executor,
//            GB/s counting both directions, against pinned copies of the same
//            size (Device::pinHost, copyFromHost + copyToHost, timed with
//            events): the copy engines' rate from page-locked memory is what
//            the executor's copies can reach (target >= 80%). The executor's
//            figure is the difference between two run()s of modules that
//            differ only in the round trip — both take a 256 MiB cpu
//            parameter and return its max computed on the cpu — so the
//            upload of the parameter, the max and the run's own overhead
//            cancel, whatever the executor does inside (streams, pinning,
//            events).
//  mlp       a 10-layer MLP (batch 256, width 4096; every layer nn.dense +
//            nn.relu; layers 1-9 on cuda, the last layer and nn.softmax on
//            the cpu), time per run(), against the same module all on the cpu
//            with hx: the speed-up a user gets by placing layers on the GPU.
//            The weights are parameters, so each run() uploads them (576 MiB
//            to cuda): the figure is the time of run() as a user sees it.
//  overhead  1,000 adds of Tensor[(4), float32] chained on cuda: time per
//            run() over the number of steps, the cost of the executor and of
//            a kernel launch per step (target <= 5 us).
//
// Method: every module is text that goes through the parser, plan-devices,
// the cuda backend (PTX) and Executable::build like hx-run's; add and dense
// launch the kernel the executable loaded on buffers of their own, the other
// figures time run(). Inputs are random (never zeros); outputs timed by
// launch are poisoned with NaNs first; each figure's result is checked once
// against a reference before it is timed (exactly where the arithmetic is
// exact, else as a maximum relative error |a-b| / max(1,|b|): dense against
// cuBLAS on every element and both against float64 on sampled ones); a
// failed check is printed and makes the exit status 1. Everything is warmed
// up first; a figure is the median of --repeat timings. cuBLAS is opened
// at run time: $HX_CUBLAS, else libcublas.so.13 / .12 / .so. Without a GPU
// the program says why in one line and exits 0; --dry-run compiles every
// module for sm_90 (Executable::build with compileOnly) and runs nothing.
//
//===----------------------------------------------------------------------===//
#include "cublas_loader.h"
#include "gpu_bench_modules.h"
#include "hx/Parser/Parser.h"
#include "hx/Run/Session.h"
#include "hx/Runtime/Executable.h"
#include "hx/Targets/CPU/CPUBackend.h"
#include "hx/Targets/CUDA/CUDABackend.h"
#include "hx/Targets/Registry.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace hx;
using namespace hx::bench;
using llvm::format;
using llvm::outs;
using Clock = std::chrono::steady_clock;

namespace {

//===----------------------------------------------------------------------===//
// Options, errors, numbers
//===----------------------------------------------------------------------===//

const char *const kFigures[] = {"add", "dense", "copy", "mlp", "overhead"};

struct Options {
  bool dryRun = false;
  std::set<std::string> only; // empty: every figure
  int64_t denseSize = 4096;
  unsigned repeat = 10;
  bool wants(llvm::StringRef figure) const { return only.empty() || only.count(figure.str()); }
};

[[noreturn]] void die(const llvm::Twine &msg) {
  outs().flush();
  llvm::errs() << "hx-gpu-bench: error: " << msg << "\n";
  std::exit(1);
}

void check(llvm::Error e, llvm::StringRef what) {
  if (e)
    die(what + ": " + llvm::toString(std::move(e)));
}

template <typename T> T check(llvm::Expected<T> v, llvm::StringRef what) {
  if (!v)
    die(what + ": " + llvm::toString(v.takeError()));
  return std::move(*v);
}

double seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Uniform floats in [-scale, scale) from a splitmix64 stream: multiples of
/// 2^-23 * scale, so never denormal, and different for every seed.
void fillRandom(float *p, int64_t n, uint64_t seed, float scale = 1) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    p[i] = (float(z >> 40) * 0x1p-23f - 1.0f) * scale;
  }
}

/// |got-want| / max(1, |want|), as hx-run --check.
double relError(double got, double want) {
  return std::fabs(got - want) / std::max(1.0, std::fabs(want));
}

/// The larger error; NaN sticks (std::max would drop it).
double worse(double worst, double e) { return std::isnan(e) || e > worst ? e : worst; }

/// The maximum relative error of `a` against `b`; NaN where either has one.
double maxRelError(const float *a, const float *b, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    worst = worse(worst, relError(a[i], b[i]));
  return worst;
}

/// Host memory for copies: page-aligned (cuMemHostRegister pins whole pages).
struct HostBuffer {
  explicit HostBuffer(size_t bytes) : bytes(bytes) {
    p = static_cast<float *>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
    if (!p)
      die("cannot allocate " + llvm::Twine(bytes) + " bytes of host memory");
  }
  ~HostBuffer() { std::free(p); }
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;
  float *p;
  size_t bytes;
};

/// Device memory, freed when it goes.
struct DeviceBuffer {
  DeviceBuffer(Device &d, size_t bytes) : device(d), bytes(bytes) {
    p = check(d.allocate(bytes), d.name() + ": allocating " + std::to_string(bytes) + " bytes");
  }
  ~DeviceBuffer() { device.deallocate(p); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  void upload(const void *src) { check(device.copyFromHost(p, src, bytes), "upload"); }
  void download(void *dst) {
    check(device.copyToHost(dst, p, bytes), "download");
    check(device.synchronize(), "download");
  }
  Device &device;
  size_t bytes;
  void *p;
};

/// Device seconds of the work `issue` puts on the device's own stream,
/// between two timing events.
class EventTimer {
public:
  explicit EventTimer(Device &d) : d(d), from(d.createEvent(true)), to(d.createEvent(true)) {}
  double operator()(const std::function<void()> &issue) {
    check(d.record(*from), "recording an event");
    issue();
    check(d.record(*to), "recording an event");
    return check(d.elapsed(*from, *to), "reading events");
  }

private:
  Device &d;
  std::unique_ptr<Event> from, to;
};

/// Seconds per call of `issue`, `calls` calls between two synchronizations
/// of the device, host clock (work on any stream of the device's context).
double syncedSeconds(Device &d, int calls, const std::function<void()> &issue) {
  check(d.synchronize(), "synchronize");
  Clock::time_point t = Clock::now();
  for (int i = 0; i < calls; ++i)
    issue();
  check(d.synchronize(), "synchronize");
  return seconds(t) / calls;
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

struct Context {
  Options opts;
  std::string arch = "sm_90";
  std::unique_ptr<Device> cpuOwned, cudaOwned;
  Device *cpu = nullptr;
  /// The real GPU; in a dry run a cpu instance the executables never touch.
  Device *cuda = nullptr;
  unsigned compiled = 0;
};

/// A module parsed, planned and built through the compile-and-run API; it
/// owns what the executable uses (the backends outlive the session's
/// executable).
struct Compiled {
  std::string name;
  BackendCache backends;
  Session session;
  Module *m = nullptr;
  Executable *exe = nullptr;

  /// The steps that are kernels, on `device` (a virtual device) or on any.
  std::vector<const Step *> kernels(int device = -1) const {
    std::vector<const Step *> out;
    for (const Step &s : exe->steps())
      if (s.kind == Step::Kind::Kernel && (device < 0 || s.device == unsigned(device)))
        out.push_back(&s);
    return out;
  }
  unsigned copies() const {
    return llvm::count_if(exe->steps(), [](const Step &s) { return s.kind == Step::Kind::Copy; });
  }
  /// The number of kernel steps on each virtual device, and copies.
  std::string summary() const {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << exe->steps().size() << " steps:";
    for (unsigned d = 0; d < m->devices.size(); ++d)
      os << " " << kernels(d).size() << " kernels on " << deviceTypeName(m->devices[d].deviceType)
         << ",";
    os << " " << copies() << " copies";
    return s;
  }
};

/// Parses, plans and builds `text` (compileOnly in a dry run): virtual device
/// i gets ctx.cpu or ctx.cuda by its type, and a cpu or cuda backend.
std::unique_ptr<Compiled> compile(Context &ctx, const std::string &name, const std::string &text) {
  auto c = std::make_unique<Compiled>();
  c->name = name;
  if (c->session.loadText(text, name, LoadOptions()) != Session::Status::Ok)
    die("module '" + name + "' does not parse or plan (diagnostics above)");
  c->m = &c->session.module();
  std::vector<Device *> devices;
  for (const VirtualDevice &vd : c->m->devices)
    devices.push_back(vd.deviceType == cudaDeviceType() ? ctx.cuda : ctx.cpu);
  // A dry run compiles each virtual device's code for its own type's
  // backend (cuda code, with a cpu device standing in for the GPU).
  CompileOptions co;
  co.compileOnly = ctx.opts.dryRun;
  if (llvm::Error e = c->session.compileFor(devices, c->backends, co)) {
    if (!e.isA<DiagnosedError>())
      outs() << llvm::toString(std::move(e)) << "\n";
    else
      consumeError(std::move(e));
    die("module '" + name + "' does not build");
  }
  c->exe = &c->session.executable();
  ++ctx.compiled;
  if (ctx.opts.dryRun) {
    unsigned ptx = 0;
    for (Backend *b : c->backends.made())
      if (b->type() == cudaDeviceType())
        for (const std::string &mod : b->codeModules())
          if (llvm::StringRef(mod).contains(".target " + ctx.arch))
            ++ptx;
    outs() << "compiled " << name << ": " << c->summary() << "; " << ptx << " PTX modules for "
           << ctx.arch << "\n";
  }
  return c;
}

/// Loads the kernel of a one-kernel module on its device, to launch it
/// directly on buffers of the benchmark's own.
const void *loadOnlyKernel(Context &ctx, const Compiled &c) {
  std::vector<const Step *> k = c.kernels();
  if (k.size() != 1)
    die(c.name + ": expected one kernel, the schedule has " + llvm::Twine(k.size()));
  Backend *b = nullptr;
  for (Backend *be : c.backends.made())
    if (be->type() == cudaDeviceType())
      b = be;
  if (!b || c.m->devices[k[0]->device].deviceType != cudaDeviceType())
    die(c.name + ": the kernel is not on cuda");
  return check(ctx.cuda->load(b->binary(k[0]->kernel)), c.name + ": loading the kernel");
}

std::vector<HostTensor> run(Compiled &c, llvm::ArrayRef<HostTensor> inputs) {
  return check(c.exe->run(inputs), c.name + ": run");
}

/// Median seconds of `repeat` run()s, host clock (run() returns when
/// everything is done and copied out), after `warmup` runs.
double timeRuns(Compiled &c, llvm::ArrayRef<HostTensor> inputs, unsigned repeat,
                unsigned warmup = 2) {
  for (unsigned i = 0; i < warmup; ++i)
    run(c, inputs);
  std::vector<double> t;
  for (unsigned i = 0; i < repeat; ++i) {
    Clock::time_point t0 = Clock::now();
    run(c, inputs);
    t.push_back(seconds(t0));
  }
  return median(t);
}

HostTensor randomTensor(llvm::ArrayRef<int64_t> shape, uint64_t seed, float scale = 1) {
  HostTensor t(DType::Float32, shape);
  fillRandom(t.as<float>(), t.numElements(), seed, scale);
  return t;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

struct Figure {
  std::string name;
  std::string value; // "2712.3 GB/s"
  std::string reference;
  std::string ratio;  // "91.9%"
  std::string target; // "target >= 80%"
  bool met = true;
  bool checked = true; // the result check passed
};

std::vector<Figure> figures;
unsigned checkFailures = 0;

/// Prints `  check <what>: ok|FAILED` and counts a failure.
bool reportCheck(const std::string &what, bool ok) {
  outs() << "  check " << what << ": " << (ok ? "ok" : "FAILED") << "\n";
  checkFailures += !ok;
  return ok;
}

/// A check by maximum relative error: `  check <what>: max relative error E
/// (tolerance T): ok|FAILED`.
bool reportCheck(const std::string &what, double err, double tolerance) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), ": max relative error %.3g (tolerance %.0e)", err, tolerance);
  return reportCheck(what + buf, err <= tolerance); // false for NaN
}

std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

//===----------------------------------------------------------------------===//
// The figures
//===----------------------------------------------------------------------===//

void benchAdd(Context &ctx) {
  unsigned failuresBefore = checkFailures;
  const int64_t n = int64_t(1) << 26;
  auto c = compile(ctx, "add", addModule(n, ctx.arch));
  if (ctx.opts.dryRun)
    return;
  outs() << "add over 2^26 float32 on cuda (" << c->summary() << ")\n";
  Device &d = *ctx.cuda;
  const void *kernel = loadOnlyKernel(ctx, *c);
  size_t bytes = n * sizeof(float);
  DeviceBuffer a(d, bytes), b(d, bytes), out(d, bytes);
  {
    std::vector<float> ha(n), hb(n), hout(n);
    fillRandom(ha.data(), n, 1);
    fillRandom(hb.data(), n, 2);
    a.upload(ha.data());
    b.upload(hb.data());
    std::memset(hout.data(), 0xff, bytes); // NaNs: an element not written shows
    out.upload(hout.data());
    void *args[] = {a.p, b.p, out.p};
    check(d.launch(kernel, args, 3), "add");
    out.download(hout.data());
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i)
      wrong += hout[i] != ha[i] + hb[i];
    reportCheck("against the host, exact: " + std::to_string(wrong) + " elements differ",
                wrong == 0);
  }
  void *args[] = {a.p, b.p, out.p};
  auto add = [&] { check(d.launch(kernel, args, 3), "add"); };
  auto copy = [&] { check(d.copyWithin(out.p, a.p, bytes), "copyWithin"); };
  EventTimer timer(d);
  for (int i = 0; i < 3; ++i) {
    timer(add);
    timer(copy);
  }
  std::vector<double> tAdd, tCopy;
  for (unsigned i = 0; i < ctx.opts.repeat; ++i) {
    tAdd.push_back(timer(add));
    tCopy.push_back(timer(copy));
  }
  double gbAdd = 3.0 * bytes / median(tAdd) / 1e9, gbCopy = 2.0 * bytes / median(tCopy) / 1e9;
  outs() << format("  add %.3f ms, %.1f GB/s; copyWithin %.3f ms, %.1f GB/s\n", median(tAdd) * 1e3,
                   gbAdd, median(tCopy) * 1e3, gbCopy);
  double ratio = gbAdd / gbCopy;
  figures.push_back({"add 2^26 float32", fmt("%.1f GB/s", gbAdd),
                     "copyWithin " + fmt("%.1f GB/s", gbCopy), fmt("%.1f%%", 100 * ratio),
                     "target >= 80%", ratio >= 0.8, checkFailures == failuresBefore});
}

void benchDense(Context &ctx) {
  unsigned failuresBefore = checkFailures;
  const int64_t n = ctx.opts.denseSize;
  auto c = compile(ctx, "dense", denseModule(n, ctx.arch));
  if (ctx.opts.dryRun)
    return;
  outs() << "nn.dense " << n << "x" << n << "x" << n << " float32 on cuda (" << c->summary()
         << ")\n";
  Device &d = *ctx.cuda;
  const void *kernel = loadOnlyKernel(ctx, *c);
  size_t bytes = n * n * sizeof(float);
  DeviceBuffer data(d, bytes), weight(d, bytes), out(d, bytes), ref(d, bytes);
  std::vector<float> hData(n * n), hWeight(n * n), hOut(n * n), hRef(n * n);
  fillRandom(hData.data(), n * n, 3);
  fillRandom(hWeight.data(), n * n, 4);
  data.upload(hData.data());
  weight.upload(hWeight.data());
  std::memset(hOut.data(), 0xff, bytes); // NaNs: an element not written shows
  out.upload(hOut.data());
  ref.upload(hOut.data());
  void *args[] = {data.p, weight.p, out.p};
  auto hx = [&] { check(d.launch(kernel, args, 3), "nn.dense"); };
  hx();
  out.download(hOut.data());

  CuBLAS blas;
  bool haveBlas = blas.open();
  const float one = 1, zero = 0;
  auto sgemm = [&] {
    if (int s =
            blas.sgemm(blas.handle, /*CUBLAS_OP_T*/ 1, /*CUBLAS_OP_N*/ 0, n, n, n, &one,
                       static_cast<const float *>(weight.p), n, static_cast<const float *>(data.p),
                       n, &zero, static_cast<float *>(ref.p), n))
      die("cublasSgemm_v2 failed with status " + llvm::Twine(s));
  };
  if (haveBlas) {
    int v = 0;
    if (blas.version)
      blas.version(blas.handle, &v);
    outs() << "  cuBLAS: " << blas.path << " (version " << v << ")\n";
    // cuBLAS runs on the legacy default stream, which does not wait for
    // hx's non-blocking streams, nor they for it: synchronize around it.
    check(d.synchronize(), "synchronize");
    sgemm();
    check(d.synchronize(), "cublasSgemm_v2");
    ref.download(hRef.data());
    reportCheck("hx against cuBLAS, every element", maxRelError(hOut.data(), hRef.data(), n * n),
                1e-3);
  } else {
    outs() << "  cuBLAS: not available (" << blas.whyNot << ")\n";
  }
  // Both against float64 on the host, on sampled elements.
  {
    double errHx = 0, errBlas = 0;
    uint64_t s = 12345;
    for (int t = 0; t < 256; ++t) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      int64_t i = (s >> 33) % n, j = (s >> 13) % n;
      double acc = 0;
      for (int64_t k = 0; k < n; ++k)
        acc += double(hData[i * n + k]) * hWeight[j * n + k];
      errHx = worse(errHx, relError(hOut[i * n + j], acc));
      errBlas = worse(errBlas, relError(hRef[i * n + j], acc));
    }
    reportCheck("hx against float64, 256 sampled elements", errHx, 1e-3);
    if (haveBlas)
      reportCheck("cuBLAS against float64, 256 sampled elements", errBlas, 1e-3);
  }
  // Batches of calls between synchronizations, the same for both.
  const int calls = 5;
  syncedSeconds(d, 2, hx);
  if (haveBlas)
    syncedSeconds(d, 2, sgemm);
  std::vector<double> tHx, tBlas;
  for (unsigned i = 0; i < ctx.opts.repeat; ++i) {
    tHx.push_back(syncedSeconds(d, calls, hx));
    if (haveBlas)
      tBlas.push_back(syncedSeconds(d, calls, sgemm));
  }
  double flops = 2.0 * n * n * n;
  double tfHx = flops / median(tHx) / 1e12;
  outs() << format("  hx %.3f ms, %.2f TFLOP/s", median(tHx) * 1e3, tfHx);
  std::string name = "dense " + std::to_string(n) + "^3 float32";
  if (!haveBlas) {
    outs() << "; cuBLAS not measured\n";
    figures.push_back({name, fmt("%.2f TFLOP/s", tfHx), "cuBLAS sgemm n/a", "n/a", "target >= 50%",
                       false, checkFailures == failuresBefore});
    return;
  }
  double tfBlas = flops / median(tBlas) / 1e12;
  outs() << format("; cuBLAS %.3f ms, %.2f TFLOP/s\n", median(tBlas) * 1e3, tfBlas);
  double ratio = tfHx / tfBlas;
  figures.push_back({name, fmt("%.2f TFLOP/s", tfHx), "cuBLAS sgemm " + fmt("%.2f TFLOP/s", tfBlas),
                     fmt("%.1f%%", 100 * ratio), "target >= 50%", ratio >= 0.5,
                     checkFailures == failuresBefore});
}

void benchCopy(Context &ctx) {
  unsigned failuresBefore = checkFailures;
  const int64_t n = int64_t(64) << 20; // 256 MiB of float32
  size_t bytes = n * sizeof(float);
  auto trip = compile(ctx, "copy", copyModule(n, true, false, ctx.arch));
  auto base = compile(ctx, "copy-baseline", copyModule(n, false, false, ctx.arch));
  auto full = compile(ctx, "copy-check", copyModule(n, true, true, ctx.arch));
  if (ctx.opts.dryRun)
    return;
  outs() << "device_copy 256 MiB cpu -> cuda -> cpu through the executor (" << trip->summary()
         << ")\n";
  Device &d = *ctx.cuda;
  std::vector<HostTensor> in;
  in.push_back(randomTensor({n}, 5));
  {
    std::vector<HostTensor> r = run(*full, in);
    reportCheck("the round trip returns its input bit for bit",
                r.size() == 1 && std::memcmp(r[0].data(), in[0].data(), bytes) == 0);
    r = run(*trip, in);
    float want = *std::max_element(in[0].as<float>(), in[0].as<float>() + n);
    reportCheck("max after the round trip, exact", r.size() == 1 && r[0].as<float>()[0] == want);
  }
  // The round trip's cost in a run(): interleaved pairs, median difference.
  for (int i = 0; i < 2; ++i) {
    run(*trip, in);
    run(*base, in);
  }
  std::vector<double> tTrip, tBase, diff;
  for (unsigned i = 0; i < ctx.opts.repeat; ++i) {
    Clock::time_point t0 = Clock::now();
    run(*trip, in);
    tTrip.push_back(seconds(t0));
    t0 = Clock::now();
    run(*base, in);
    tBase.push_back(seconds(t0));
    diff.push_back(tTrip.back() - tBase.back());
  }
  double tExec = median(diff);
  outs() << format("  run(): %.2f ms with the round trip, %.2f ms without: the copies take "
                   "%.2f ms\n",
                   median(tTrip) * 1e3, median(tBase) * 1e3, tExec * 1e3);

  // The reference: pinned host memory, one copy each way, device events.
  HostBuffer src(bytes), back(bytes);
  fillRandom(src.p, n, 6);
  std::memset(back.p, 0xff, bytes); // NaNs: an unwritten byte shows
  check(d.pinHost(src.p, bytes), "pinHost");
  check(d.pinHost(back.p, bytes), "pinHost");
  DeviceBuffer dev(d, bytes);
  auto h2d = [&] { check(d.copyFromHost(dev.p, src.p, bytes), "copyFromHost"); };
  auto d2h = [&] { check(d.copyToHost(back.p, dev.p, bytes), "copyToHost"); };
  EventTimer timer(d);
  timer(h2d);
  timer(d2h);
  reportCheck("the pinned round trip returns its input", std::memcmp(src.p, back.p, bytes) == 0);
  std::vector<double> tH2D, tD2H;
  for (unsigned i = 0; i < ctx.opts.repeat; ++i) {
    tH2D.push_back(timer(h2d));
    tD2H.push_back(timer(d2h));
  }
  check(d.synchronize(), "synchronize");
  d.unpinHost(src.p);
  d.unpinHost(back.p);
  double tPinned = median(tH2D) + median(tD2H);
  outs() << format("  pinned: host->device %.2f ms, %.1f GB/s; device->host %.2f ms, %.1f GB/s\n",
                   median(tH2D) * 1e3, bytes / median(tH2D) / 1e9, median(tD2H) * 1e3,
                   bytes / median(tD2H) / 1e9);
  if (tExec <= 0) // the run()s' noise is larger than the copies
    die("device_copy: the round trip measured " + fmt("%.3f", tExec * 1e3) +
        " ms: run again with a larger --repeat");
  double gbExec = 2.0 * bytes / tExec / 1e9, gbPinned = 2.0 * bytes / tPinned / 1e9;
  double ratio = gbExec / gbPinned;
  figures.push_back({"device_copy 256 MiB there and back", fmt("%.1f GB/s", gbExec),
                     "pinned copies " + fmt("%.1f GB/s", gbPinned), fmt("%.1f%%", 100 * ratio),
                     "target >= 80%", ratio >= 0.8, checkFailures == failuresBefore});
}

void benchMLP(Context &ctx) {
  unsigned failuresBefore = checkFailures;
  const int layers = 10;
  const int64_t batch = 256, width = 4096;
  auto gpu = compile(ctx, "mlp", mlpModule(layers, batch, width, 1, ctx.arch));
  auto cpu = compile(ctx, "mlp-cpu", mlpModule(layers, batch, width, 0, ctx.arch));
  if (ctx.opts.dryRun)
    return;
  outs() << "MLP, 10 layers, batch 256, width 4096 (" << gpu->summary() << "; all-cpu "
         << cpu->summary() << ")\n";
  std::vector<HostTensor> in;
  in.push_back(randomTensor({batch, width}, 7));
  // He-uniform weights keep the activations of order one through the layers.
  for (int l = 0; l < layers; ++l)
    in.push_back(randomTensor({width, width}, 8 + l, std::sqrt(6.0f / width)));
  {
    std::vector<HostTensor> a = run(*gpu, in), b = run(*cpu, in);
    reportCheck("cuda+cpu against all-cpu",
                maxRelError(a[0].as<float>(), b[0].as<float>(), a[0].numElements()), 1e-4);
  }
  double tGpu = timeRuns(*gpu, in, ctx.opts.repeat);
  double tCpu = timeRuns(*cpu, in, ctx.opts.repeat, 1);
  outs() << format("  run(): %.2f ms with layers 1-9 on cuda (each run uploads the 9 cuda "
                   "weights, 576 MiB); %.2f ms all on the cpu\n",
                   tGpu * 1e3, tCpu * 1e3);
  figures.push_back({"mlp 10x4096, batch 256", fmt("%.2f ms per run()", tGpu * 1e3),
                     "all-cpu " + fmt("%.2f ms per run()", tCpu * 1e3),
                     fmt("%.2fx speed-up", tCpu / tGpu), "speed-up printed", true,
                     checkFailures == failuresBefore});
}

void benchOverhead(Context &ctx) {
  unsigned failuresBefore = checkFailures;
  const int n = 1000;
  auto c = compile(ctx, "overhead", chainModule(n, ctx.arch));
  if (ctx.opts.dryRun)
    return;
  outs() << "executor overhead, 1,000 adds of Tensor[(4), float32] chained on cuda ("
         << c->summary() << ")\n";
  std::vector<HostTensor> in;
  in.push_back(randomTensor({4}, 9));
  {
    std::vector<HostTensor> r = run(*c, in);
    const float *x = in[0].as<float>();
    bool ok = true;
    for (int e = 0; e < 4; ++e) {
      float v = x[e] + x[e];
      for (int i = 1; i < n; ++i)
        v += x[e];
      ok &= r[0].as<float>()[e] == v;
    }
    reportCheck("against the same additions on the host, exact", ok);
  }
  double t = timeRuns(*c, in, ctx.opts.repeat, 5);
  double perStep = t / c->exe->steps().size() * 1e6;
  outs() << format("  run() %.3f ms for %zu steps: %.2f us per step\n", t * 1e3,
                   c->exe->steps().size(), perStep);
  figures.push_back({"overhead, 1,000 tiny adds on cuda", fmt("%.2f us per step", perStep),
                     "no reference", "-", "target <= 5 us", perStep <= 5,
                     checkFailures == failuresBefore});
}

//===----------------------------------------------------------------------===//
// The machine
//===----------------------------------------------------------------------===//

std::string hostModel() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (llvm::StringRef(line).starts_with("model name"))
      return llvm::StringRef(line).split(':').second.trim().str();
  return "?";
}

void printMachine(const CUDASystemInfo *info) {
  outs() << "host: " << hostModel() << " (" << llvm::sys::getHostCPUName() << "), "
         << std::thread::hardware_concurrency() << " hardware threads\n";
  if (!info)
    return;
  outs() << format("cuda driver: %d.%d (%d)\n", info->driverVersion / 1000,
                   info->driverVersion % 1000 / 10, info->driverVersion);
  for (const CUDADeviceInfo &d : info->devices)
    outs() << format("cuda:%u: %s, compute capability %d.%d, %d multiprocessors, %.1f GiB\n",
                     d.ordinal, d.name.c_str(), d.ccMajor, d.ccMinor, d.multiprocessors,
                     d.totalMemory / double(1ull << 30));
}

int usage(llvm::raw_ostream &os) {
  os << "usage: hx-gpu-bench [--only=add,dense,copy,mlp,overhead] [--dense-size=N] [--repeat=N] "
        "[--dry-run]\n"
        "  GPU figures of issue 14, each next to its reference; without a CUDA device it says\n"
        "  why and exits 0. --dry-run compiles every module for sm_90 and runs nothing.\n";
  return 0;
}

Options parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    auto [flag, value] = a.split('=');
    if (a == "--dry-run") {
      o.dryRun = true;
    } else if (a == "--help" || a == "-h") {
      std::exit(usage(outs()));
    } else if (flag == "--only" && a.contains('=')) {
      llvm::SmallVector<llvm::StringRef, 5> names;
      value.split(names, ',', -1, false);
      for (llvm::StringRef n : names) {
        if (!llvm::is_contained(kFigures, n))
          die("--only: unknown figure '" + n + "' (add, dense, copy, mlp, overhead)");
        o.only.insert(n.str());
      }
    } else if (flag == "--dense-size" && !value.getAsInteger(10, o.denseSize) && o.denseSize > 0) {
    } else if (flag == "--repeat" && !value.getAsInteger(10, o.repeat) && o.repeat > 0) {
    } else {
      usage(llvm::errs());
      die("bad argument '" + a + "'");
    }
  }
  return o;
}

} // namespace

int main(int argc, char **argv) {
  Context ctx;
  ctx.opts = parseOptions(argc, argv);
  llvm::Expected<CUDASystemInfo> info = probeCUDA();
  if (ctx.opts.dryRun) {
    consumeError(info.takeError());
    ctx.cpuOwned = createCPUDevice(0, 0);
    ctx.cudaOwned = createCPUDevice(1, 1);
  } else {
    if (!info) {
      outs() << "hx-gpu-bench: no CUDA device: " << llvm::toString(info.takeError()) << "\n";
      return 0;
    }
    printMachine(&*info);
    const CUDADeviceInfo &dev = info->devices.front();
    ctx.arch = "sm_" + std::to_string(dev.ccMajor) + std::to_string(dev.ccMinor);
    ctx.cpuOwned = createCPUDevice(0, 0);
    ctx.cudaOwned = check(createCUDADevice(0), "cuda:0");
    outs() << "kernels for " << ctx.arch << "; every figure is the median of " << ctx.opts.repeat
           << " timings\n\n";
  }
  ctx.cpu = ctx.cpuOwned.get();
  ctx.cuda = ctx.cudaOwned.get();

  struct {
    const char *name;
    void (*run)(Context &);
  } benches[] = {{"add", benchAdd},
                 {"dense", benchDense},
                 {"copy", benchCopy},
                 {"mlp", benchMLP},
                 {"overhead", benchOverhead}};
  for (auto &b : benches)
    if (ctx.opts.wants(b.name)) {
      b.run(ctx);
      outs().flush();
    }

  if (ctx.opts.dryRun) {
    outs() << "dry run: " << ctx.compiled << " modules compiled\n";
    return 0;
  }
  outs() << "\n";
  for (const Figure &f : figures)
    outs() << f.name << ": " << f.value << " vs " << f.reference << " = " << f.ratio << " ("
           << f.target << (f.met ? "" : ", missed") << (f.checked ? "" : ", CHECK FAILED") << ")\n";
  return checkFailures ? 1 : 0;
}
