//===- ConvPoolOps.cpp - Reference convolutions, pools and resizes --------===//
//
// Layouts are permutations of NCHW (data, output) and OIHW (kernel), or NCW
// and OIW for nn.conv1d, as the type relations in lib/Ops/ConvPool.cpp
// accept. Nothing is transposed: each logical dim (n, c, h, w) is read
// through the stride of its position in the actual layout, and results are
// written the same way into out_layout (which defaults to the data layout).
// A 1-D layout reads as a 2-D one with H = 1, so nn.conv1d is nn.conv2d's
// loop nest.
//
// With padding (top, left, bottom, right) — 1, 2 or 4 values as in TVM;
// nn.conv1d's 1 or 2 are (left, right) —, dilation d and stride s, the
// output size is
//
//   out = (in + top + bottom - (d * (k - 1) + 1)) / s + 1
//
// (the pools' ceil_mode rounds the division up). Input positions that fall
// in the padding contribute nothing: zero to a convolution and to an
// average's sum, and they never win a max (a window entirely in the padding
// gives -inf, TVM's padding value). nn.avg_pool2d divides as TVM's
// pool_impl_nd does: by the window positions inside the input, or with
// count_include_pad inside the input and its explicit padding (the room
// ceil_mode adds never counts), per dim, with TVM's truncating divisions.
// nn.adaptive_avg_pool2d averages, for output index i of o along an input
// dim of size n, the bin [floor(i * n / o), ceil((i + 1) * n / o)) (TVM's
// adaptive_pool_impl; bins may overlap).
//
// image.resize2d samples as TVM's topi/image/resize.py: each output index
// maps to an input coordinate (coordinate_transformation_mode), computed in
// float32 exactly as TVM does (constant factors folded in double, then
// float32 operations in TVM's order) so that nearest_neighbor's rounding
// picks TVM's pixel; nearest_neighbor reads one tap (rounding_method, and
// TVM's exact integer path for asymmetric integral upscaling), linear two
// per dim and cubic four (cubic_alpha, cubic_exclude), the taps clamped into
// the input; tf_crop_and_resize reads roi and gives extrapolation_value
// outside the input. nn.upsampling is TVM's topi upsampling: resize2d to
// round(in * scale) with align_corners or asymmetric coordinates.
//
// Convolution groups split C and O into `groups` equal slices; output
// channel o reads the input channels of its group,
// o / (O / groups) * (C / groups) + i. Depthwise is groups = C.
//
// All arithmetic is in double (but image.resize2d's coordinates, which are
// float32 as TVM's), one rounding into the result dtype. Sizes from
// attributes are checked for overflow before any index is formed.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"
#include <array>
#include <cmath>

using namespace llvm;

