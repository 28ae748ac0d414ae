//===- ShapeUtils.cpp - Broadcasting, reshape and slice arithmetic --------===//
//
// Broadcasting walks both shapes from the right, one dim at a time. Reshape
// follows TVM's ReshapeRel: a cursor into the input shape advances as each
// newshape entry consumes input dims; the single -1 is solved last from the
// element count, unless a dynamic dim makes the count unknown. strided_slice
// first completes begin, end and strides to one entry per sliced axis (as
// StridedSliceRel pads them), then canonicalizes each axis on its own.
//
//===----------------------------------------------------------------------===//

#include "hx/Ops/ShapeUtils.h"
#include "hx/IR/Type.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <limits>

using namespace llvm;

namespace hx {

static constexpr int64_t kDyn = TensorType::kDynamic;

std::string dimToString(int64_t dim) {
  return dim == kDyn ? std::string("?") : std::to_string(dim);
}

std::string shapeToString(ArrayRef<int64_t> shape) {
  std::string s;
  raw_string_ostream os(s);
  os << '(';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      os << ", ";
    if (shape[i] == kDyn)
      os << '?';
    else
      os << shape[i];
  }
  os << ')';
  return s;
}

std::optional<Shape> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    int64_t d;
    if (da == db)
      d = da;
    else if (da == 1)
      d = db;
    else if (db == 1)
      d = da;
    else if (da == kDyn)
      d = db;
    else if (db == kDyn)
      d = da;
    else
      return std::nullopt;
    out[rank - 1 - i] = d;
  }
  return out;
}

std::optional<int64_t> shapeProduct(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (MulOverflow(n, d, n))
      return std::nullopt;
  }
  return n;
}

std::string intListToString(ArrayRef<int64_t> values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

static Error reshapeError(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg);
}

