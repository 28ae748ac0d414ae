//===- TransformOps.cpp - Reference data-movement operators --------------===//
//
// These operators move elements without arithmetic, so they copy bytes and
// work for every dtype. Result shapes are recomputed from the argument's
// actual shape with the rules of lib/Ops/Transform.cpp (reshape through
// inferReshape, the same helper the type relation uses), then checked
// against the call's type by makeResult.
//
//   reshape, expand_dims, squeeze   the bytes unchanged, a new shape
//   transpose, strided_slice        one strided gather over the output index
//   concatenate                     per outer index, each part's block in turn
//   stack                           the same, each field's block below `axis`
//   split                           the reverse of concatenate
//   take                            a row copy per index
//   gather                          an odometer over the result, the index
//                                   read at the same point (negative from
//                                   the end, then clamped)
//   gather_nd                       per index tuple, a slice copy
//   scatter_elements, scatter_nd    the data copied, then each update in
//                                   index order combined into its element
//                                   (floats in double, integers in int64
//                                   wrapping to the width, unsigned order
//                                   for min/max of unsigned dtypes)
//   nn.pad                          an odometer over the result with a
//                                   source index per dim (or the pad value)
//   layout_transform                an odometer over the result, each primal
//                                   axis's index re-split for the source
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "hx/Ops/DataLayout.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>
#include <cstring>

using namespace llvm;

namespace hx::interp {

/// A copy of `a`'s bytes with a new shape (same element count).
static Expected<OpResults> withShape(OpContext &ctx, const HostTensor &a, ArrayRef<int64_t> shape) {
  Expected<HostTensor> out = ctx.makeResult(0, shape, a.dtype());
  if (!out)
    return out.takeError();
  if (out->numElements() != a.numElements() || out->dtype() != a.dtype())
    return ctx.error("cannot view " + a.typeString() + " as " + out->typeString());
  if (a.byteSize())
    std::memcpy(out->data(), a.data(), a.byteSize());
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

static Expected<OpResults> reshapeOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  Expected<Shape> shape =
      inferReshape(a.shape(), ctx.getInts("newshape"), ctx.getBool("allowzero"));
  if (!shape)
    return ctx.error(toString(shape.takeError()));
  return withShape(ctx, a, *shape);
}

static Expected<OpResults> expandDimsOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  int64_t num = ctx.getInt("num_newaxis");
  if (num < 0 || size_t(num) > kMaxRank - std::min(kMaxRank, a.rank()))
    return ctx.error("num_newaxis=" + Twine(num) + " is out of range");
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), a.rank() + 1, "axis");
  if (!axis)
    return axis.takeError();
  Shape shape(a.shape().begin(), a.shape().end());
  shape.insert(shape.begin() + *axis, size_t(num), 1);
  return withShape(ctx, a, shape);
}

static Expected<OpResults> squeezeOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  BitVector drop(a.rank(), false);
  if (std::optional<Shape> axes = ctx.getOptInts("axis")) {
    for (int64_t ax : *axes) {
      Expected<unsigned> d = ctx.normalizeAxis(ax, a.rank(), "axis");
      if (!d)
        return d.takeError();
      if (a.shape()[*d] != 1)
        return ctx.error("cannot squeeze axis " + Twine(*d) + " of size " + Twine(a.shape()[*d]) +
                         " in " + shapeStr(a.shape()));
      drop.set(*d);
    }
  } else {
    for (size_t d = 0; d < a.rank(); ++d)
      if (a.shape()[d] == 1)
        drop.set(d);
  }
  Shape shape;
  for (size_t d = 0; d < a.rank(); ++d)
    if (!drop.test(d))
      shape.push_back(a.shape()[d]);
  return withShape(ctx, a, shape);
}