namespace hx::interp {

namespace {
/// Where each logical dim (in the order of the letters, e.g. N, C, H, W)
/// sits in the actual layout. A 1-D layout (N, C, W) has 3.
struct Layout {
  SmallVector<unsigned, 4> pos;
};

/// A tensor read or written through a layout: the element stride of each
/// logical dim. A 1-D layout is viewed as 2-D with H = 1 (stride 0).
struct View {
  std::array<int64_t, 4> dim, stride;
  int64_t at(int64_t a, int64_t b, int64_t c, int64_t d) const {
    return a * stride[0] + b * stride[1] + c * stride[2] + d * stride[3];
  }
};

struct Window {
  int64_t size, stride, dilation, padBefore, padAfter, out;
};
} // namespace

static Expected<Layout> parseLayout(OpContext &ctx, StringRef attr, StringRef letters,
                                    StringRef fallbackAttr = {}) {
  std::string text = ctx.getString(attr);
  if (text.empty() && !fallbackAttr.empty())
    text = ctx.getString(fallbackAttr);
  if (std::optional<SmallVector<unsigned, 4>> pos = layoutPositions(text, letters))
    return Layout{std::move(*pos)};
  return ctx.error("unsupported " + attr + " '" + text + "' (expected a permutation of " + letters +
                   ")");
}

static View viewOf(ArrayRef<int64_t> shape, const Layout &l) {
  Shape strides = stridesOf(shape);
  View v;
  for (unsigned i = 0, j = 0; i < 4; ++i) {
    if (i == 2 && l.pos.size() == 3) { // 1-D: H = 1
      v.dim[i] = 1;
      v.stride[i] = 0;
      continue;
    }
    v.dim[i] = shape[l.pos[j]];
    v.stride[i] = strides[l.pos[j++]];
  }
  return v;
}

/// The shape of logical dims (N, C, H, W) in layout `l` (H, then 1, left out
/// of a 1-D layout).
static Shape layoutShape(const Layout &l, std::array<int64_t, 4> dims) {
  Shape s(l.pos.size());
  for (unsigned i = 0, j = 0; i < 4; ++i)
    if (i != 2 || l.pos.size() == 4)
      s[l.pos[j++]] = dims[i];
  return s;
}

/// A `count`-value attribute (one value means all), all values >= `min`.
static Expected<Shape> getValues(OpContext &ctx, StringRef attr, size_t count, int64_t min) {
  Shape v = ctx.getInts(attr);
  if (v.size() == 1)
    v.resize(count, v[0]);
  if (v.size() != count)
    return ctx.error(attr + " must have " + (count == 1 ? "1 value" : "1 or 2 values") + ", got " +
                     Twine(v.size()));
  if (llvm::any_of(v, [&](int64_t x) { return x < min; }))
    return ctx.error(attr + " values must be at least " + Twine(min) + ", got " +
                     intListToString(v));
  return v;
}

/// A 1- or 2-value attribute, all values >= `min`; for `spatial` 1 a
/// 1-value one, as (1, value).
static Expected<std::pair<int64_t, int64_t>> getPair(OpContext &ctx, StringRef attr, int64_t min,
                                                     unsigned spatial = 2) {
  Expected<Shape> v = getValues(ctx, attr, spatial, min);
  if (!v)
    return v.takeError();
  return spatial == 1 ? std::make_pair(int64_t(1), (*v)[0]) : std::make_pair((*v)[0], (*v)[1]);
}

/// Padding as (top, left, bottom, right); for `spatial` 1, 1 or 2 values as
/// (0, left, 0, right).
static Expected<std::array<int64_t, 4>> getPadding(OpContext &ctx, unsigned spatial = 2) {
  Shape p = ctx.getInts("padding");
  std::optional<std::array<int64_t, 4>> out;
  if (spatial == 2)
    out = padding2d(p);
  else if (std::optional<std::array<int64_t, 2>> lr = padding1d(p))
    out = std::array<int64_t, 4>{0, (*lr)[0], 0, (*lr)[1]};
  if (!out)
    return ctx.error("padding must have " + Twine(spatial == 2 ? "1, 2 or 4" : "1 or 2") +
                     " values, got " + Twine(p.size()));
  for (int64_t v : *out)
    if (v < 0)
      return ctx.error("padding must be non-negative, got " + intListToString(p));
  return *out;
}

/// Fills w.out for an input of size `in`; errors when the window does not
/// fit the padded input or the sizes overflow.
static Error windowOut(OpContext &ctx, Window &w, int64_t in, bool ceilMode) {
  int64_t span, padded;
  if (w.size < 1)
    return ctx.error("the window is empty");
  if (MulOverflow(w.dilation, w.size - 1, span) || AddOverflow(span, int64_t(1), span) ||
      AddOverflow(in, w.padBefore, padded) || AddOverflow(padded, w.padAfter, padded))
    return ctx.error("the window or the padding is too large");
  int64_t room = padded - span;
  if (room < 0)
    return ctx.error("the window (" + Twine(span) + " with dilation) is larger than the padded " +
                     "input (" + Twine(padded) + ")");
  w.out = room / w.stride + (ceilMode && room % w.stride != 0 ? 1 : 0) + 1;
  return Error::success();
}

/// nn.conv2d, and nn.conv1d (`spatial` 1) as a conv2d with H = 1.
static Expected<OpResults> convOp(OpContext &ctx, unsigned spatial) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &data = ctx.arg(0), &weight = ctx.arg(1);
  if (data.dtype() != weight.dtype())
    return ctx.error("dtypes " + dtypeName(data.dtype()) + " and " + dtypeName(weight.dtype()) +
                     " do not match");
  size_t rank = spatial + 2;
  if (data.rank() != rank || weight.rank() != rank)
    return ctx.error("data and weight must have rank " + Twine(rank) + ", got shapes " +
                     shapeStr(data.shape()) + " and " + shapeStr(weight.shape()));
  StringRef dataLetters = spatial == 2 ? "NCHW" : "NCW";
  Expected<Layout> dl = parseLayout(ctx, "data_layout", dataLetters);
  if (!dl)
    return dl.takeError();
  Expected<Layout> kl = parseLayout(ctx, "kernel_layout", spatial == 2 ? "OIHW" : "OIW");
  if (!kl)
    return kl.takeError();
  Expected<Layout> ol = parseLayout(ctx, "out_layout", dataLetters, "data_layout");
  if (!ol)
    return ol.takeError();
  auto strides = getPair(ctx, "strides", 1, spatial);
  if (!strides)
    return strides.takeError();
  auto dilation = getPair(ctx, "dilation", 1, spatial);
  if (!dilation)
    return dilation.takeError();
  auto pad = getPadding(ctx, spatial);
  if (!pad)
    return pad.takeError();
  int64_t groups = ctx.getInt("groups");
  if (groups < 1)
    return ctx.error("groups must be positive, got " + Twine(groups));

