//===- ElementwiseTest.cpp - Broadcasting binary, unary, where, cast ------===//
//
// Every elementwise operator for every dtype it accepts, on broadcasting
// shape pairs (same shape, scalar, row, column, rank-changing, size 1,
// odd sizes, a zero-size dim), against a double-precision loop in the test.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "gtest/gtest.h"
#include <cmath>
#include <functional>

using namespace hx;
using namespace hx::test;

namespace {

struct ShapePair {
  Shape a, b;
};

const ShapePair kShapePairs[] = {
    {{17}, {17}},                 // same shape, odd size
    {{1000}, {}},                 // scalar on the right
    {{}, {3, 5}},                 // scalar on the left
    {{4, 17}, {17}},              // row, rank-changing
    {{4, 17}, {4, 1}},            // column
    {{3, 1}, {1, 5}},             // outer product
    {{2, 3, 4}, {3, 1}},          // rank 3 against rank 2
    {{1}, {1}},                   // size 1
    {{0, 3}, {3}},                // zero-size dim
    {{2, 1, 5, 1}, {1, 7, 1, 3}}, // everything broadcasts
};

Shape broadcast(const Shape &a, const Shape &b) { return *broadcastShapes(a, b); }

using BinaryRef = std::function<double(double, double)>;

/// Runs `op` on random inputs of every shape pair and compares with `ref`.
void checkBinary(const std::string &op, DType t, BinaryRef ref, DType resultType, double lo = -5,
                 double hi = 5, bool nonzeroRhs = false) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  std::mt19937 rng(42);
  for (const ShapePair &sp : kShapePairs) {
    std::string what =
        op + " " + dtypeName(t).str() + " " + shapeToString(sp.a) + " " + shapeToString(sp.b);
    std::string err;
    auto tc = TypedCall::parse("%a: " + tensorType(sp.a, t) + ", %b: " + tensorType(sp.b, t),
                               op + "(%a, %b)", &err);
    ASSERT_TRUE(tc) << what << ": " << err;
    Buffer a(t, sp.a), b(t, sp.b);
    fillRandom(a, rng, lo, hi);
    fillRandom(b, rng, lo, hi);
    if (nonzeroRhs)
      for (int64_t i = 0; i < b.size(); ++i)
        if (b.get(i) == 0)
          b.set(i, 3);
    std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&a, &b});
    ASSERT_EQ(out.size(), 1u) << what;
    EXPECT_EQ(out[0].dtype(), resultType);
    Shape os = broadcast(sp.a, sp.b);
    std::vector<double> expected;
    for (int64_t i = 0; i < numElementsOf(os); ++i) {
      Shape c = unflattenIndex(i, os);
      double x = a.get(broadcastIndex(c, sp.a)), y = b.get(broadcastIndex(c, sp.b));
      Buffer tmp(resultType, {1});
      tmp.set(0, ref(x, y));
      expected.push_back(tmp.get(0));
    }
    expectNear(out[0], expected, 1e-6, what);
  }
}

double truncDiv(double x, double y) { return y == 0 ? 0 : std::trunc(x / y); }

TEST(ElementwiseTest, ArithmeticAllDTypes) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64}) {
    checkBinary("add", t, [](double x, double y) { return x + y; }, t);
    checkBinary("subtract", t, [](double x, double y) { return x - y; }, t);
    checkBinary("multiply", t, [](double x, double y) { return x * y; }, t);
    checkBinary("maximum", t, [](double x, double y) { return std::max(x, y); }, t);
    checkBinary("minimum", t, [](double x, double y) { return std::min(x, y); }, t);
  }
}

TEST(ElementwiseTest, Divide) {
  checkBinary(
      "divide", DType::Float32, [](double x, double y) { return x / y; }, DType::Float32, -5, 5,
      /*nonzeroRhs=*/true);
  for (DType t : {DType::Int32, DType::Int64})
    checkBinary("divide", t, truncDiv, t, -20, 20, /*nonzeroRhs=*/true);
}

TEST(ElementwiseTest, IntegerDivisionTruncatesAndNeverTraps) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  for (DType t : {DType::Int32, DType::Int64}) {
    auto tc = TypedCall::parse("%a: " + tensorType({6}, t) + ", %b: " + tensorType({6}, t),
                               "divide(%a, %b)");
    ASSERT_TRUE(tc);
    Buffer a(t, {6}), b(t, {6});
    int64_t minV = t == DType::Int32 ? INT32_MIN : INT64_MIN;
    int64_t xs[] = {-7, 7, -7, 5, minV, 9}, ys[] = {2, -2, -2, 0, -1, 3};
    for (int i = 0; i < 6; ++i) {
      a.setInt(i, xs[i]);
      b.setInt(i, ys[i]);
    }
    std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&a, &b});
    ASSERT_EQ(out.size(), 1u);
    int64_t expected[] = {-3, -3, 3, 0, minV, 3};
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(out[0].getInt(i), expected[i]) << dtypeName(t).str() << " element " << i;
  }
}

