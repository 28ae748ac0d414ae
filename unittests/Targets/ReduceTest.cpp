//===- ReduceTest.cpp - sum, mean, max, min -------------------------------===//
//
// Every reduction for every dtype over axis variants (None, one axis,
// negative, several, exclude, keepdims), odd sizes and a zero-size kept
// dim, against a double loop in the test; a long float sum checks the
// accumulator's accuracy against double.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "gtest/gtest.h"
#include <cmath>
#include <set>

using namespace hx;
using namespace hx::test;

namespace {

struct ReduceCase {
  Shape shape;
  std::string attrs;
  std::set<unsigned> axes; // reduced axes (normalized)
};

const ReduceCase kCases[] = {
    {{3, 17, 5}, "", {0, 1, 2}},
    {{3, 17, 5}, ", axis=[1]", {1}},
    {{3, 17, 5}, ", axis=[-1], keepdims=True", {2}},
    {{3, 17, 5}, ", axis=[0, 2]", {0, 2}},
    {{3, 17, 5}, ", axis=[1], exclude=True", {0, 2}},
    {{3, 17, 5}, ", axis=0", {0}},
    {{1000}, "", {0}},
    {{1}, ", axis=[0]", {0}},
    {{0, 4}, ", axis=[1]", {1}},
    {{4, 1, 3}, ", axis=[1, 2]", {1, 2}},
};

void checkReduce(const std::string &op, DType t) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  std::mt19937 rng(11);
  for (const ReduceCase &rc : kCases) {
    std::string what = op + " " + dtypeName(t).str() + " " + shapeToString(rc.shape) + rc.attrs;
    std::string err;
    auto tc = TypedCall::parse("%a: " + tensorType(rc.shape, t), op + "(%a" + rc.attrs + ")", &err);
    ASSERT_TRUE(tc) << what << ": " << err;
    Buffer a(t, rc.shape);
    fillRandom(a, rng, -50, 50);
    std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&a});
    ASSERT_EQ(out.size(), 1u) << what;

    // Reference: group the input elements by their kept coordinates.
    Shape kept;
    for (unsigned d = 0; d < rc.shape.size(); ++d)
      if (!rc.axes.count(d))
        kept.push_back(rc.shape[d]);
    int64_t n = numElementsOf(kept);
    ASSERT_EQ(out[0].size(), n) << what;
    std::vector<double> acc(size_t(n), op == "max" ? -INFINITY : op == "min" ? INFINITY : 0.0);
    std::vector<int64_t> count(size_t(n), 0);
    for (int64_t i = 0; i < a.size(); ++i) {
      Shape c = unflattenIndex(i, rc.shape), kc;
      for (unsigned d = 0; d < rc.shape.size(); ++d)
        if (!rc.axes.count(d))
          kc.push_back(c[d]);
      int64_t o = flattenIndex(kc, kept);
      double x = a.get(i);
      acc[size_t(o)] = op == "max"   ? std::max(acc[size_t(o)], x)
                       : op == "min" ? std::min(acc[size_t(o)], x)
                                     : acc[size_t(o)] + x;
      ++count[size_t(o)];
    }
    std::vector<double> expected;
    for (int64_t o = 0; o < n; ++o) {
      double v = acc[size_t(o)];
      if (op == "mean")
        v = isFloat(t) ? v / double(count[size_t(o)]) : std::trunc(v / double(count[size_t(o)]));
      expected.push_back(v);
    }
    expectNear(out[0], expected, 1e-5, what);
  }
}

TEST(ReduceTest, Sum) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64})
    checkReduce("sum", t);
}

TEST(ReduceTest, Mean) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64})
    checkReduce("mean", t);
}

TEST(ReduceTest, Max) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64})
    checkReduce("max", t);
}

TEST(ReduceTest, Min) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64})
    checkReduce("min", t);
}

TEST(ReduceTest, LongFloatSumMatchesDouble) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  Shape s{1 << 20};
  auto tc = TypedCall::parse("%a: " + tensorType(s, DType::Float32), "sum(%a)");
  ASSERT_TRUE(tc);
  Buffer a(DType::Float32, s);
  std::mt19937 rng(5);
  fillRandom(a, rng, 0, 1);
  double ref = 0;
  for (int64_t i = 0; i < a.size(); ++i)
    ref += a.get(i);
  std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&a});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].get(0), ref, 1e-6 * ref);
}

TEST(ReduceTest, MaxPropagatesNaN) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  auto tc = TypedCall::parse("%a: Tensor[(2, 3), float32]", "max(%a, axis=[1])");
  ASSERT_TRUE(tc);
  Buffer a(DType::Float32, {2, 3});
  double v[] = {1, NAN, 3, 4, 5, 6};
  for (int i = 0; i < 6; ++i)
    a.set(i, v[i]);
  std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&a});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(std::isnan(out[0].get(0)));
  EXPECT_EQ(out[0].get(1), 6);
}

} // namespace
