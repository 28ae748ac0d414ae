//===- ElementwiseTest.cpp - Broadcasting, unary ops, where, clip, cast ---===//
//
// Every expected value is computed by hand from the literal inputs.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace hx;
using namespace hx::test;

namespace {

const char *kF23 = "%a: Tensor[(2, 3), float32]";
const std::vector<double> k1to6 = {1, 2, 3, 4, 5, 6};

TEST(ElementwiseTest, AddBroadcastsARow) {
  EXPECT_TRUE(tensorIs(runOne(std::string(kF23) + ", %b: Tensor[(3), float32]", "add(%a, %b)",
                              {f32({2, 3}, k1to6), f32({3}, {10, 20, 30})}),
                       DType::Float32, {2, 3}, {11, 22, 33, 14, 25, 36}));
}

TEST(ElementwiseTest, AddBroadcastsAColumn) {
  EXPECT_TRUE(tensorIs(runOne(std::string(kF23) + ", %c: Tensor[(2, 1), float32]", "add(%a, %c)",
                              {f32({2, 3}, k1to6), f32({2, 1}, {100, 200})}),
                       DType::Float32, {2, 3}, {101, 102, 103, 204, 205, 206}));
}

TEST(ElementwiseTest, AddBroadcastsAScalarConstant) {
  EXPECT_TRUE(tensorIs(runOne(kF23, "add(%a, 1f)", {f32({2, 3}, k1to6)}), DType::Float32, {2, 3},
                       {2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "subtract(10f, %a)", {f32({2, 3}, k1to6)}), DType::Float32,
                       {2, 3}, {9, 8, 7, 6, 5, 4}));
}

TEST(ElementwiseTest, BroadcastingChangesRank) {
  // (2, 1) + (1, 3) -> (2, 3); (3) * (2, 2, 1) -> (2, 2, 3).
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 1), float32], %y: Tensor[(1, 3), float32]",
                              "add(%x, %y)", {f32({2, 1}, {1, 2}), f32({1, 3}, {10, 20, 30})}),
                       DType::Float32, {2, 3}, {11, 21, 31, 12, 22, 32}));
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(3), int32], %y: Tensor[(2, 2, 1), int32]", "multiply(%x, %y)",
                      {i32({3}, {1, 2, 3}), i32({2, 2, 1}, {1, 2, 3, 4})}),
               DType::Int32, {2, 2, 3}, {1, 2, 3, 2, 4, 6, 3, 6, 9, 4, 8, 12}));
}

TEST(ElementwiseTest, IntegerArithmetic) {
  std::string p = "%x: Tensor[(3), int32], %y: Tensor[(3), int32]";
  auto x = [] { return i32({3}, {7, -7, 6}); };
  auto y = [] { return i32({3}, {2, 2, -4}); };
  EXPECT_TRUE(tensorIs(runOne(p, "add(%x, %y)", {x(), y()}), DType::Int32, {3}, {9, -5, 2}));
  EXPECT_TRUE(tensorIs(runOne(p, "subtract(%x, %y)", {x(), y()}), DType::Int32, {3}, {5, -9, 10}));
  EXPECT_TRUE(
      tensorIs(runOne(p, "multiply(%x, %y)", {x(), y()}), DType::Int32, {3}, {14, -14, -24}));
  // Truncation toward zero: -7 / 2 = -3, 6 / -4 = -1.
  EXPECT_TRUE(tensorIs(runOne(p, "divide(%x, %y)", {x(), y()}), DType::Int32, {3}, {3, -3, -1}));
  EXPECT_TRUE(tensorIs(runOne(p, "maximum(%x, %y)", {x(), y()}), DType::Int32, {3}, {7, 2, 6}));
  EXPECT_TRUE(tensorIs(runOne(p, "minimum(%x, %y)", {x(), y()}), DType::Int32, {3}, {2, -7, -4}));
}

TEST(ElementwiseTest, Int32WrapsAndInt64IsExact) {
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1), int32]", "add(%x, 1)", {i32({1}, {2147483647})}),
                       DType::Int32, {1}, {-2147483648.0}));
  // 2^53 + 1 is not a double; int64 arithmetic stays exact.
  Expected<HostTensor> r =
      runOne("%x: Tensor[(1), int64]", "add(%x, 1i64)", {makeInt64({1}, {(int64_t(1) << 53) + 1})});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  EXPECT_EQ(r->as<int64_t>()[0], (int64_t(1) << 53) + 2);
}