TEST(ElementwiseTest, Power) {
  checkBinary(
      "power", DType::Float32, [](double x, double y) { return std::pow(x, y); }, DType::Float32,
      0.1, 3);
}

TEST(ElementwiseTest, Comparisons) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64}) {
    checkBinary("equal", t, [](double x, double y) { return x == y; }, DType::Bool, -2, 2);
    checkBinary("less", t, [](double x, double y) { return x < y; }, DType::Bool, -2, 2);
    checkBinary("greater", t, [](double x, double y) { return x > y; }, DType::Bool, -2, 2);
  }
  checkBinary("equal", DType::Bool, [](double x, double y) { return x == y; }, DType::Bool);
}

/// floor_mod, mod and the shifts at their edges: signs, x % 0, INT_MIN %
/// -1 and shift counts outside [0, bits).
TEST(ElementwiseTest, IntegerRemaindersAndShiftsNeverTrap) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  for (DType t : {DType::Int32, DType::Int64}) {
    int64_t bits = t == DType::Int32 ? 32 : 64;
    int64_t minV = t == DType::Int32 ? INT32_MIN : INT64_MIN;
    int64_t xs[] = {7, -7, 7, -7, 5, minV, 3, -3, 3, 3};
    int64_t ys[] = {3, 3, -3, -3, 0, -1, bits - 1, 1, bits, -1};
    struct {
      const char *op;
      int64_t expected[10];
    } cases[] = {
        {"floor_mod", {1, 2, -2, -1, 0, 0, 3 % (bits - 1), 0, 3 % bits, 0}},
        {"mod", {1, -1, 1, -1, 0, 0, 3, 0, 3, 0}},
        {"left_shift", {56, -56, 0, 0, 5, 0, minV, -6, 0, 0}},
        {"right_shift", {0, -1, 0, -1, 5, -1, 0, -2, 0, 0}},
    };
    for (const auto &c : cases) {
      auto tc = TypedCall::parse("%a: " + tensorType({10}, t) + ", %b: " + tensorType({10}, t),
                                 std::string(c.op) + "(%a, %b)");
      ASSERT_TRUE(tc);
      Buffer a(t, {10}), b(t, {10});
      for (int i = 0; i < 10; ++i) {
        a.setInt(i, xs[i]);
        b.setInt(i, ys[i]);
      }
      std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&a, &b});
      ASSERT_EQ(out.size(), 1u);
      for (int i = 0; i < 10; ++i)
        EXPECT_EQ(out[0].getInt(i), c.expected[i])
            << c.op << " " << dtypeName(t).str() << " element " << i;
    }
  }
}

using UnaryRef = std::function<double(double)>;

void checkUnary(const std::string &op, const std::string &attrs, DType t, UnaryRef ref,
                DType resultType, double lo, double hi, double tol = 1e-6) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  std::mt19937 rng(7);
  for (const Shape &s : {Shape{17}, Shape{}, Shape{1000}, Shape{3, 1, 5}, Shape{2, 0}}) {
    std::string what = op + " " + dtypeName(t).str() + " " + shapeToString(s);
    std::string err;
    auto tc = TypedCall::parse("%a: " + tensorType(s, t), op + "(%a" + attrs + ")", &err);
    ASSERT_TRUE(tc) << what << ": " << err;
    Buffer a(t, s);
    fillRandom(a, rng, lo, hi);
    std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&a});
    ASSERT_EQ(out.size(), 1u) << what;
    EXPECT_EQ(out[0].dtype(), resultType) << what;
    std::vector<double> expected;
    for (int64_t i = 0; i < a.size(); ++i) {
      Buffer tmp(resultType, {1});
      tmp.set(0, ref(a.get(i)));
      expected.push_back(tmp.get(0));
    }
    expectNear(out[0], expected, tol, what);
  }
}

TEST(ElementwiseTest, UnaryNumeric) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64}) {
    checkUnary("negative", "", t, [](double x) { return -x; }, t, -9, 9);
    checkUnary("abs", "", t, [](double x) { return std::fabs(x); }, t, -9, 9);
    checkUnary("nn.relu", "", t, [](double x) { return std::max(x, 0.0); }, t, -9, 9);
  }
}