Expected<Shape> inferReshape(ArrayRef<int64_t> in, ArrayRef<int64_t> newshape, bool allowZero) {
  Shape out;
  size_t src = 0;
  std::optional<size_t> inferIndex;

  for (size_t i = 0; i < newshape.size(); ++i) {
    int64_t v = newshape[i];
    if (v > 0) {
      out.push_back(v);
      ++src;
    } else if (v == 0) {
      if (allowZero) {
        out.push_back(0);
      } else {
        if (src >= in.size())
          return reshapeError("newshape entry 0 at position " + Twine(i) +
                              " has no input dimension to copy (input rank " + Twine(in.size()) +
                              ")");
        out.push_back(in[src]);
      }
      ++src;
    } else if (v == -1) {
      if (inferIndex)
        return reshapeError("newshape may contain -1 only once");
      inferIndex = out.size();
      out.push_back(kDyn);
      ++src;
    } else if (v == -2) {
      for (; src < in.size(); ++src)
        out.push_back(in[src]);
    } else if (v == -3) {
      if (src + 1 >= in.size())
        return reshapeError("newshape entry -3 at position " + Twine(i) +
                            " needs two remaining input dimensions");
      int64_t d0 = in[src], d1 = in[src + 1], d;
      if (d0 == kDyn || d1 == kDyn)
        d = kDyn;
      else if (MulOverflow(d0, d1, d))
        return reshapeError("dimension product overflows");
      out.push_back(d);
      src += 2;
    } else if (v == -4) {
      if (i + 2 >= newshape.size())
        return reshapeError("newshape entry -4 at position " + Twine(i) +
                            " must be followed by two sizes");
      if (src >= in.size())
        return reshapeError("newshape entry -4 at position " + Twine(i) +
                            " has no input dimension to split");
      int64_t d = in[src], d1 = newshape[i + 1], d2 = newshape[i + 2];
      if (d1 < -1 || d2 < -1 || d1 == 0 || d2 == 0 || (d1 == -1 && d2 == -1))
        return reshapeError("the two sizes after -4 must be positive, with "
                            "at most one -1");
      if (d1 == -1)
        d1 = d == kDyn ? kDyn : d / d2;
      else if (d2 == -1)
        d2 = d == kDyn ? kDyn : d / d1;
      int64_t prod = 0;
      if (d != kDyn && (d1 == kDyn || d2 == kDyn || MulOverflow(d1, d2, prod) || prod != d))
        return reshapeError("-4 cannot split dimension " + Twine(d) + " into " +
                            Twine(newshape[i + 1]) + " and " + Twine(newshape[i + 2]));
      out.push_back(d1);
      out.push_back(d2);
      i += 2;
      ++src;
    } else {
      return reshapeError("newshape entry " + Twine(v) + " at position " + Twine(i) +
                          " is not a size or one of 0, -1, -2, -3, -4");
    }
  }

  auto isStatic = [](ArrayRef<int64_t> s) {
    return llvm::all_of(s, [](int64_t d) { return d >= 0; });
  };
  auto tooLarge = [&] {
    return reshapeError("newshape " + intListToString(newshape) + " has too many elements");
  };
  std::optional<int64_t> inCount = shapeProduct(in);
  if (inferIndex) {
    Shape known(out);
    known.erase(known.begin() + *inferIndex);
    std::optional<int64_t> knownCount = shapeProduct(known);
    if (!knownCount && isStatic(known))
      return tooLarge();
    if (!inCount || !knownCount) {
      out[*inferIndex] = kDyn;
      return out;
    }
    if (*knownCount == 0 || *inCount % *knownCount != 0)
      return reshapeError("cannot reshape " + shapeToString(in) + " (" + Twine(*inCount) +
                          " elements) into " + intListToString(newshape) +
                          ": -1 cannot be inferred");
    out[*inferIndex] = *inCount / *knownCount;
    return out;
  }
  std::optional<int64_t> outCount = shapeProduct(out);
  if (!outCount && isStatic(out))
    return tooLarge();
  if (inCount && outCount && *inCount != *outCount)
    return reshapeError("cannot reshape " + shapeToString(in) + " (" + Twine(*inCount) +
                        " elements) into " + shapeToString(out) + " (" + Twine(*outCount) +
                        " elements)");
  return out;
}

