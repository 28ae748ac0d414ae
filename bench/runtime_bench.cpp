//===- runtime_bench.cpp - Execution speed, each figure with its reference ===//
//
// Prints, from one process:
//  1. executor overhead: a chain of 1,000 adds of one float on one cpu
//     device, µs per step (target: <= 2 µs);
//  2. JIT: the time to compile a module of 100 calls with 10 distinct
//     kernels, and with 100 distinct kernels;
//  3. elementwise add over 2^24 float32, GB/s (12 bytes moved per element),
//     next to memcpy of the same buffers (8 bytes per element); exp, tanh,
//     erf and sigmoid over the same, nn.softmax and nn.layer_norm over
//     4096 x 4096 (as many elements), next to the same memcpy; the fused
//     relu(add(multiply(x, y), z)) next to memcpy and to the same unfused;
//  4. nn.dense 1024x1024x1024, GFLOP/s, next to OpenBLAS cblas_sgemm on the
//     same data;
//  5. nn.dense 1x4096x4096 (batch-1, the skinny path), GB/s of the weights
//     read, next to OpenBLAS cblas_sgemv;
//  6. one parallel region of the cpu device's pool with 2 threads (a
//     trivial body), µs.
// Every figure is the best of several runs. Modules are built as text and go
// through the same parser, planner, compiler and executor as hx-run. hx's cpu
// device and OpenBLAS run with the same number of threads (--threads=N,
// default one per core; openblas_set_num_threads), and the first line names
// the OpenBLAS build the reference ran on.
//
//===----------------------------------------------------------------------===//
#include "CPU/ParallelPool.h"
#include "hx/Parser/Parser.h"
#include "hx/Run/Session.h"
#include "hx/Runtime/Executable.h"
#include "hx/Targets/CPU/CPUBackend.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <cblas.h>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

using namespace hx;
using Clock = std::chrono::steady_clock;

namespace {

/// Threads on both sides (hx's cpu device and OpenBLAS).
unsigned gThreads = 1;

double seconds(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

double best(int reps, const std::function<void()> &f) {
  double b = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto t = Clock::now();
    f();
    b = std::min(b, seconds(t));
  }
  return b;
}

/// A module through the compile-and-run API, on one cpu device.
struct Compiled {
  std::unique_ptr<Device> device;
  BackendCache backends;
  Session session;
  Module *m = nullptr;
  Executable *exe = nullptr;
  Backend *backend = nullptr;
  double compileSeconds = 0;
};

std::unique_ptr<Compiled> compile(const std::string &text, bool fuse = false) {
  auto c = std::make_unique<Compiled>();
  LoadOptions lo;
  lo.fuse = fuse;
  if (c->session.loadText(text, "bench", lo) != Session::Status::Ok) {
    llvm::errs() << "bench: the module does not plan\n";
    std::exit(1);
  }
  c->m = &c->session.module();
  c->device = createCPUDevice(0, gThreads);
  auto t = Clock::now();
  Device *devices[] = {c->device.get()};
  if (llvm::Error e = c->session.compileFor(devices, c->backends, CompileOptions())) {
    llvm::errs() << llvm::toString(std::move(e)) << "\n";
    std::exit(1);
  }
  c->compileSeconds = seconds(t);
  c->exe = &c->session.executable();
  c->backend = c->backends.made().front();
  return c;
}

std::vector<HostTensor> inputsFor(const Module &m, float value) {
  std::vector<HostTensor> in;
  for (const Ref<Var> &p : m.lookup("main")->params) {
    auto *t = llvm::cast<TensorType>(p->checkedType.get());
    in.emplace_back(t->dtype, t->shape);
    float *d = in.back().as<float>();
    for (int64_t i = 0; i < in.back().numElements(); ++i)
      d[i] = value + float(i % 7) * 0.01f;
  }
  return in;
}

void run(Compiled &c, const std::vector<HostTensor> &in) {
  auto r = c.exe->run(in);
  if (!r) {
    llvm::errs() << llvm::toString(r.takeError()) << "\n";
    std::exit(1);
  }
}

/// The fastest kernel step over `reps` runs (the profile times the kernel
/// alone, without copying inputs in and outputs out).
double bestKernelSeconds(Compiled &c, const std::vector<HostTensor> &in, int reps) {
  RunProfile prof;
  double kernel = 1e30;
  for (int r = 0; r < reps; ++r) {
    prof.steps.clear();
    if (auto res = c.exe->run(in, &prof); !res) {
      llvm::errs() << llvm::toString(res.takeError()) << "\n";
      std::exit(1);
    }
    for (auto &s : prof.steps)
      kernel = std::min(kernel, s.seconds);
  }
  return kernel;
}

/// The fastest run of all kernel steps together over `reps` runs.
double bestStepsSeconds(Compiled &c, const std::vector<HostTensor> &in, int reps) {
  RunProfile prof;
  double total = 1e30;
  for (int r = 0; r < reps; ++r) {
    prof.steps.clear();
    if (auto res = c.exe->run(in, &prof); !res) {
      llvm::errs() << llvm::toString(res.takeError()) << "\n";
      std::exit(1);
    }
    double t = 0;
    for (auto &s : prof.steps)
      t += s.seconds;
    total = std::min(total, t);
  }
  return total;
}

/// A chain of n adds of %x to itself.
std::string chain(int n, const std::string &type) {
  std::string s = "#[version = \"0.0.5\"]\ndef @main(%x: " + type + ") {\n  %0 = add(%x, %x);\n";
  for (int i = 1; i < n; ++i)
    s += "  %" + std::to_string(i) + " = add(%" + std::to_string(i - 1) + ", %x);\n";
  return s + "  %" + std::to_string(n - 1) + "\n}\n";
}

/// n independent calls over `distinct` shapes, so `distinct` kernels.
std::string calls(int n, int distinct) {
  static const char *ops[] = {"add", "multiply", "maximum", "subtract", "minimum"};
  std::string params, body, result;
  for (int i = 0; i < n; ++i) {
    std::string p = "%p" + std::to_string(i);
    params +=
        (i ? ", " : "") + p + ": Tensor[(" + std::to_string(64 + i % distinct) + "), float32]";
    body += "  %" + std::to_string(i) + " = " + ops[i % 5] + "(" + p + ", " + p + ");\n";
    result += (i ? ", %" : "%") + std::to_string(i);
  }
  return "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n" + body + "  (" + result + ")\n}\n";
}

} // namespace

