//===- NnTest.cpp - dense, batch_matmul, bias_add, softmax ----------------===//
#include "TestUtil.h"
#include <cmath>

using namespace hx;
using namespace hx::test;

namespace {

TEST(NnTest, Dense) {
  // out[i, j] = sum_k data[i, k] * weight[j, k]
  //   row 0: 1*1 + 3*-1 = -2, 1*2 + 2*1 = 4; row 1: 4 - 6 = -2, 8 + 5 = 13
  EXPECT_TRUE(tensorIs(runOne("%d: Tensor[(2, 3), float32], %w: Tensor[(2, 3), float32]",
                              "nn.dense(%d, %w)",
                              {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 3}, {1, 0, -1, 2, 1, 0})}),
                       DType::Float32, {2, 2}, {-2, 4, -2, 13}));
  // Leading batch dims are kept; units must match the weight.
  EXPECT_TRUE(
      tensorIs(runOne("%d: Tensor[(1, 2, 3), float32], %w: Tensor[(2, 3), float32]",
                      "nn.dense(%d, %w, units=2)",
                      {f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 3}, {1, 0, -1, 2, 1, 0})}),
               DType::Float32, {1, 2, 2}, {-2, 4, -2, 13}));
}

// Products large enough for parallelRows (every core) give, element by
// element, the plain triple loop's double sums in order of k, rounded once
// to float32: the split over threads and the four-at-a-time dot products
// change nothing.
TEST(NnTest, LargeProductsMatchThePlainLoop) {
  const int64_t m = 70, k = 300, n = 131, b = 3;
  auto fill = [](int64_t count, int seed) {
    std::vector<double> v(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) // float32 values, held as double
      v[size_t(i)] = double(float(((i * 7919 + seed * 104729) % 2001) - 1000) / 997.0f);
    return v;
  };
  std::vector<double> d = fill(m * k, 1), w = fill(n * k, 2);
  std::vector<double> dense(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l)
        s += d[size_t(i * k + l)] * w[size_t(j * k + l)];
      dense[size_t(i * n + j)] = double(float(s));
    }
  std::string ty = "Tensor[(" + std::to_string(m) + ", " + std::to_string(k) + "), float32]";
  std::string wty = "Tensor[(" + std::to_string(n) + ", " + std::to_string(k) + "), float32]";
  EXPECT_TRUE(tensorIs(
      runOne("%d: " + ty + ", %w: " + wty, "nn.dense(%d, %w)", {f32({m, k}, d), f32({n, k}, w)}),
      DType::Float32, {m, n}, dense, 0));
  // batch_matmul, x [b, k, m] transposed, y [b, k, n] not: the strided case.
  std::vector<double> x = fill(b * k * m, 3), y = fill(b * k * n, 4);
  std::vector<double> bmm(size_t(b * m * n));
  for (int64_t q = 0; q < b; ++q)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t l = 0; l < k; ++l)
          s += x[size_t((q * k + l) * m + i)] * y[size_t((q * k + l) * n + j)];
        bmm[size_t((q * m + i) * n + j)] = double(float(s));
      }
  auto shape = [](int64_t a, int64_t c, int64_t e) {
    return "Tensor[(" + std::to_string(a) + ", " + std::to_string(c) + ", " + std::to_string(e) +
           "), float32]";
  };
  EXPECT_TRUE(tensorIs(runOne("%x: " + shape(b, k, m) + ", %y: " + shape(b, k, n),
                              "nn.batch_matmul(%x, %y, transpose_a=True, transpose_b=False)",
                              {f32({b, k, m}, x), f32({b, k, n}, y)}),
                       DType::Float32, {b, m, n}, bmm, 0));
}

TEST(NnTest, BatchMatmulTransposes) {
  std::string p = "%x: Tensor[(1, 2, 2), float32], %y: Tensor[(1, 2, 2), float32]";
  auto x = [] { return f32({1, 2, 2}, {1, 2, 3, 4}); };
  auto y = [] { return f32({1, 2, 2}, {5, 6, 7, 8}); };
  // Default transpose_b=True: x @ y^T.
  EXPECT_TRUE(tensorIs(runOne(p, "nn.batch_matmul(%x, %y)", {x(), y()}), DType::Float32, {1, 2, 2},
                       {17, 23, 39, 53}));
  // x @ y.
  EXPECT_TRUE(tensorIs(runOne(p, "nn.batch_matmul(%x, %y, transpose_b=False)", {x(), y()}),
                       DType::Float32, {1, 2, 2}, {19, 22, 43, 50}));
  // x^T @ y.
  EXPECT_TRUE(tensorIs(
      runOne(p, "nn.batch_matmul(%x, %y, transpose_a=True, transpose_b=False)", {x(), y()}),
      DType::Float32, {1, 2, 2}, {26, 30, 38, 44}));
  // x^T @ y^T: [[1, 3], [2, 4]] @ [[5, 7], [6, 8]].
  EXPECT_TRUE(tensorIs(runOne(p, "nn.batch_matmul(%x, %y, transpose_a=True)", {x(), y()}),
                       DType::Float32, {1, 2, 2}, {23, 31, 34, 46}));
}

