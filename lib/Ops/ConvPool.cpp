//===- ConvPool.cpp - Convolution, pooling and resizing -------------------===//
//
// TVM's Conv2DRel, Conv1DRel and Pool2DRel for layouts that are permutations
// of NCHW (data, output) and OIHW (kernel), or NCW and OIW for nn.conv1d;
// blocked layouts such as NCHW16c are not supported. With padding (top,
// left, bottom, right) and dilation d:
//
//   out = (in + top + bottom - (d * (k - 1) + 1)) / stride + 1
//
// (pooling with ceil_mode rounds the division up; nn.max_pool2d and
// nn.avg_pool2d share one relation). Padding is written with 1 value (all
// sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right); for
// nn.conv1d 1 (both sides) or 2 (left, right), and its strides and dilation
// have 1 value. nn.conv1d and nn.conv2d share one relation. A `?` input dim
// gives a `?` output dim. nn.adaptive_avg_pool2d's output_size is
// None or [] (the input's H and W), one value (both) or two, where a None
// item keeps that input dim. nn.upsampling's output H and W are
// round(in * scale), halves to even (TVM's UpSamplingRel, folded with
// nearbyint). image.resize2d's output H and W are its `size`
// (TVM's Resize2DRel); its method, coordinate_transformation_mode and
// rounding_method (for nearest_neighbor) are checked here, where TVM's
// topi would reject them. Beyond TVM, its `scales` (ONNX Resize's
// output/input scale of H and W) map coordinates by the scale instead of
// the ratio of the sizes, where a fractional size was rounded down, and
// coordinate_transformation_mode takes ONNX's half_pixel_symmetric.
//
//   nn.conv2d(Tensor[(1, 3, 32, 32)], Tensor[(16, 3, 3, 3)], padding=[1, 1])
//     : Tensor[(1, 16, 32, 32), float32]
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"
#include "llvm/Support/MathExtras.h"
#include <array>
#include <cmath>

using namespace llvm;

