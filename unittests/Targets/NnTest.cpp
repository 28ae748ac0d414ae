//===- NnTest.cpp - dense, batch_matmul, bias_add, softmax ----------------===//

#include "KernelTestUtil.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace hx;
using namespace hx::test;

namespace {

constexpr DType F32 = DType::Float32;

struct NnRun {
  std::unique_ptr<CPUCompiler> compiler = makeCompiler();
  std::unique_ptr<TypedCall> tc;
  std::vector<Buffer> inputs;
  std::vector<Buffer> outputs;

  /// Parses, fills the inputs (in parameter order, with `shapes`) at random
  /// and runs.
  NnRun(const std::string &params, const std::string &expr, std::vector<Shape> shapes,
        double lo = -1, double hi = 1) {
    std::string err;
    tc = TypedCall::parse(params, expr, &err);
    EXPECT_TRUE(tc) << err;
    if (!tc || !compiler)
      return;
    std::mt19937 rng(99);
    std::vector<Buffer *> ptrs;
    inputs.reserve(shapes.size());
    for (const Shape &s : shapes) {
      inputs.emplace_back(F32, s);
      fillRandom(inputs.back(), rng, lo, hi);
      ptrs.push_back(&inputs.back());
    }
    outputs = runKernel(*compiler, tc->call(), ptrs);
  }
};

void checkDense(int64_t m, int64_t k, int64_t n, const std::string &attrs = "") {
  Shape ds{m, k}, ws{n, k};
  NnRun r("%a: " + tensorType(ds, F32) + ", %w: " + tensorType(ws, F32),
          "nn.dense(%a, %w" + attrs + ")", {ds, ws});
  ASSERT_EQ(r.outputs.size(), 1u);
  std::vector<double> expected;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t x = 0; x < k; ++x)
        s += r.inputs[0].get(i * k + x) * r.inputs[1].get(j * k + x);
      expected.push_back(s);
    }
  expectNear(r.outputs[0], expected, 1e-5,
             "dense " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
}

TEST(NnTest, Dense) {
  checkDense(4, 17, 5);
  checkDense(1, 1000, 3);
  checkDense(3, 1, 1);
  checkDense(33, 64, 65);
  checkDense(2, 3, 7, ", units=7");
  checkDense(0, 3, 4);
  checkDense(2, 0, 4);
}

TEST(NnTest, DenseWithRank3Data) {
  Shape ds{2, 3, 8}, ws{5, 8};
  NnRun r("%a: " + tensorType(ds, F32) + ", %w: " + tensorType(ws, F32), "nn.dense(%a, %w)",
          {ds, ws});
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].shape(), (Shape{2, 3, 5}));
  std::vector<double> expected;
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      double s = 0;
      for (int64_t x = 0; x < 8; ++x)
        s += r.inputs[0].get(i * 8 + x) * r.inputs[1].get(j * 8 + x);
      expected.push_back(s);
    }
  expectNear(r.outputs[0], expected, 1e-5, "dense rank 3");
}