TEST(ElementwiseTest, IntegerDivisionByZeroIsZero) {
  // As the kernels (KernelBuilder::div) and NumPy: x / 0 is 0, and
  // INT_MIN / -1 wraps; nothing traps.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(3), int32], %y: Tensor[(3), int32]", "divide(%x, %y)",
                              {i32({3}, {7, -7, -2147483647 - 1}), i32({3}, {0, 2, -1})}),
                       DType::Int32, {3}, {0, -3, -2147483648.0}));
  // Floats follow IEEE: 1 / 0 = inf.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2), float32]", "divide(%x, 0f)", {f32({2}, {1, -1})}),
                       DType::Float32, {2}, {INFINITY, -INFINITY}));
}

TEST(ElementwiseTest, FloatArithmetic) {
  std::string p = "%x: Tensor[(2), float32], %y: Tensor[(2), float32]";
  auto x = [] { return f32({2}, {7, -3}); };
  auto y = [] { return f32({2}, {2, 4}); };
  EXPECT_TRUE(tensorIs(runOne(p, "divide(%x, %y)", {x(), y()}), DType::Float32, {2}, {3.5, -0.75}));
  EXPECT_TRUE(tensorIs(runOne(p, "maximum(%x, %y)", {x(), y()}), DType::Float32, {2}, {7, 4}));
  EXPECT_TRUE(tensorIs(runOne(p, "minimum(%x, %y)", {x(), y()}), DType::Float32, {2}, {2, -3}));
  EXPECT_TRUE(tensorIs(runOne(p, "power(%x, %y)", {x(), y()}), DType::Float32, {2}, {49, 81}));
}

TEST(ElementwiseTest, ComparisonsGiveBool) {
  std::string p = "%x: Tensor[(3), float32], %y: Tensor[(3), float32]";
  auto x = [] { return f32({3}, {1, 2, 3}); };
  auto y = [] { return f32({3}, {2, 2, 2}); };
  EXPECT_TRUE(tensorIs(runOne(p, "equal(%x, %y)", {x(), y()}), DType::Bool, {3}, {0, 1, 0}));
  EXPECT_TRUE(tensorIs(runOne(p, "less(%x, %y)", {x(), y()}), DType::Bool, {3}, {1, 0, 0}));
  EXPECT_TRUE(tensorIs(runOne(p, "greater(%x, %y)", {x(), y()}), DType::Bool, {3}, {0, 0, 1}));
  // int32 and int64, broadcasting a scalar.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(3), int32]", "less(%x, 0)", {i32({3}, {-1, 0, 1})}),
                       DType::Bool, {3}, {1, 0, 0}));
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(2), int64]", "greater(%x, 5i64)", {makeInt64({2}, {5, 6})}),
               DType::Bool, {2}, {0, 1}));
  // equal accepts bool.
  EXPECT_TRUE(tensorIs(
      runOne("%p: Tensor[(3), bool]", "equal(%p, True)", {makeTensor(DType::Bool, {3}, {1, 0, 1})}),
      DType::Bool, {3}, {1, 0, 1}));
}

TEST(ElementwiseTest, WhereBroadcastsThreeWays) {
  // cond (2, 1), x (1, 3), y scalar -> (2, 3).
  EXPECT_TRUE(tensorIs(
      runOne("%c: Tensor[(2, 1), bool], %x: Tensor[(1, 3), float32], %y: float32",
             "where(%c, %x, %y)",
             {makeTensor(DType::Bool, {2, 1}, {1, 0}), f32({1, 3}, {1, 2, 3}), f32({}, {9})}),
      DType::Float32, {2, 3}, {1, 2, 3, 9, 9, 9}));
  // An int32 condition: nonzero is true.
  EXPECT_TRUE(tensorIs(
      runOne("%c: Tensor[(3), int32], %x: Tensor[(3), int64], %y: Tensor[(3), "
             "int64]",
             "where(%c, %x, %y)",
             {i32({3}, {0, 5, -1}), makeInt64({3}, {1, 2, 3}), makeInt64({3}, {10, 20, 30})}),
      DType::Int64, {3}, {10, 2, 3}));
}

