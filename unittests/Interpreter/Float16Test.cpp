//===- Float16Test.cpp - float16 in the interpreter -----------------------===//
//
// float16 operands are read as exact doubles, computed in double and rounded
// once to the nearest half (ties to even) when stored. Every expected value
// is computed by hand and exact (tolerance 0).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include <cmath>

using namespace hx;
using namespace hx::test;

namespace {

HostTensor f16(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<double> values) {
  return makeTensor(DType::Float16, shape, values);
}

TEST(Float16Test, InputsRoundToHalf) {
  HostTensor t = f16({3}, {0.1, 1.0 / 3, 70000});
  EXPECT_TRUE(tensorIs(t, DType::Float16, {3}, {0.0999755859375, 0.333251953125, INFINITY}, 0));
}

TEST(Float16Test, DivideRoundsOnceOnStore) {
  // 1/3 = 0.0101010101..b: 11 significant bits give 0x3555 = 0.333251953125;
  // 2/3 gives 0x3955; -1/7 gives 0xB092; 65504 / 0.5 overflows to inf.
  EXPECT_TRUE(
      tensorIs(runOne("%a: Tensor[(4), float16], %b: Tensor[(4), float16]", "divide(%a, %b)",
                      {f16({4}, {1, 2, -1, 65504}), f16({4}, {3, 3, 7, 0.5})}),
               DType::Float16, {4}, {0.333251953125, 0.66650390625, -0.142822265625, INFINITY}, 0));
}

TEST(Float16Test, AddTiesToEven) {
  // 2048 + 1 is halfway between the halves 2048 and 2050: to the even 2048;
  // 2050 + 1 is halfway between 2050 and 2052: to the even 2052.
  EXPECT_TRUE(
      tensorIs(runOne("%a: Tensor[(2), float16]", "add(%a, 1f16)", {f16({2}, {2048, 2050})}),
               DType::Float16, {2}, {2048, 2052}, 0));
}

TEST(Float16Test, SumRoundsOnlyTheResult) {
  // Rounded per step, 2048 + 1 + 1 + 1 + 1 would stay 2048; once, it is 2052.
  EXPECT_TRUE(
      tensorIs(runOne("%a: Tensor[(5), float16]", "sum(%a)", {f16({5}, {2048, 1, 1, 1, 1})}),
               DType::Float16, {}, {2052}, 0));
  // mean of 1, 2 and 2: 5/3 = 1.666..., 1706.67 units of 2^-10, to 1707:
  // 1.6669921875 (0x3EAB).
  EXPECT_TRUE(tensorIs(runOne("%a: Tensor[(3), float16]", "mean(%a)", {f16({3}, {1, 2, 2})}),
                       DType::Float16, {}, {1.6669921875}, 0));
}

TEST(Float16Test, Casts) {
  // float32 -> float16 rounds (1 + 2^-11 ties to 1), float16 -> float32 and
  // float16 -> int32 are exact / truncate.
  EXPECT_TRUE(tensorIs(runOne("%a: Tensor[(3), float32]", "cast(%a, dtype=\"float16\")",
                              {f32({3}, {1 + std::ldexp(1, -11), 0.1, -1e-8})}),
                       DType::Float16, {3}, {1, 0.0999755859375, -0.0}, 0));
  EXPECT_TRUE(tensorIs(
      runOne("%a: Tensor[(2), float16]", "cast(%a, dtype=\"float32\")", {f16({2}, {0.1, -2.5})}),
      DType::Float32, {2}, {0.0999755859375, -2.5}, 0));
  EXPECT_TRUE(tensorIs(
      runOne("%a: Tensor[(2), float16]", "cast(%a, dtype=\"int32\")", {f16({2}, {2.75, -2.5})}),
      DType::Int32, {2}, {2, -2}, 0));
}

TEST(Float16Test, ConstantsAreHalves) {
  // 0.1f16 is the half 0.0999755859375; times 3 is 0.2999267578125, exactly
  // 1228.5 units of 2^-12: a tie, to the even 1228, 0.2998046875 (0x34CC).
  EXPECT_TRUE(tensorIs(runOne("%a: Tensor[(1), float16]", "multiply(%a, 0.1f16)", {f16({1}, {3})}),
                       DType::Float16, {1}, {0.2998046875}, 0));
}

TEST(Float16Test, SoftmaxAndDense) {
  // log 3 is the half 1.0986328125; the softmax 0.7500038... rounds to 0.75.
  EXPECT_TRUE(
      tensorIs(runOne("%s: Tensor[(2), float16]", "nn.softmax(%s)", {f16({2}, {0, std::log(3.0)})}),
               DType::Float16, {2}, {0.25, 0.75}, 0));
  // -1 + 2 + 3 * 0.0999755859375 = 1.2999267578125, to 1.2998046875 (ulp 2^-10).
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(1, 3), float16], %w: Tensor[(2, 3), float16]", "nn.dense(%x, %w)",
             {f16({1, 3}, {1, 2, 3}), f16({2, 3}, {0.5, 0.25, 0.125, -1, 1, 0.1})}),
      DType::Float16, {1, 2}, {1.375, 1.2998046875}, 0));
}

TEST(Float16Test, MixedWithFloat32IsATypeError) {
  std::string err = errorOf(runOne("%a: Tensor[(2), float16], %b: Tensor[(2), float32]",
                                   "add(%a, %b)", {f16({2}, {1, 2}), f32({2}, {1, 2})}));
  EXPECT_NE(err.find("dtypes float16 and float32 do not match"), std::string::npos) << err;
}

} // namespace