/// Fills `out` (every element, in order) from `a`: the element at output
/// index (i_0, ..., i_k) is a's flat element base + Σ i_d * readStrides[d]
/// (an odometer over the output).
static void gatherStrided(const HostTensor &a, HostTensor &out, ArrayRef<int64_t> readStrides,
                          int64_t base) {
  ArrayRef<int64_t> shape = out.shape();
  size_t rank = shape.size(), eb = dtypeBytes(a.dtype());
  auto *dst = static_cast<uint8_t *>(out.data());
  const auto *src = static_cast<const uint8_t *>(a.data());
  Shape idx(rank, 0);
  int64_t pos = base;
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    std::memcpy(dst + size_t(i) * eb, src + size_t(pos) * eb, eb);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < shape[d]) {
        pos += readStrides[d];
        break;
      }
      pos -= readStrides[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

/// Fills `out` (every element, in order) from `a`: `sourceOf(idx)` gives the
/// flat element of `a` for output index `idx`, or -1 for `fill` (an
/// odometer over the output).
template <typename SourceOf>
static void gatherIndexed(const HostTensor &a, HostTensor &out, const HostTensor *fill,
                          SourceOf sourceOf) {
  ArrayRef<int64_t> shape = out.shape();
  size_t eb = dtypeBytes(a.dtype());
  auto *dst = static_cast<uint8_t *>(out.data());
  const auto *src = static_cast<const uint8_t *>(a.data());
  Shape idx(shape.size(), 0);
  for (int64_t k = 0, count = out.numElements(); k < count; ++k) {
    int64_t pos = sourceOf(ArrayRef<int64_t>(idx));
    const void *from = pos < 0 ? fill->data() : src + size_t(pos) * eb;
    std::memcpy(dst + size_t(k) * eb, from, eb);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

static Expected<OpResults> transposeOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  size_t rank = a.rank();
  SmallVector<unsigned, 8> perm;
  std::optional<Shape> axes = ctx.getOptInts("axes");
  if (!axes || axes->empty()) {
    for (size_t d = rank; d-- > 0;)
      perm.push_back(unsigned(d));
  } else {
    if (axes->size() != rank)
      return ctx.error("axes " + intListToString(*axes) + " must list " + Twine(rank) + " axes");
    BitVector seen(rank, false);
    for (int64_t ax : *axes) {
      Expected<unsigned> d = ctx.normalizeAxis(ax, rank, "axes");
      if (!d)
        return d.takeError();
      if (seen.test(*d))
        return ctx.error("axes " + intListToString(*axes) + " is not a permutation");
      seen.set(*d);
      perm.push_back(*d);
    }
  }
  Shape shape;
  for (unsigned d : perm)
    shape.push_back(a.shape()[d]);
  Expected<HostTensor> out = ctx.makeResult(0, shape, a.dtype());
  if (!out)
    return out.takeError();
  if (out->dtype() != a.dtype())
    return ctx.error("the result dtype differs from the argument's");
  // The input stride along each output dim.
  Shape inStrides = stridesOf(a.shape()), stride(rank);
  for (size_t d = 0; d < rank; ++d)
    stride[d] = inStrides[perm[d]];
  gatherStrided(a, *out, stride, 0);
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

/// strided_slice: a strided gather with the steps and first indices that
/// stridedSlice (ShapeUtils.h) computes, as the type relation does.
static Expected<OpResults> stridedSliceOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  AttrProblem problem;
  std::optional<SmallVector<SliceDim, 4>> dims =
      stridedSlice(a.shape(), ctx.getInts("begin"), ctx.getInts("end"), ctx.getOptInts("strides"),
                   ctx.getOptInts("axes"), ctx.getString("slice_mode"), problem);
  if (!dims)
    return ctx.error(problem.message);
  Shape shape, readStrides, inStrides = stridesOf(a.shape());
  int64_t base = 0;
  for (size_t d = 0; d < dims->size(); ++d) {
    const SliceDim &s = (*dims)[d];
    shape.push_back(s.size);
    readStrides.push_back(s.stride * inStrides[d]);
    base += s.begin * inStrides[d];
  }
  Expected<HostTensor> out = ctx.makeResult(0, shape, a.dtype());
  if (!out)
    return out.takeError();
  if (out->dtype() != a.dtype())
    return ctx.error("the result dtype differs from the argument's");
  gatherStrided(a, *out, readStrides, base);
  return single(std::move(*out));
}

/// The product of the dims before and after `axis`.
static std::pair<int64_t, int64_t> outerInner(ArrayRef<int64_t> shape, unsigned axis) {
  int64_t outer = 1, inner = 1;
  for (unsigned d = 0; d < axis; ++d)
    outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  return {outer, inner};
}

static Expected<OpResults> concatenateOp(OpContext &ctx) {
  if (ctx.args.empty())
    return ctx.error("cannot concatenate an empty tuple");
  const HostTensor &first = ctx.arg(0);
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), first.rank(), "axis");
  if (!axis)
    return axis.takeError();
  Shape shape(first.shape().begin(), first.shape().end());
  shape[*axis] = 0;
  for (size_t i = 0; i < ctx.args.size(); ++i) {
    const HostTensor &t = ctx.arg(i);
    bool same = t.dtype() == first.dtype() && t.rank() == first.rank();
    for (size_t d = 0; same && d < shape.size(); ++d)
      same = d == *axis || t.shape()[d] == first.shape()[d];
    if (!same)
      return ctx.error("tuple field " + Twine(i) + " " + t.typeString() +
                       " does not match field 0 " + first.typeString() +
                       " outside the concatenation axis " + Twine(*axis));
    shape[*axis] += t.shape()[*axis];
  }
  Expected<HostTensor> out = ctx.makeResult(0, shape, first.dtype());
  if (!out)
    return out.takeError();
  if (out->dtype() != first.dtype())
    return ctx.error("the result dtype differs from the arguments'");
  size_t eb = dtypeBytes(first.dtype());
  int64_t outer = outerInner(shape, *axis).first;
  auto *dst = static_cast<uint8_t *>(out->data());
  for (int64_t o = 0; o < outer; ++o) {
    for (const HostTensor *t : ctx.args) {
      size_t block = size_t(t->shape()[*axis] * outerInner(t->shape(), *axis).second) * eb;
      std::memcpy(dst, static_cast<const uint8_t *>(t->data()) + size_t(o) * block, block);
      dst += block;
    }
  }
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

/// stack: per outer index (the dims before `axis`), each field's block of
/// the dims from `axis` on, in turn.
static Expected<OpResults> stackOp(OpContext &ctx) {
  if (ctx.args.empty())
    return ctx.error("cannot stack an empty tuple");
  const HostTensor &first = ctx.arg(0);
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), first.rank() + 1, "axis");
  if (!axis)
    return axis.takeError();
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    const HostTensor &t = ctx.arg(i);
    if (t.dtype() != first.dtype() || t.shape() != first.shape())
      return ctx.error("tuple field " + Twine(i) + " " + t.typeString() +
                       " does not match field 0 " + first.typeString());
  }
  Shape shape(first.shape().begin(), first.shape().end());
  shape.insert(shape.begin() + *axis, int64_t(ctx.args.size()));
  Expected<HostTensor> out = ctx.makeResult(0, shape, first.dtype());
  if (!out)
    return out.takeError();
  if (out->dtype() != first.dtype())
    return ctx.error("the result dtype differs from the arguments'");
  int64_t outer = 1;
  for (unsigned d = 0; d < *axis; ++d)
    outer *= first.shape()[d];
  size_t block = outer ? first.byteSize() / size_t(outer) : 0;
  auto *dst = static_cast<uint8_t *>(out->data());
  for (int64_t o = 0; o < outer; ++o) {
    for (const HostTensor *t : ctx.args) {
      std::memcpy(dst, static_cast<const uint8_t *>(t->data()) + size_t(o) * block, block);
      dst += block;
    }
  }
  return single(std::move(*out));
}

