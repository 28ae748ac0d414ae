//===- Resize.cpp - Kernels of image.resize2d and nn.upsampling -----------===//
//
// image.resize2d: per output row (n, c, oh) its taps (input rows and
// weights), per column the column's taps, and the weighted sum of the tap
// grid, in float32 with the coordinate arithmetic and rounding operation for
// operation as the interpreter's (TVM's topi/image/resize.py): 1 tap per dim
// for nearest_neighbor, 2 for linear, 4 for cubic. Where a plane's input
// rows resampled along x fit a scratch, separably: each input row's column
// sums once, then each output row's sum of them (the same sums in the
// same order). nn.upsampling is that
// kernel with TVM's topi upsampling's sampling (align_corners or asymmetric).
// Layouts as ConvPool.cpp reads them (Window.h).
//
//===----------------------------------------------------------------------===//

#include "Window.h"

using namespace llvm;

namespace hx {

namespace {
/// image.resize2d's sampling (see ShapeUtils.h and the interpreter).
using Sampling = ResizeSampling;

/// The taps of one output index along one dim: input indices (clamped into
/// the input) and float32 weights; `outside` (a bool, or null) when
/// tf_crop_and_resize extrapolates.
struct Taps {
  SmallVector<Value *, 4> index, weight;
  Value *outside = nullptr;
};
} // namespace

/// TVM's input coordinate (float32) of output index o, operation for
/// operation as the interpreter's resizeCoord.
static Value *resizeCoord(KernelBuilder &kb, const Sampling &s, Value *o, int64_t in, int64_t out,
                          double roiStart, double roiEnd, double given) {
  DType f = DType::Float32;
  auto c = [&](double v) { return kb.constant(f, v); };
  Value *fx = kb.cast(o, DType::Int64, f);
  Value *scale = c(given > 0 ? 1 / given : double(in) / double(out));
  auto halfPixel = [&] { return kb.sub(f, kb.mul(f, kb.add(f, fx, c(0.5)), scale), c(0.5)); };
  switch (s.coord) {
  case ResizeCoord::HalfPixelSymmetric: {
    double adjustment = given > 0 ? double(out) / (given * double(in)) : 1;
    return kb.add(f, c(double(in) / 2 * (1 - adjustment)), halfPixel());
  }
  case ResizeCoord::HalfPixel:
    return halfPixel();
  case ResizeCoord::AlignCorners:
    return out > 1 ? kb.mul(f, c(double(in - 1) / double(out - 1)), fx) : c(0);
  case ResizeCoord::Asymmetric:
    return kb.mul(f, scale, fx);
  case ResizeCoord::PytorchHalfPixel:
    return out > 1 ? halfPixel() : c(0);
  case ResizeCoord::TfHalfPixelForNN:
    return kb.mul(f, kb.add(f, fx, c(0.5)), scale);
  case ResizeCoord::TfCropAndResize:
    if (out <= 1)
      return c(0.5 * (roiStart + roiEnd) * double(in - 1));
    return kb.add(f, c(roiStart * double(in - 1)),
                  kb.div(f, kb.mul(f, kb.mul(f, fx, c(roiEnd - roiStart)), c(double(in - 1))),
                         c(double(out - 1))));
  }
  return c(0);
}

/// The taps of output index o along a dim of `in` inputs and `out` outputs,
/// as the interpreter's resizeTaps.
static Taps resizeTaps(KernelBuilder &kb, const Sampling &s, Value *o, int64_t in, int64_t out,
                       double roiStart, double roiEnd, double given) {
  DType f = DType::Float32;
  auto c = [&](float v) { return kb.constant(f, v); };
  auto clamp = [&](Value *i) { return kb.imin(kb.imax(i, kb.index(0)), kb.index(in - 1)); };
  // floor(x) as an index within [-4, in + 4], as the interpreter's.
  auto floorIndex = [&](Value *fl) {
    return kb.imin(kb.imax(kb.cast(fl, f, DType::Int64), kb.index(-4)), kb.index(in + 4));
  };
  Taps t;
  Value *x = resizeCoord(kb, s, o, in, out, roiStart, roiEnd, given);
  if (s.coord == ResizeCoord::TfCropAndResize)
    t.outside = kb.logicalOr(kb.compare(CmpOp::LT, f, x, c(0)),
                             kb.compare(CmpOp::GT, f, x, c(float(in - 1))));
  switch (s.method) {
  case ResizeMethod::NearestNeighbor: {
    Value *i;
    if (s.coord == ResizeCoord::Asymmetric && given == 0 && out % in == 0 &&
        double(out / in) <= 1 / (1e-5 * double(in) + 1e-5)) {
      i = kb.idiv(o, out / in); // TVM's exact integer path for integral upscaling
    } else {
      Value *r = nullptr;
      switch (s.rounding) {
      case ResizeRounding::Round:
        r = kb.math(MathFn::Round, f, {x});
        break;
      case ResizeRounding::RoundPreferFloor:
        r = kb.math(MathFn::Ceil, f, {kb.sub(f, x, c(0.5f))});
        break;
      case ResizeRounding::RoundPreferCeil:
        r = kb.math(MathFn::Floor, f, {kb.add(f, x, c(0.5f))});
        break;
      case ResizeRounding::Floor:
        r = kb.math(MathFn::Floor, f, {kb.add(f, x, c(1e-5f))});
        break;
      case ResizeRounding::Ceil:
        r = kb.math(MathFn::Ceil, f, {kb.sub(f, x, c(1e-5f))});
        break;
      }
      i = kb.cast(r, f, DType::Int64);
    }
    t.index = {clamp(i)};
    t.weight = {c(1)};
    return t;
  }
  case ResizeMethod::Linear: {
    Value *fl = kb.math(MathFn::Floor, f, {x});
    Value *i = floorIndex(fl), *frac = kb.sub(f, x, fl);
    t.index = {clamp(i), clamp(kb.iadd(i, 1))};
    t.weight = {kb.sub(f, c(1), frac), frac};
    return t;
  }
  case ResizeMethod::Cubic: {
    Value *fl = kb.math(MathFn::Floor, f, {x});
    Value *i = floorIndex(fl), *u = kb.sub(f, x, fl);
    Value *u2 = kb.mul(f, u, u), *u3 = kb.mul(f, u2, u);
    float a = s.alpha;
    auto mul = [&](float k, Value *v) { return kb.mul(f, c(k), v); };
    t.weight = {mul(a, kb.add(f, kb.sub(f, u3, mul(2, u2)), u)),
                kb.add(f, kb.sub(f, mul(a + 2, u3), mul(3 + a, u2)), c(1)),
                kb.sub(f, kb.add(f, mul(-(a + 2), u3), mul(3 + 2 * a, u2)), mul(a, u)),
                kb.add(f, mul(-a, u3), mul(a, u2))};
    if (s.exclude) {
      Value *sum = nullptr;
      for (int64_t k = 0; k < 4; ++k) {
        Value *off = kb.logicalOr(kb.icmp(CmpOp::LT, kb.iadd(i, k - 1), kb.index(0)),
                                  kb.icmp(CmpOp::GT, kb.iadd(i, k), kb.index(in)));
        t.weight[k] = kb.select(off, c(0), t.weight[k]);
        sum = sum ? kb.add(f, sum, t.weight[k]) : t.weight[k];
      }
      for (Value *&w : t.weight)
        w = kb.div(f, w, sum);
    }
    for (int64_t k = 0; k < 4; ++k)
      t.index.push_back(clamp(kb.iadd(i, k - 1)));
    return t;
  }
  }
  return t;
}

/// Σ weight[i] * value(i) over a dim's taps, in order (a lone tap's weight,
/// 1, not multiplied).
static Value *tapSum(KernelBuilder &kb, const Taps &t, function_ref<Value *(size_t)> value) {
  DType f = DType::Float32;
  Value *sum = nullptr;
  for (size_t i = 0; i < t.index.size(); ++i) {
    Value *v = value(i);
    Value *term = t.index.size() == 1 ? v : kb.mul(f, t.weight[i], v);
    sum = sum ? kb.add(f, sum, term) : term;
  }
  return sum;
}

/// image.resize2d's kernel, also nn.upsampling's: per output row (n, c, oh),
/// its taps, then per column the column's taps and the weighted sum of the
/// tap grid (float32, as TVM computes).
static Error emitResize(KernelBuilder &kb, const KernelSpec &spec, const Sampling &s) {
  const TensorType *dataT = spec.inputs[0], *outT = spec.outputs[0];
  Expected<std::pair<LayoutView, LayoutView>> layouts =
      getPoolLayouts(kb, spec, /*hasOutLayout=*/false);
  if (!layouts)
    return layouts.takeError();
  const LayoutView &dv = layouts->first, &ov = layouts->second;
  auto [n, c, h, w] = dv.size;
  int64_t oh = ov.size[2], ow = ov.size[3];
  if (anyZero(outT->shape))
    return Error::success();
  if (anyZero(dataT->shape))
    return unsupported(kb, spec, "an empty input with a non-empty result");
  DType t = dataT->dtype, f = DType::Float32;
  int64_t taps = s.method == ResizeMethod::NearestNeighbor ? 1
                 : s.method == ResizeMethod::Linear        ? 2
                                                           : 4;
  // Separable where the plane's input rows, each resampled along x, fit a
  // scratch of 256 KB: per plane (n, c), each input row's resampling
  // along x once (the column taps' sum, as below), then each output row
  // the row taps' weighted sum of those rows, a loop over x that reads
  // them in order and vectorizes. The sums are the same, in the same order,
  // as the direct form's; an upscaling by 16 computes the column taps 16
  // times less often (DeepLabV3's 21x14x14 -> 224x224: 2.3 -> 0.2 ms). A
  // lone plane keeps the direct form, whose rows spread over the threads.
  if (s.coord != ResizeCoord::TfCropAndResize && h * ow <= (int64_t(1) << 16) && n * c >= 2) {
    kb.parallelFor(n * c, (taps * 2 + 20) * ow * h + taps * 2 * ow * oh, [&](Value *p) {
      SmallVector<Value *, 4> idx = kb.unflatten(p, {n, c});
      Value *in = kb.buffer(spec.inputBuffer(0)), *res = kb.buffer(spec.outputBuffer(0));
      Value *planeBase = kb.linearOffset(idx, {dv.stride[0], dv.stride[1]});
      Value *outPlane = kb.linearOffset(idx, {ov.stride[0], ov.stride[1]});
      kb.withScratch(f, h * ow, [&](Value *rows) {
        kb.forRange(0, h, [&](Value *y) {
          Value *rowBase = kb.iadd(planeBase, kb.imul(y, dv.stride[2]));
          kb.forRange(0, ow, [&](Value *x) {
            Taps col = resizeTaps(kb, s, x, w, ow, s.roi[1], s.roi[3], s.scales[1]);
            Value *sum = tapSum(kb, col, [&](size_t i) {
              return kb.cast(kb.load(t, in, kb.iadd(rowBase, kb.imul(col.index[i], dv.stride[3]))),
                             t, f);
            });
            kb.store(f, rows, kb.iadd(kb.imul(y, ow), x), sum);
          });
        });
        kb.forRange(0, oh, [&](Value *y) {
          Taps row = resizeTaps(kb, s, y, h, oh, s.roi[0], s.roi[2], s.scales[0]);
          Value *outBase = kb.iadd(outPlane, kb.imul(y, ov.stride[2]));
          SmallVector<Value *, 4> from;
          for (Value *r : row.index)
            from.push_back(kb.imul(r, ow));
          kb.forRange(0, ow, [&](Value *x) {
            Value *v =
                tapSum(kb, row, [&](size_t j) { return kb.load(f, rows, kb.iadd(from[j], x)); });
            kb.store(outT->dtype, res, kb.iadd(outBase, kb.imul(x, ov.stride[3])),
                     kb.cast(v, f, outT->dtype));
          });
        });
      });
    });
    return Error::success();
  }
  kb.parallelFor(n * c * oh, (taps * taps * 2 + 20) * ow, [&](Value *p) {
    SmallVector<Value *, 4> idx = kb.unflatten(p, {n, c, oh});
    Value *in = kb.buffer(spec.inputBuffer(0)), *res = kb.buffer(spec.outputBuffer(0));
    Value *planeBase = kb.linearOffset({idx[0], idx[1]}, {dv.stride[0], dv.stride[1]});
    Value *outBase = kb.linearOffset(idx, {ov.stride[0], ov.stride[1], ov.stride[2]});
    Taps row = resizeTaps(kb, s, idx[2], h, oh, s.roi[0], s.roi[2], s.scales[0]);
    kb.forRange(0, ow, [&](Value *x) {
      Taps col = resizeTaps(kb, s, x, w, ow, s.roi[1], s.roi[3], s.scales[1]);
      Value *v = tapSum(kb, row, [&](size_t j) {
        Value *rowBase = kb.iadd(planeBase, kb.imul(row.index[j], dv.stride[2]));
        return tapSum(kb, col, [&](size_t i) {
          return kb.cast(kb.load(t, in, kb.iadd(rowBase, kb.imul(col.index[i], dv.stride[3]))), t,
                         f);
        });
      });
      if (row.outside)
        v = kb.select(kb.logicalOr(row.outside, col.outside), kb.constant(f, s.extrapolation), v);
      kb.store(outT->dtype, res, kb.iadd(outBase, kb.imul(x, ov.stride[3])),
               kb.cast(v, f, outT->dtype));
    });
  });
  return Error::success();
}

static Error resize2dKernel(KernelBuilder &kb, const KernelSpec &spec) {
  std::string mode = spec.getString("coordinate_transformation_mode");
  std::optional<ResizeMethod> method = parseResizeMethod(spec.getString("method"));
  std::optional<ResizeCoord> coord = parseResizeCoord(mode);
  if (!method || !coord)
    return unsupported(kb, spec, "method " + spec.getString("method") + " with " + mode);
  std::optional<ResizeRounding> rounding =
      parseResizeRounding(spec.getString("rounding_method"), *coord);
  if (!rounding && *method == ResizeMethod::NearestNeighbor)
    return unsupported(kb, spec, "rounding_method " + spec.getString("rounding_method"));
  Sampling s{*method,
             *coord,
             rounding.value_or(ResizeRounding::Round),
             float(spec.getFloat("cubic_alpha")),
             spec.getInt("cubic_exclude") != 0,
             {0, 0, 0, 0},
             float(spec.getFloat("extrapolation_value"))};
  SmallVector<double, 4> roi = attrFloats(spec.attr("roi"));
  if (roi.size() == 4)
    std::copy(roi.begin(), roi.end(), s.roi.begin());
  SmallVector<double, 4> scales = attrFloats(spec.attr("scales"));
  if (scales.size() == 2)
    s.scales = {scales[0], scales[1]};
  return emitResize(kb, spec, s);
}

/// TVM's topi upsampling: resize2d (to the result's size, round(in * scale))
/// with align_corners or asymmetric coordinates and the default rounding.
static Error upsamplingKernel(KernelBuilder &kb, const KernelSpec &spec) {
  std::optional<ResizeMethod> method = parseUpsamplingMethod(spec.getString("method"));
  if (!method)
    return unsupported(kb, spec, "method " + spec.getString("method"));
  Sampling s = upsamplingSampling(*method, spec.getBool("align_corners"));
  return emitResize(kb, spec, s);
}

ArrayRef<KernelEntry> resizeKernels() {
  static const KernelEntry table[] = {
      {"nn.upsampling", upsamplingKernel},
      {"image.resize2d", resize2dKernel},
  };
  return table;
}

} // namespace hx
