//===- ConvPoolTest.cpp - conv2d, max_pool2d, global_avg_pool2d -----------===//
//
// A direct reference over logical (n, c, h, w) coordinates, with layouts as
// permutations, padding (top, left, bottom, right), strides, dilation and
// groups, against the kernels.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "gtest/gtest.h"
#include <array>
#include <cmath>

using namespace hx;
using namespace hx::test;

namespace {

constexpr DType F32 = DType::Float32;

/// Physical shape of logical dims `dims` (in `letters` order) in `layout`.
Shape physical(const std::array<int64_t, 4> &dims, const std::string &layout,
               const std::string &letters) {
  Shape s(4);
  for (int i = 0; i < 4; ++i)
    s[layout.find(letters[size_t(i)])] = dims[size_t(i)];
  return s;
}

/// Flat index of logical coordinates in `layout`.
int64_t at(const Buffer &b, const std::array<int64_t, 4> &logical, const std::string &layout,
           const std::string &letters) {
  Shape c(4);
  for (int i = 0; i < 4; ++i)
    c[layout.find(letters[size_t(i)])] = logical[size_t(i)];
  return flattenIndex(c, b.shape());
}

struct ConvCase {
  std::array<int64_t, 4> data;   // N C H W
  std::array<int64_t, 4> weight; // O I KH KW
  std::array<int64_t, 4> pad;    // top left bottom right
  std::string padAttr;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, groups = 1;
  std::string dataLayout = "NCHW", kernelLayout = "OIHW", outLayout = "";
};

/// `tol` as expectNear's; float32 sums of a thousand terms need 1e-4.
void checkConv(const ConvCase &c, double tol = 1e-5) {
  std::string outLayout = c.outLayout.empty() ? c.dataLayout : c.outLayout;
  Shape ds = physical(c.data, c.dataLayout, "NCHW");
  Shape ws = physical(c.weight, c.kernelLayout, "OIHW");
  std::string attrs = ", strides=[" + std::to_string(c.sh) + ", " + std::to_string(c.sw) +
                      "], dilation=[" + std::to_string(c.dh) + ", " + std::to_string(c.dw) +
                      "], groups=" + std::to_string(c.groups) + ", data_layout=\"" + c.dataLayout +
                      "\", kernel_layout=\"" + c.kernelLayout + "\"";
  if (!c.padAttr.empty())
    attrs += ", padding=" + c.padAttr;
  if (!c.outLayout.empty())
    attrs += ", out_layout=\"" + c.outLayout + "\"";
  std::string what = "conv2d " + shapeToString(ds) + " " + shapeToString(ws) + attrs;
  std::string err;
  auto tc = TypedCall::parse("%x: " + tensorType(ds, F32) + ", %w: " + tensorType(ws, F32),
                             "nn.conv2d(%x, %w" + attrs + ")", &err);
  ASSERT_TRUE(tc) << what << ": " << err;
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  Buffer x(F32, ds), w(F32, ws);
  std::mt19937 rng(21);
  fillRandom(x, rng, -1, 1);
  fillRandom(w, rng, -1, 1);
  std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&x, &w});
  ASSERT_EQ(out.size(), 1u) << what;

  auto [n, ch, h, wd] = c.data;
  auto [o, icg, kh, kw] = c.weight;
  int64_t oh = (h + c.pad[0] + c.pad[2] - (c.dh * (kh - 1) + 1)) / c.sh + 1;
  int64_t ow = (wd + c.pad[1] + c.pad[3] - (c.dw * (kw - 1) + 1)) / c.sw + 1;
  Shape os = physical({n, o, oh, ow}, outLayout, "NCHW");
  ASSERT_EQ(out[0].shape(), os) << what;
  std::vector<double> expected(size_t(out[0].size()));
  int64_t ocg = o / c.groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < o; ++oc)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double s = 0;
          for (int64_t ic = 0; ic < icg; ++ic)
            for (int64_t r = 0; r < kh; ++r)
              for (int64_t q = 0; q < kw; ++q) {
                int64_t iy = y * c.sh + r * c.dh - c.pad[0];
                int64_t ix = xo * c.sw + q * c.dw - c.pad[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                  continue;
                int64_t cin = oc / ocg * icg + ic;
                s += x.get(at(x, {b, cin, iy, ix}, c.dataLayout, "NCHW")) *
                     w.get(at(w, {oc, ic, r, q}, c.kernelLayout, "OIHW"));
              }
          expected[size_t(at(out[0], {b, oc, y, xo}, outLayout, "NCHW"))] = s;
        }
  expectNear(out[0], expected, tol, what);
}