static Expected<OpResults> splitOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), a.rank(), "axis");
  if (!axis)
    return axis.takeError();
  int64_t dim = a.shape()[*axis];
  AttrValue spec = ctx.attr("indices_or_sections");
  SmallVector<int64_t, 8> sizes;
  if (spec.kind == AttrValue::Kind::Int) {
    int64_t sections = spec.intValue;
    if (sections <= 0 || sections > kMaxSplitSections)
      return ctx.error("the number of sections must be in [1, " + Twine(kMaxSplitSections) +
                       "], got " + Twine(sections));
    if (dim % sections != 0)
      return ctx.error("axis " + Twine(*axis) + " of size " + Twine(dim) +
                       " cannot be split into " + Twine(sections) + " equal sections");
    sizes.assign(size_t(sections), dim / sections);
  } else {
    Shape indices = ctx.getInts("indices_or_sections");
    int64_t begin = 0;
    for (int64_t idx : indices) {
      if (idx <= begin || idx >= dim)
        return ctx.error("split indices " + intListToString(indices) +
                         " must be strictly increasing, positive and less than the size " +
                         Twine(dim) + " of axis " + Twine(*axis));
      sizes.push_back(idx - begin);
      begin = idx;
    }
    sizes.push_back(dim - begin);
  }

  auto [outer, inner] = outerInner(a.shape(), *axis);
  size_t eb = dtypeBytes(a.dtype());
  size_t rowBytes = size_t(dim * inner) * eb;
  OpResults results;
  int64_t offset = 0;
  for (size_t p = 0; p < sizes.size(); ++p) {
    Shape shape(a.shape().begin(), a.shape().end());
    shape[*axis] = sizes[p];
    Expected<HostTensor> out = ctx.makeResult(unsigned(p), shape, a.dtype());
    if (!out)
      return out.takeError();
    if (out->dtype() != a.dtype())
      return ctx.error("the result dtype differs from the argument's");
    size_t block = size_t(sizes[p] * inner) * eb;
    auto *dst = static_cast<uint8_t *>(out->data());
    const auto *src = static_cast<const uint8_t *>(a.data()) + size_t(offset * inner) * eb;
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + size_t(o) * block, src + size_t(o) * rowBytes, block);
    offset += sizes[p];
    results.push_back(std::move(*out));
  }
  return results;
}

