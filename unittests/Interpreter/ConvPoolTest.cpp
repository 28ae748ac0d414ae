//===- ConvPoolTest.cpp - The convolutions, pools and resizes -------------===//
//
// The 3x3 input 1..9 serves most 2-D tests; with zero padding of 1 it reads
//
//   0 0 0 0 0
//   0 1 2 3 0
//   0 4 5 6 0
//   0 7 8 9 0
//   0 0 0 0 0
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace hx;
using namespace hx::test;

namespace {

const char *kConvParams = "%x: Tensor[(1, 1, 3, 3), float32], %w: Tensor[(1, 1, 2, 2), float32]";
HostTensor image() { return f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}); }
HostTensor ones2x2() { return f32({1, 1, 2, 2}, {1, 1, 1, 1}); }

TEST(ConvPoolTest, Conv2dValid) {
  // The diagonal kernel [[1, 0], [0, 1]].
  EXPECT_TRUE(
      tensorIs(runOne(kConvParams, "nn.conv2d(%x, %w)", {image(), f32({1, 1, 2, 2}, {1, 0, 0, 1})}),
               DType::Float32, {1, 1, 2, 2}, {6, 8, 12, 14}));
}

TEST(ConvPoolTest, Conv2dPaddingAndStride) {
  EXPECT_TRUE(tensorIs(
      runOne(kConvParams, "nn.conv2d(%x, %w, padding=[1, 1])", {image(), ones2x2()}),
      DType::Float32, {1, 1, 4, 4}, {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9}));
  // One padding value means all four sides.
  EXPECT_TRUE(tensorIs(runOne(kConvParams, "nn.conv2d(%x, %w, padding=1)", {image(), ones2x2()}),
                       DType::Float32, {1, 1, 4, 4},
                       {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9}));
  // Stride 2 keeps every other window of the above.
  EXPECT_TRUE(tensorIs(runOne(kConvParams, "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1])",
                              {image(), ones2x2()}),
                       DType::Float32, {1, 1, 2, 2}, {1, 5, 11, 28}));
  // Four values are top, left, bottom, right: one zero row on top only.
  EXPECT_TRUE(
      tensorIs(runOne(kConvParams, "nn.conv2d(%x, %w, padding=[1, 0, 0, 0])", {image(), ones2x2()}),
               DType::Float32, {1, 1, 3, 2}, {3, 5, 12, 16, 24, 28}));
}

TEST(ConvPoolTest, Conv2dDilation) {
  // A 2x2 kernel with dilation 2 reads the four corners.
  EXPECT_TRUE(
      tensorIs(runOne(kConvParams, "nn.conv2d(%x, %w, dilation=[2, 2])", {image(), ones2x2()}),
               DType::Float32, {1, 1, 1, 1}, {20}));
}

TEST(ConvPoolTest, Conv2dChannelsAndGroups) {
  // Channel 0 is 1..4, channel 1 is 5..8.
  auto twoChannels = [] { return f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}); };
  // Summing the channels.
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(1, 2, 2, 2), float32], %w: Tensor[(1, 2, 1, 1), float32]",
                      "nn.conv2d(%x, %w)", {twoChannels(), f32({1, 2, 1, 1}, {1, 1})}),
               DType::Float32, {1, 1, 2, 2}, {6, 8, 10, 12}));
  // Depthwise: groups = channels.
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(1, 2, 2, 2), float32], %w: Tensor[(2, 1, 1, 1), float32]",
                      "nn.conv2d(%x, %w, groups=2)", {twoChannels(), f32({2, 1, 1, 1}, {10, 100})}),
               DType::Float32, {1, 2, 2, 2}, {10, 20, 30, 40, 500, 600, 700, 800}));
  // Two groups of two output channels: 0 and 1 read channel 0, 2 and 3 read
  // channel 1.
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(1, 2, 2, 2), float32], %w: Tensor[(4, 1, 1, 1), float32]",
             "nn.conv2d(%x, %w, groups=2)", {twoChannels(), f32({4, 1, 1, 1}, {1, 2, 3, 4})}),
      DType::Float32, {1, 4, 2, 2}, {1, 2, 3, 4, 2, 4, 6, 8, 15, 18, 21, 24, 20, 24, 28, 32}));
}

