//===- PackedGemmTest.cpp - The cpu's packed GEMM, every micro-kernel -----===//
//
// nn.dense and nn.batch_matmul at shapes that take the packed path
// (lib/Targets/CPU/PackedGemm.cpp), against sums in double: edge tiles (m
// and n that are no multiple of MR and NR), several blocks along k (partial
// sums between them), batches with a broadcast operand, transposes, and
// float16. Each test runs for every micro-kernel the host can run: the
// host's own (AVX-512: 14 x 32), AVX2 + FMA (6 x 16), AVX without FMA, and
// the baseline x86-64 (SSE: 6 x 8, no FMA).
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "gtest/gtest.h"

using namespace hx;
using namespace hx::test;

namespace {

struct Variant {
  const char *name;
  const char *cpu;
  const char *features;
  const char *needs; // a host feature the variant needs, or ""
};

const Variant kVariants[] = {
    {"host", "", "", ""},
    {"avx2_fma", "", "-avx512f", "avx2"},
    {"avx_no_fma", "", "-avx512f,-fma,-avx2", "avx"},
    {"sse", "x86-64", "", ""},
};

bool hostHas(const char *feature) {
  if (!*feature)
    return true;
  llvm::StringMap<bool> f = llvm::sys::getHostCPUFeatures();
  auto it = f.find(feature);
  return it != f.end() && it->second;
}

class PackedGemmTest : public ::testing::TestWithParam<Variant> {
protected:
  void SetUp() override {
    const Variant &v = GetParam();
    if (!llvm::Triple(llvm::sys::getProcessTriple()).isX86() && std::string(v.name) != "host")
      GTEST_SKIP() << "x86 variants on another host";
    if (!hostHas(v.needs))
      GTEST_SKIP() << "the host has no " << v.needs;
    CPUCompilerOptions opts;
    opts.cpu = v.cpu;
    opts.extraFeatures = v.features;
    compiler = makeCompiler(opts);
  }

  /// Runs `expr` on random inputs of `shapes` (dtype t), returns the output
  /// and the inputs.
  std::vector<Buffer> run(const std::string &params, const std::string &expr,
                          const std::vector<Shape> &shapes, DType t, std::vector<Buffer> &inputs) {
    std::string err;
    auto tc = TypedCall::parse(params, expr, &err);
    EXPECT_TRUE(tc) << err;
    if (!tc || !compiler)
      return {};
    std::mt19937 rng(7);
    std::vector<Buffer *> ptrs;
    inputs.reserve(shapes.size());
    for (const Shape &s : shapes) {
      inputs.emplace_back(t, s);
      fillRandom(inputs.back(), rng, -1, 1);
      ptrs.push_back(&inputs.back());
    }
    return runKernel(*compiler, tc->call(), ptrs);
  }

  /// float32 sums of K products round by about sqrt(block) * 2^-24 times
  /// their size: 1e-5 up to a few hundred terms per block; hx-run --check's
  /// 1e-4 for K in the thousands.
  void checkDense(int64_t m, int64_t k, int64_t n, DType t = DType::Float32, double tol = 1e-5) {
    Shape ds{m, k}, ws{n, k};
    std::vector<Buffer> in;
    std::vector<Buffer> out = run("%a: " + tensorType(ds, t) + ", %w: " + tensorType(ws, t),
                                  "nn.dense(%a, %w)", {ds, ws}, t, in);
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> expected;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t x = 0; x < k; ++x)
          s += in[0].get(i * k + x) * in[1].get(j * k + x);
        expected.push_back(s);
      }
    expectNear(out[0], expected, t == DType::Float16 ? 2e-3 : tol,
               "dense " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
  }

  void checkBatchMatmul(int64_t xb, int64_t yb, int64_t m, int64_t k, int64_t n, bool ta, bool tb) {
    int64_t batch = std::max(xb, yb);
    Shape xs = ta ? Shape{xb, k, m} : Shape{xb, m, k};
    Shape ys = tb ? Shape{yb, n, k} : Shape{yb, k, n};
    std::string attrs = std::string(", transpose_a=") + (ta ? "True" : "False") +
                        ", transpose_b=" + (tb ? "True" : "False");
    std::vector<Buffer> in;
    std::vector<Buffer> out =
        run("%x: " + tensorType(xs, DType::Float32) + ", %y: " + tensorType(ys, DType::Float32),
            "nn.batch_matmul(%x, %y" + attrs + ")", {xs, ys}, DType::Float32, in);
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> expected;
    for (int64_t bi = 0; bi < batch; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          int64_t bx = xb == 1 ? 0 : bi, by = yb == 1 ? 0 : bi;
          for (int64_t x = 0; x < k; ++x) {
            double a = in[0].get(ta ? flattenIndex({bx, x, i}, xs) : flattenIndex({bx, i, x}, xs));
            double w = in[1].get(tb ? flattenIndex({by, j, x}, ys) : flattenIndex({by, x, j}, ys));
            s += a * w;
          }
          expected.push_back(s);
        }
    expectNear(out[0], expected, 1e-5, "batch_matmul" + attrs);
  }

  std::unique_ptr<CPUCompiler> compiler;
};

TEST_P(PackedGemmTest, DenseEdgeTiles) {
  checkDense(37, 300, 45); // m, n past every MR, NR; k in two blocks on AVX-512
  checkDense(5, 64, 1000); // the smallest m the packed path takes
  checkDense(130, 129, 129);
  checkDense(14, 48, 32); // exactly one AVX-512 micro-tile
}

TEST_P(PackedGemmTest, DenseManyKBlocks) {
  checkDense(64, 1100, 70, DType::Float32, 1e-4); // 3 blocks of k with AVX2, 5 with AVX-512
  checkDense(9, 4100, 17, DType::Float32, 1e-4);
  checkDense(40, 700, 50); // 2 blocks of 350 with AVX2 and SSE
}

TEST_P(PackedGemmTest, DenseFloat16) { checkDense(33, 200, 40, DType::Float16); }

TEST_P(PackedGemmTest, BatchMatmul) {
  checkBatchMatmul(3, 3, 33, 70, 40, false, true);
  checkBatchMatmul(2, 2, 50, 64, 50, false, false);
  checkBatchMatmul(4, 1, 20, 90, 35, true, true); // y broadcast over the batch
  checkBatchMatmul(1, 3, 25, 40, 48, true, false);
  // Large enough per batch index to run the batch in order, each phase
  // across the threads (the small ones above run a batch index per thread).
  checkBatchMatmul(2, 2, 130, 200, 170, false, true);
}

INSTANTIATE_TEST_SUITE_P(MicroKernels, PackedGemmTest, ::testing::ValuesIn(kVariants),
                         [](const ::testing::TestParamInfo<Variant> &i) {
                           return std::string(i.param.name);
                         });

} // namespace