TEST(ElementwiseTest, FloatUnary) {
  std::string p = "%x: Tensor[(2), float32]";
  EXPECT_TRUE(
      tensorIs(runOne(p, "negative(%x)", {f32({2}, {1.5, -2})}), DType::Float32, {2}, {-1.5, 2}));
  EXPECT_TRUE(tensorIs(runOne(p, "abs(%x)", {f32({2}, {1.5, -2})}), DType::Float32, {2}, {1.5, 2}));
  EXPECT_TRUE(tensorIs(runOne(p, "exp(%x)", {f32({2}, {0, 1})}), DType::Float32, {2},
                       {1, 2.718281828459045}));
  EXPECT_TRUE(tensorIs(runOne(p, "log(%x)", {f32({2}, {1, 2.718281828459045})}), DType::Float32,
                       {2}, {0, 1}));
  EXPECT_TRUE(tensorIs(runOne(p, "sqrt(%x)", {f32({2}, {4, 9})}), DType::Float32, {2}, {2, 3}));
  EXPECT_TRUE(
      tensorIs(runOne(p, "rsqrt(%x)", {f32({2}, {4, 0.25})}), DType::Float32, {2}, {0.5, 2}));
  EXPECT_TRUE(tensorIs(runOne(p, "tanh(%x)", {f32({2}, {0, 1})}), DType::Float32, {2},
                       {0, 0.7615941559557649}));
  EXPECT_TRUE(tensorIs(runOne(p, "sigmoid(%x)", {f32({2}, {0, 2})}), DType::Float32, {2},
                       {0.5, 0.8807970779778823}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(3), float32]", "nn.relu(%x)", {f32({3}, {-1, 0, 2})}),
                       DType::Float32, {3}, {0, 0, 2}));
}

TEST(ElementwiseTest, IntegerUnary) {
  std::string p = "%x: Tensor[(3), int32]";
  EXPECT_TRUE(
      tensorIs(runOne(p, "negative(%x)", {i32({3}, {-3, 0, 4})}), DType::Int32, {3}, {3, 0, -4}));
  EXPECT_TRUE(tensorIs(runOne(p, "abs(%x)", {i32({3}, {-3, 0, 4})}), DType::Int32, {3}, {3, 0, 4}));
  EXPECT_TRUE(
      tensorIs(runOne(p, "nn.relu(%x)", {i32({3}, {-3, 0, 4})}), DType::Int32, {3}, {0, 0, 4}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2), int64]", "negative(%x)", {makeInt64({2}, {5, -6})}),
                       DType::Int64, {2}, {-5, 6}));
}

TEST(ElementwiseTest, ErfLeakyReluCopy) {
  std::string p = "%x: Tensor[(3), float32]";
  EXPECT_TRUE(tensorIs(runOne(p, "erf(%x)", {f32({3}, {0, 1, -2})}), DType::Float32, {3},
                       {0, 0.8427007929497149, -0.9953222650189527}));
  // alpha defaults to 0.01, as in TVM.
  EXPECT_TRUE(tensorIs(runOne(p, "nn.leaky_relu(%x)", {f32({3}, {-2, 0, 3})}), DType::Float32, {3},
                       {-0.02, 0, 3}));
  EXPECT_TRUE(tensorIs(runOne(p, "nn.leaky_relu(%x, alpha=0.5f)", {f32({3}, {-2, 0, 3})}),
                       DType::Float32, {3}, {-1, 0, 3}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(3), int32]", "copy(%x)", {i32({3}, {-3, 0, 4})}),
                       DType::Int32, {3}, {-3, 0, 4}));
}

TEST(ElementwiseTest, Clip) {
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(3), float32]", "clip(%x, a_min=-1f, a_max=1f)", {f32({3}, {-2, 0.5, 3})}),
      DType::Float32, {3}, {-1, 0.5, 1}));
  // Integer tensors: the bounds truncate toward zero (TVM), [-1, 2].
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(3), int32]", "clip(%x, a_min=-1.5f, a_max=2.7f)", {i32({3}, {-5, 0, 5})}),
      DType::Int32, {3}, {-1, 0, 2}));
}