TEST(NnTest, BatchMatmulBroadcastsABatchOfOne) {
  // x (2, 1, 2), y (1, 1, 2) read as [B, N, K]: [1, 2].[10, 1] = 12, [3, 4].[10, 1] = 34.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 1, 2), float32], %y: Tensor[(1, 1, 2), float32]",
                              "nn.batch_matmul(%x, %y)",
                              {f32({2, 1, 2}, {1, 2, 3, 4}), f32({1, 1, 2}, {10, 1})}),
                       DType::Float32, {2, 1, 1}, {12, 34}));
  // And the other way round.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 1, 2), float32], %y: Tensor[(2, 1, 2), float32]",
                              "nn.batch_matmul(%x, %y)",
                              {f32({1, 1, 2}, {10, 1}), f32({2, 1, 2}, {1, 2, 3, 4})}),
                       DType::Float32, {2, 1, 1}, {12, 34}));
}

TEST(NnTest, BiasAddAlongAnAxis) {
  EXPECT_TRUE(tensorIs(runOne("%d: Tensor[(2, 3), float32], %b: Tensor[(3), float32]",
                              "nn.bias_add(%d, %b)",
                              {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3}, {10, 20, 30})}),
                       DType::Float32, {2, 3}, {11, 22, 33, 14, 25, 36}));
  EXPECT_TRUE(tensorIs(runOne("%d: Tensor[(2, 3), float32], %b: Tensor[(2), float32]",
                              "nn.bias_add(%d, %b, axis=0)",
                              {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2}, {10, 20})}),
                       DType::Float32, {2, 3}, {11, 12, 13, 24, 25, 26}));
  // NCHW with a channel bias (the default axis=1): (1, 2, 1, 2).
  EXPECT_TRUE(
      tensorIs(runOne("%d: Tensor[(1, 2, 1, 2), float32], %b: Tensor[(2), float32]",
                      "nn.bias_add(%d, %b)", {f32({1, 2, 1, 2}, {1, 2, 3, 4}), f32({2}, {10, 20})}),
               DType::Float32, {1, 2, 1, 2}, {11, 12, 23, 24}));
}

TEST(NnTest, Softmax) {
  double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0), s = e1 + e2 + e3;
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(3), float32]", "nn.softmax(%x)", {f32({3}, {1, 2, 3})}),
                       DType::Float32, {3}, {e1 / s, e2 / s, e3 / s}));
  // Stable: exp(1000) overflows, exp(1000 - max) does not.
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(2), float32]", "nn.softmax(%x)", {f32({2}, {1000, 1000})}),
               DType::Float32, {2}, {0.5, 0.5}));
  // Along axis 0 of (2, 2): columns [0, ln 3] and [5, 5].
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 2), float32]", "nn.softmax(%x, axis=0)",
                              {f32({2, 2}, {0, 5, std::log(3.0), 5})}),
                       DType::Float32, {2, 2}, {0.25, 0.5, 0.75, 0.5}));
}

TEST(NnTest, LogSoftmax) {
  double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0), ls = std::log(e1 + e2 + e3);
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(3), float32]", "nn.log_softmax(%x)", {f32({3}, {1, 2, 3})}),
               DType::Float32, {3}, {1 - ls, 2 - ls, 3 - ls}));
  // Stable where log(softmax) would give log(0) = -inf.
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(2), float32]", "nn.log_softmax(%x)", {f32({2}, {0, 200})}),
               DType::Float32, {2}, {-200, 0}));
}

TEST(NnTest, BatchFlatten) {
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 2, 1), float32]", "nn.batch_flatten(%x)",
                              {f32({2, 2, 1}, {1, 2, 3, 4})}),
                       DType::Float32, {2, 2}, {1, 2, 3, 4}));
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(3), float32]", "nn.batch_flatten(%x)", {f32({3}, {1, 2, 3})}),
               DType::Float32, {3, 1}, {1, 2, 3}));
}

TEST(NnTest, DropoutAtInference) {
  auto r = runModule(mainModule("%x: Tensor[(3), float32]", "nn.dropout(%x, rate=0.3f)"),
                     {f32({3}, {1, -2, 3})});
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {3}, {1, -2, 3}));
  EXPECT_TRUE(tensorIs((*r)[1], DType::Float32, {3}, {1, 1, 1}));
}

TEST(NnTest, BatchNormAtInference) {
  // Channel 0: mean 1, var 3 (+ eps 1), gamma 2, beta 10; channel 1: mean 0,
  // var 0 (+ eps 1), gamma 1, beta 0.
  auto r = runModule(
      mainModule("%x: Tensor[(1, 2, 2), float32], %g: Tensor[(2), float32], "
                 "%b: Tensor[(2), float32], %m: Tensor[(2), float32], %v: Tensor[(2), float32]",
                 "nn.batch_norm(%x, %g, %b, %m, %v, epsilon=1f)"),
      {f32({1, 2, 2}, {3, -1, 5, 6}), f32({2}, {2, 1}), f32({2}, {10, 0}), f32({2}, {1, 0}),
       f32({2}, {3, 0})});
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {1, 2, 2}, {12, 8, 5, 6}));
  EXPECT_TRUE(tensorIs((*r)[1], DType::Float32, {2}, {1, 0}));
  EXPECT_TRUE(tensorIs((*r)[2], DType::Float32, {2}, {3, 0}));
}

TEST(NnTest, LayerNorm) {
  // Row [1, 3]: mean 2, population variance 1; epsilon 0 gives [-1, 1].
  auto r = runModule(mainModule("%x: Tensor[(2, 2), float32], %g: Tensor[(2), float32], "
                                "%b: Tensor[(2), float32]",
                                "nn.layer_norm(%x, %g, %b, epsilon=0f)"),
                     {f32({2, 2}, {1, 3, 5, 5.5}), f32({2}, {1, 2}), f32({2}, {0, 1})});
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {2, 2}, {-1, 3, -1, 3}));
}

} // namespace
