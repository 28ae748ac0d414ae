//===- ShapeUtilsTest.cpp - Broadcasting and reshape arithmetic -----------===//
//
// Pure shape functions: NumPy broadcasting with static and `?` dims and rank
// mismatches, and TVM's reshape special values (0, -1, -2, -3, -4).
//
//===----------------------------------------------------------------------===//
#include "hx/Ops/ShapeUtils.h"
#include "hx/IR/Type.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

constexpr int64_t Q = TensorType::kDynamic;

std::string bcast(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  std::optional<Shape> s = broadcastShapes(a, b);
  return s ? shapeToString(*s) : "error";
}

std::string reshape(llvm::ArrayRef<int64_t> in, llvm::ArrayRef<int64_t> ns,
                    bool allowZero = false) {
  llvm::Expected<Shape> s = inferReshape(in, ns, allowZero);
  if (!s)
    return "error: " + llvm::toString(s.takeError());
  return shapeToString(*s);
}

TEST(ShapeUtilsTest, ShapeToString) {
  EXPECT_EQ(shapeToString({}), "()");
  EXPECT_EQ(shapeToString({5}), "(5)");
  EXPECT_EQ(shapeToString({5, Q, 7}), "(5, ?, 7)");
}

TEST(ShapeUtilsTest, BroadcastStatic) {
  EXPECT_EQ(bcast({5, 7}, {5, 7}), "(5, 7)");
  EXPECT_EQ(bcast({5, 1}, {1, 7}), "(5, 7)");
  EXPECT_EQ(bcast({1}, {1}), "(1)");
  EXPECT_EQ(bcast({}, {}), "()");
}

TEST(ShapeUtilsTest, BroadcastRankMismatch) {
  EXPECT_EQ(bcast({5, 7}, {7}), "(5, 7)");
  EXPECT_EQ(bcast({7}, {5, 7}), "(5, 7)");
  EXPECT_EQ(bcast({}, {2, 3}), "(2, 3)");
  EXPECT_EQ(bcast({3, 1}, {2, 1, 5}), "(2, 3, 5)");
  EXPECT_EQ(bcast({2, 3, 4}, {1}), "(2, 3, 4)");
}

TEST(ShapeUtilsTest, BroadcastDynamic) {
  // `?` against n != 1 gives n, as TVM's BroadcastRel does.
  EXPECT_EQ(bcast({Q, 7}, {5, 7}), "(5, 7)");
  EXPECT_EQ(bcast({5, 7}, {Q, 7}), "(5, 7)");
  // `?` against 1 or `?` stays `?`.
  EXPECT_EQ(bcast({Q, 7}, {1, 7}), "(?, 7)");
  EXPECT_EQ(bcast({Q}, {Q}), "(?)");
  EXPECT_EQ(bcast({Q, 7}, {7}), "(?, 7)");
  EXPECT_EQ(bcast({Q, 1}, {1, Q}), "(?, ?)");
}

TEST(ShapeUtilsTest, BroadcastErrors) {
  EXPECT_EQ(bcast({5, 7}, {6, 7}), "error");
  EXPECT_EQ(bcast({3}, {4}), "error");
  EXPECT_EQ(bcast({2, 3}, {3, 2}), "error");
  EXPECT_EQ(bcast({Q, 3}, {4}), "error");
}

TEST(ShapeUtilsTest, ReshapePlain) {
  EXPECT_EQ(reshape({2, 3, 4}, {6, 4}), "(6, 4)");
  EXPECT_EQ(reshape({2, 3, 4}, {24}), "(24)");
  EXPECT_EQ(reshape({1}, {}), "()");
  EXPECT_EQ(reshape({}, {1, 1}), "(1, 1)");
}

TEST(ShapeUtilsTest, ReshapeZeroCopiesInputDim) {
  EXPECT_EQ(reshape({2, 3, 4}, {0, 12}), "(2, 12)");
  EXPECT_EQ(reshape({2, 3, 4}, {4, 0, 2}), "(4, 3, 2)");
  EXPECT_EQ(reshape({2, 3, 4}, {0, 0, 4}), "(2, 3, 4)");
  // allowzero: a literal zero-sized dim.
  EXPECT_EQ(reshape({0, 3}, {0, 3}, /*allowZero=*/true), "(0, 3)");
}