TEST(ElementwiseTest, Cast) {
  // float -> int truncates toward zero.
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(3), float32]", "cast(%x, dtype=\"int32\")", {f32({3}, {1.7, -1.7, 2.5})}),
      DType::Int32, {3}, {1, -1, 2}));
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(2), int32]", "cast(%x, dtype=\"float32\")", {i32({2}, {-3, 7})}),
               DType::Float32, {2}, {-3, 7}));
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(3), int32]", "cast(%x, dtype=\"bool\")", {i32({3}, {0, 3, -1})}),
               DType::Bool, {3}, {0, 1, 1}));
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(2), float32]", "cast(%x, dtype=\"bool\")", {f32({2}, {0, 0.5})}),
               DType::Bool, {2}, {0, 1}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2), bool]", "cast(%x, dtype=\"int64\")",
                              {makeTensor(DType::Bool, {2}, {1, 0})}),
                       DType::Int64, {2}, {1, 0}));
  // int64 -> int32 wraps: 2^32 + 1 -> 1.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1), int64]", "cast(%x, dtype=\"int32\")",
                              {makeInt64({1}, {(int64_t(1) << 32) + 1})}),
                       DType::Int32, {1}, {1}));
}

TEST(ElementwiseTest, RemaindersTakeTheirSigns) {
  std::string p = "%x: Tensor[(5), int32], %y: Tensor[(5), int32]";
  auto x = [] { return i32({5}, {7, -7, 7, -7, 7}); };
  auto y = [] { return i32({5}, {3, 3, -3, -3, 0}); };
  // floor_mod: the divisor's sign (Python's %); mod: the dividend's (C's %).
  EXPECT_TRUE(
      tensorIs(runOne(p, "floor_mod(%x, %y)", {x(), y()}), DType::Int32, {5}, {1, 2, -2, -1, 0}));
  EXPECT_TRUE(tensorIs(runOne(p, "mod(%x, %y)", {x(), y()}), DType::Int32, {5}, {1, -1, 1, -1, 0}));
  std::string q = "%x: Tensor[(3), float32]";
  EXPECT_TRUE(tensorIs(runOne(q, "floor_mod(%x, -2f)", {f32({3}, {5.5, -5.5, 4})}), DType::Float32,
                       {3}, {-0.5, -1.5, 0}));
  EXPECT_TRUE(tensorIs(runOne(q, "mod(%x, -2f)", {f32({3}, {5.5, -5.5, 4})}), DType::Float32, {3},
                       {1.5, -1.5, 0}));
}

TEST(ElementwiseTest, RoundTakesHalvesToEven) {
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(6), float32]", "round(%x)", {f32({6}, {0.5, 1.5, 2.5, -2.5, 2.4, -2.6})}),
      DType::Float32, {6}, {0, 2, 2, -2, 2, -3}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(4), int32]", "sign(%x)", {i32({4}, {-5, 0, 3, -1})}),
                       DType::Int32, {4}, {-1, 0, 1, -1}));
}

TEST(ElementwiseTest, LogicalBitwiseAndShifts) {
  std::string p = "%x: Tensor[(4), int32], %y: Tensor[(4), int32]";
  auto x = [] { return i32({4}, {12, -1, 5, -8}); };
  auto y = [] { return i32({4}, {10, 3, 40, 1}); };
  EXPECT_TRUE(
      tensorIs(runOne(p, "bitwise_and(%x, %y)", {x(), y()}), DType::Int32, {4}, {8, 3, 0, 0}));
  EXPECT_TRUE(
      tensorIs(runOne(p, "bitwise_or(%x, %y)", {x(), y()}), DType::Int32, {4}, {14, -1, 45, -7}));
  EXPECT_TRUE(
      tensorIs(runOne(p, "bitwise_xor(%x, %y)", {x(), y()}), DType::Int32, {4}, {6, -4, 45, -7}));
  // A count of 32 or more is out of range: 0 shifting left, the sign's fill
  // shifting right.
  EXPECT_TRUE(tensorIs(runOne(p, "left_shift(%x, %y)", {x(), y()}), DType::Int32, {4},
                       {12288, -8, 0, -16}));
  EXPECT_TRUE(
      tensorIs(runOne(p, "right_shift(%x, %y)", {x(), y()}), DType::Int32, {4}, {0, -1, 0, -4}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2), int32]", "bitwise_not(%x)", {i32({2}, {0, 5})}),
                       DType::Int32, {2}, {-1, -6}));
  Expected<HostTensor> r =
      runOne("%x: Tensor[(4), float32]", "logical_xor(less(%x, 0f), isnan(%x))",
             {f32({4}, {-1, 1, NAN, 2})});
  EXPECT_TRUE(tensorIs(std::move(r), DType::Bool, {4}, {1, 0, 1, 0}));
}

} // namespace