/// nn.pad: per result dim, the source index of each position (-1 for the pad
/// value); then an odometer over the result. The pad value is converted to
/// the data's dtype as cast does.
static Expected<OpResults> padOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &a = ctx.arg(0), &value = ctx.arg(1);
  if (value.rank() != 0)
    return ctx.error("the pad value must be a scalar, got " + value.typeString());
  AttrProblem problem;
  std::optional<SmallVector<IntPair, 4>> pads =
      attrIntPairs(ctx.attr("pad_width"), a.rank(), "pad_width", problem);
  std::string mode = ctx.getString("pad_mode");
  std::optional<Shape> shape;
  if (pads)
    shape = padShape(a.shape(), *pads, mode, problem);
  if (!shape)
    return ctx.error(problem.message);
  Expected<HostTensor> out = ctx.makeResult(0, *shape, a.dtype());
  if (!out)
    return out.takeError();
  if (out->dtype() != a.dtype())
    return ctx.error("the result dtype differs from the argument's");
  HostTensor fill(a.dtype(), {});
  if (isIntegral(value.dtype()))
    setInt64(fill, 0, getInt64(value, 0));
  else
    fill.setDouble(0, value.getDouble(0));

  size_t rank = a.rank();
  std::vector<std::vector<int64_t>> source(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t n = a.shape()[d], before = (*pads)[d].first;
    for (int64_t o = 0; o < (*shape)[d]; ++o) {
      int64_t i = o - before;
      if (i < 0 || i >= n) {
        if (mode == "edge")
          i = i < 0 ? 0 : n - 1;
        else if (mode == "reflect")
          i = i < 0 ? -i : 2 * (n - 1) - i;
        else
          i = -1;
      }
      source[d].push_back(i);
    }
  }
  Shape inStrides = stridesOf(a.shape());
  gatherIndexed(a, *out, &fill, [&](ArrayRef<int64_t> idx) {
    int64_t pos = 0;
    for (size_t d = 0; d < rank && pos >= 0; ++d)
      pos = source[d][idx[d]] < 0 ? -1 : pos + source[d][idx[d]] * inStrides[d];
    return pos;
  });
  return single(std::move(*out));
}

/// layout_transform: an odometer over the result; per primal axis its index
/// from the destination coordinates, split again by the source's factor.
static Expected<OpResults> layoutTransformOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  LayoutMap map;
  AttrProblem problem;
  std::optional<Shape> shape = layoutTransformShape(a.shape(), ctx.getString("src_layout"),
                                                    ctx.getString("dst_layout"), map, problem);
  if (!shape)
    return ctx.error(problem.message);
  Expected<HostTensor> out = ctx.makeResult(0, *shape, a.dtype());
  if (!out)
    return out.takeError();
  if (out->dtype() != a.dtype())
    return ctx.error("the result dtype differs from the argument's");
  Shape inStrides = stridesOf(a.shape());
  gatherIndexed(a, *out, nullptr, [&](ArrayRef<int64_t> idx) {
    int64_t pos = 0;
    for (const LayoutMap::Axis &ax : map.axes) {
      int64_t v = idx[ax.dst.primal] * ax.dst.factor + (ax.dst.sub >= 0 ? idx[ax.dst.sub] : 0);
      pos += v / ax.src.factor * inStrides[ax.src.primal];
      if (ax.src.sub >= 0)
        pos += v % ax.src.factor * inStrides[ax.src.sub];
    }
    return pos;
  });
  return single(std::move(*out));
}