TEST(ConvPoolTest, Conv2d) {
  checkConv({{1, 3, 8, 8}, {4, 3, 3, 3}, {0, 0, 0, 0}, ""});
  checkConv({{2, 3, 9, 7}, {5, 3, 3, 3}, {1, 1, 1, 1}, "1"});
  checkConv({{1, 3, 9, 7}, {5, 3, 3, 2}, {1, 2, 1, 2}, "[1, 2]"});
  checkConv({{1, 3, 10, 10}, {8, 3, 3, 3}, {1, 0, 2, 0}, "[1, 0, 2, 0]", 1, 1, 2, 2});
  checkConv({{1, 4, 11, 13}, {6, 4, 3, 3}, {1, 1, 1, 1}, "[1, 1]", 2, 2});
  checkConv({{1, 2, 17, 17}, {3, 2, 5, 5}, {2, 3, 1, 0}, "[2, 3, 1, 0]", 3, 2, 1, 2});
  checkConv({{1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}, ""});
  checkConv({{1, 16, 40, 40}, {32, 16, 3, 3}, {1, 1, 1, 1}, "1"}); // large: parallel path
  // The cpu's packed GEMM (implicit GEMM): edge tiles, strides, dilation,
  // asymmetric padding, groups, a 1x1 and a batch.
  checkConv({{2, 32, 19, 17}, {48, 16, 3, 3}, {1, 2, 0, 1}, "[1, 2, 0, 1]", 2, 2, 2, 2, 2});
  checkConv({{1, 64, 15, 15}, {40, 64, 1, 1}, {0, 0, 0, 0}, ""});
  checkConv({{3, 3, 30, 30}, {20, 3, 7, 7}, {3, 3, 3, 3}, "3", 2, 2});
}

TEST(ConvPoolTest, Conv2dOutputChannelsAsRows) {
  // The cpu's window GEMM: output channels as the micro-tile's rows, pixels
  // as its columns over a phase-split copy of the input. Channel counts
  // that fill no panel (37, a group's 4), strides 2 and 3 with dilation,
  // asymmetric padding, several k blocks, a 1x1 stride 2 (one phase of
  // four), many groups with a batch (one group and image per iteration),
  // and results it stores lane by lane (NHWC).
  checkConv({{1, 12, 23, 21}, {37, 12, 3, 3}, {1, 2, 0, 1}, "[1, 2, 0, 1]"});
  checkConv({{1, 64, 20, 20}, {64, 4, 3, 3}, {1, 1, 1, 1}, "1", 1, 1, 1, 1, 16});
  checkConv({{3, 32, 13, 15}, {48, 8, 3, 3}, {1, 1, 1, 1}, "1", 1, 1, 1, 1, 4});
  checkConv({{1, 8, 31, 29}, {24, 8, 3, 3}, {2, 1, 2, 1}, "[2, 1, 2, 1]", 3, 2, 2, 3});
  checkConv({{1, 128, 12, 12}, {20, 128, 3, 3}, {1, 1, 1, 1}, "1"}, 1e-4);
  checkConv({{2, 64, 14, 14}, {32, 64, 1, 1}, {0, 0, 0, 0}, "", 2, 2});
  checkConv({{1, 3, 46, 46}, {16, 3, 7, 7}, {3, 3, 3, 3}, "3", 2, 2});
  ConvCase nhwc{{1, 16, 17, 19}, {24, 16, 3, 3}, {1, 1, 1, 1}, "1"};
  nhwc.dataLayout = "NHWC";
  nhwc.kernelLayout = "HWIO";
  checkConv(nhwc);
}