std::optional<SmallVector<SliceDim, 4>> stridedSlice(ArrayRef<int64_t> shape,
                                                     ArrayRef<int64_t> begin, ArrayRef<int64_t> end,
                                                     const std::optional<Shape> &strides,
                                                     const std::optional<Shape> &axes,
                                                     StringRef sliceMode, AttrProblem &problem) {
  auto fail = [&](StringRef attr, const Twine &msg) -> std::optional<SmallVector<SliceDim, 4>> {
    problem = {attr, msg.str()};
    return std::nullopt;
  };
  bool sizeMode = sliceMode == "size";
  if (!sizeMode && sliceMode != "end")
    return fail("slice_mode", "slice_mode must be \"end\" or \"size\", got \"" + sliceMode + "\"");
  const int64_t maxRange = std::numeric_limits<int64_t>::max();
  using Named = std::pair<StringRef, ArrayRef<int64_t>>;
  size_t rank = shape.size();
  Shape b(begin.begin(), begin.end()), e(end.begin(), end.end()), s, sliced;
  if (axes) {
    ArrayRef<int64_t> given = strides ? ArrayRef<int64_t>(*strides) : ArrayRef<int64_t>(*axes);
    for (auto [attr, list] : {Named{"begin", begin}, Named{"end", end}, Named{"strides", given}})
      if (list.size() != axes->size())
        return fail(attr, attr + " " + intListToString(list) + " must have one entry per axis in " +
                              intListToString(*axes));
    s = strides ? *strides : Shape(axes->size(), 1);
    for (int64_t a : *axes) {
      std::optional<unsigned> ax = normalizeAxis(a, rank);
      if (!ax)
        return fail("axes", "axis " + Twine(a) + " is out of range for rank " + Twine(rank));
      if (is_contained(sliced, int64_t(*ax)))
        return fail("axes",
                    "axes " + intListToString(*axes) + " lists axis " + Twine(*ax) + " twice");
      sliced.push_back(*ax);
    }
  } else {
    if (strides)
      s = *strides;
    for (auto [attr, list] : {Named{"begin", begin}, Named{"end", end}, Named{"strides", s}})
      if (list.size() > rank)
        return fail(attr, attr + " " + intListToString(list) + " has more entries than the rank " +
                              Twine(rank) + " of " + shapeToString(shape));
    s.resize(rank, 1);
    for (size_t i = b.size(); i < rank; ++i)
      b.push_back(s[i] > 0 ? 0 : maxRange);
    for (size_t i = e.size(); i < rank; ++i)
      e.push_back(s[i] < 0 ? 0 : maxRange);
    for (size_t i = 0; i < rank; ++i)
      sliced.push_back(int64_t(i));
  }

  SmallVector<SliceDim, 4> out;
  for (int64_t d : shape)
    out.push_back({0, 1, d});
  for (size_t i = 0; i < sliced.size(); ++i) {
    int64_t stride = sizeMode ? 1 : s[i];
    if (stride == 0)
      return fail("strides", "strides " + intListToString(*strides) + " has a 0 step");
    int64_t first = b[i], last = e[i];
    if (sizeMode)
      last = last < 0 ? maxRange : (first > maxRange - last ? maxRange : first + last);
    int64_t n = shape[sliced[i]];
    if (n == kDyn) {
      out[sliced[i]] = {0, stride, kDyn};
      continue;
    }
    int64_t lo = stride < 0 ? -1 : 0, hi = stride < 0 ? n - 1 : n;
    auto canonical = [&](int64_t v) { return std::clamp(v < 0 ? v + n : v, lo, hi); };
    int64_t from = canonical(first), to = canonical(last);
    if (stride < 0 ? to > from : from > to) {
      if (sizeMode)
        return fail("begin", "begin " + Twine(first) + " with size " + Twine(e[i]) +
                                 " ends before it starts on axis " + Twine(sliced[i]) +
                                 " of size " + Twine(n) +
                                 " (the size is added before a negative "
                                 "begin wraps)");
      return fail("begin", "begin " + Twine(first) + " and end " + Twine(last) + " slice axis " +
                               Twine(sliced[i]) + " of size " + Twine(n) + " backwards for step " +
                               Twine(stride));
    }
    uint64_t step = stride < 0 ? 0 - uint64_t(stride) : uint64_t(stride);
    uint64_t interval = uint64_t(stride < 0 ? from - to : to - from);
    out[sliced[i]] = {from, stride, int64_t(interval == 0 ? 0 : (interval - 1) / step + 1)};
  }
  return out;
}

} // namespace hx