/// take: index i of an axis of n becomes clamp(i, 0, n-1) ("clip", and
/// "fast", whose out-of-range indices TVM leaves undefined) or i mod n,
/// non-negative ("wrap").
static Expected<OpResults> takeOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &data = ctx.arg(0), &indices = ctx.arg(1);
  std::optional<int64_t> axisAttr = ctx.getOptInt("axis");
  int64_t pre = 1, n = data.numElements(), post = 1;
  Shape shape(indices.shape().begin(), indices.shape().end());
  if (axisAttr) {
    Expected<unsigned> axis = ctx.normalizeAxis(*axisAttr, data.rank(), "axis");
    if (!axis)
      return axis.takeError();
    n = data.shape()[*axis];
    shape.assign(data.shape().begin(), data.shape().begin() + *axis);
    shape.append(indices.shape().begin(), indices.shape().end());
    shape.append(data.shape().begin() + *axis + 1, data.shape().end());
    for (unsigned d = 0; d < *axis; ++d)
      pre *= data.shape()[d];
    for (size_t d = *axis + 1; d < data.rank(); ++d)
      post *= data.shape()[d];
  }
  Expected<HostTensor> out = ctx.makeResult(0, shape, data.dtype());
  if (!out)
    return out.takeError();
  int64_t count = indices.numElements();
  if (pre * count * post == 0)
    return single(std::move(*out));
  if (n == 0)
    return ctx.error("cannot take from an axis of size 0");
  bool wrap = ctx.getString("mode") == "wrap";
  size_t eb = dtypeBytes(data.dtype());
  auto *dst = static_cast<uint8_t *>(out->data());
  const auto *src = static_cast<const uint8_t *>(data.data());
  for (int64_t o = 0; o < pre; ++o)
    for (int64_t j = 0; j < count; ++j) {
      int64_t i = getInt64(indices, j);
      i = wrap ? ((i % n) + n) % n : std::min(std::max<int64_t>(i, 0), n - 1);
      std::memcpy(dst + size_t((o * count + j) * post) * eb, src + size_t((o * n + i) * post) * eb,
                  size_t(post) * eb);
    }
  return single(std::move(*out));
}

/// An index read for a dim of size n: negative from the end, then clamped.
static int64_t clampIndex(int64_t i, int64_t n) {
  return std::min(std::max<int64_t>(i < 0 ? i + n : i, 0), n - 1);
}

static Expected<OpResults> gatherOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &data = ctx.arg(0), &indices = ctx.arg(1);
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data.rank(), "axis");
  if (!axis)
    return axis.takeError();
  if (indices.rank() != data.rank())
    return ctx.error("the indices must have the data's rank");
  for (size_t d = 0; d < data.rank(); ++d)
    if (d != *axis && indices.shape()[d] > data.shape()[d])
      return ctx.error("dim " + Twine(d) + " of the indices exceeds the data's");
  Expected<HostTensor> out = ctx.makeResult(0, indices.shape(), data.dtype());
  if (!out)
    return out.takeError();
  int64_t total = out->numElements(), n = data.shape()[*axis];
  if (total == 0)
    return single(std::move(*out));
  if (n == 0)
    return ctx.error("cannot gather from an axis of size 0");
  Shape strides = stridesOf(data.shape());
  size_t eb = dtypeBytes(data.dtype()), rank = data.rank();
  auto *dst = static_cast<uint8_t *>(out->data());
  const auto *src = static_cast<const uint8_t *>(data.data());
  Shape idx(rank, 0);
  for (int64_t o = 0; o < total; ++o) {
    int64_t i = clampIndex(getInt64(indices, o), n);
    int64_t from = 0;
    for (size_t d = 0; d < rank; ++d)
      from += (d == *axis ? i : idx[d]) * strides[d];
    std::memcpy(dst + size_t(o) * eb, src + size_t(from) * eb, eb);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < indices.shape()[d])
        break;
      idx[d] = 0;
    }
  }
  return single(std::move(*out));
}

