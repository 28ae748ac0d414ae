//===- Float16Test.cpp - float16 kernels: half in memory, float in math ---===//
//
// Hand-computed results of float16 kernels on the host CPU, and the same
// kernels compiled for a CPU without F16C, where x86 code generation turns
// every half conversion into a libcall (__extendhfsf2, __truncsfhf2,
// __truncdfhf2) that KernelJit must resolve.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace hx;
using namespace hx::test;

namespace {

class Float16Test : public ::testing::TestWithParam<const char *> {
protected:
  std::unique_ptr<CPUCompiler> compiler() {
    CPUCompilerOptions opts;
    opts.extraFeatures = GetParam();
    return makeCompiler(opts);
  }
  /// Runs `expr` on `inputs` and returns result 0 as doubles.
  std::vector<double> run(const std::string &params, const std::string &expr,
                          std::vector<Buffer *> inputs) {
    auto c = compiler();
    auto tc = TypedCall::parse(params, expr);
    if (!c || !tc) {
      ADD_FAILURE() << "cannot compile " << expr;
      return {};
    }
    std::vector<Buffer> out = runKernel(*c, tc->call(), inputs);
    std::vector<double> v;
    if (!out.empty())
      for (int64_t i = 0; i < out[0].size(); ++i)
        v.push_back(out[0].get(i));
    return v;
  }
};

TEST_P(Float16Test, DivideRoundsOnceToHalf) {
  Buffer a(DType::Float16, {4}), b(DType::Float16, {4});
  double num[] = {1, 2, -1, 65504}, den[] = {3, 3, 7, 0.5};
  for (int i = 0; i < 4; ++i) {
    a.set(i, num[i]);
    b.set(i, den[i]);
  }
  std::vector<double> r =
      run("%a: Tensor[(4), float16], %b: Tensor[(4), float16]", "divide(%a, %b)", {&a, &b});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], 0.333251953125);  // 0x3555: 1/3 to 11 significant bits
  EXPECT_EQ(r[1], 0.66650390625);   // 0x3955
  EXPECT_EQ(r[2], -0.142822265625); // 0xB092
  EXPECT_EQ(r[3], INFINITY);        // 131008 is past half's 65504
}

TEST_P(Float16Test, CastFromFloat32TiesToEven) {
  Buffer a(DType::Float32, {5});
  double in[] = {1 + std::ldexp(1, -11), 1 + 3 * std::ldexp(1, -11), 1e-8, -70000, 0.1};
  for (int i = 0; i < 5; ++i)
    a.set(i, in[i]);
  std::vector<double> r = run("%a: Tensor[(5), float32]", "cast(%a, dtype=\"float16\")", {&a});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0], 1.0);                   // halfway: to the even 1.0
  EXPECT_EQ(r[1], 1 + std::ldexp(1, -9)); // halfway: to the even 1 + 2^-9
  EXPECT_EQ(r[2], 0.0);                   // below half the smallest subnormal
  EXPECT_EQ(r[3], -INFINITY);
  EXPECT_EQ(r[4], 0.0999755859375); // 0x2E66
}

TEST_P(Float16Test, CastToFloat32AndInt32IsExact) {
  Buffer a(DType::Float16, {3});
  double in[] = {0.333251953125, -2.5, std::ldexp(1, -24)};
  for (int i = 0; i < 3; ++i)
    a.set(i, in[i]);
  std::vector<double> f = run("%a: Tensor[(3), float16]", "cast(%a, dtype=\"float32\")", {&a});
  ASSERT_EQ(f.size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(f[i], in[i]) << i;
  std::vector<double> n = run("%a: Tensor[(3), float16]", "cast(%a, dtype=\"int32\")", {&a});
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[0], 0);
  EXPECT_EQ(n[1], -2);
}

TEST_P(Float16Test, SumAccumulatesWideAndRoundsOnce) {
  // 2048 + 1 + 1 + ... (4096 ones): each partial sum in half would stick at
  // 2048 (its ulp there is 2); accumulated wide it is 6144, exact in half.
  Buffer a(DType::Float16, {4097});
  a.set(0, 2048);
  for (int64_t i = 1; i < a.size(); ++i)
    a.set(i, 1);
  std::vector<double> r = run("%a: Tensor[(4097), float16]", "sum(%a)", {&a});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], 6144.0);
}

TEST_P(Float16Test, DenseAndSoftmax) {
  Buffer x(DType::Float16, {1, 3}), w(DType::Float16, {2, 3});
  double xs[] = {1, 2, 3}, ws[] = {0.5, 0.25, 0.125, -1, 1, 0.1};
  for (int i = 0; i < 3; ++i)
    x.set(i, xs[i]);
  for (int i = 0; i < 6; ++i)
    w.set(i, ws[i]);
  std::vector<double> d =
      run("%x: Tensor[(1, 3), float16], %w: Tensor[(2, 3), float16]", "nn.dense(%x, %w)", {&x, &w});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0], 1.375);
  // 0.1 is 0.0999755859375 in half: -1 + 2 + 0.2999267578125 = 1.2999267578125,
  // rounded to half (ulp 2^-10): 1.2998046875.
  EXPECT_EQ(d[1], 1.2998046875);

  Buffer s(DType::Float16, {2});
  s.set(0, 0);
  s.set(1, std::log(3.0));
  std::vector<double> p = run("%s: Tensor[(2), float16]", "nn.softmax(%s)", {&s});
  ASSERT_EQ(p.size(), 2u);
  // log 3 is 1.0986328125 in half; e^that / (1 + e^that) = 0.749992..., the
  // nearest halves 0.75 (0x3A00) and 0.25 (0x3400).
  EXPECT_EQ(p[0], 0.25);
  EXPECT_EQ(p[1], 0.75);
}

// "": the host's features (F16C's vcvtph2ps where it has them); "-f16c,...":
// a CPU without half conversions, so LLVM calls the conversion libcalls.
INSTANTIATE_TEST_SUITE_P(Features, Float16Test, ::testing::Values("", "-f16c,-avx512fp16"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           return std::string(*info.param ? "NoF16C" : "Host");
                         });

} // namespace