TEST(ElementwiseTest, UnaryFloat) {
  DType f = DType::Float32;
  checkUnary("exp", "", f, [](double x) { return std::exp(x); }, f, -10, 10);
  checkUnary("log", "", f, [](double x) { return std::log(x); }, f, 0.01, 100);
  checkUnary("sqrt", "", f, [](double x) { return std::sqrt(x); }, f, 0, 100);
  checkUnary("rsqrt", "", f, [](double x) { return 1 / std::sqrt(x); }, f, 0.01, 100);
  checkUnary("tanh", "", f, [](double x) { return std::tanh(x); }, f, -5, 5);
  checkUnary("sigmoid", "", f, [](double x) { return 1 / (1 + std::exp(-x)); }, f, -20, 20);
}

TEST(ElementwiseTest, TrigonometricAndHyperbolic) {
  DType f = DType::Float32;
  checkUnary("sin", "", f, [](double x) { return std::sin(x); }, f, -10, 10);
  checkUnary("cos", "", f, [](double x) { return std::cos(x); }, f, -10, 10);
  checkUnary("tan", "", f, [](double x) { return std::tan(x); }, f, -1.5, 1.5, 1e-5);
  checkUnary("asin", "", f, [](double x) { return std::asin(x); }, f, -1, 1);
  checkUnary("acos", "", f, [](double x) { return std::acos(x); }, f, -1, 1);
  checkUnary("atan", "", f, [](double x) { return std::atan(x); }, f, -10, 10);
  checkUnary("sinh", "", f, [](double x) { return std::sinh(x); }, f, -5, 5);
  checkUnary("cosh", "", f, [](double x) { return std::cosh(x); }, f, -5, 5);
  checkUnary("asinh", "", f, [](double x) { return std::asinh(x); }, f, -10, 10);
  checkUnary("acosh", "", f, [](double x) { return std::acosh(x); }, f, 1, 10);
  checkUnary("atanh", "", f, [](double x) { return std::atanh(x); }, f, -0.9, 0.9);
}

/// round takes halves to even; sign keeps NaN and zeros; isnan and isinf
/// see NaN and both infinities.
TEST(ElementwiseTest, RoundingSignAndTests) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  double xs[] = {0.5, 1.5, 2.5, -0.5, -2.5, 2.4, -2.6, NAN, INFINITY, -INFINITY, -0.0, 3};
  struct {
    const char *op;
    DType result;
    double expected[12];
  } cases[] = {
      {"round", DType::Float32, {0, 2, 2, -0.0, -2, 2, -3, NAN, INFINITY, -INFINITY, -0.0, 3}},
      {"floor", DType::Float32, {0, 1, 2, -1, -3, 2, -3, NAN, INFINITY, -INFINITY, -0.0, 3}},
      {"ceil", DType::Float32, {1, 2, 3, -0.0, -2, 3, -2, NAN, INFINITY, -INFINITY, -0.0, 3}},
      {"sign", DType::Float32, {1, 1, 1, -1, -1, 1, -1, NAN, 1, -1, -0.0, 1}},
      {"isnan", DType::Bool, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}},
      {"isinf", DType::Bool, {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0}},
  };
  for (const auto &c : cases) {
    auto tc = TypedCall::parse("%a: Tensor[(12), float32]", std::string(c.op) + "(%a)");
    ASSERT_TRUE(tc);
    Buffer a(DType::Float32, {12});
    for (int i = 0; i < 12; ++i)
      a.set(i, xs[i]);
    std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&a});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dtype(), c.result) << c.op;
    for (int i = 0; i < 12; ++i) {
      double v = out[0].get(i), e = c.expected[i];
      EXPECT_TRUE(std::isnan(e) ? std::isnan(v) : v == e && std::signbit(v) == std::signbit(e))
          << c.op << " element " << i << ": " << v << ", expected " << e;
    }
  }
}