static Expected<OpResults> gatherNdOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &data = ctx.arg(0), &indices = ctx.arg(1);
  int64_t b = ctx.getInt("batch_dims");
  if (indices.rank() < 1 || b < 0 || size_t(b) + 1 > indices.rank() || size_t(b) > data.rank())
    return ctx.error("the indices' rank must exceed batch_dims");
  int64_t m = indices.shape()[0];
  if (m < 1 || size_t(b + m) > data.rank())
    return ctx.error("dim 0 of the indices is out of range");
  for (int64_t d = 0; d < b; ++d)
    if (indices.shape()[size_t(1 + d)] != data.shape()[size_t(d)])
      return ctx.error("batch dim " + Twine(d) + " of the indices is not the data's");
  Shape outShape(indices.shape().begin() + 1, indices.shape().end());
  outShape.append(data.shape().begin() + b + m, data.shape().end());
  Expected<HostTensor> out = ctx.makeResult(0, outShape, data.dtype());
  if (!out)
    return out.takeError();
  // Per tuple: its batch (the first b of its coordinates), then m indices.
  int64_t tuples = indices.numElements() / m, batch = 1, slice = 1;
  for (int64_t d = 0; d < b; ++d)
    batch *= data.shape()[d];
  for (size_t d = size_t(b + m); d < data.rank(); ++d)
    slice *= data.shape()[d];
  if (out->numElements() == 0)
    return single(std::move(*out));
  for (int64_t d = b; d < b + m; ++d)
    if (data.shape()[d] == 0)
      return ctx.error("cannot gather from a dim of size 0");
  Shape strides = stridesOf(data.shape());
  size_t eb = dtypeBytes(data.dtype());
  auto *dst = static_cast<uint8_t *>(out->data());
  const auto *src = static_cast<const uint8_t *>(data.data());
  int64_t perBatch = batch ? tuples / batch : 0;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t from = perBatch ? (t / perBatch) * (b ? strides[size_t(b - 1)] : 0) : 0;
    for (int64_t k = 0; k < m; ++k) {
      int64_t i = clampIndex(getInt64(indices, k * tuples + t), data.shape()[size_t(b + k)]);
      from += i * strides[size_t(b + k)];
    }
    std::memcpy(dst + size_t(t * slice) * eb, src + size_t(from) * eb, size_t(slice) * eb);
  }
  return single(std::move(*out));
}

namespace {
/// How a scatter combines an update with the element already there.
enum class Combine { Update, Add, Mul, Min, Max };
} // namespace

static Expected<Combine> parseCombine(OpContext &ctx, StringRef attr) {
  std::string mode = ctx.getString(attr);
  std::optional<Combine> c = StringSwitch<std::optional<Combine>>(mode)
                                 .Case("update", Combine::Update)
                                 .Case("add", Combine::Add)
                                 .Case("mul", Combine::Mul)
                                 .Case("min", Combine::Min)
                                 .Case("max", Combine::Max)
                                 .Default(std::nullopt);
  if (!c)
    return ctx.error(attr + " \"" + mode + "\" is not supported");
  return *c;
}

/// out[at] = combine(out[at], updates[from]).
static void combineInto(HostTensor &out, int64_t at, const HostTensor &updates, int64_t from,
                        Combine c) {
  DType t = out.dtype();
  if (isFloat(t)) {
    double a = out.getDouble(at), b = updates.getDouble(from), r = b;
    if (c == Combine::Add)
      r = a + b;
    else if (c == Combine::Mul)
      r = a * b;
    else if (c == Combine::Min || c == Combine::Max)
      r = std::isnan(a) || std::isnan(b) ? NAN
          : c == Combine::Min            ? std::min(a, b)
                                         : std::max(a, b);
    out.setDouble(at, r);
    return;
  }
  uint64_t a = uint64_t(getInt64(out, at)), b = uint64_t(getInt64(updates, from)), r = b;
  bool u = isUnsigned(t) || t == DType::Bool;
  bool less = u ? a < b : int64_t(a) < int64_t(b);
  if (c == Combine::Add)
    r = a + b;
  else if (c == Combine::Mul)
    r = a * b;
  else if (c == Combine::Min)
    r = less ? a : b;
  else if (c == Combine::Max)
    r = less ? b : a;
  setInt64(out, at, int64_t(r));
}