TEST(ConvPoolTest, Conv2dOtherLayouts) {
  // NHWC data [h][w][c] and an HWIO kernel summing the two channels.
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(1, 2, 2, 2), float32], %w: Tensor[(1, 1, 2, 1), float32]",
                      "nn.conv2d(%x, %w, data_layout=\"NHWC\", kernel_layout=\"HWIO\")",
                      {f32({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8}), f32({1, 1, 2, 1}, {1, 1})}),
               DType::Float32, {1, 2, 2, 1}, {6, 8, 10, 12}));
  // OHWI: two output channels, the first reading channel 0, the second
  // channel 1 times 10; the result in NCHW.
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(1, 2, 2, 2), float32], %w: Tensor[(2, 1, 1, 2), float32]",
             "nn.conv2d(%x, %w, data_layout=\"NHWC\", kernel_layout=\"OHWI\", "
             "out_layout=\"NCHW\")",
             {f32({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8}), f32({2, 1, 1, 2}, {1, 0, 0, 10})}),
      DType::Float32, {1, 2, 2, 2}, {1, 2, 3, 4, 50, 60, 70, 80}));
}

TEST(ConvPoolTest, Conv1d) {
  std::string p = "%x: Tensor[(1, 1, 5), float32], %w: Tensor[(1, 1, 2), float32]";
  auto ramp = [] { return f32({1, 1, 5}, {1, 2, 3, 4, 5}); };
  auto pair = [] { return f32({1, 1, 2}, {1, 1}); };
  EXPECT_TRUE(tensorIs(runOne(p, "nn.conv1d(%x, %w)", {ramp(), pair()}), DType::Float32, {1, 1, 4},
                       {3, 5, 7, 9}));
  // One padding value is both sides, two are (left, right).
  EXPECT_TRUE(tensorIs(runOne(p, "nn.conv1d(%x, %w, padding=[1])", {ramp(), pair()}),
                       DType::Float32, {1, 1, 6}, {1, 3, 5, 7, 9, 5}));
  EXPECT_TRUE(tensorIs(runOne(p, "nn.conv1d(%x, %w, padding=[1, 0])", {ramp(), pair()}),
                       DType::Float32, {1, 1, 5}, {1, 3, 5, 7, 9}));
  EXPECT_TRUE(tensorIs(runOne(p, "nn.conv1d(%x, %w, strides=[2], padding=[1])", {ramp(), pair()}),
                       DType::Float32, {1, 1, 3}, {1, 5, 9}));
  EXPECT_TRUE(tensorIs(runOne(p, "nn.conv1d(%x, %w, dilation=[2])", {ramp(), pair()}),
                       DType::Float32, {1, 1, 3}, {4, 6, 8}));
  // Depthwise: groups = channels.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 2, 3), float32], %w: Tensor[(2, 1, 1), float32]",
                              "nn.conv1d(%x, %w, groups=2)",
                              {f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 1, 1}, {10, 100})}),
                       DType::Float32, {1, 2, 3}, {10, 20, 30, 400, 500, 600}));
  // NWC data [w][c] and a WIO kernel summing the two channels.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 3, 2), float32], %w: Tensor[(1, 2, 1), float32]",
                              "nn.conv1d(%x, %w, data_layout=\"NWC\", kernel_layout=\"WIO\")",
                              {f32({1, 3, 2}, {1, 4, 2, 5, 3, 6}), f32({1, 2, 1}, {1, 1})}),
                       DType::Float32, {1, 3, 1}, {5, 7, 9}));
}

TEST(ConvPoolTest, MaxPool) {
  std::vector<double> ramp;
  for (int i = 0; i < 16; ++i)
    ramp.push_back(i);
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 1, 4, 4), float32]",
                              "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2])",
                              {f32({1, 1, 4, 4}, ramp)}),
                       DType::Float32, {1, 1, 2, 2}, {5, 7, 13, 15}));
}