/// max and min with NaN in either operand (at every lane of a vector and
/// its tail) give NaN; relu and clip keep NaN; the infinities are ordered.
TEST(ElementwiseTest, MaxMinPropagateNaN) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  constexpr int64_t n = 43;
  Buffer a(DType::Float32, {n}), c(DType::Float32, {n});
  for (int64_t i = 0; i < n; ++i) {
    a.set(i, i % 5 == 1 ? NAN : i % 7 == 2 ? INFINITY : i % 11 == 3 ? -INFINITY : i * 0.5 - 9);
    c.set(i, i % 6 == 4 ? NAN : i % 13 == 0 ? -INFINITY : 5 - i * 0.25);
  }
  struct {
    std::string call;
    std::function<double(double, double)> ref;
  } cases[] = {
      {"maximum(%a, %c)", [](double x, double y) { return std::max(x, y); }},
      {"minimum(%a, %c)", [](double x, double y) { return std::min(x, y); }},
      {"maximum(%c, %a)", [](double x, double y) { return std::max(x, y); }},
      {"nn.relu(%a)", [](double x, double) { return std::max(x, 0.0); }},
      {"clip(%a, a_min=-2f, a_max=3f)",
       [](double x, double) { return std::min(std::max(x, -2.0), 3.0); }},
  };
  for (const auto &k : cases) {
    bool binary = k.call.find("%c") != std::string::npos;
    auto tc = TypedCall::parse(binary ? "%a: Tensor[(43), float32], %c: Tensor[(43), float32]"
                                      : "%a: Tensor[(43), float32]",
                               k.call);
    ASSERT_TRUE(tc) << k.call;
    std::vector<Buffer> out = runKernel(
        *compiler, tc->call(), binary ? std::vector<Buffer *>{&a, &c} : std::vector<Buffer *>{&a});
    ASSERT_EQ(out.size(), 1u);
    for (int64_t i = 0; i < n; ++i) {
      double x = a.get(i), y = c.get(i), got = out[0].get(i);
      bool nan = std::isnan(x) || (binary && std::isnan(y));
      double want = nan ? NAN : k.ref(x, y);
      EXPECT_TRUE(nan ? std::isnan(got) : got == want)
          << k.call << " element " << i << ": " << got << ", expected " << want;
    }
  }
}

TEST(ElementwiseTest, SigmoidSaturatesWithoutNaN) {
  checkUnary(
      "sigmoid", "", DType::Float32, [](double x) { return 1 / (1 + std::exp(-x)); },
      DType::Float32, -200, 200);
}

TEST(ElementwiseTest, Clip) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64})
    checkUnary(
        "clip", ", a_min=-1.5f, a_max=2.5f", t,
        [](double x) { return std::min(std::max(x, -1.5), 2.5); }, t, -5, 5);
}

TEST(ElementwiseTest, CastBetweenAllDTypes) {
  DType all[] = {DType::Float32, DType::Int32, DType::Int64, DType::Bool};
  for (DType from : all) {
    for (DType to : all) {
      checkUnary(
          "cast", ", dtype=\"" + dtypeName(to).str() + "\"", from,
          [&](double x) {
            if (to == DType::Bool)
              return double(x != 0);
            if (!isFloat(to))
              return std::trunc(x);
            return x;
          },
          to, -100, 100);
    }
  }
}

TEST(ElementwiseTest, WhereWithEveryConditionDType) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  std::mt19937 rng(3);
  for (DType c : {DType::Bool, DType::Int32, DType::Float32}) {
    for (DType t : {DType::Float32, DType::Int64, DType::Bool, DType::Int32}) {
      Shape cs{4, 1}, xs{17}, ys{4, 17};
      auto tc = TypedCall::parse("%c: " + tensorType(cs, c) + ", %x: " + tensorType(xs, t) +
                                     ", %y: " + tensorType(ys, t),
                                 "where(%c, %x, %y)");
      ASSERT_TRUE(tc);
      Buffer cb(c, cs), xb(t, xs), yb(t, ys);
      fillRandom(cb, rng, -1, 1);
      fillRandom(xb, rng);
      fillRandom(yb, rng);
      std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&cb, &xb, &yb});
      ASSERT_EQ(out.size(), 1u);
      std::vector<double> expected;
      Shape os{4, 17};
      for (int64_t i = 0; i < 4 * 17; ++i) {
        Shape co = unflattenIndex(i, os);
        bool cond = cb.get(broadcastIndex(co, cs)) != 0;
        expected.push_back(cond ? xb.get(broadcastIndex(co, xs)) : yb.get(i));
      }
      expectNear(out[0], expected, 0, "where " + dtypeName(c).str() + " " + dtypeName(t).str());
    }
  }
}

TEST(ElementwiseTest, LargeBroadcastAdd) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  Shape as{1000, 1000}, bs{1000};
  auto tc = TypedCall::parse("%a: " + tensorType(as, DType::Float32) +
                                 ", %b: " + tensorType(bs, DType::Float32),
                             "add(%a, %b)");
  ASSERT_TRUE(tc);
  Buffer a(DType::Float32, as), b(DType::Float32, bs);
  std::mt19937 rng(1);
  fillRandom(a, rng);
  fillRandom(b, rng);
  std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&a, &b});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> expected;
  for (int64_t i = 0; i < a.size(); ++i)
    expected.push_back(double(float(a.get(i) + b.get(i % 1000))));
  expectNear(out[0], expected, 0, "large add");
}

} // namespace