  View d = viewOf(data.shape(), *dl), k = viewOf(weight.shape(), *kl);
  int64_t n = d.dim[0], c = d.dim[1], o = k.dim[0], icPerGroup = k.dim[1];
  int64_t expectedC;
  if (c % groups != 0 || o % groups != 0 || MulOverflow(icPerGroup, groups, expectedC) ||
      expectedC != c)
    return ctx.error("data " + shapeStr(data.shape()) + " and weight " + shapeStr(weight.shape()) +
                     " do not agree with groups=" + Twine(groups));
  if (std::optional<int64_t> channels = ctx.getOptInt("channels"); channels && *channels != o)
    return ctx.error("channels=" + Twine(*channels) + " does not match the weight's " + Twine(o) +
                     " output channels");
  if (std::optional<Shape> ks = ctx.getOptInts("kernel_size"))
    if (ks->size() != spatial || (*ks)[0] != k.dim[4 - spatial] || ks->back() != k.dim[3])
      return ctx.error("kernel_size=" + intListToString(*ks) + " does not match the weight");
  Window wh{k.dim[2], strides->first, dilation->first, (*pad)[0], (*pad)[2], 0};
  Window ww{k.dim[3], strides->second, dilation->second, (*pad)[1], (*pad)[3], 0};
  if (Error e = windowOut(ctx, wh, d.dim[2], false))
    return e;
  if (Error e = windowOut(ctx, ww, d.dim[3], false))
    return e;

  DType dt = ctx.getDType("out_dtype").value_or(data.dtype());
  Expected<HostTensor> out = ctx.makeResult(0, layoutShape(*ol, {n, o, wh.out, ww.out}), dt);
  if (!out)
    return out.takeError();
  View ov = viewOf(out->shape(), *ol);
  std::vector<double> vd = toDoubles(data), vk = toDoubles(weight);
  int64_t ocPerGroup = o / groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < o; ++oc) {
      int64_t icBase = oc / ocPerGroup * icPerGroup;
      for (int64_t y = 0; y < wh.out; ++y)
        for (int64_t x = 0; x < ww.out; ++x) {
          double acc = 0;
          for (int64_t ic = 0; ic < icPerGroup; ++ic)
            for (int64_t ky = 0; ky < wh.size; ++ky) {
              int64_t iy = y * wh.stride - wh.padBefore + ky * wh.dilation;
              if (iy < 0 || iy >= d.dim[2])
                continue;
              for (int64_t kx = 0; kx < ww.size; ++kx) {
                int64_t ix = x * ww.stride - ww.padBefore + kx * ww.dilation;
                if (ix < 0 || ix >= d.dim[3])
                  continue;
                acc += vd[size_t(d.at(b, icBase + ic, iy, ix))] * vk[size_t(k.at(oc, ic, ky, kx))];
              }
            }
          out->setDouble(ov.at(b, oc, y, x), acc);
        }
    }
  return single(std::move(*out));
}

static Expected<OpResults> conv1dOp(OpContext &ctx) { return convOp(ctx, 1); }
static Expected<OpResults> conv2dOp(OpContext &ctx) { return convOp(ctx, 2); }