TEST(ConvPoolTest, MaxPoolCeilMode) {
  std::string p = "%x: Tensor[(1, 1, 3, 3), float32]";
  // Without ceil_mode the last row and column are dropped.
  EXPECT_TRUE(tensorIs(runOne(p, "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2])", {image()}),
                       DType::Float32, {1, 1, 1, 1}, {5}));
  // With it, partial windows {2} x {0, 1} etc. are kept.
  EXPECT_TRUE(tensorIs(runOne(p,
                              "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], "
                              "ceil_mode=True)",
                              {image()}),
                       DType::Float32, {1, 1, 2, 2}, {5, 6, 8, 9}));
  // The cells beyond the input do not count: negative inputs stay negative.
  EXPECT_TRUE(tensorIs(runOne(p,
                              "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], "
                              "ceil_mode=True)",
                              {f32({1, 1, 3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9})}),
                       DType::Float32, {1, 1, 2, 2}, {-1, -3, -7, -9}));
}

TEST(ConvPoolTest, MaxPoolPaddingDoesNotCount) {
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 1, 2, 2), float32]",
                              "nn.max_pool2d(%x, pool_size=[2, 2], padding=[1, 1])",
                              {f32({1, 1, 2, 2}, {-1, -2, -3, -4})}),
                       DType::Float32, {1, 1, 3, 3}, {-1, -1, -2, -1, -1, -2, -3, -3, -4}));
}

TEST(ConvPoolTest, AvgPool) {
  std::string p = "%x: Tensor[(1, 1, 3, 3), float32]";
  EXPECT_TRUE(tensorIs(runOne(p, "nn.avg_pool2d(%x, pool_size=[2, 2])", {image()}), DType::Float32,
                       {1, 1, 2, 2}, {3, 4, 6, 7}));
  // Dilation 2 reads the four corners.
  EXPECT_TRUE(tensorIs(runOne(p, "nn.avg_pool2d(%x, pool_size=[2, 2], dilation=[2, 2])", {image()}),
                       DType::Float32, {1, 1, 1, 1}, {5}));
  // NHWC: the two channels averaged separately.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 2, 2, 2), float32]",
                              "nn.avg_pool2d(%x, pool_size=[2, 2], layout=\"NHWC\")",
                              {f32({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8})}),
                       DType::Float32, {1, 1, 1, 2}, {2.5, 6.5}));
}

TEST(ConvPoolTest, AvgPoolCountIncludePad) {
  std::string p = "%x: Tensor[(1, 1, 3, 3), float32]";
  // The window sums are conv2d's with a 2x2 kernel of ones and padding 1;
  // without count_include_pad each is divided by its positions inside the
  // input (1 in the corners, 2 on the edges, 4 inside).
  EXPECT_TRUE(tensorIs(runOne(p, "nn.avg_pool2d(%x, pool_size=[2, 2], padding=[1, 1])", {image()}),
                       DType::Float32, {1, 1, 4, 4},
                       {1, 1.5, 2.5, 3, 2.5, 3, 4, 4.5, 5.5, 6, 7, 7.5, 7, 7.5, 8.5, 9}));
  // With it, every window counts its 4 positions.
  EXPECT_TRUE(tensorIs(
      runOne(p, "nn.avg_pool2d(%x, pool_size=[2, 2], padding=[1, 1], count_include_pad=True)",
             {image()}),
      DType::Float32, {1, 1, 4, 4},
      {0.25, 0.75, 1.25, 0.75, 1.25, 3, 4, 2.25, 2.75, 6, 7, 3.75, 1.75, 3.75, 4.25, 2.25}));
}

