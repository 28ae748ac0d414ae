//===- VectorMathTest.cpp - exp, log, tanh, erf, sigmoid against libm -----===//
//
// The cpu's float32 exp, log, tanh, erf and sigmoid (VectorMath.cpp), run
// as kernels over a sweep of float32 bit patterns (every 251st,
// both signs: 17 million values) and the special values, against
// double-precision libm rounded to float32. The error is counted in ulp
// from that correctly rounded result (the distance between the two as
// ordered bit patterns, so that 0 is exact, 1 the neighbouring float);
// NaN must give NaN. The bounds below are the ones docs/execution.md states.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <limits>

using namespace hx;
using namespace hx::test;

namespace {

/// The float's position in the ordered line of floats (-0 and +0 both 0).
int64_t ordered(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
}

struct Worst {
  int64_t ulp = 0;
  float at = 0, got = 0, want = 0;
};

/// Runs `op` over `xs` and returns the worst ulp distance from
/// float(ref(x)); a NaN where NaN is due (or not) counts as infinitely bad.
Worst sweep(CPUCompiler &compiler, llvm::StringRef op, const std::vector<float> &xs,
            double (*ref)(double)) {
  Worst w;
  constexpr int64_t kChunk = int64_t(1) << 22;
  for (size_t begin = 0; begin < xs.size(); begin += kChunk) {
    int64_t n = std::min<int64_t>(kChunk, int64_t(xs.size() - begin));
    std::string err;
    auto tc = TypedCall::parse("%x: " + tensorType({n}, DType::Float32), (op + "(%x)").str(), &err);
    EXPECT_TRUE(tc) << err;
    if (!tc)
      return w;
    Buffer x(DType::Float32, {n});
    std::memcpy(x.data(), xs.data() + begin, size_t(n) * 4);
    std::vector<Buffer> out = runKernel(compiler, tc->call(), {&x});
    if (out.size() != 1)
      return w;
    const auto *got = static_cast<const float *>(out[0].data());
    for (int64_t i = 0; i < n; ++i) {
      float xi = xs[size_t(begin) + size_t(i)];
      float want = float(ref(double(xi)));
      float g = got[i];
      int64_t d;
      if (std::isnan(want) || std::isnan(g))
        d = std::isnan(want) && std::isnan(g) ? 0 : std::numeric_limits<int64_t>::max();
      else
        d = std::abs(ordered(g) - ordered(want));
      if (d > w.ulp)
        w = {d, xi, g, want};
    }
  }
  return w;
}

std::vector<float> inputs() {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < 0x7f800000u; bits += 251) {
    float f;
    uint32_t b = uint32_t(bits);
    std::memcpy(&f, &b, 4);
    xs.push_back(f);
    xs.push_back(-f);
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float f : {0.0f,
                  -0.0f,
                  inf,
                  -inf,
                  std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::max(),
                  88.72283935546875f,
                  88.7228394f,
                  88.8f,
                  -87.33654f,
                  -103.97208f,
                  -103.9721f,
                  -104.0f,
                  0.625f,
                  -0.625f,
                  1.0f,
                  -1.0f,
                  4.0f,
                  -4.0f,
                  9.0f,
                  1e-30f,
                  -1e-30f})
    xs.push_back(f);
  return xs;
}

double sigmoidRef(double x) { return 1.0 / (1.0 + std::exp(-x)); }

TEST(VectorMathTest, UlpAgainstLibm) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  std::vector<float> xs = inputs();
  struct Fn {
    const char *op;
    double (*ref)(double);
    int64_t bound;
  } fns[] = {{"exp", static_cast<double (*)(double)>(std::exp), 2},
             {"log", static_cast<double (*)(double)>(std::log), 2},
             {"tanh", static_cast<double (*)(double)>(std::tanh), 2},
             {"erf", static_cast<double (*)(double)>(std::erf), 3},
             {"sigmoid", sigmoidRef, 3}};
  for (const Fn &f : fns) {
    Worst w = sweep(*compiler, f.op, xs, f.ref);
    std::printf("%-8s max %lld ulp (at %.9g: %.9g, correctly rounded %.9g)\n", f.op,
                static_cast<long long>(w.ulp), double(w.at), double(w.got), double(w.want));
    EXPECT_LE(w.ulp, f.bound) << f.op << " at " << w.at << ": " << w.got << ", correctly rounded "
                              << w.want;
  }
}

} // namespace