TEST(ShapeUtilsTest, ReshapeMinusOneIsInferred) {
  EXPECT_EQ(reshape({2, 3, 4}, {-1}), "(24)");
  EXPECT_EQ(reshape({2, 3, 4}, {0, -1}), "(2, 12)");
  EXPECT_EQ(reshape({2, 3, 4}, {-1, 4}), "(6, 4)");
  EXPECT_EQ(reshape({2, 3, 4}, {2, -1, 2}), "(2, 6, 2)");
}

TEST(ShapeUtilsTest, ReshapeOtherSpecialValues) {
  EXPECT_EQ(reshape({2, 3, 4}, {-2}), "(2, 3, 4)");
  EXPECT_EQ(reshape({2, 3, 4}, {0, -2}), "(2, 3, 4)");
  EXPECT_EQ(reshape({2, 3, 4}, {-3, 4}), "(6, 4)");
  EXPECT_EQ(reshape({2, 3, 4}, {0, -3}), "(2, 12)");
  EXPECT_EQ(reshape({2, 3, 4}, {-4, 1, 2, -2}), "(1, 2, 3, 4)");
  EXPECT_EQ(reshape({6, 4}, {-4, -1, 3, 0}), "(2, 3, 4)");
}

TEST(ShapeUtilsTest, ReshapeDynamic) {
  EXPECT_EQ(reshape({Q, 4}, {-1}), "(?)");
  EXPECT_EQ(reshape({Q, 4}, {0, 2, 2}), "(?, 2, 2)");
  EXPECT_EQ(reshape({Q, 4}, {-1, 2}), "(?, 2)");
  EXPECT_EQ(reshape({Q, 4}, {-3}), "(?)");
  // Element counts are unknown: no mismatch can be proven.
  EXPECT_EQ(reshape({Q, 4}, {3, 5}), "(3, 5)");
}

TEST(ShapeUtilsTest, ReshapeErrors) {
  EXPECT_EQ(reshape({2, 3, 4}, {5, 5}),
            "error: cannot reshape (2, 3, 4) (24 elements) into (5, 5) (25 "
            "elements)");
  EXPECT_EQ(reshape({2, 3, 4}, {5, -1}),
            "error: cannot reshape (2, 3, 4) (24 elements) into [5, -1]: -1 "
            "cannot be inferred");
  EXPECT_EQ(reshape({2, 3, 4}, {-1, -1}), "error: newshape may contain -1 only once");
  EXPECT_EQ(reshape({2, 3}, {0, 0, 0}),
            "error: newshape entry 0 at position 2 has no input dimension to "
            "copy (input rank 2)");
  EXPECT_EQ(reshape({2, 3}, {-5}),
            "error: newshape entry -5 at position 0 is not a size or one of 0, "
            "-1, -2, -3, -4");
  EXPECT_EQ(reshape({6}, {-3}), "error: newshape entry -3 at position 0 needs two remaining input "
                                "dimensions");
  EXPECT_EQ(reshape({6}, {-4, 4, -1}), "error: -4 cannot split dimension 6 into 4 and -1");
  EXPECT_EQ(reshape({6}, {-4, 2}), "error: newshape entry -4 at position 0 must be followed by two "
                                   "sizes");
}

TEST(ShapeUtilsTest, ShapeProduct) {
  EXPECT_EQ(shapeProduct({}), 1);
  EXPECT_EQ(shapeProduct({2, 3, 4}), 24);
  EXPECT_EQ(shapeProduct({2, Q}), std::nullopt);
  EXPECT_EQ(shapeProduct({int64_t(1) << 40, int64_t(1) << 40}), std::nullopt);
}

} // namespace

