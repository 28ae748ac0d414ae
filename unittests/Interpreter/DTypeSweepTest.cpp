//===- DTypeSweepTest.cpp - Each operator on each dtype it supports -------===//
//
// The same small literals through every dtype the registry lists for an
// operator (float32, int32, int64, and bool where accepted), so that no
// dtype path of an operator goes untested. Values are chosen so that the
// float and integer results differ only where integer semantics say so
// (truncating division, integer means).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace hx;
using namespace hx::test;

namespace {

const DType kNumericTypes[] = {DType::Float32, DType::Int32, DType::Int64};

std::string tensorType(DType dt, const std::string &shape) {
  return "Tensor[" + shape + ", " + dtypeName(dt).str() + "]";
}

TEST(DTypeSweepTest, BinaryArithmetic) {
  struct Case {
    const char *op;
    std::vector<double> floatResult, intResult;
  } cases[] = {
      {"add", {8, -1}, {8, -1}},        {"subtract", {4, -5}, {4, -5}},
      {"multiply", {12, -6}, {12, -6}}, {"divide", {3, -1.5}, {3, -1}},
      {"maximum", {6, 2}, {6, 2}},      {"minimum", {2, -3}, {2, -3}},
  };
  for (DType dt : kNumericTypes)
    for (const Case &c : cases) {
      std::string t = tensorType(dt, "(2)");
      EXPECT_TRUE(tensorIs(runOne("%x: " + t + ", %y: " + t, std::string(c.op) + "(%x, %y)",
                                  {makeTensor(dt, {2}, {6, -3}), makeTensor(dt, {2}, {2, 2})}),
                           dt, {2}, isFloat(dt) ? c.floatResult : c.intResult))
          << c.op << " " << dtypeName(dt).str();
    }
}

TEST(DTypeSweepTest, Comparisons) {
  struct Case {
    const char *op;
    std::vector<double> result;
  } cases[] = {{"equal", {0, 1, 0}}, {"less", {1, 0, 0}}, {"greater", {0, 0, 1}}};
  for (DType dt : kNumericTypes)
    for (const Case &c : cases) {
      std::string t = tensorType(dt, "(3)");
      EXPECT_TRUE(tensorIs(runOne("%x: " + t + ", %y: " + t, std::string(c.op) + "(%x, %y)",
                                  {makeTensor(dt, {3}, {1, 2, 3}), makeTensor(dt, {3}, {2, 2, 2})}),
                           DType::Bool, {3}, c.result))
          << c.op << " " << dtypeName(dt).str();
    }
  std::string b = tensorType(DType::Bool, "(2)");
  EXPECT_TRUE(
      tensorIs(runOne("%x: " + b + ", %y: " + b, "equal(%x, %y)",
                      {makeTensor(DType::Bool, {2}, {1, 0}), makeTensor(DType::Bool, {2}, {1, 1})}),
               DType::Bool, {2}, {1, 0}));
}

TEST(DTypeSweepTest, NumericUnaryAndClip) {
  for (DType dt : kNumericTypes) {
    std::string p = "%x: " + tensorType(dt, "(3)");
    auto x = [&] { return makeTensor(dt, {3}, {-2, 0, 3}); };
    EXPECT_TRUE(tensorIs(runOne(p, "negative(%x)", {x()}), dt, {3}, {2, 0, -3}));
    EXPECT_TRUE(tensorIs(runOne(p, "abs(%x)", {x()}), dt, {3}, {2, 0, 3}));
    EXPECT_TRUE(tensorIs(runOne(p, "nn.relu(%x)", {x()}), dt, {3}, {0, 0, 3}));
    EXPECT_TRUE(tensorIs(runOne(p, "clip(%x, a_min=-1, a_max=2)", {x()}), dt, {3}, {-1, 0, 2}));
  }
}

TEST(DTypeSweepTest, WhereAndCastOnEveryDType) {
  for (DType dt : {DType::Float32, DType::Int32, DType::Int64, DType::Bool}) {
    std::string t = tensorType(dt, "(2)");
    EXPECT_TRUE(
        tensorIs(runOne("%c: " + tensorType(DType::Bool, "(2)") + ", %x: " + t + ", %y: " + t,
                        "where(%c, %x, %y)",
                        {makeTensor(DType::Bool, {2}, {0, 1}), makeTensor(dt, {2}, {1, 1}),
                         makeTensor(dt, {2}, {0, 0})}),
                 dt, {2}, {0, 1}))
        << dtypeName(dt).str();
    for (DType to : {DType::Float32, DType::Int32, DType::Int64, DType::Bool})
      EXPECT_TRUE(tensorIs(runOne("%x: " + t, "cast(%x, dtype=\"" + dtypeName(to).str() + "\")",
                                  {makeTensor(dt, {2}, {1, 0})}),
                           to, {2}, {1, 0}))
          << dtypeName(dt).str() << " -> " << dtypeName(to).str();
  }
}

TEST(DTypeSweepTest, Reductions) {
  for (DType dt : kNumericTypes) {
    std::string p = "%x: " + tensorType(dt, "(2, 2)");
    auto x = [&] { return makeTensor(dt, {2, 2}, {1, 4, -2, 5}); };
    EXPECT_TRUE(tensorIs(runOne(p, "sum(%x, axis=[0])", {x()}), dt, {2}, {-1, 9}));
    EXPECT_TRUE(tensorIs(runOne(p, "max(%x, axis=[1])", {x()}), dt, {2}, {4, 5}));
    EXPECT_TRUE(tensorIs(runOne(p, "min(%x)", {x()}), dt, {}, {-2}));
    // Integer means truncate: (1 + 4) / 2 = 2, (-2 + 5) / 2 = 1.
    EXPECT_TRUE(tensorIs(runOne(p, "mean(%x, axis=[1])", {x()}), dt, {2},
                         isFloat(dt) ? std::vector<double>{2.5, 1.5} : std::vector<double>{2, 1}));
  }
}

TEST(DTypeSweepTest, TransformsCopyEveryDType) {
  for (DType dt : {DType::Float32, DType::Int32, DType::Int64, DType::Bool}) {
    std::string p = "%x: " + tensorType(dt, "(2, 2)");
    auto x = [&] { return makeTensor(dt, {2, 2}, {1, 0, 0, 1}); };
    EXPECT_TRUE(tensorIs(runOne(p, "transpose(%x)", {makeTensor(dt, {2, 2}, {1, 1, 0, 0})}), dt,
                         {2, 2}, {1, 0, 1, 0}));
    EXPECT_TRUE(tensorIs(runOne(p, "reshape(%x, newshape=[4])", {x()}), dt, {4}, {1, 0, 0, 1}));
    EXPECT_TRUE(tensorIs(runOne(p, "expand_dims(%x, axis=0)", {x()}), dt, {1, 2, 2}, {1, 0, 0, 1}));
    EXPECT_TRUE(tensorIs(runOne(p, "concatenate((%x, %x), axis=1)", {x()}), dt, {2, 4},
                         {1, 0, 1, 0, 0, 1, 0, 1}));
    EXPECT_TRUE(tensorIs(runOne(p, "%0 = split(%x, indices_or_sections=2, axis=1); %0.1", {x()}),
                         dt, {2, 1}, {0, 1}));
    EXPECT_TRUE(tensorIs(runOne(p, "%0 = expand_dims(%x, axis=1); squeeze(%0, axis=[1])", {x()}),
                         dt, {2, 2}, {1, 0, 0, 1}));
  }
}

TEST(DTypeSweepTest, SortsOnEveryNumericDType) {
  for (DType dt : kNumericTypes) {
    std::string p = "%x: " + tensorType(dt, "(4)");
    auto x = [&] { return makeTensor(dt, {4}, {2, -1, 2, 0}); };
    EXPECT_TRUE(tensorIs(runOne(p, "argsort(%x)", {x()}), DType::Int32, {4}, {1, 3, 0, 2}));
    EXPECT_TRUE(tensorIs(runOne(p, "argsort(%x, is_ascend=False)", {x()}), DType::Int32, {4},
                         {0, 2, 3, 1}));
    EXPECT_TRUE(
        tensorIs(runOne(p, "topk(%x, k=3, ret_type=\"values\")", {x()}), dt, {3}, {2, 2, 0}));
    EXPECT_TRUE(tensorIs(runOne(p, "topk(%x, k=3, ret_type=\"indices\")", {x()}), DType::Int32, {3},
                         {0, 2, 3}));
  }
}

} // namespace
