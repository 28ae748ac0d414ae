//===- ShapeUtilsTest.cpp - Broadcasting, reshape and slice arithmetic ----===//
//
// Pure shape functions: NumPy broadcasting with static and `?` dims and rank
// mismatches, TVM's reshape special values (0, -1, -2, -3, -4), TVM's
// strided_slice canonicalization, and layout strings with layout_transform's
// shapes (DataLayout.h).
//
//===----------------------------------------------------------------------===//
#include "hx/Ops/ShapeUtils.h"
#include "hx/IR/Type.h"
#include "hx/Ops/DataLayout.h"
#include "gtest/gtest.h"
#include <limits>

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

namespace {

/// "(sizes) begins=... strides=..." or "error at <attr>: <message>".
std::string slice(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> begin,
                  llvm::ArrayRef<int64_t> end, std::optional<Shape> strides = std::nullopt,
                  std::optional<Shape> axes = std::nullopt, llvm::StringRef mode = "end") {
  AttrProblem problem;
  std::optional<llvm::SmallVector<SliceDim, 4>> dims =
      stridedSlice(shape, begin, end, strides, axes, mode, problem);
  if (!dims)
    return "error at " + problem.attr.str() + ": " + problem.message;
  Shape sizes, begins, steps;
  for (const SliceDim &d : *dims) {
    sizes.push_back(d.size);
    begins.push_back(d.begin);
    steps.push_back(d.stride);
  }
  return shapeToString(sizes) + " begins=" + intListToString(begins) +
         " strides=" + intListToString(steps);
}

TEST(ShapeUtilsTest, StridedSlice) {
  EXPECT_EQ(slice({4, 6}, {0, 1}, {2, 3}), "(2, 2) begins=[0, 1] strides=[1, 1]");
  EXPECT_EQ(slice({4, 6}, {3, 1}, {0, 6}, Shape{-1, 2}), "(3, 3) begins=[3, 1] strides=[-1, 2]");
  // A missing begin of a negative step starts at the last index.
  EXPECT_EQ(slice({4}, {}, {}, Shape{-1}), "(3) begins=[3] strides=[-1]");
  EXPECT_EQ(slice({4, 6}, {1, 2}, {2, -1}, Shape{-1, 3}, std::nullopt, "size"),
            "(2, 4) begins=[1, 2] strides=[1, 1]");
  EXPECT_EQ(slice({4, 6}, {-2}, {100}, std::nullopt, Shape{-1}),
            "(4, 2) begins=[0, 4] strides=[1, 1]");
  EXPECT_EQ(slice({Q, 5}, {1, 1}, {2, 3}), "(?, 2) begins=[0, 1] strides=[1, 1]");
  EXPECT_EQ(slice({0, 3}, {0}, {0}, Shape{-1}), "(0, 3) begins=[-1, 0] strides=[-1, 1]");
  EXPECT_EQ(slice({5}, {0}, {5}, Shape{std::numeric_limits<int64_t>::min()}),
            "error at begin: begin 0 and end 5 slice axis 0 of size 5 backwards for step "
            "-9223372036854775808");
  EXPECT_EQ(slice({5}, {4}, {-6}, Shape{std::numeric_limits<int64_t>::min()}),
            "(1) begins=[4] strides=[-9223372036854775808]");
  EXPECT_EQ(
      slice({5}, {std::numeric_limits<int64_t>::max()}, {7}, std::nullopt, std::nullopt, "size"),
      "(0) begins=[5] strides=[1]");
  EXPECT_EQ(slice({5}, {0}, {2}, Shape{0}), "error at strides: strides [0] has a 0 step");
  EXPECT_EQ(slice({5}, {0}, {2}, std::nullopt, Shape{0}, "other"),
            "error at slice_mode: slice_mode must be \"end\" or \"size\", got \"other\"");
}

} // namespace

namespace {

/// "(shape)" or "error at <attr>: <message>".
std::string layout(llvm::ArrayRef<int64_t> shape, llvm::StringRef src, llvm::StringRef dst) {
  LayoutMap map;
  AttrProblem problem;
  std::optional<Shape> out = layoutTransformShape(shape, src, dst, map, problem);
  if (!out)
    return "error at " + problem.attr.str() + ": " + problem.message;
  return shapeToString(*out);
}

TEST(ShapeUtilsTest, DataLayouts) {
  llvm::Expected<DataLayout> l = parseLayout("NCHW16c");
  ASSERT_TRUE(bool(l)) << llvm::toString(l.takeError());
  ASSERT_EQ(l->size(), 5u);
  EXPECT_EQ((*l)[1].name, 'C');
  EXPECT_TRUE((*l)[1].isPrimal());
  EXPECT_EQ((*l)[4].name, 'c');
  EXPECT_EQ((*l)[4].factor, 16);
  EXPECT_EQ(llvm::toString(parseLayout("NCHW16", "src_layout").takeError()),
            "src_layout \"NCHW16\" ends with a number that no sub-axis letter follows");

  EXPECT_EQ(layout({1, 8, 5, 6}, "NCHW", "NHWC"), "(1, 5, 6, 8)");
  EXPECT_EQ(layout({1, 8, 5, 6}, "NCHW", "NCHW4c"), "(1, 2, 5, 6, 4)");
  EXPECT_EQ(layout({1, 2, 5, 6, 4}, "NCHW4c", "NHWC"), "(1, 5, 6, 8)");
  EXPECT_EQ(layout({1, 2, 5, 6, 4}, "NCHW4c", "NCHW8c"), "(1, 1, 5, 6, 8)");
  EXPECT_EQ(layout({Q, 8}, "NC", "C4cN"), "(2, 4, ?)");
  EXPECT_EQ(layout({1, 6, 5, 6}, "NCHW", "NCHW4c"),
            "error at dst_layout: the axis C of size 6 cannot be split into blocks of 4 "
            "(dst_layout NCHW4c)");
  EXPECT_EQ(layout({2, 3}, "NC", "CN2n"), "(3, 1, 2)");
  EXPECT_EQ(layout({2, 3}, "NC", "NW"),
            "error at dst_layout: cannot transform NC to NW: the primal axis C is not in both");
}

} // namespace