static Expected<OpResults> scatterElementsOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(3))
    return e;
  const HostTensor &data = ctx.arg(0), &indices = ctx.arg(1), &updates = ctx.arg(2);
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data.rank(), "axis");
  if (!axis)
    return axis.takeError();
  Expected<Combine> c = parseCombine(ctx, "reduction");
  if (!c)
    return c.takeError();
  if (indices.rank() != data.rank() || updates.shape() != indices.shape() ||
      updates.dtype() != data.dtype())
    return ctx.error("the indices and updates must be of one shape, of the data's rank");
  for (size_t d = 0; d < data.rank(); ++d)
    if (d != *axis && indices.shape()[d] > data.shape()[d])
      return ctx.error("dim " + Twine(d) + " of the indices exceeds the data's");
  Expected<HostTensor> out = ctx.makeResult(0, data.shape(), data.dtype());
  if (!out)
    return out.takeError();
  std::memcpy(out->data(), data.data(), size_t(data.numElements()) * dtypeBytes(data.dtype()));
  int64_t total = indices.numElements(), n = data.shape()[*axis];
  if (total == 0)
    return single(std::move(*out));
  if (n == 0)
    return ctx.error("cannot scatter into an axis of size 0");
  Shape strides = stridesOf(data.shape());
  size_t rank = data.rank();
  Shape idx(rank, 0);
  for (int64_t u = 0; u < total; ++u) {
    int64_t i = clampIndex(getInt64(indices, u), n), to = 0;
    for (size_t d = 0; d < rank; ++d)
      to += (d == *axis ? i : idx[d]) * strides[d];
    combineInto(*out, to, updates, u, *c);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < indices.shape()[d])
        break;
      idx[d] = 0;
    }
  }
  return single(std::move(*out));
}

static Expected<OpResults> scatterNdOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(3))
    return e;
  const HostTensor &data = ctx.arg(0), &indices = ctx.arg(1), &updates = ctx.arg(2);
  Expected<Combine> c = parseCombine(ctx, "mode");
  if (!c)
    return c.takeError();
  int64_t m = indices.rank() ? indices.shape()[0] : 0;
  if (m < 1 || size_t(m) > data.rank())
    return ctx.error("dim 0 of the indices is out of range");
  Shape want(indices.shape().begin() + 1, indices.shape().end());
  want.append(data.shape().begin() + m, data.shape().end());
  if (updates.shape() != ArrayRef<int64_t>(want) || updates.dtype() != data.dtype())
    return ctx.error("the updates must be " + shapeStr(want) + " of the data's dtype");
  Expected<HostTensor> out = ctx.makeResult(0, data.shape(), data.dtype());
  if (!out)
    return out.takeError();
  std::memcpy(out->data(), data.data(), size_t(data.numElements()) * dtypeBytes(data.dtype()));
  int64_t tuples = indices.numElements() / m, slice = 1;
  for (size_t d = size_t(m); d < data.rank(); ++d)
    slice *= data.shape()[d];
  if (tuples * slice == 0)
    return single(std::move(*out));
  for (int64_t d = 0; d < m; ++d)
    if (data.shape()[d] == 0)
      return ctx.error("cannot scatter into a dim of size 0");
  Shape strides = stridesOf(data.shape());
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t to = 0;
    for (int64_t k = 0; k < m; ++k)
      to += clampIndex(getInt64(indices, k * tuples + t), data.shape()[size_t(k)]) *
            strides[size_t(k)];
    for (int64_t e = 0; e < slice; ++e)
      combineInto(*out, to + e, updates, t * slice + e, *c);
  }
  return single(std::move(*out));
}

OpImplFn findTransformOp(StringRef name) {
  return StringSwitch<OpImplFn>(name)
      .Case("reshape", reshapeOp)
      .Case("transpose", transposeOp)
      .Case("strided_slice", stridedSliceOp)
      .Case("expand_dims", expandDimsOp)
      .Case("squeeze", squeezeOp)
      .Case("concatenate", concatenateOp)
      .Case("stack", stackOp)
      .Case("split", splitOp)
      .Case("take", takeOp)
      .Case("gather", gatherOp)
      .Case("gather_nd", gatherNdOp)
      .Case("scatter_elements", scatterElementsOp)
      .Case("scatter_nd", scatterNdOp)
      .Case("nn.pad", padOp)
      .Case("layout_transform", layoutTransformOp)
      .Default(nullptr);
}

} // namespace hx::interp