TEST(NnTest, BatchMatmul) {
  struct Case {
    Shape x, y;
    bool ta, tb;
  } cases[] = {{{2, 3, 17}, {2, 5, 17}, false, true}, {{2, 17, 3}, {2, 17, 5}, true, false},
               {{1, 3, 4}, {3, 5, 4}, false, true},   {{3, 4, 3}, {1, 4, 6}, true, false},
               {{2, 3, 4}, {2, 4, 5}, false, false},  {{2, 4, 3}, {2, 5, 4}, true, true}};
  for (const Case &c : cases) {
    std::string attrs = std::string(", transpose_a=") + (c.ta ? "True" : "False") +
                        ", transpose_b=" + (c.tb ? "True" : "False");
    NnRun r("%x: " + tensorType(c.x, F32) + ", %y: " + tensorType(c.y, F32),
            "nn.batch_matmul(%x, %y" + attrs + ")", {c.x, c.y});
    ASSERT_EQ(r.outputs.size(), 1u);
    int64_t b = std::max(c.x[0], c.y[0]), m = c.x[c.ta ? 2 : 1], k = c.x[c.ta ? 1 : 2];
    int64_t n = c.y[c.tb ? 1 : 2];
    ASSERT_EQ(r.outputs[0].shape(), (Shape{b, m, n}));
    std::vector<double> expected;
    for (int64_t bi = 0; bi < b; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          int64_t xb = c.x[0] == 1 ? 0 : bi, yb = c.y[0] == 1 ? 0 : bi;
          for (int64_t x = 0; x < k; ++x) {
            Shape xc = c.ta ? Shape{xb, x, i} : Shape{xb, i, x};
            Shape yc = c.tb ? Shape{yb, j, x} : Shape{yb, x, j};
            s += r.inputs[0].get(flattenIndex(xc, c.x)) * r.inputs[1].get(flattenIndex(yc, c.y));
          }
          expected.push_back(s);
        }
    expectNear(r.outputs[0], expected, 1e-5, "batch_matmul" + attrs);
  }
}

TEST(NnTest, BiasAdd) {
  struct Case {
    Shape data;
    int axis;
  } cases[] = {{{2, 3, 4, 5}, 1}, {{2, 3, 4, 5}, -1}, {{7, 17}, 1}, {{17}, 0}, {{4, 1000}, 0}};
  for (const Case &c : cases) {
    int ax = c.axis < 0 ? c.axis + int(c.data.size()) : c.axis;
    Shape bs{c.data[size_t(ax)]};
    NnRun r("%a: " + tensorType(c.data, F32) + ", %b: " + tensorType(bs, F32),
            "nn.bias_add(%a, %b, axis=" + std::to_string(c.axis) + ")", {c.data, bs});
    ASSERT_EQ(r.outputs.size(), 1u);
    std::vector<double> expected;
    for (int64_t i = 0; i < r.inputs[0].size(); ++i)
      expected.push_back(r.inputs[0].get(i) +
                         r.inputs[1].get(unflattenIndex(i, c.data)[size_t(ax)]));
    expectNear(r.outputs[0], expected, 1e-6, "bias_add " + shapeToString(c.data));
  }
}

TEST(NnTest, SoftmaxIsNumericallyStable) {
  struct Case {
    Shape shape;
    int axis;
    double range;
  } cases[] = {{{4, 17}, -1, 1},    {{3, 5, 2}, 1, 3},  {{3, 5, 2}, 0, 3},
               {{2, 1000}, 1, 100}, {{5, 3}, -1, 1000}, {{1}, 0, 1}};
  for (const Case &c : cases) {
    NnRun r("%a: " + tensorType(c.shape, F32),
            "nn.softmax(%a, axis=" + std::to_string(c.axis) + ")", {c.shape}, -c.range, c.range);
    ASSERT_EQ(r.outputs.size(), 1u);
    int ax = c.axis < 0 ? c.axis + int(c.shape.size()) : c.axis;
    std::vector<double> expected(size_t(r.inputs[0].size()));
    for (int64_t i = 0; i < r.inputs[0].size(); ++i) {
      Shape co = unflattenIndex(i, c.shape);
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < c.shape[size_t(ax)]; ++j) {
        co[size_t(ax)] = j;
        mx = std::max(mx, r.inputs[0].get(flattenIndex(co, c.shape)));
      }
      for (int64_t j = 0; j < c.shape[size_t(ax)]; ++j) {
        co[size_t(ax)] = j;
        sum += std::exp(r.inputs[0].get(flattenIndex(co, c.shape)) - mx);
      }
      expected[size_t(i)] = std::exp(r.inputs[0].get(i) - mx) / sum;
    }
    expectNear(r.outputs[0], expected, 1e-5, "softmax " + shapeToString(c.shape));
  }
}

} // namespace