/// The one operand of a pooling (or resizing) operator, of rank 4, and its
/// `layout` and `out_layout` (defaulting to `layout`; the resizing operators
/// have none: `hasOutLayout` false).
static Expected<std::pair<Layout, Layout>> poolLayouts(OpContext &ctx, bool hasOutLayout = true) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &data = ctx.arg(0);
  if (data.rank() != 4)
    return ctx.error("data must have rank 4, got shape " + shapeStr(data.shape()));
  Expected<Layout> l = parseLayout(ctx, "layout", "NCHW");
  if (!l)
    return l.takeError();
  if (!hasOutLayout)
    return std::make_pair(*l, *l);
  Expected<Layout> ol = parseLayout(ctx, "out_layout", "NCHW", "layout");
  if (!ol)
    return ol.takeError();
  return std::make_pair(*l, *ol);
}

/// The H and W windows of a pooling operator (pool_size, strides, dilation,
/// padding) over an input viewed as `d`, their output sizes filled in.
static Expected<std::pair<Window, Window>> poolWindows(OpContext &ctx, const View &d) {
  auto pool = getPair(ctx, "pool_size", 1);
  if (!pool)
    return pool.takeError();
  auto strides = getPair(ctx, "strides", 1);
  if (!strides)
    return strides.takeError();
  auto dilation = getPair(ctx, "dilation", 1);
  if (!dilation)
    return dilation.takeError();
  auto pad = getPadding(ctx);
  if (!pad)
    return pad.takeError();
  bool ceilMode = ctx.getBool("ceil_mode");
  Window wh{pool->first, strides->first, dilation->first, (*pad)[0], (*pad)[2], 0};
  Window ww{pool->second, strides->second, dilation->second, (*pad)[1], (*pad)[3], 0};
  if (Error e = windowOut(ctx, wh, d.dim[2], ceilMode))
    return e;
  if (Error e = windowOut(ctx, ww, d.dim[3], ceilMode))
    return e;
  return std::make_pair(wh, ww);
}

/// Calls fn(i) with the element index i of each position of the window of
/// output (b, c, y, x) that lies inside the input.
template <typename Fn>
static void forEachInWindow(const View &d, const Window &wh, const Window &ww, int64_t b, int64_t c,
                            int64_t y, int64_t x, Fn fn) {
  for (int64_t ky = 0; ky < wh.size; ++ky) {
    int64_t iy = y * wh.stride - wh.padBefore + ky * wh.dilation;
    if (iy < 0 || iy >= d.dim[2])
      continue;
    for (int64_t kx = 0; kx < ww.size; ++kx) {
      int64_t ix = x * ww.stride - ww.padBefore + kx * ww.dilation;
      if (ix >= 0 && ix < d.dim[3])
        fn(size_t(d.at(b, c, iy, ix)));
    }
  }
}

/// The pass over every output window that max_pool2d and avg_pool2d share:
/// `reduce(d, wh, ww, values, b, c, y, x)` gives output (b, c, y, x).
template <typename Reduce>
static Expected<OpResults> windowedPool2d(OpContext &ctx, Reduce reduce) {
  Expected<std::pair<Layout, Layout>> layouts = poolLayouts(ctx);
  if (!layouts)
    return layouts.takeError();
  const HostTensor &data = ctx.arg(0);
  const Layout *l = &layouts->first, *ol = &layouts->second;
  View d = viewOf(data.shape(), *l);
  Expected<std::pair<Window, Window>> windows = poolWindows(ctx, d);
  if (!windows)
    return windows.takeError();
  const Window &wh = windows->first, &ww = windows->second;
  Expected<HostTensor> out =
      ctx.makeResult(0, layoutShape(*ol, {d.dim[0], d.dim[1], wh.out, ww.out}), data.dtype());
  if (!out)
    return out.takeError();
  View ov = viewOf(out->shape(), *ol);
  std::vector<double> vd = toDoubles(data);
  for (int64_t b = 0; b < d.dim[0]; ++b)
    for (int64_t c = 0; c < d.dim[1]; ++c)
      for (int64_t y = 0; y < wh.out; ++y)
        for (int64_t x = 0; x < ww.out; ++x)
          out->setDouble(ov.at(b, c, y, x), reduce(d, wh, ww, vd, b, c, y, x));
  return single(std::move(*out));
}

