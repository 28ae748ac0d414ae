//===- OpConformanceTest.cpp - Every backend against the interpreter ------===//
//
// One operator suite for every backend (Glow's model): for each operator of
// hx::allOps() (except the device annotations, which are never kernels),
// each dtype its OpDef accepts and several shapes and attribute sets, random
// inputs (fixed seed) run through the backend's compiled kernel and through
// the reference interpreter's interpretOp; results must agree within a
// relative tolerance for floats and exactly for integers and bool.
//
// The suite is parameterized over backends:
//  - "cpu": compiled, run and compared;
//  - "ptx", where CUDA's libdevice is installed: every case's kernel
//    compiled to PTX for sm_80 and sm_90 (no GPU needed); with HX_PTX_DIR set, each operator's two
//    modules are written there as <op>.<arch>.ptx for ptxas (test/Targets/CUDA/ptx-conformance.test);
//  - "cuda_emu": the cuda kernels run on the host by the SIMT emulator
//    (hx/Targets/CUDAEmu), with their grid and with one block, and compared;
//  - "cuda", only when HX_CONFORMANCE_CUDA=1 (lit feature `cuda`:
//    test/GPU/conformance.test): run on cuda:0 and compared;
//  - every test-only cpu backend of the registry (hx/Targets/Registry.h),
//    as "cpu_generic": compiled, run on its own device and compared.
// Operators a backend's OpDef::targets excludes (argsort and topk on cuda)
// are skipped for it; those with a value-dependent shape (nonzero, NMS)
// have no kernel anywhere (the runtime evaluates them on the host: their
// tests are the interpreter's and test/Runtime/value-dependent-shapes.ir). An operator without a case (OpConformanceCases.cpp) fails the
// CoversEveryOperator test, so a new operator cannot slip past the suite.
//
// Built only when the interpreter library (hxInterpreter) exists.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "OpConformanceCases.h"
#include "hx/IR/TargetKind.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Targets/CUDA/CUDABackend.h"
#include "hx/Targets/CUDA/PTXCompiler.h"
#include "hx/Targets/CUDAEmu/SimtEmulator.h"
#include "hx/Targets/Registry.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>

using namespace hx;
using namespace hx::test;
using llvm::Expected;