TEST(ConvPoolTest, Conv2dGroupsAndDepthwise) {
  checkConv({{2, 4, 9, 9}, {6, 2, 3, 3}, {1, 1, 1, 1}, "[1, 1]", 2, 2, 1, 1, 2});
  checkConv({{1, 8, 7, 7}, {8, 1, 3, 3}, {1, 1, 1, 1}, "1", 1, 1, 1, 1, 8});
  checkConv({{1, 8, 7, 7}, {16, 1, 3, 3}, {0, 0, 0, 0}, "", 1, 1, 1, 1, 8});
}

TEST(ConvPoolTest, Conv2dLayouts) {
  ConvCase nhwc{{1, 3, 8, 8}, {4, 3, 3, 3}, {1, 1, 1, 1}, "1"};
  nhwc.dataLayout = "NHWC";
  nhwc.kernelLayout = "HWIO";
  checkConv(nhwc);
  ConvCase mixed = nhwc;
  mixed.outLayout = "NCHW";
  mixed.kernelLayout = "OHWI";
  checkConv(mixed);
  ConvCase odd{{2, 3, 5, 6}, {4, 3, 2, 3}, {0, 1, 0, 1}, "[0, 1]"};
  odd.dataLayout = "CHWN";
  odd.kernelLayout = "IOWH";
  odd.outLayout = "HWNC";
  checkConv(odd);
}

struct PoolCase {
  std::array<int64_t, 4> data; // N C H W
  int64_t ph, pw, sh, sw;
  std::array<int64_t, 4> pad;
  std::string padAttr;
  bool ceil = false;
  std::string layout = "NCHW";
  int64_t dh = 1, dw = 1;
  /// Some inputs NaN, +inf and -inf: a window with a NaN gives NaN.
  bool specials = false;
};

int64_t poolDim(int64_t in, int64_t padA, int64_t padB, int64_t k, int64_t d, int64_t s,
                bool ceil) {
  int64_t room = in + padA + padB - (d * (k - 1) + 1);
  return room / s + (ceil && room % s ? 1 : 0) + 1;
}

void checkMaxPool(const PoolCase &c) {
  Shape ds = physical(c.data, c.layout, "NCHW");
  std::string attrs = ", pool_size=[" + std::to_string(c.ph) + ", " + std::to_string(c.pw) +
                      "], strides=[" + std::to_string(c.sh) + ", " + std::to_string(c.sw) +
                      "], dilation=[" + std::to_string(c.dh) + ", " + std::to_string(c.dw) +
                      "], layout=\"" + c.layout + "\"" + (c.ceil ? ", ceil_mode=True" : "");
  if (!c.padAttr.empty())
    attrs += ", padding=" + c.padAttr;
  std::string what = "max_pool2d " + shapeToString(ds) + attrs;
  std::string err;
  auto tc = TypedCall::parse("%x: " + tensorType(ds, F32), "nn.max_pool2d(%x" + attrs + ")", &err);
  ASSERT_TRUE(tc) << what << ": " << err;
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  Buffer x(F32, ds);
  std::mt19937 rng(8);
  fillRandom(x, rng, -1, 1);
  if (c.specials)
    for (int64_t i = 0; i < x.size(); ++i)
      if (i % 37 == 5 || i % 41 == 3 || i % 53 == 7)
        x.set(i, i % 37 == 5 ? NAN : i % 41 == 3 ? -INFINITY : INFINITY);
  std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&x});
  ASSERT_EQ(out.size(), 1u);
  auto [n, ch, h, w] = c.data;
  int64_t oh = poolDim(h, c.pad[0], c.pad[2], c.ph, c.dh, c.sh, c.ceil);
  int64_t ow = poolDim(w, c.pad[1], c.pad[3], c.pw, c.dw, c.sw, c.ceil);
  ASSERT_EQ(out[0].shape(), physical({n, ch, oh, ow}, c.layout, "NCHW")) << what;
  std::vector<double> expected(size_t(out[0].size()));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < ch; ++k)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double m = -INFINITY;
          for (int64_t r = 0; r < c.ph; ++r)
            for (int64_t q = 0; q < c.pw; ++q) {
              int64_t iy = y * c.sh + r * c.dh - c.pad[0], ix = xo * c.sw + q * c.dw - c.pad[1];
              if (iy >= 0 && iy < h && ix >= 0 && ix < w) {
                double v = x.get(at(x, {b, k, iy, ix}, c.layout, "NCHW"));
                m = std::isnan(m) || std::isnan(v) ? NAN : std::max(m, v);
              }
            }
          expected[size_t(at(out[0], {b, k, y, xo}, c.layout, "NCHW"))] = m;
        }
  if (!c.specials)
    return expectNear(out[0], expected, 0, what);
  for (int64_t i = 0; i < out[0].size(); ++i) {
    double got = out[0].get(i), want = expected[size_t(i)];
    EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : got == want)
        << what << " element " << i << ": " << got << ", expected " << want;
  }
}