static Expected<OpResults> maxPool2dOp(OpContext &ctx) {
  return windowedPool2d(ctx, [](const View &d, const Window &wh, const Window &ww,
                                const std::vector<double> &vd, int64_t b, int64_t c, int64_t y,
                                int64_t x) {
    double mx = -INFINITY;
    forEachInWindow(d, wh, ww, b, c, y, x, [&](size_t i) {
      if (!std::isnan(mx) && (std::isnan(vd[i]) || vd[i] > mx))
        mx = vd[i]; // NaN propagates
    });
    return mx;
  });
}

/// TVM's count of window `o`'s positions along one dim of size `in`: those
/// inside the input, or with `includePad` those inside the input and its
/// explicit padding (never the room ceil_mode adds). Divisions truncate
/// toward zero as TVM's do (a window past the end can count 0 or less).
static int64_t windowCount(const Window &w, int64_t o, int64_t in, bool includePad) {
  int64_t start = o * w.stride - w.padBefore;
  int64_t end = start + (w.size - 1) * w.dilation;
  if (includePad)
    return (std::min(end, in + w.padAfter - 1) - start) / w.dilation + 1;
  int64_t skipped = std::max<int64_t>((w.dilation - 1 - start) / w.dilation, 0);
  return (std::min(end, in - 1) - (start + skipped * w.dilation)) / w.dilation + 1;
}

static Expected<OpResults> avgPool2dOp(OpContext &ctx) {
  bool includePad = ctx.getBool("count_include_pad");
  return windowedPool2d(ctx, [includePad](const View &d, const Window &wh, const Window &ww,
                                          const std::vector<double> &vd, int64_t b, int64_t c,
                                          int64_t y, int64_t x) {
    double sum = 0;
    forEachInWindow(d, wh, ww, b, c, y, x, [&](size_t i) { sum += vd[i]; });
    int64_t count =
        windowCount(wh, y, d.dim[2], includePad) * windowCount(ww, x, d.dim[3], includePad);
    if (!includePad)
      count = std::max<int64_t>(count, 1);
    return sum / double(count);
  });
}

static Expected<OpResults> adaptiveAvgPool2dOp(OpContext &ctx) {
  Expected<std::pair<Layout, Layout>> layouts = poolLayouts(ctx);
  if (!layouts)
    return layouts.takeError();
  const HostTensor &data = ctx.arg(0);
  const Layout *l = &layouts->first, *ol = &layouts->second;
  View d = viewOf(data.shape(), *l);
  std::optional<std::array<int64_t, 2>> size =
      adaptiveOutputSize(ctx.attr("output_size"), d.dim[2], d.dim[3]);
  if (!size)
    return ctx.error("output_size must have at most 2 values, all non-negative");
  auto [oh, ow] = *size;
  int64_t product;
  if (MulOverflow(oh, d.dim[2], product) || MulOverflow(ow, d.dim[3], product))
    return ctx.error("output_size is too large");
  Expected<HostTensor> out =
      ctx.makeResult(0, layoutShape(*ol, {d.dim[0], d.dim[1], oh, ow}), data.dtype());
  if (!out)
    return out.takeError();
  View ov = viewOf(out->shape(), *ol);
  std::vector<double> vd = toDoubles(data);
  // Bin i of `o` over `in`: [floor(i * in / o), ceil((i + 1) * in / o)).
  auto bin = [](int64_t i, int64_t in, int64_t o) {
    return std::make_pair(i * in / o, ((i + 1) * in + o - 1) / o);
  };
  for (int64_t b = 0; b < d.dim[0]; ++b)
    for (int64_t c = 0; c < d.dim[1]; ++c)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          auto [y0, y1] = bin(y, d.dim[2], oh);
          auto [x0, x1] = bin(x, d.dim[3], ow);
          double sum = 0;
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix)
              sum += vd[size_t(d.at(b, c, iy, ix))];
          out->setDouble(ov.at(b, c, y, x), sum / double((y1 - y0) * (x1 - x0)));
        }
  return single(std::move(*out));
}