namespace hx {

std::optional<unsigned> normalizeAxis(int64_t axis, size_t rank) {
  int64_t r = int64_t(rank);
  if (axis < -r || axis >= r)
    return std::nullopt;
  return unsigned(axis < 0 ? axis + r : axis);
}

Shape attrInts(const AttrValue &v) {
  Shape out;
  if (v.kind == AttrValue::Kind::Int)
    out.push_back(v.intValue);
  for (const AttrValue &e : v.list)
    out.push_back(e.intValue);
  return out;
}

std::optional<Shape> attrOptInts(const AttrValue &v) {
  if (v.isNone())
    return std::nullopt;
  return attrInts(v);
}

std::optional<SmallVector<IntPair, 4>> attrIntPairs(const AttrValue &v, size_t count,
                                                    StringRef attr, AttrProblem &problem) {
  auto fail = [&](const Twine &msg, int64_t entry) -> std::optional<SmallVector<IntPair, 4>> {
    problem = {attr, msg.str(), entry};
    return std::nullopt;
  };
  if (v.kind != AttrValue::Kind::List)
    return fail(attr + " must be a list of [before, after] pairs", -1);
  SmallVector<IntPair, 4> pairs;
  for (size_t i = 0; i < v.list.size(); ++i) {
    const AttrValue &e = v.list[i];
    Shape pair = attrInts(e);
    if (e.kind != AttrValue::Kind::List || pair.size() != 2)
      return fail(attr + " entry " + Twine(i) + " " + intListToString(pair) +
                      " is not a [before, after] pair",
                  int64_t(i));
    if (pair[0] < 0 || pair[1] < 0)
      return fail(attr + " entry " + Twine(i) + " " + intListToString(pair) + " is negative",
                  int64_t(i));
    pairs.push_back({pair[0], pair[1]});
  }
  if (pairs.size() != count)
    return fail(attr + " lists " + Twine(pairs.size()) + (pairs.size() == 1 ? " pair" : " pairs") +
                    " for a tensor of rank " + Twine(count) + " (one pair per dim)",
                -1);
  return pairs;
}

std::optional<Shape> padShape(ArrayRef<int64_t> shape, ArrayRef<IntPair> pads, StringRef mode,
                              AttrProblem &problem) {
  auto fail = [&](StringRef attr, const Twine &msg, int64_t entry) -> std::optional<Shape> {
    problem = {attr, msg.str(), entry};
    return std::nullopt;
  };
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return fail("pad_mode",
                "pad_mode must be \"constant\", \"edge\" or \"reflect\", got \"" + mode + "\"", -1);
  assert(pads.size() == shape.size() && "one pair per dim");
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d) {
    auto [before, after] = pads[d];
    int64_t n = shape[d];
    std::string pair = intListToString({before, after});
    if (n == kDyn) {
      out.push_back(kDyn);
      continue;
    }
    if (mode == "edge" && n == 0 && (before || after))
      return fail("pad_width",
                  "pad_width entry " + Twine(d) + " " + pair + ": edge padding of the empty axis " +
                      Twine(d),
                  int64_t(d));
    if (mode == "reflect" && ((before > 0 && before >= n) || (after > 0 && after >= n)))
      return fail("pad_width",
                  "pad_width entry " + Twine(d) + " " + pair +
                      ": reflect padding needs pads below the size " + Twine(n) + " of axis " +
                      Twine(d),
                  int64_t(d));
    if (before > std::numeric_limits<int64_t>::max() - n - after ||
        after > std::numeric_limits<int64_t>::max() - n)
      return fail("pad_width",
                  "pad_width entry " + Twine(d) + " " + pair + " makes axis " + Twine(d) +
                      " of size " + Twine(n) + " too large",
                  int64_t(d));
    out.push_back(n + before + after);
  }
  return out;
}

std::optional<std::array<int64_t, 4>> padding2d(ArrayRef<int64_t> p) {
  if (p.size() == 1)
    return std::array<int64_t, 4>{p[0], p[0], p[0], p[0]};
  if (p.size() == 2)
    return std::array<int64_t, 4>{p[0], p[1], p[0], p[1]};
  if (p.size() == 4)
    return std::array<int64_t, 4>{p[0], p[1], p[2], p[3]};
  return std::nullopt;
}

std::optional<std::array<int64_t, 2>> adaptiveOutputSize(const AttrValue &v, int64_t h, int64_t w) {
  std::vector<AttrValue> items =
      v.kind == AttrValue::Kind::List ? v.list : std::vector<AttrValue>{};
  if (v.kind == AttrValue::Kind::Int)
    items = {v, v};
  else if (items.size() == 1)
    items.push_back(items[0]);
  if (items.empty())
    return std::array<int64_t, 2>{h, w};
  if (items.size() != 2)
    return std::nullopt;
  std::array<int64_t, 2> out{h, w};
  for (unsigned i = 0; i < 2; ++i) {
    if (items[i].isNone())
      continue;
    if (items[i].intValue < 0)
      return std::nullopt;
    out[i] = items[i].intValue;
  }
  return out;
}