namespace {

/// The backends under test (see the file comment).
/// A registered backend's name as a test parameter ("cpu-generic" is
/// cpu_generic: gtest names take no dashes), and back.
std::string paramName(llvm::StringRef backend) {
  std::string s = backend.str();
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}
std::string registryName(llvm::StringRef param) {
  std::string s = param.str();
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

std::vector<std::string> backendsUnderTest() {
  std::vector<std::string> out = {"cpu"};
  // Every test-only cpu backend of the registry (cpu-generic): added in its
  // folder, tested here with no change to this file.
  for (const BackendInfo &b : allBackends())
    if (b.testOnly && b.deviceType() == DeviceType::CPU)
      out.push_back(paramName(b.name));
  // PTX needs CUDA's libdevice (the math functions): with no CUDA toolkit
  // the backend is not instantiated, as the lit feature ptxas is absent.
  if (llvm::sys::fs::exists(PTXCompiler::defaultLibdevicePath()))
    out.push_back("ptx");
  out.push_back("cuda_emu");
  if (const char *cuda = std::getenv("HX_CONFORMANCE_CUDA"); cuda && std::string(cuda) == "1")
    out.push_back("cuda");
  return out;
}

/// PTX for every case of one operator, for each architecture CI checks.
struct PTXCollector {
  static constexpr const char *kArchs[] = {"sm_80", "sm_90"};
  std::vector<std::unique_ptr<PTXCompiler>> compilers;

  llvm::Error add(const Call &call) {
    if (compilers.empty())
      for (const char *arch : kArchs) {
        PTXCompilerOptions opts;
        opts.arch = arch;
        Expected<std::unique_ptr<PTXCompiler>> c = PTXCompiler::create(opts);
        if (!c)
          return c.takeError();
        compilers.push_back(std::move(*c));
      }
    for (auto &c : compilers)
      if (Expected<unsigned> id = c->addKernel(call); !id)
        return id.takeError();
    return llvm::Error::success();
  }
  /// Compiles and, with HX_PTX_DIR, writes <dir>/<op>.<arch>.ptx.
  llvm::Error finish(llvm::StringRef op) {
    const char *dir = std::getenv("HX_PTX_DIR");
    for (size_t i = 0; i < compilers.size(); ++i) {
      if (llvm::Error e = compilers[i]->finalize())
        return e;
      if (!dir || !*dir)
        continue;
      std::string path = std::string(dir) + "/" + op.str() + "." + kArchs[i] + ".ptx";
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      if (ec)
        return llvm::createStringError("cannot write " + path + ": " + ec.message());
      for (unsigned m = 0; m < compilers[i]->numModules(); ++m)
        os << compilers[i]->ptx(m);
    }
    return llvm::Error::success();
  }
};

bool isAnnotation(llvm::StringRef op) { return op == kOnDevice || op == kDeviceCopy; }

/// The operators a backend under test implements: its target kind's.
const TargetKindInfo &targetOf(const std::string &backend) {
  if (backend == "ptx" || backend == "cuda_emu")
    return *lookupTargetKind("cuda");
  const BackendInfo *b = lookupBackend(registryName(backend));
  return *lookupTargetKind(b ? b->targetKind : "llvm");
}

/// The dtypes a conformance run covers for `def`.
std::vector<DType> dtypesOf(const OpDef &def) {
  std::vector<DType> out;
  for (DType t :
       {DType::Float16, DType::Float32, DType::Int32, DType::Int64, DType::Bool, DType::BFloat16})
    if (dtypeSetContains(def.dtypes, t))
      out.push_back(t);
  return out;
}

/// Runs a typed call on device 0 of the registered backend `name`
/// (hx/Targets/Registry.h), through its compiler and device as the
/// executor would: buffers on the device, copies in and out. One backend
/// and one device per name for the whole suite.
Expected<std::vector<HostTensor>> runOnRegistered(llvm::StringRef name, const Call &call,
                                                  llvm::ArrayRef<const HostTensor *> args) {
  static std::map<std::string, std::pair<std::unique_ptr<Device>, std::unique_ptr<Backend>>> made;
  auto &[device, backend] = made[name.str()];
  if (!device) {
    const BackendInfo *info = lookupBackend(name);
    if (!info)
      return llvm::createStringError("no backend " + name);
    DeviceOptions opts;
    opts.threads = 1;
    Expected<std::unique_ptr<Device>> d = info->createDevice(0, opts);
    if (!d)
      return d.takeError();
    Expected<std::unique_ptr<Backend>> b =
        info->createBackend(Target::defaultFor(info->deviceType()), BackendOptions());
    if (!b)
      return b.takeError();
    device = std::move(*d);
    backend = std::move(*b);
  }
  Expected<unsigned> id = backend->addKernel(call);
  if (!id)
    return id.takeError();
  if (llvm::Error e = backend->finalize())
    return e;
  Expected<const void *> kernel = device->load(backend->binary(*id));
  if (!kernel)
    return kernel.takeError();
  std::vector<HostTensor> results;
  for (const TensorType *t : resultTypes(call))
    results.emplace_back(t->dtype, t->shape);
  std::vector<void *> buffers;
  auto release = llvm::make_scope_exit([&] {
    for (void *p : buffers)
      device->deallocate(p);
  });
  for (const HostTensor *a : args) {
    Expected<void *> p = device->allocate(a->byteSize());
    if (!p)
      return p.takeError();
    buffers.push_back(*p);
    if (llvm::Error e = device->copyFromHost(*p, a->data(), a->byteSize()))
      return e;
  }
  for (HostTensor &r : results) {
    Expected<void *> p = device->allocate(r.byteSize());
    if (!p)
      return p.takeError();
    buffers.push_back(*p);
  }
  if (llvm::Error e = device->launch(*kernel, buffers.data(), buffers.size()))
    return e;
  for (size_t r = 0; r < results.size(); ++r)
    if (llvm::Error e =
            device->copyToHost(results[r].data(), buffers[args.size() + r], results[r].byteSize()))
      return e;
  if (llvm::Error e = device->synchronize())
    return e;
  return results;
}

/// Runs a typed call's cuda kernel on the SIMT emulator: with the kernel's
/// grid, again with one block (every loop is grid-stride), and again with
/// blocks and threads in reverse order (no result may depend on the order
/// of threads): all three must give the same bits.
Expected<std::vector<HostTensor>> runOnEmulator(const Call &call,
                                                llvm::ArrayRef<const HostTensor *> args) {
  static std::unique_ptr<SimtEmulator> emulator; // one JIT for the whole suite
  if (!emulator) {
    Expected<std::unique_ptr<SimtEmulator>> e = SimtEmulator::create();
    if (!e)
      return e.takeError();
    emulator = std::move(*e);
  }
  Expected<unsigned> id = emulator->addKernel(call);
  if (!id)
    return id.takeError();
  if (llvm::Error e = emulator->finalize())
    return e;
  const SimtLaunchOptions launches[] = {{0, false, {}}, {1, false, {}}, {0, true, {}}};
  const char *names[] = {"its grid", "one block", "reverse order"};
  std::vector<HostTensor> results[3];
  for (int l = 0; l < 3; ++l) {
    for (const TensorType *t : resultTypes(call))
      results[l].emplace_back(t->dtype, t->shape);
    std::vector<void *> buffers;
    std::vector<uint64_t> bytes; // each buffer's exact size: accesses are checked
    for (const HostTensor *a : args) {
      buffers.push_back(const_cast<void *>(a->data()));
      bytes.push_back(a->byteSize());
    }
    for (HostTensor &r : results[l]) {
      buffers.push_back(r.data());
      bytes.push_back(r.byteSize());
    }
    SimtLaunchOptions opts = launches[l];
    opts.bufferBytes = bytes;
    if (llvm::Error e = emulator->launch(*id, buffers.data(), opts))
      return e;
    for (size_t r = 0; l > 0 && r < results[0].size(); ++r)
      if (std::memcmp(results[0][r].data(), results[l][r].data(), results[0][r].byteSize()) != 0)
        return llvm::createStringError("result " + std::to_string(r) + " with " + names[l] +
                                       " differs from the result with its grid (" +
                                       std::to_string(emulator->kernel(*id).gridDim) + " blocks)");
  }
  return std::move(results[0]);
}

/// Runs a typed call on a backend.
Expected<std::vector<HostTensor>> runOnBackend(const std::string &backend, const Call &call,
                                               llvm::ArrayRef<const HostTensor *> args) {
  if (backend == "cuda_emu")
    return runOnEmulator(call, args);
  if (backend != "cpu") // a registered backend: cuda, cpu_generic (as cpu-generic)
    return runOnRegistered(registryName(backend), call, args);
  Expected<std::unique_ptr<CPUCompiler>> compiler = CPUCompiler::create();
  if (!compiler)
    return compiler.takeError();
  Expected<unsigned> id = (*compiler)->addKernel(call);
  if (!id)
    return id.takeError();
  if (llvm::Error e = (*compiler)->finalize())
    return e;
  std::vector<HostTensor> results;
  for (const TensorType *t : resultTypes(call))
    results.emplace_back(t->dtype, t->shape);
  std::vector<void *> buffers;
  for (const HostTensor *a : args)
    buffers.push_back(const_cast<void *>(a->data()));
  for (HostTensor &r : results)
    buffers.push_back(r.data());
  (*compiler)->lookup (*id)(buffers.data(), nullptr);
  return results;
}

/// The operands of `call` in kernel order (tuple arguments flattened) from
/// the parameters' values.
std::vector<const HostTensor *> operandsOf(const Call &call,
                                           const llvm::StringMap<HostTensor> &params) {
  std::vector<const HostTensor *> out;
  std::function<void(const Expr *)> add = [&](const Expr *e) {
    if (const auto *t = llvm::dyn_cast<Tuple>(e)) {
      for (const ExprRef &f : t->fields)
        add(f.get());
      return;
    }
    out.push_back(&params.find(llvm::cast<Var>(e)->name)->second);
  };
  for (const ExprRef &a : call.args)
    add(a.get());
  return out;
}

void fillRandom(HostTensor &t, std::mt19937 &rng, double lo, double hi) {
  for (int64_t i = 0; i < t.numElements(); ++i) {
    double v;
    if (t.dtype() == DType::Bool)
      v = std::uniform_int_distribution<int>(0, 1)(rng);
    else if (isFloat(t.dtype()))
      v = std::uniform_real_distribution<double>(lo, hi)(rng);
    else
      v = double(std::uniform_int_distribution<int64_t>(int64_t(std::ceil(lo)),
                                                        int64_t(std::floor(hi)))(rng));
    t.setDouble(i, v);
  }
}

/// Relative tolerance per dtype (an absolute one below 1: see the check):
/// exact for integers and bool. float16 results are rounded to half once by
/// both sides, from float32 arithmetic in a kernel and from double in the
/// interpreter; near a rounding boundary the two may land on neighbouring
/// halves, one unit in the last place, up to 2^-10 (9.8e-4) of the value
/// just above a power of two. 2e-3 allows for two such units; an error in
/// the arithmetic itself would be far larger.
double toleranceFor(DType t) {
  if (t == DType::Float16)
    return 2e-3;
  return isFloat(t) ? 1e-5 : 0;
}

class OpConformanceTest : public ::testing::TestWithParam<std::string> {
protected:
  /// Runs every case of `op` for every dtype, counting them in `runs`.
  void runOp(const OpDef &def);
  int runs = 0;
};

void OpConformanceTest::runOp(const OpDef &def) {
  const std::string &backend = GetParam();
  if (!targetOf(backend).supports(def))
    return;
  std::mt19937 rng(1234);
  PTXCollector ptx;
  for (DType t : dtypesOf(def)) {
    for (const OpCase &c : casesFor(def.name)) {
      if (c.skipBool && t == DType::Bool)
        continue;
      std::string params = subst(c.params, dtypeName(t)), expr = subst(c.expr, dtypeName(t));
      std::string what = backend + ": " + expr + " with " + params;
      std::string err;
      auto tc = TypedCall::parse(params, expr, &err);
      if (!tc) {
        ADD_FAILURE() << what << ": " << err;
        continue;
      }
      const Call &call = tc->call();
      llvm::StringMap<HostTensor> values;
      // Parameters in order: their types come from the operands' types.
      std::function<void(const Expr *)> make = [&](const Expr *e) {
        if (const auto *tup = llvm::dyn_cast<Tuple>(e)) {
          for (const ExprRef &f : tup->fields)
            make(f.get());
          return;
        }
        const auto *v = llvm::cast<Var>(e);
        const auto *ty = llvm::cast<TensorType>(v->checkedType.get());
        HostTensor h(ty->dtype, ty->shape);
        bool second = values.size() == 1;
        auto [lo, hi] = second && c.rhs ? *c.rhs : std::make_pair(c.lo, c.hi);
        fillRandom(h, rng, lo, hi);
        values.try_emplace(v->name, std::move(h));
      };
      for (const ExprRef &a : call.args)
        make(a.get());
      std::vector<const HostTensor *> args = operandsOf(call, values);
      if (backend == "ptx") {
        if (llvm::Error e = ptx.add(call))
          ADD_FAILURE() << what << ": " << llvm::toString(std::move(e));
        else
          ++runs;
        continue;
      }

      Expected<std::vector<HostTensor>> expected = interpretOp(call, args);
      if (!expected) {
        ADD_FAILURE() << what << ": interpreter: " << llvm::toString(expected.takeError());
        continue;
      }
      Expected<std::vector<HostTensor>> actual = runOnBackend(backend, call, args);
      if (!actual) {
        ADD_FAILURE() << what << ": " << llvm::toString(actual.takeError());
        continue;
      }
      ++runs;
      ASSERT_EQ(actual->size(), expected->size()) << what;
      for (size_t r = 0; r < actual->size(); ++r) {
        const HostTensor &a = (*actual)[r], &e = (*expected)[r];
        ASSERT_EQ(a.dtype(), e.dtype()) << what << " result " << r;
        ASSERT_EQ(a.shape(), e.shape()) << what << " result " << r;
        double tol = toleranceFor(a.dtype());
        int bad = 0;
        for (int64_t i = 0; i < a.numElements() && bad < 3; ++i) {
          double x = a.getDouble(i), y = e.getDouble(i);
          bool ok = x == y || (std::isnan(x) && std::isnan(y)) ||
                    std::fabs(x - y) <= tol * std::max(1.0, std::fabs(y));
          if (!ok) {
            ++bad;
            ADD_FAILURE() << what << ": result " << r << " element " << i << " is " << x
                          << ", the interpreter gives " << y;
          }
        }
      }
    }
  }
  if (backend == "ptx")
    if (llvm::Error e = ptx.finish(def.name))
      ADD_FAILURE() << def.name.str() << ": " << llvm::toString(std::move(e));
}

TEST_P(OpConformanceTest, CoversEveryOperator) {
  for (const OpDef &def : allOps()) {
    if (!isAnnotation(def.name) && !def.valueDependentShape) {
      EXPECT_FALSE(casesFor(def.name).empty()) << def.name.str() << " has no conformance case";
    }
  }
}

/// One test per family of the registry (OpDef::family) keeps failures
/// readable; the operators come from the registry, so a new one is tested
/// as soon as it is registered.
#define HX_CONFORMANCE_FAMILY(Family, familyName)                                                  \
  TEST_P(OpConformanceTest, Family) {                                                              \
    bool targeted = false;                                                                         \
    unsigned members = 0;                                                                          \
    for (const OpDef &def : allOps()) {                                                            \
      if (def.family != familyName)                                                                \
        continue;                                                                                  \
      ++members;                                                                                   \
      targeted |= targetOf(GetParam()).supports(def);                                              \
      runOp(def);                                                                                  \
    }                                                                                              \
    EXPECT_GT(members, 0u) << familyName;                                                          \
    EXPECT_TRUE(runs > 0 || !targeted);                                                            \
  }

HX_CONFORMANCE_FAMILY(Elementwise, "elementwise")
HX_CONFORMANCE_FAMILY(Reduce, "reduce")
HX_CONFORMANCE_FAMILY(Transform, "transform")
HX_CONFORMANCE_FAMILY(Nn, "nn")
HX_CONFORMANCE_FAMILY(ConvPool, "convpool")
HX_CONFORMANCE_FAMILY(Sort, "sort")

TEST_P(OpConformanceTest, FamiliesCoverEveryOperator) {
  // The family tests above must reach every operator with a kernel.
  for (const OpDef &def : allOps()) {
    if (!isAnnotation(def.name) && !def.valueDependentShape) {
      EXPECT_TRUE(llvm::is_contained({llvm::StringRef("elementwise"), llvm::StringRef("reduce"),
                                      llvm::StringRef("transform"), llvm::StringRef("nn"),
                                      llvm::StringRef("convpool"), llvm::StringRef("sort")},
                                     def.family))
          << def.name.str() << " is in family '" << def.family.str() << "', which no test runs";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, OpConformanceTest, ::testing::ValuesIn(backendsUnderTest()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

} // namespace