static Expected<OpResults> globalAvgPool2dOp(OpContext &ctx) {
  Expected<std::pair<Layout, Layout>> layouts = poolLayouts(ctx);
  if (!layouts)
    return layouts.takeError();
  const HostTensor &data = ctx.arg(0);
  const Layout *l = &layouts->first, *ol = &layouts->second;
  View d = viewOf(data.shape(), *l);
  Expected<HostTensor> out =
      ctx.makeResult(0, layoutShape(*ol, {d.dim[0], d.dim[1], 1, 1}), data.dtype());
  if (!out)
    return out.takeError();
  View ov = viewOf(out->shape(), *ol);
  std::vector<double> vd = toDoubles(data);
  double area = double(d.dim[2] * d.dim[3]);
  for (int64_t b = 0; b < d.dim[0]; ++b)
    for (int64_t c = 0; c < d.dim[1]; ++c) {
      double sum = 0;
      for (int64_t y = 0; y < d.dim[2]; ++y)
        for (int64_t x = 0; x < d.dim[3]; ++x)
          sum += vd[size_t(d.at(b, c, y, x))];
      out->setDouble(ov.at(b, c, 0, 0), sum / area);
    }
  return single(std::move(*out));
}

namespace {
/// image.resize2d's sampling (see ShapeUtils.h and the file comment).
using Sampling = ResizeSampling;

/// The taps of one output index along one dim: input indices (clamped into
/// the input) and weights; `outside` when tf_crop_and_resize extrapolates.
struct Taps {
  std::array<int64_t, 4> index;
  std::array<float, 4> weight;
  unsigned count = 0;
  bool outside = false;
};
} // namespace

/// TVM's input coordinate of output index x (get_inx) in float32, as TVM
/// computes it: constant factors folded in double and rounded to float,
/// the rest float32 arithmetic. align_corners with one output (a division
/// by zero TVM rejects) samples at 0, as PyTorch does.
static float resizeCoord(const Sampling &s, int64_t x, int64_t in, int64_t out, double roiStart,
                         double roiEnd, double given) {
  float fx = float(x), scale = float(given > 0 ? 1 / given : double(in) / double(out));
  switch (s.coord) {
  case ResizeCoord::HalfPixelSymmetric: {
    // ONNX: the sampled region centred, shifted by the fraction of an output
    // pixel that rounding the size down cut off.
    double adjustment = given > 0 ? double(out) / (given * double(in)) : 1;
    return float(double(in) / 2 * (1 - adjustment)) + ((fx + 0.5f) * scale - 0.5f);
  }
  case ResizeCoord::HalfPixel:
    return (fx + 0.5f) * scale - 0.5f;
  case ResizeCoord::AlignCorners:
    return out > 1 ? float(double(in - 1) / double(out - 1)) * fx : 0.0f;
  case ResizeCoord::Asymmetric:
    return scale * fx;
  case ResizeCoord::PytorchHalfPixel:
    return out > 1 ? (fx + 0.5f) * scale - 0.5f : 0.0f;
  case ResizeCoord::TfHalfPixelForNN:
    return (fx + 0.5f) * scale;
  case ResizeCoord::TfCropAndResize:
    if (out > 1)
      return float(roiStart * double(in - 1)) +
             fx * float(roiEnd - roiStart) * float(in - 1) / float(out - 1);
    return float(0.5 * (roiStart + roiEnd) * double(in - 1));
  }
  return 0;
}

/// TVM's cubic spline weights of the taps at floor(c) - 1 .. floor(c) + 2
/// for the fraction t.
static std::array<float, 4> cubicWeights(float t, float a) {
  float t2 = t * t, t3 = t * t * t;
  return {a * (t3 - 2 * t2 + t), (a + 2) * t3 - (3 + a) * t2 + 1,
          -(a + 2) * t3 + (3 + 2 * a) * t2 - a * t, -a * t3 + a * t2};
}