int main(int argc, char **argv) {
  gThreads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    unsigned n = 0;
    if (a.consume_front("--threads=") && !a.getAsInteger(10, n) && n > 0) {
      gThreads = n;
      continue;
    }
    llvm::errs() << "usage: hx-runtime-bench [--threads=N]\n";
    return 1;
  }
  openblas_set_num_threads(int(gThreads));
  llvm::outs() << "hx runtime benchmark (best of several runs; each figure next to its "
                  "reference)\n";
  llvm::outs() << "threads: " << gThreads << " for hx's cpu device and for OpenBLAS ("
               << openblas_get_config() << ")\n\n";

  // 1. Executor overhead.
  {
    auto c = compile(chain(1000, "Tensor[(1), float32]"));
    auto in = inputsFor(*c->m, 0.5f);
    run(*c, in);
    int runs = 200;
    double t = best(5, [&] {
      for (int r = 0; r < runs; ++r)
        run(*c, in);
    });
    llvm::outs() << llvm::format("executor overhead, 1,000 tiny adds: %.3f us per step "
                                 "(target <= 2 us)\n",
                                 1e6 * t / runs / c->exe->steps().size());
  }

  // 2. JIT time.
  {
    auto c10 = compile(calls(100, 10));
    auto c100 = compile(calls(100, 100));
    llvm::outs() << llvm::format("JIT, 100 calls: %u distinct kernels %.3f s; %u distinct "
                                 "kernels %.3f s\n",
                                 c10->backend->numKernels(), c10->compileSeconds,
                                 c100->backend->numKernels(), c100->compileSeconds);
  }

  // 3. Elementwise add vs memcpy.
  {
    const int64_t n = int64_t(1) << 24;
    std::string ty = "Tensor[(" + std::to_string(n) + "), float32]";
    auto c = compile("#[version = \"0.0.5\"]\ndef @main(%a: " + ty + ", %b: " + ty +
                     ") {\n  add(%a, %b)\n}\n");
    auto in = inputsFor(*c->m, 1.0f);
    run(*c, in);
    double kernel = bestKernelSeconds(*c, in, 5);
    std::vector<float> src(n, 1.0f), dst(n);
    double mc = best(5, [&] { std::memcpy(dst.data(), src.data(), n * sizeof(float)); });
    llvm::outs() << llvm::format("add over 2^24 float32: %.2f GB/s; memcpy of the same "
                                 "size: %.2f GB/s\n",
                                 12.0 * n / kernel / 1e9, 8.0 * n / mc / 1e9);
    // The transcendental functions, 8 bytes moved per element, next to
    // the same memcpy (target: >= 60%).
    // nn.softmax and nn.layer_norm over 4096 x 4096 (the same bytes), 8
    // bytes per element read and written once (target: >= 60% of memcpy).
    std::string rows = "Tensor[(4096, 4096), float32]";
    for (const char *call : {"nn.softmax(%a)", "nn.layer_norm(%a, %g, %b)"}) {
      std::string params = "%a: " + rows;
      if (llvm::StringRef(call).contains("%g"))
        params += ", %g: Tensor[(4096), float32], %b: Tensor[(4096), float32]";
      auto cf = compile("#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  " + call + "\n}\n");
      auto inf = inputsFor(*cf->m, 0.5f);
      run(*cf, inf);
      double k = bestKernelSeconds(*cf, inf, 5);
      llvm::outs() << llvm::format("%s over 4096x4096 float32: %.2f GB/s, %.1f%% of memcpy's\n",
                                   llvm::StringRef(call).split('(').first.str().c_str(),
                                   8.0 * n / k / 1e9, 100.0 * mc / k);
    }
    // relu(add(multiply(x, y), z)) fused (fuse-ops: one kernel, 16 bytes
    // per element: three reads and a write) next to the same memcpy
    // (target: >= 80%), and unfused (three kernels, two intermediates)
    // next to fused (target: fused >= 2x faster).
    {
      std::string text = "#[version = \"0.0.5\"]\ndef @main(%x: " + ty + ", %y: " + ty +
                         ", %z: " + ty + ") {\n  nn.relu(add(multiply(%x, %y), %z))\n}\n";
      auto fused = compile(text, /*fuse=*/true), unfused = compile(text);
      auto inf = inputsFor(*fused->m, 0.5f);
      run(*fused, inf);
      run(*unfused, inf);
      double f = bestStepsSeconds(*fused, inf, 5), u = bestStepsSeconds(*unfused, inf, 5);
      llvm::outs() << llvm::format("relu(add(multiply)) over 2^24 float32, fused (%zu step): "
                                   "%.2f GB/s, %.1f%% of memcpy's (target >= 80%%)\n",
                                   fused->exe->steps().size(), 16.0 * n / f / 1e9,
                                   100.0 * (16.0 * n / f) / (8.0 * n / mc));
      llvm::outs() << llvm::format("relu(add(multiply)) unfused (--no-fuse, %zu steps): %.2f ms; "
                                   "fused %.2f ms: fused %.2fx faster (target >= 2x)\n",
                                   unfused->exe->steps().size(), 1e3 * u, 1e3 * f, u / f);
    }
    for (const char *fn : {"exp", "tanh", "erf", "sigmoid"}) {
      auto cf =
          compile("#[version = \"0.0.5\"]\ndef @main(%a: " + ty + ") {\n  " + fn + "(%a)\n}\n");
      auto inf = inputsFor(*cf->m, 0.5f);
      run(*cf, inf);
      double k = bestKernelSeconds(*cf, inf, 5);
      llvm::outs() << llvm::format("%s over 2^24 float32: %.2f GB/s, %.1f%% of memcpy's\n", fn,
                                   8.0 * n / k / 1e9, 100.0 * mc / k);
    }
  }

  // 4. nn.dense 1024^3 vs OpenBLAS.
  {
    const int N = 1024;
    std::string ty = "Tensor[(1024, 1024), float32]";
    auto c = compile("#[version = \"0.0.5\"]\ndef @main(%a: " + ty + ", %w: " + ty +
                     ") {\n  nn.dense(%a, %w, units=1024)\n}\n");
    auto in = inputsFor(*c->m, 0.25f);
    double kernel = bestKernelSeconds(*c, in, 3);
    std::vector<float> out(size_t(N) * N);
    double blas = best(3, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, N, N, 1.0f, in[0].as<float>(), N,
                  in[1].as<float>(), N, 0.0f, out.data(), N);
    });
    double flops = 2.0 * N * N * N;
    llvm::outs() << llvm::format("nn.dense 1024^3: %.2f GFLOP/s; OpenBLAS cblas_sgemm: %.2f "
                                 "GFLOP/s (%.1f%%)\n",
                                 flops / kernel / 1e9, flops / blas / 1e9, 100 * blas / kernel);
  }

  // 5. nn.dense 1x4096x4096 vs OpenBLAS sgemv: the weights are read once.
  {
    const int N = 4096;
    auto c = compile("#[version = \"0.0.5\"]\ndef @main(%a: Tensor[(1, 4096), float32], %w: "
                     "Tensor[(4096, 4096), float32]) {\n  nn.dense(%a, %w, units=4096)\n}\n");
    auto in = inputsFor(*c->m, 0.25f);
    double kernel = bestKernelSeconds(*c, in, 10);
    std::vector<float> out(N);
    double blas = best(10, [&] {
      cblas_sgemv(CblasRowMajor, CblasNoTrans, N, N, 1.0f, in[1].as<float>(), N, in[0].as<float>(),
                  1, 0.0f, out.data(), 1);
    });
    double bytes = 4.0 * N * N;
    llvm::outs() << llvm::format("nn.dense 1x4096x4096: %.2f GB/s; OpenBLAS cblas_sgemv: %.2f "
                                 "GB/s (%.1f%%)\n",
                                 bytes / kernel / 1e9, bytes / blas / 1e9, 100 * blas / kernel);
  }

  // 6. One parallel region, 2 threads, a trivial body.
  {
    ParallelPool pool(2);
    std::atomic<int64_t> sink{0};
    auto body = [](void *closure, int64_t begin, int64_t end) {
      static_cast<std::atomic<int64_t> *>(closure)->fetch_add(end - begin,
                                                              std::memory_order_relaxed);
    };
    const int regions = 20000;
    double t = best(5, [&] {
      for (int r = 0; r < regions; ++r)
        pool.run(body, &sink, 64);
    });
    llvm::outs() << llvm::format("one parallel region, 2 threads: %.2f us (target <= 5 us)\n",
                                 t / regions * 1e6);
  }
  return 0;
}