TEST(ConvPoolTest, MaxPool2d) {
  checkMaxPool({{1, 3, 32, 32}, 2, 2, 2, 2, {0, 0, 0, 0}, ""});
  checkMaxPool({{1, 3, 5, 5}, 2, 2, 2, 2, {0, 0, 0, 0}, "", true});
  checkMaxPool({{2, 3, 8, 8}, 3, 3, 1, 1, {1, 1, 1, 1}, "[1, 1]"});
  checkMaxPool({{1, 2, 7, 9}, 3, 2, 2, 3, {1, 0, 2, 1}, "[1, 0, 2, 1]", true});
  checkMaxPool({{1, 8, 8, 3}, 2, 2, 2, 2, {0, 0, 0, 0}, "", false, "NHWC"});
  checkMaxPool({{1, 2, 9, 9}, 2, 2, 1, 1, {0, 0, 0, 0}, "", false, "NCHW", 2, 3});
  checkMaxPool({{1, 64, 56, 56}, 3, 3, 2, 2, {1, 1, 1, 1}, "1"}); // parallel path
}

// NaN in a window gives NaN whatever tap it is, infinities are ordered, on
// rows of whole vectors, pieces and planes (stride 1, same padding).
TEST(ConvPoolTest, MaxPool2dNaNAndInfinities) {
  PoolCase strided{{1, 3, 9, 79}, 3, 3, 2, 2, {0, 0, 0, 0}, "", true};
  PoolCase planes{{1, 3, 14, 14}, 3, 3, 1, 1, {1, 1, 1, 1}, "[1, 1]"};
  PoolCase rows{{2, 2, 5, 37}, 2, 3, 1, 1, {0, 1, 0, 1}, "[0, 1, 0, 1]"};
  for (PoolCase c : {strided, planes, rows}) {
    c.specials = true;
    checkMaxPool(c);
  }
}

TEST(ConvPoolTest, GlobalAvgPool2d) {
  for (std::string layout : {"NCHW", "NHWC"}) {
    for (std::array<int64_t, 4> dims :
         {std::array<int64_t, 4>{2, 5, 7, 7}, {1, 1, 1, 1}, {2, 64, 17, 3}}) {
      Shape ds = physical(dims, layout, "NCHW");
      auto tc = TypedCall::parse("%x: " + tensorType(ds, F32),
                                 "nn.global_avg_pool2d(%x, layout=\"" + layout + "\")");
      ASSERT_TRUE(tc);
      auto compiler = makeCompiler();
      ASSERT_TRUE(compiler);
      Buffer x(F32, ds);
      std::mt19937 rng(4);
      fillRandom(x, rng, -1, 1);
      std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&x});
      ASSERT_EQ(out.size(), 1u);
      auto [n, ch, h, w] = dims;
      std::vector<double> expected(size_t(n * ch));
      for (int64_t b = 0; b < n; ++b)
        for (int64_t k = 0; k < ch; ++k) {
          double s = 0;
          for (int64_t y = 0; y < h; ++y)
            for (int64_t xo = 0; xo < w; ++xo)
              s += x.get(at(x, {b, k, y, xo}, layout, "NCHW"));
          expected[size_t(at(out[0], {b, k, 0, 0}, layout, "NCHW"))] = s / double(h * w);
        }
      expectNear(out[0], expected, 1e-5, "global_avg_pool2d " + layout);
    }
  }
}

} // namespace