/// The taps of output index o along a dim of `in` inputs and `out` outputs
/// (TVM's _resize_2d). `roiStart`, `roiEnd` are this dim's roi values.
static Taps resizeTaps(const Sampling &s, int64_t o, int64_t in, int64_t out, double roiStart,
                       double roiEnd, double given) {
  Taps t;
  auto clamp = [&](int64_t i) { return std::min(std::max(i, int64_t(0)), in - 1); };
  // floor(c) as an index, kept within [-4, in + 4]: beyond, every tap lies
  // outside the input (clamped, excluded) either way, and neighbours of a
  // huge coordinate cannot overflow.
  auto floorIndex = [&](float f) {
    return std::min(std::max(truncToInt64(f), int64_t(-4)), in + 4);
  };
  float c = resizeCoord(s, o, in, out, roiStart, roiEnd, given);
  if (s.coord == ResizeCoord::TfCropAndResize)
    t.outside = c < 0 || c > float(in - 1);
  switch (s.method) {
  case ResizeMethod::NearestNeighbor: {
    int64_t i;
    if (s.coord == ResizeCoord::Asymmetric && given == 0 && out % in == 0 &&
        double(out / in) <= 1 / (1e-5 * double(in) + 1e-5)) {
      i = o / (out / in); // TVM's exact integer path for integral upscaling
    } else {
      float r = 0;
      switch (s.rounding) {
      case ResizeRounding::Round:
        r = std::round(c);
        break;
      case ResizeRounding::RoundPreferFloor:
        r = std::ceil(c - 0.5f);
        break;
      case ResizeRounding::RoundPreferCeil:
        r = std::floor(c + 0.5f);
        break;
      case ResizeRounding::Floor: // the epsilons are TVM's
        r = std::floor(c + 1e-5f);
        break;
      case ResizeRounding::Ceil:
        r = std::ceil(c - 1e-5f);
        break;
      }
      i = truncToInt64(r);
    }
    t.index[0] = clamp(i);
    t.weight[0] = 1;
    t.count = 1;
    return t;
  }
  case ResizeMethod::Linear: {
    float f = std::floor(c);
    int64_t i = floorIndex(f);
    float frac = c - f;
    t.index = {clamp(i), clamp(i + 1), 0, 0};
    t.weight = {1.0f - frac, frac, 0, 0};
    t.count = 2;
    return t;
  }
  case ResizeMethod::Cubic: {
    float f = std::floor(c);
    int64_t i = floorIndex(f);
    t.weight = cubicWeights(c - f, s.alpha);
    if (s.exclude) {
      float sum = 0;
      for (int64_t k = 0; k < 4; ++k) {
        if (i - 1 + k < 0 || i + k > in)
          t.weight[k] = 0;
        sum += t.weight[k];
      }
      for (float &w : t.weight)
        w /= sum;
    }
    for (int64_t k = 0; k < 4; ++k)
      t.index[k] = clamp(i - 1 + k);
    t.count = 4;
    return t;
  }
  }
  return t;
}

/// The output H and W of a resizing operator from the input's.
using ResizeSize = function_ref<Expected<std::pair<int64_t, int64_t>>(int64_t h, int64_t w)>;

/// image.resize2d's implementation, also nn.upsampling's: the output's H
/// and W are size(H, W), its dtype `dtype` (else the input's).
static Expected<OpResults> resize(OpContext &ctx, const Sampling &s, ResizeSize size,
                                  std::optional<DType> dtype) {
  Expected<std::pair<Layout, Layout>> layouts = poolLayouts(ctx, /*hasOutLayout=*/false);
  if (!layouts)
    return layouts.takeError();
  const HostTensor &data = ctx.arg(0);
  View d = viewOf(data.shape(), layouts->first);
  int64_t h = d.dim[2], w = d.dim[3];
  Expected<std::pair<int64_t, int64_t>> outSize = size(h, w);
  if (!outSize)
    return outSize.takeError();
  auto [oh, ow] = *outSize;
  if ((h == 0 && oh > 0) || (w == 0 && ow > 0))
    return ctx.error("cannot resize an empty " + shapeStr(data.shape()) + " input");
  Expected<HostTensor> out = ctx.makeResult(
      0, layoutShape(layouts->second, {d.dim[0], d.dim[1], oh, ow}), dtype.value_or(data.dtype()));
  if (!out)
    return out.takeError();
  if (out->numElements() == 0)
    return single(std::move(*out));
  View ov = viewOf(out->shape(), layouts->second);
  std::vector<double> vd = toDoubles(data);
  std::vector<Taps> cols;
  for (int64_t x = 0; x < ow; ++x)
    cols.push_back(resizeTaps(s, x, w, ow, s.roi[1], s.roi[3], s.scales[1]));
  for (int64_t y = 0; y < oh; ++y) {
    Taps row = resizeTaps(s, y, h, oh, s.roi[0], s.roi[2], s.scales[0]);
    for (int64_t x = 0; x < ow; ++x) {
      const Taps &col = cols[size_t(x)];
      for (int64_t b = 0; b < d.dim[0]; ++b)
        for (int64_t c = 0; c < d.dim[1]; ++c) {
          double v = 0;
          for (unsigned j = 0; j < row.count; ++j) {
            double sum = 0;
            for (unsigned i = 0; i < col.count; ++i)
              sum += col.weight[i] * vd[size_t(d.at(b, c, row.index[j], col.index[i]))];
            v += row.weight[j] * sum;
          }
          out->setDouble(ov.at(b, c, y, x),
                         row.outside || col.outside ? double(s.extrapolation) : v);
        }
    }
  }
  return single(std::move(*out));
}