SmallVector<double, 4> attrFloats(const AttrValue &v) {
  SmallVector<double, 4> out;
  for (const AttrValue &e : v.list)
    out.push_back(e.kind == AttrValue::Kind::Int ? double(e.intValue) : e.floatValue);
  return out;
}

std::optional<ResizeMethod> parseResizeMethod(StringRef method) {
  std::string m = method.lower();
  if (m == "nearest_neighbor")
    return ResizeMethod::NearestNeighbor;
  if (m == "linear")
    return ResizeMethod::Linear;
  if (m == "cubic")
    return ResizeMethod::Cubic;
  return std::nullopt;
}

std::optional<ResizeCoord> parseResizeCoord(StringRef mode) {
  return StringSwitch<std::optional<ResizeCoord>>(mode)
      .Case("half_pixel", ResizeCoord::HalfPixel)
      .Case("align_corners", ResizeCoord::AlignCorners)
      .Case("asymmetric", ResizeCoord::Asymmetric)
      .Case("pytorch_half_pixel", ResizeCoord::PytorchHalfPixel)
      .Case("tf_half_pixel_for_nn", ResizeCoord::TfHalfPixelForNN)
      .Case("tf_crop_and_resize", ResizeCoord::TfCropAndResize)
      .Case("half_pixel_symmetric", ResizeCoord::HalfPixelSymmetric)
      .Default(std::nullopt);
}

std::optional<ResizeRounding> parseResizeRounding(StringRef rounding, ResizeCoord coord) {
  if (rounding.empty())
    return coord == ResizeCoord::AlignCorners ? ResizeRounding::Round : ResizeRounding::Floor;
  return StringSwitch<std::optional<ResizeRounding>>(rounding)
      .Case("round", ResizeRounding::Round)
      .Case("floor", ResizeRounding::Floor)
      .Case("ceil", ResizeRounding::Ceil)
      .Case("round_prefer_floor", ResizeRounding::RoundPreferFloor)
      .Case("round_prefer_ceil", ResizeRounding::RoundPreferCeil)
      .Default(std::nullopt);
}

std::optional<ResizeMethod> parseUpsamplingMethod(StringRef method) {
  method.consume_front("bi");
  return parseResizeMethod(method);
}

ResizeSampling upsamplingSampling(ResizeMethod method, bool alignCorners) {
  ResizeCoord coord = alignCorners ? ResizeCoord::AlignCorners : ResizeCoord::Asymmetric;
  return ResizeSampling{method,       coord, *parseResizeRounding("", coord), -0.5f, false,
                        {0, 0, 0, 0}, 0};
}

std::optional<int64_t> upsampledDim(int64_t in, double scale) {
  double out = std::nearbyint(double(in) * scale);
  // 2^62 keeps later products of dims from overflowing.
  if (!std::isfinite(out) || out < 0 || out > 0x1p62)
    return std::nullopt;
  return int64_t(out);
}

std::optional<std::array<int64_t, 2>> padding1d(ArrayRef<int64_t> p) {
  if (p.size() == 1)
    return std::array<int64_t, 2>{p[0], p[0]};
  if (p.size() == 2)
    return std::array<int64_t, 2>{p[0], p[1]};
  return std::nullopt;
}

std::optional<SmallVector<unsigned, 4>> layoutPositions(StringRef layout, StringRef letters) {
  if (layout.size() != letters.size())
    return std::nullopt;
  SmallVector<unsigned, 4> pos;
  for (char letter : letters) {
    size_t p = layout.find(letter);
    if (p == StringRef::npos || layout.count(letter) != 1)
      return std::nullopt;
    pos.push_back(unsigned(p));
  }
  return pos;
}

} // namespace hx