TEST(ConvPoolTest, AvgPoolCeilMode) {
  std::string p = "%x: Tensor[(1, 1, 3, 3), float32]";
  // The partial windows {3, 6}, {7, 8} and {9} divide by their size, with or
  // without count_include_pad: the room ceil_mode adds never counts.
  for (const char *include : {"False", "True"})
    EXPECT_TRUE(tensorIs(runOne(p,
                                std::string("nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], "
                                            "ceil_mode=True, count_include_pad=") +
                                    include + ")",
                                {image()}),
                         DType::Float32, {1, 1, 2, 2}, {3, 4.5, 7.5, 9}));
  // Padding 1 on every side: rows (and columns) {-1, 0}, {1, 2}, {3, 4}, where
  // 3 is padding and 4 the room ceil_mode adds. The last window holds no
  // input: its sum is 0. count_include_pad counts the padding (2, 2, 1 per
  // dim), else only the input (1, 2, and 0 raised to 1 for the product).
  std::string call = "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1], "
                     "ceil_mode=True";
  EXPECT_TRUE(tensorIs(runOne(p, call + ", count_include_pad=True)", {image()}), DType::Float32,
                       {1, 1, 3, 3}, {0.25, 1.25, 0, 2.75, 7, 0, 0, 0, 0}));
  EXPECT_TRUE(tensorIs(runOne(p, call + ")", {image()}), DType::Float32, {1, 1, 3, 3},
                       {1, 2.5, 0, 5.5, 7, 0, 0, 0, 0}));
}

TEST(ConvPoolTest, AdaptiveAvgPool) {
  std::string p = "%x: Tensor[(1, 1, 3, 3), float32]";
  // 3 into 2 bins: [0, 2) and [1, 3), overlapping in the middle row/column.
  EXPECT_TRUE(tensorIs(runOne(p, "nn.adaptive_avg_pool2d(%x, output_size=[2, 2])", {image()}),
                       DType::Float32, {1, 1, 2, 2}, {3, 4, 6, 7}));
  // One value is both dims; output_size 1 is the global average.
  EXPECT_TRUE(tensorIs(runOne(p, "nn.adaptive_avg_pool2d(%x, output_size=1)", {image()}),
                       DType::Float32, {1, 1, 1, 1}, {5}));
  // No output_size (or None) keeps the input's size: the identity.
  EXPECT_TRUE(tensorIs(runOne(p, "nn.adaptive_avg_pool2d(%x)", {image()}), DType::Float32,
                       {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  // A None item keeps that dim: rows kept, the columns averaged.
  EXPECT_TRUE(tensorIs(runOne(p, "nn.adaptive_avg_pool2d(%x, output_size=[None, 1])", {image()}),
                       DType::Float32, {1, 1, 3, 1}, {2, 5, 8}));
  // More outputs than inputs: 3 into 4 bins [0, 1), [0, 2), [1, 3), [2, 3).
  EXPECT_TRUE(tensorIs(runOne(p, "nn.adaptive_avg_pool2d(%x, output_size=[1, 4])", {image()}),
                       DType::Float32, {1, 1, 1, 4}, {4, 4.5, 5.5, 6}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 2, 2, 2), float32]",
                              "nn.adaptive_avg_pool2d(%x, output_size=[1, 1], layout=\"NHWC\")",
                              {f32({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8})}),
                       DType::Float32, {1, 1, 1, 2}, {2.5, 6.5}));
}

TEST(ConvPoolTest, GlobalAvgPool) {
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 2, 2, 2), float32]", "nn.global_avg_pool2d(%x)",
                              {f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}),
                       DType::Float32, {1, 2, 1, 1}, {2.5, 6.5}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 2, 2, 2), float32]",
                              "nn.global_avg_pool2d(%x, layout=\"NHWC\")",
                              {f32({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8})}),
                       DType::Float32, {1, 1, 1, 2}, {2.5, 6.5}));
}

HostTensor square() { return f32({1, 1, 2, 2}, {1, 2, 3, 4}); }
const char *kSquare = "%x: Tensor[(1, 1, 2, 2), float32]";
/// A 1-D signal as a (1, 1, 1, n) image.
HostTensor row(std::vector<double> v) { return f32({1, 1, 1, int64_t(v.size())}, v); }
std::string rowParams(size_t n) {
  return "%x: Tensor[(1, 1, 1, " + std::to_string(n) + "), float32]";
}