TEST(ShapeUtilsTest, AttributeReaders) {
  EXPECT_EQ(attrInts(AttrValue::ofInt(3)), Shape({3}));
  EXPECT_EQ(attrInts(AttrValue::ofList({AttrValue::ofInt(1), AttrValue::ofInt(2)})), Shape({1, 2}));
  EXPECT_FALSE(attrOptInts(AttrValue::none()));
  EXPECT_EQ(*attrOptInts(AttrValue::ofInt(4)), Shape({4}));
  using Pad = std::array<int64_t, 4>;
  EXPECT_EQ(*padding2d(Shape{1}), (Pad{1, 1, 1, 1}));
  EXPECT_EQ(*padding2d(Shape{1, 2}), (Pad{1, 2, 1, 2}));
  EXPECT_EQ(*padding2d(Shape{1, 2, 3, 4}), (Pad{1, 2, 3, 4}));
  EXPECT_FALSE(padding2d(Shape{1, 2, 3}));
  using Size = std::array<int64_t, 2>;
  AttrValue none = AttrValue::none(), three = AttrValue::ofInt(3);
  EXPECT_EQ(*adaptiveOutputSize(none, 7, 9), (Size{7, 9}));
  EXPECT_EQ(*adaptiveOutputSize(AttrValue::ofList({}), 7, 9), (Size{7, 9}));
  EXPECT_EQ(*adaptiveOutputSize(three, 7, 9), (Size{3, 3}));
  EXPECT_EQ(*adaptiveOutputSize(AttrValue::ofList({none, three}), 7, 9), (Size{7, 3}));
  EXPECT_FALSE(adaptiveOutputSize(AttrValue::ofList({three, three, three}), 7, 9));
  EXPECT_FALSE(adaptiveOutputSize(AttrValue::ofInt(-1), 7, 9));
  EXPECT_EQ(attrFloats(AttrValue::ofList({AttrValue::ofInt(1), AttrValue::ofFloat(0.5)})),
            (llvm::SmallVector<double, 4>{1, 0.5}));
  EXPECT_TRUE(attrFloats(none).empty());
  EXPECT_EQ(parseResizeMethod("Nearest_Neighbor"), ResizeMethod::NearestNeighbor);
  EXPECT_FALSE(parseResizeMethod("bilinear"));
  EXPECT_EQ(parseResizeCoord("tf_crop_and_resize"), ResizeCoord::TfCropAndResize);
  EXPECT_FALSE(parseResizeCoord("HALF_PIXEL"));
  EXPECT_EQ(parseResizeRounding("", ResizeCoord::AlignCorners), ResizeRounding::Round);
  EXPECT_EQ(parseResizeRounding("", ResizeCoord::HalfPixel), ResizeRounding::Floor);
  EXPECT_EQ(parseResizeRounding("round_prefer_ceil", ResizeCoord::HalfPixel),
            ResizeRounding::RoundPreferCeil);
  EXPECT_FALSE(parseResizeRounding("nearest", ResizeCoord::HalfPixel));
  using Pad1 = std::array<int64_t, 2>;
  EXPECT_EQ(*padding1d(Shape{3}), (Pad1{3, 3}));
  EXPECT_EQ(*padding1d(Shape{1, 2}), (Pad1{1, 2}));
  EXPECT_FALSE(padding1d(Shape{1, 2, 3, 4}));
  using Pos = llvm::SmallVector<unsigned, 4>;
  EXPECT_EQ(*layoutPositions("NCHW", "NCHW"), (Pos{0, 1, 2, 3}));
  EXPECT_EQ(*layoutPositions("NHWC", "NCHW"), (Pos{0, 3, 1, 2}));
  EXPECT_EQ(*layoutPositions("NWC", "NCW"), (Pos{0, 2, 1}));
  EXPECT_FALSE(layoutPositions("NCHH", "NCHW"));
  EXPECT_FALSE(layoutPositions("NCHW4c", "NCHW"));
  EXPECT_FALSE(layoutPositions("NCHW", "NCW"));
  EXPECT_EQ(normalizeAxis(-1, 3), 2u);
  EXPECT_EQ(normalizeAxis(2, 3), 2u);
  EXPECT_FALSE(normalizeAxis(3, 3));
  EXPECT_FALSE(normalizeAxis(-4, 3));
  EXPECT_FALSE(normalizeAxis(0, 0));
}