static Expected<OpResults> resize2dOp(OpContext &ctx) {
  std::string method = ctx.getString("method"),
              mode = ctx.getString("coordinate_transformation_mode");
  std::optional<ResizeMethod> m = parseResizeMethod(method);
  std::optional<ResizeCoord> coord = parseResizeCoord(mode);
  if (!m || !coord)
    return ctx.error("unsupported method '" + method + "' or coordinate_transformation_mode '" +
                     mode + "'");
  std::string rounding = ctx.getString("rounding_method");
  std::optional<ResizeRounding> r = parseResizeRounding(rounding, *coord);
  if (!r && *m == ResizeMethod::NearestNeighbor)
    return ctx.error("unsupported rounding_method '" + rounding + "'");
  Sampling s{*m,
             *coord,
             r.value_or(ResizeRounding::Round),
             float(ctx.getFloat("cubic_alpha")),
             ctx.getInt("cubic_exclude") != 0,
             {0, 0, 0, 0},
             float(ctx.getFloat("extrapolation_value"))};
  SmallVector<double, 4> roi = attrFloats(ctx.attr("roi"));
  if (roi.size() == 4)
    std::copy(roi.begin(), roi.end(), s.roi.begin());
  SmallVector<double, 4> scales = attrFloats(ctx.attr("scales"));
  if (scales.size() == 2)
    s.scales = {scales[0], scales[1]};
  auto size = [&](int64_t, int64_t) -> Expected<std::pair<int64_t, int64_t>> {
    std::optional<Shape> v = ctx.getOptInts("size");
    if (!v || v->size() != 2 || (*v)[0] < 0 || (*v)[1] < 0)
      return ctx.error("size must be 2 non-negative values");
    return std::make_pair((*v)[0], (*v)[1]);
  };
  return resize(ctx, s, size, ctx.getDType("out_dtype"));
}

/// TVM's topi upsampling: resize2d to round(in * scale) with
/// align_corners or asymmetric coordinates and the default rounding.
static Expected<OpResults> upsamplingOp(OpContext &ctx) {
  std::string method = ctx.getString("method");
  std::optional<ResizeMethod> m = parseUpsamplingMethod(method);
  if (!m)
    return ctx.error("unsupported method '" + method + "'");
  Sampling s = upsamplingSampling(*m, ctx.getBool("align_corners"));
  auto size = [&](int64_t h, int64_t w) -> Expected<std::pair<int64_t, int64_t>> {
    std::optional<int64_t> oh = upsampledDim(h, ctx.getFloat("scale_h"));
    std::optional<int64_t> ow = upsampledDim(w, ctx.getFloat("scale_w"));
    if (!oh || !ow)
      return ctx.error("scale_h and scale_w must scale the input to valid sizes");
    return std::make_pair(*oh, *ow);
  };
  return resize(ctx, s, size, std::nullopt);
}

OpImplFn findConvPoolOp(StringRef name) {
  return StringSwitch<OpImplFn>(name)
      .Case("nn.conv2d", conv2dOp)
      .Case("nn.conv1d", conv1dOp)
      .Case("nn.max_pool2d", maxPool2dOp)
      .Case("nn.avg_pool2d", avgPool2dOp)
      .Case("nn.adaptive_avg_pool2d", adaptiveAvgPool2dOp)
      .Case("nn.global_avg_pool2d", globalAvgPool2dOp)
      .Case("nn.upsampling", upsamplingOp)
      .Case("image.resize2d", resize2dOp)
      .Default(nullptr);
}

} // namespace hx::interp