TEST(ConvPoolTest, Resize2dLinear) {
  // half_pixel (the default) maps 2 -> 4 to the coordinates -0.25, 0.25,
  // 0.75, 1.25: along each dim [a, b] becomes [a, a/4*3 + b/4, ..., b].
  EXPECT_TRUE(tensorIs(
      runOne(kSquare, "image.resize2d(%x, size=[4, 4])", {square()}), DType::Float32, {1, 1, 4, 4},
      {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}));
  EXPECT_TRUE(tensorIs(
      runOne(kSquare,
             "image.resize2d(%x, size=[3, 3], coordinate_transformation_mode=\"align_corners\")",
             {square()}),
      DType::Float32, {1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
  // NHWC: channels [1, 2] and [5, 6] interleaved.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 1, 2, 2), float32]",
                              "image.resize2d(%x, size=[1, 3], layout=\"NHWC\", "
                              "coordinate_transformation_mode=\"align_corners\")",
                              {f32({1, 1, 2, 2}, {1, 5, 2, 6})}),
                       DType::Float32, {1, 1, 3, 2}, {1, 5, 1.5, 5.5, 2, 6}));
}

TEST(ConvPoolTest, Resize2dNearest) {
  std::string nn = "image.resize2d(%x, method=\"nearest_neighbor\", ";
  // asymmetric 2x: TVM's integer path, x / 2.
  EXPECT_TRUE(
      tensorIs(runOne(kSquare, nn + "size=[4, 4], coordinate_transformation_mode=\"asymmetric\")",
                      {square()}),
               DType::Float32, {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // half_pixel 3 -> 2 samples at 0.25 and 1.75: rounding_method's default
  // "round" gives 0 and 2, "" (floor for half_pixel) 0 and 1, ceil 1 and 2.
  std::string p = rowParams(3);
  auto half = [&](const std::string &rounding) {
    return runOne(p, nn + "size=[1, 2], rounding_method=\"" + rounding + "\")", {row({1, 2, 3})});
  };
  EXPECT_TRUE(tensorIs(runOne(p, nn + "size=[1, 2])", {row({1, 2, 3})}), DType::Float32,
                       {1, 1, 1, 2}, {1, 3}));
  EXPECT_TRUE(tensorIs(half(""), DType::Float32, {1, 1, 1, 2}, {1, 2}));
  EXPECT_TRUE(tensorIs(half("floor"), DType::Float32, {1, 1, 1, 2}, {1, 2}));
  EXPECT_TRUE(tensorIs(half("ceil"), DType::Float32, {1, 1, 1, 2}, {2, 3}));
  // align_corners 2 -> 3 samples at 0, 0.5, 1: the half rounds away from
  // zero (round and "", align_corners' default), down with
  // round_prefer_floor, up with round_prefer_ceil.
  auto corners = [&](const std::string &rounding) {
    return runOne(rowParams(2),
                  nn +
                      "size=[1, 3], coordinate_transformation_mode=\"align_corners\", "
                      "rounding_method=\"" +
                      rounding + "\")",
                  {row({1, 2})});
  };
  EXPECT_TRUE(tensorIs(corners(""), DType::Float32, {1, 1, 1, 3}, {1, 2, 2}));
  EXPECT_TRUE(tensorIs(corners("round"), DType::Float32, {1, 1, 1, 3}, {1, 2, 2}));
  EXPECT_TRUE(tensorIs(corners("round_prefer_floor"), DType::Float32, {1, 1, 1, 3}, {1, 1, 2}));
  EXPECT_TRUE(tensorIs(corners("round_prefer_ceil"), DType::Float32, {1, 1, 1, 3}, {1, 2, 2}));
}

TEST(ConvPoolTest, Resize2dCubic) {
  // asymmetric 2x: coordinates 0, 0.5, ..., 3.5. At the halves the weights
  // (alpha -0.5) are -1/16, 9/16, 9/16, -1/16; inside, a ramp stays a ramp,
  // at the ends the clamped taps bend it.
  std::string call = "image.resize2d(%x, size=[1, 8], method=\"cubic\", "
                     "coordinate_transformation_mode=\"asymmetric\"";
  EXPECT_TRUE(tensorIs(runOne(rowParams(4), call + ")", {row({1, 2, 3, 4})}), DType::Float32,
                       {1, 1, 1, 8}, {1, 1.4375, 2, 2.5, 3, 3.5625, 4, 4.0625}));
  // cubic_exclude drops the taps outside the input and renormalizes: at 0.5
  // (9 + 9 * 2 - 3) / 17, at 2.5 (-2 + 9 * 3 + 9 * 4) / 17, at 3.5
  // (-3 + 9 * 4) / 8 (in sixteenths).
  Expected<HostTensor> r = runOne(rowParams(4), call + ", cubic_exclude=1)", {row({1, 2, 3, 4})});
  EXPECT_TRUE(tensorIs(std::move(r), DType::Float32, {1, 1, 1, 8},
                       {1, 24.0 / 17, 2, 2.5, 3, 61.0 / 17, 4, 4.125}));
}

TEST(ConvPoolTest, Resize2dCropAndResize) {
  // W: roi 0.25 .. 1.25 of the 3 steps: 0.75, 2.25 and 3.75, outside the
  // input, which gives extrapolation_value. H: one output samples the middle.
  EXPECT_TRUE(tensorIs(runOne(rowParams(4),
                              "image.resize2d(%x, size=[1, 3], roi=[0, 0.25f, 0, 1.25f], "
                              "coordinate_transformation_mode=\"tf_crop_and_resize\", "
                              "extrapolation_value=-7f)",
                              {row({1, 2, 3, 4})}),
                       DType::Float32, {1, 1, 1, 3}, {1.75, 3.25, -7}));
  // A roi far outside: every sample extrapolates (no index overflows).
  for (const char *method : {"nearest_neighbor", "linear", "cubic"})
    EXPECT_TRUE(tensorIs(runOne(rowParams(4),
                                std::string("image.resize2d(%x, size=[1, 3], method=\"") + method +
                                    "\", roi=[0, -1e30f, 0, -1e30f], "
                                    "coordinate_transformation_mode=\"tf_crop_and_resize\", "
                                    "extrapolation_value=-7f)",
                                {row({1, 2, 3, 4})}),
                         DType::Float32, {1, 1, 1, 3}, {-7, -7, -7}));
}

TEST(ConvPoolTest, Upsampling) {
  // nearest_neighbor (the default) at 2x repeats each pixel.
  EXPECT_TRUE(tensorIs(runOne(kSquare, "nn.upsampling(%x, scale_h=2f, scale_w=2f)", {square()}),
                       DType::Float32, {1, 1, 4, 4},
                       {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // 2 * 1.5 = 3 outputs at the asymmetric coordinates 0, 2/3, 4/3 (floor).
  EXPECT_TRUE(
      tensorIs(runOne(rowParams(2), "nn.upsampling(%x, scale_h=1f, scale_w=1.5f)", {row({1, 2})}),
               DType::Float32, {1, 1, 1, 3}, {1, 1, 2}));
  // bilinear: asymmetric samples 0, 0.5, 1, 1.5 (clamped); align_corners
  // puts the ends on the corners.
  EXPECT_TRUE(tensorIs(runOne(rowParams(2),
                              "nn.upsampling(%x, scale_h=1f, scale_w=2f, method=\"bilinear\")",
                              {row({1, 2})}),
                       DType::Float32, {1, 1, 1, 4}, {1, 1.5, 2, 2}));
  EXPECT_TRUE(tensorIs(runOne(rowParams(2),
                              "nn.upsampling(%x, scale_h=1f, scale_w=1.5f, method=\"bilinear\", "
                              "align_corners=True)",
                              {row({1, 2})}),
                       DType::Float32, {1, 1, 1, 3}, {1, 1.5, 2}));
  // bicubic is resize2d's cubic (alpha -0.5) on the asymmetric coordinates.
  EXPECT_TRUE(
      tensorIs(runOne(rowParams(4), "nn.upsampling(%x, scale_h=1f, scale_w=2f, method=\"bicubic\")",
                      {row({1, 2, 3, 4})}),
               DType::Float32, {1, 1, 1, 8}, {1, 1.4375, 2, 2.5, 3, 3.5625, 4, 4.0625}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1, 1, 2, 2), float32]",
                              "nn.upsampling(%x, scale_h=1f, scale_w=2f, layout=\"NHWC\")",
                              {f32({1, 1, 2, 2}, {1, 5, 2, 6})}),
                       DType::Float32, {1, 1, 4, 2}, {1, 5, 1, 5, 2, 6, 2, 6}));
}

} // namespace