namespace hx {

static constexpr int64_t kDyn = TensorType::kDynamic;

namespace {
/// Positions of the layout letters, e.g. "NHWC" -> N=0, C=3, H=1, W=2.
struct Layout {
  SmallVector<unsigned, 4> pos; // in the order of `letters`
};
} // namespace

/// Parses `attr` as a permutation of `letters` (distinct characters).
static std::optional<Layout> parseLayout(TypeRelContext &ctx, StringRef attr, StringRef letters,
                                         StringRef fallbackAttr = {}) {
  std::string text = ctx.getString(attr);
  if (text.empty() && !fallbackAttr.empty())
    text = ctx.getString(fallbackAttr);
  if (std::optional<SmallVector<unsigned, 4>> pos = layoutPositions(text, letters))
    return Layout{std::move(*pos)};
  ctx.attrError(attr, "unsupported " + attr + " '" + text + "' (expected a permutation of " +
                          letters + ")");
  return std::nullopt;
}

/// Reads a `count`-value attribute (one value means all), all >= `min`.
static std::optional<Shape> getValues(TypeRelContext &ctx, StringRef attr, size_t count,
                                      int64_t min) {
  Shape v = ctx.getInts(attr);
  if (v.size() == 1)
    v.resize(count, v[0]);
  if (v.size() != count) {
    ctx.attrError(attr, attr + " must have " + (count == 1 ? "1 value" : "1 or 2 values") +
                            ", got " + Twine(v.size()));
    return std::nullopt;
  }
  if (llvm::any_of(v, [&](int64_t x) { return x < min; })) {
    ctx.attrError(attr,
                  attr + " values must be at least " + Twine(min) + ", got " + intListToString(v));
    return std::nullopt;
  }
  return v;
}

/// Reads a 2-value attribute (one value means both), all >= `min`.
static std::optional<std::pair<int64_t, int64_t>> getPair(TypeRelContext &ctx, StringRef attr,
                                                          int64_t min) {
  std::optional<Shape> v = getValues(ctx, attr, 2, min);
  if (!v)
    return std::nullopt;
  return std::make_pair((*v)[0], (*v)[1]);
}

/// Reads padding as (top, left, bottom, right), or for `spatial` 1 as
/// (left, right).
static std::optional<Shape> getPadding(TypeRelContext &ctx, unsigned spatial = 2) {
  Shape p = ctx.getInts("padding");
  std::optional<Shape> out;
  if (spatial == 1) {
    if (std::optional<std::array<int64_t, 2>> lr = padding1d(p))
      out = Shape(lr->begin(), lr->end());
  } else if (std::optional<std::array<int64_t, 4>> tlbr = padding2d(p)) {
    out = Shape(tlbr->begin(), tlbr->end());
  }
  if (!out) {
    ctx.attrError("padding", "padding must have " + Twine(spatial == 1 ? "1 or 2" : "1, 2 or 4") +
                                 " values, got " + Twine(p.size()));
    return std::nullopt;
  }
  for (int64_t v : *out) {
    if (v < 0) {
      ctx.attrError("padding", "padding must be non-negative, got " + intListToString(p));
      return std::nullopt;
    }
  }
  return out;
}

/// One spatial output dim; nullopt (after an error) when the window does not
/// fit in the padded input.
static std::optional<int64_t> windowDim(TypeRelContext &ctx, StringRef what, int64_t in,
                                        int64_t padBefore, int64_t padAfter, int64_t window,
                                        int64_t dilation, int64_t stride, bool ceilMode) {
  if (in == kDyn || window == kDyn)
    return kDyn;
  if (window < 1) {
    ctx.error("the " + what + " window is empty", {0});
    return std::nullopt;
  }
  // Attribute values may be huge: compute without overflow.
  int64_t span, padded;
  if (MulOverflow(dilation, window - 1, span) || AddOverflow(span, int64_t(1), span) ||
      AddOverflow(in, padBefore, padded) || AddOverflow(padded, padAfter, padded)) {
    ctx.error("the " + what + " window or the padding is too large", {0});
    return std::nullopt;
  }
  int64_t room = padded - span;
  if (room < 0) {
    ctx.error("the " + what + " window (" + Twine(span) +
                  " with dilation) is larger than the padded input (" + Twine(padded) + ")",
              {0});
    return std::nullopt;
  }
  return room / stride + (ceilMode && room % stride != 0 ? 1 : 0) + 1;
}

/// A tensor type in layout `l` with the logical dims `dims` (in the order
/// of the layout's letters).
/// The 4-D data of a pooling or resizing relation and its `layout`
/// attribute (a permutation of NCHW); nullopt after reporting.
static std::optional<Layout> imageData(TypeRelContext &ctx, const TensorType *&data) {
  data = ctx.tensorArg(0);
  if (!data)
    return std::nullopt;
  if (data->rank() != 4) {
    ctx.error("data must have rank 4, got shape " + shapeToString(data->shape), {0});
    return std::nullopt;
  }
  return parseLayout(ctx, "layout", "NCHW");
}

static TypeRef makeLayoutType(const Layout &l, ArrayRef<int64_t> dims, DType dt) {
  Shape out(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    out[l.pos[i]] = dims[i];
  return makeTensorType(out, dt);
}

static TypeRef makeLayoutType(const Layout &l, int64_t n, int64_t c, int64_t h, int64_t w,
                              DType dt) {
  return makeLayoutType(l, {n, c, h, w}, dt);
}

static bool dimsAgree(int64_t a, int64_t b) { return a == b || a == kDyn || b == kDyn; }

/// TVM's Conv2DRel (`spatial` 2: H and W) and Conv1DRel (`spatial` 1: W).
static TypeRef convRel(TypeRelContext &ctx, unsigned spatial) {
  const TensorType *data = ctx.tensorArg(0);
  const TensorType *weight = data ? ctx.tensorArg(1) : nullptr;
  if (!weight)
    return nullptr;
  if (data->dtype != weight->dtype) {
    ctx.error("dtypes " + dtypeName(data->dtype) + " and " + dtypeName(weight->dtype) +
                  " do not match",
              {0, 1});
    return nullptr;
  }
  size_t rank = spatial + 2;
  if (data->rank() != rank || weight->rank() != rank) {
    ctx.error("data and weight must have rank " + Twine(rank) + ", got shapes " +
                  shapeToString(data->shape) + " and " + shapeToString(weight->shape),
              {0, 1});
    return nullptr;
  }
  StringRef dataLetters = spatial == 2 ? "NCHW" : "NCW",
            kernelLetters = spatial == 2 ? "OIHW" : "OIW";
  auto dl = parseLayout(ctx, "data_layout", dataLetters);
  auto kl = dl ? parseLayout(ctx, "kernel_layout", kernelLetters) : std::nullopt;
  auto ol = kl ? parseLayout(ctx, "out_layout", dataLetters, "data_layout") : std::nullopt;
  auto strides = ol ? getValues(ctx, "strides", spatial, 1) : std::nullopt;
  auto dilation = strides ? getValues(ctx, "dilation", spatial, 1) : std::nullopt;
  auto pad = dilation ? getPadding(ctx, spatial) : std::nullopt;
  if (!pad)
    return nullptr;
  int64_t groups = ctx.getInt("groups");
  if (groups < 1) {
    ctx.attrError("groups", "groups must be positive, got " + Twine(groups));
    return nullptr;
  }

  int64_t n = data->shape[dl->pos[0]], c = data->shape[dl->pos[1]];
  int64_t o = weight->shape[kl->pos[0]], i = weight->shape[kl->pos[1]];
  Shape in, kernel; // the spatial dims
  for (unsigned d = 0; d < spatial; ++d) {
    in.push_back(data->shape[dl->pos[2 + d]]);
    kernel.push_back(weight->shape[kl->pos[2 + d]]);
  }

  if (c != kDyn && c % groups != 0) {
    ctx.error(Twine(c) + " input channels are not divisible by groups=" + Twine(groups), {0});
    return nullptr;
  }
  if (o != kDyn && o % groups != 0) {
    ctx.error(Twine(o) + " output channels are not divisible by groups=" + Twine(groups), {1});
    return nullptr;
  }
  int64_t expected;
  if (c != kDyn && i != kDyn && (MulOverflow(i, groups, expected) || expected != c)) {
    ctx.error("weight " + shapeToString(weight->shape) + " has " + Twine(i) +
                  " input channels per group, but data " + shapeToString(data->shape) + " has " +
                  Twine(c) + " channels in groups=" + Twine(groups),
              {0, 1});
    return nullptr;
  }
  if (std::optional<int64_t> channels = ctx.getOptInt("channels")) {
    if (!dimsAgree(*channels, o)) {
      ctx.attrError("channels", "channels=" + Twine(*channels) + " does not match the weight's " +
                                    dimToString(o) + " output channels");
      return nullptr;
    }
    o = *channels;
  }
  if (std::optional<Shape> ks = ctx.getOptInts("kernel_size")) {
    bool agree = ks->size() == spatial;
    for (unsigned d = 0; agree && d < spatial; ++d)
      agree = dimsAgree((*ks)[d], kernel[d]);
    if (!agree) {
      ctx.attrError("kernel_size", "kernel_size=" + intListToString(*ks) +
                                       " does not match the weight's " + shapeToString(kernel));
      return nullptr;
    }
  }
  Shape out = {n, o};
  for (unsigned d = 0; d < spatial; ++d) {
    std::optional<int64_t> dim = windowDim(ctx, "kernel", in[d], (*pad)[d], (*pad)[spatial + d],
                                           kernel[d], (*dilation)[d], (*strides)[d], false);
    if (!dim)
      return nullptr;
    out.push_back(*dim);
  }
  std::optional<DType> dt = ctx.getDType("out_dtype");
  if (dt && !ctx.checkAttrDType("out_dtype", *dt, ctx.def.dtypes))
    return nullptr;
  return makeLayoutType(*ol, out, dt.value_or(data->dtype));
}

static TypeRef conv1dRel(TypeRelContext &ctx) { return convRel(ctx, 1); }
static TypeRef conv2dRel(TypeRelContext &ctx) { return convRel(ctx, 2); }

/// TVM's Pool2DRel, shared by nn.max_pool2d and nn.avg_pool2d.
static TypeRef pool2dRel(TypeRelContext &ctx) {
  const TensorType *data;
  std::optional<Layout> l = imageData(ctx, data);
  auto ol = l ? parseLayout(ctx, "out_layout", "NCHW", "layout") : std::nullopt;
  auto pool = ol ? getPair(ctx, "pool_size", 1) : std::nullopt;
  auto strides = pool ? getPair(ctx, "strides", 1) : std::nullopt;
  auto dilation = strides ? getPair(ctx, "dilation", 1) : std::nullopt;
  auto pad = dilation ? getPadding(ctx) : std::nullopt;
  if (!pad)
    return nullptr;
  bool ceilMode = ctx.getBool("ceil_mode");
  int64_t h = data->shape[l->pos[2]], w = data->shape[l->pos[3]];
  auto oh = windowDim(ctx, "pooling", h, (*pad)[0], (*pad)[2], pool->first, dilation->first,
                      strides->first, ceilMode);
  auto ow = oh ? windowDim(ctx, "pooling", w, (*pad)[1], (*pad)[3], pool->second, dilation->second,
                           strides->second, ceilMode)
               : std::nullopt;
  if (!ow)
    return nullptr;
  return makeLayoutType(*ol, data->shape[l->pos[0]], data->shape[l->pos[1]], *oh, *ow, data->dtype);
}

static TypeRef globalAvgPool2dRel(TypeRelContext &ctx) {
  const TensorType *data;
  std::optional<Layout> l = imageData(ctx, data);
  auto ol = l ? parseLayout(ctx, "out_layout", "NCHW", "layout") : std::nullopt;
  if (!ol)
    return nullptr;
  return makeLayoutType(*ol, data->shape[l->pos[0]], data->shape[l->pos[1]], 1, 1, data->dtype);
}

static TypeRef adaptiveAvgPool2dRel(TypeRelContext &ctx) {
  const TensorType *data;
  std::optional<Layout> l = imageData(ctx, data);
  auto ol = l ? parseLayout(ctx, "out_layout", "NCHW", "layout") : std::nullopt;
  if (!ol)
    return nullptr;
  AttrValue size = ctx.attr("output_size");
  std::optional<std::array<int64_t, 2>> out =
      adaptiveOutputSize(size, data->shape[l->pos[2]], data->shape[l->pos[3]]);
  if (!out) {
    if (size.list.size() > 2)
      ctx.attrError("output_size",
                    "output_size must have at most 2 values, got " + Twine(size.list.size()));
    else
      ctx.attrError("output_size", "output_size values must be non-negative");
    return nullptr;
  }
  return makeLayoutType(*ol, data->shape[l->pos[0]], data->shape[l->pos[1]], (*out)[0], (*out)[1],
                        data->dtype);
}

/// TVM's UpSamplingRel: H and W scaled (rounded to the nearest integer).
static TypeRef upsamplingRel(TypeRelContext &ctx) {
  const TensorType *data;
  std::optional<Layout> l = imageData(ctx, data);
  if (!l)
    return nullptr;
  std::string method = ctx.getString("method");
  if (!parseUpsamplingMethod(method)) {
    ctx.attrError("method", "unsupported method '" + method +
                                "' (expected nearest_neighbor, bilinear or bicubic)");
    return nullptr;
  }
  int64_t out[2];
  for (unsigned i = 0; i < 2; ++i) {
    StringRef attr = i ? "scale_w" : "scale_h";
    int64_t in = data->shape[l->pos[2 + i]];
    double scale = ctx.getFloat(attr);
    std::optional<int64_t> dim = in == kDyn ? kDyn : upsampledDim(in, scale);
    if (!dim) {
      ctx.attrError(attr, attr + "=" + formatNumber(scale) + " scales " + Twine(in) +
                              " to no valid size");
      return nullptr;
    }
    out[i] = *dim;
  }
  return makeLayoutType(*l, data->shape[l->pos[0]], data->shape[l->pos[1]], out[0], out[1],
                        data->dtype);
}

/// TVM's Resize2DRel, and the sampling attributes topi's resize2d rejects.
static TypeRef resize2dRel(TypeRelContext &ctx) {
  const TensorType *data;
  std::optional<Layout> l = imageData(ctx, data);
  if (!l)
    return nullptr;
  std::optional<Shape> size = ctx.getOptInts("size");
  if (!size || size->size() != 2) {
    ctx.attrError("size", "size must have 2 values (height, width), got " +
                              (size ? Twine(size->size()) : Twine("None")));
    return nullptr;
  }
  if ((*size)[0] < 0 || (*size)[1] < 0) {
    ctx.attrError("size", "size values must be non-negative, got " + intListToString(*size));
    return nullptr;
  }
  AttrValue roi = ctx.attr("roi");
  if (!roi.isNone() && roi.list.size() != 4) {
    ctx.attrError("roi", "roi must have 4 values (start_h, start_w, end_h, end_w), got " +
                             Twine(roi.list.size()));
    return nullptr;
  }
  std::string method = ctx.getString("method"),
              mode = ctx.getString("coordinate_transformation_mode");
  std::optional<ResizeMethod> m = parseResizeMethod(method);
  if (!m) {
    ctx.attrError("method", "unsupported method '" + method +
                                "' (expected nearest_neighbor, linear or cubic)");
    return nullptr;
  }
  std::optional<ResizeCoord> coord = parseResizeCoord(mode);
  if (!coord) {
    ctx.attrError("coordinate_transformation_mode",
                  "unsupported coordinate_transformation_mode '" + mode +
                      "' (expected half_pixel, align_corners, asymmetric, pytorch_half_pixel, "
                      "tf_half_pixel_for_nn, tf_crop_and_resize or half_pixel_symmetric)");
    return nullptr;
  }
  SmallVector<double, 4> scales = attrFloats(ctx.attr("scales"));
  if (ctx.isExplicit("scales") && (scales.size() != 2 || !(scales[0] > 0) || !(scales[1] > 0) ||
                                   !std::isfinite(scales[0]) || !std::isfinite(scales[1]))) {
    ctx.attrError("scales", "scales must be None or 2 positive finite values (H, W)");
    return nullptr;
  }
  // Only nearest_neighbor rounds (TVM ignores rounding_method otherwise).
  std::string rounding = ctx.getString("rounding_method");
  if (*m == ResizeMethod::NearestNeighbor && !parseResizeRounding(rounding, *coord)) {
    ctx.attrError("rounding_method", "unsupported rounding_method '" + rounding +
                                         "' (expected \"\", round, floor, ceil, "
                                         "round_prefer_floor or round_prefer_ceil)");
    return nullptr;
  }
  std::optional<DType> dt = ctx.getDType("out_dtype");
  if (dt && !ctx.checkAttrDType("out_dtype", *dt, ctx.def.dtypes))
    return nullptr;
  return makeLayoutType(*l, data->shape[l->pos[0]], data->shape[l->pos[1]], (*size)[0], (*size)[1],
                        dt.value_or(data->dtype));
}

void addConvPoolOps(std::vector<OpDef> &ops) {
  OpDef conv;
  conv.name = "nn.conv2d";
  conv.summary = "2-D convolution (NCHW data, OIHW kernel by default)";
  conv.numArgs = 2;
  conv.attrs = {
      intListAttr("strides", {1, 1}),         intListAttr("padding", {0, 0, 0, 0}),
      intListAttr("dilation", {1, 1}),        intAttr("groups", 1),
      noneAttr("channels", AttrKind::OptInt), noneAttr("kernel_size", AttrKind::OptIntList),
      stringAttr("data_layout", "NCHW"),      stringAttr("kernel_layout", "OIHW"),
      stringAttr("out_layout", ""),           dtypeAttr("out_dtype", "")};
  conv.relation = conv2dRel;
  conv.pattern = OpPattern::OutElementwiseFusable;
  ops.push_back(std::move(conv));

  OpDef conv1d;
  conv1d.name = "nn.conv1d";
  conv1d.summary = "1-D convolution (NCW data, OIW kernel by default)";
  conv1d.numArgs = 2;
  conv1d.attrs = {intListAttr("strides", {1}),
                  intListAttr("padding", {0, 0}),
                  intListAttr("dilation", {1}),
                  intAttr("groups", 1),
                  noneAttr("channels", AttrKind::OptInt),
                  noneAttr("kernel_size", AttrKind::OptIntList),
                  stringAttr("data_layout", "NCW"),
                  stringAttr("kernel_layout", "OIW"),
                  stringAttr("out_layout", ""),
                  dtypeAttr("out_dtype", "")};
  conv1d.relation = conv1dRel;
  conv1d.pattern = OpPattern::OutElementwiseFusable;
  ops.push_back(std::move(conv1d));

  OpDef maxPool;
  maxPool.name = "nn.max_pool2d";
  maxPool.summary = "2-D max pooling";
  maxPool.numArgs = 1;
  maxPool.attrs = {intListAttr("pool_size", {1, 1}), intListAttr("strides", {1, 1}),
                   intListAttr("dilation", {1, 1}),  intListAttr("padding", {0, 0}),
                   stringAttr("layout", "NCHW"),     stringAttr("out_layout", ""),
                   boolAttr("ceil_mode", false)};
  maxPool.relation = pool2dRel;
  maxPool.pattern = OpPattern::OutElementwiseFusable;
  ops.push_back(std::move(maxPool));

  OpDef avgPool;
  avgPool.name = "nn.avg_pool2d";
  avgPool.summary = "2-D average pooling";
  avgPool.numArgs = 1;
  avgPool.attrs = {intListAttr("pool_size", {1, 1}), intListAttr("strides", {1, 1}),
                   intListAttr("dilation", {1, 1}),  intListAttr("padding", {0, 0}),
                   stringAttr("layout", "NCHW"),     stringAttr("out_layout", ""),
                   boolAttr("ceil_mode", false),     boolAttr("count_include_pad", false)};
  avgPool.relation = pool2dRel;
  avgPool.pattern = OpPattern::OutElementwiseFusable;
  ops.push_back(std::move(avgPool));

  OpDef adaptive;
  adaptive.name = "nn.adaptive_avg_pool2d";
  adaptive.summary = "2-D average pooling to a given output size";
  adaptive.numArgs = 1;
  AttrSpec outputSize = intListAttr("output_size", {});
  outputSize.kind = AttrKind::SizeList;
  adaptive.attrs = {outputSize, stringAttr("layout", "NCHW"), stringAttr("out_layout", "")};
  adaptive.relation = adaptiveAvgPool2dRel;
  adaptive.pattern = OpPattern::OutElementwiseFusable;
  ops.push_back(std::move(adaptive));

  OpDef gap;
  gap.name = "nn.global_avg_pool2d";
  gap.summary = "Average over the spatial dims (H, W become 1)";
  gap.numArgs = 1;
  gap.attrs = {stringAttr("layout", "NCHW"), stringAttr("out_layout", "")};
  gap.relation = globalAvgPool2dRel;
  gap.pattern = OpPattern::OutElementwiseFusable;
  ops.push_back(std::move(gap));

  OpDef upsampling;
  upsampling.name = "nn.upsampling";
  upsampling.summary = "Scales the spatial dims (nearest, bilinear or bicubic sampling)";
  upsampling.numArgs = 1;
  upsampling.attrs = {requiredAttr("scale_h", AttrKind::Float),
                      requiredAttr("scale_w", AttrKind::Float), stringAttr("layout", "NCHW"),
                      stringAttr("method", "nearest_neighbor"), boolAttr("align_corners", false)};
  upsampling.relation = upsamplingRel;
  upsampling.pattern = OpPattern::Injective;
  ops.push_back(std::move(upsampling));

  OpDef resize;
  resize.name = "image.resize2d";
  resize.summary = "Resizes the spatial dims (nearest, linear or cubic sampling)";
  resize.numArgs = 1;
  resize.attrs = {noneAttr("size", AttrKind::OptIntList),
                  noneAttr("roi", AttrKind::OptFloatList),
                  noneAttr("scales", AttrKind::OptFloatList),
                  stringAttr("layout", "NCHW"),
                  stringAttr("method", "linear"),
                  stringAttr("coordinate_transformation_mode", "half_pixel"),
                  stringAttr("rounding_method", "round"),
                  floatAttr("cubic_alpha", -0.5),
                  intAttr("cubic_exclude", 0),
                  floatAttr("extrapolation_value", 0.0),
                  dtypeAttr("out_dtype", "")};
  resize.relation = resize2dRel;
  resize.pattern = OpPattern::Injective;
  ops.push_back(std::move(resize));
}

} // namespace hx
