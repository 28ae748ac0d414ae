//===- DynamicOps.cpp - Reference nonzero and non-maximum suppression -----===//
//
// The operators whose result shape depends on values (lib/Ops/Dynamic.cpp).
// A run evaluates them with these implementations on the host, between the
// stages of its schedule (hx/Run/Stages.h), so they are the only
// implementation there is, and they follow ONNX Runtime's CPU kernels where
// ONNX leaves a choice:
//
//  - nonzero: row-major order of the elements; bool, integers and floats
//    (NaN is nonzero, -0.0 is zero).
//  - vision.non_max_suppression, per batch and class: the boxes whose score
//    is strictly above score_threshold, taken by descending score (equal
//    scores: the lower box index first); a box is kept unless its IoU with
//    a box already kept is strictly above iou_threshold; at most
//    max_output_boxes_per_class per class (<= 0: none). Boxes are corners
//    in any order, [y1, x1, y2, x2] (center_point_box=0), or [x_center,
//    y_center, width, height] (1). A pair with no positive intersection, or
//    a box of zero area, never suppresses. Boxes and IoU are float, as in
//    ONNX Runtime; the kept boxes are checked a block at a time, so that the
//    compiler vectorizes the check (detectors give NMS tens of thousands
//    of candidates).
//  - unique: slices along the axis (elements of the flattened tensor
//    without one) compared element by element in row-major order, as
//    NumPy's unique; integers exactly, floats by value with every NaN equal
//    and above all numbers. sorted: ascending; else by first occurrence.
//  - shape_of, dyn.*: the operand values read (a shape, k, starts), then
//    the static operator's implementation where there is one (reshape,
//    topk), else the ONNX semantics directly (Slice's clamping, Expand's
//    two-way broadcast, Tile, ConstantOfShape, Range's count
//    max(ceil((limit - start) / delta), 0)).
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "hx/IR/Module.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Ops/OpRegistry.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace llvm;

namespace hx::interp {

static Expected<OpResults> nonzeroOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  size_t rank = a.shape().size();
  if (rank == 0)
    return ctx.error("the indices of a scalar's nonzero elements have no dims to index");
  std::vector<int64_t> hits;
  int64_t n = a.numElements();
  bool integral = isIntegral(a.dtype());
  for (int64_t i = 0; i < n; ++i)
    if (integral ? getInt64(a, i) != 0 : a.getDouble(i) != 0.0)
      hits.push_back(i);
  int64_t count = int64_t(hits.size());
  Expected<HostTensor> out = ctx.makeResult(0, {int64_t(rank), count}, DType::Int64);
  if (!out)
    return out.takeError();
  Shape strides = stridesOf(a.shape());
  for (int64_t j = 0; j < count; ++j)
    for (size_t d = 0; d < rank; ++d)
      setInt64(*out, int64_t(d) * count + j, hits[j] / strides[d] % a.shape()[d]);
  return single(std::move(*out));
}

static Expected<OpResults> uniqueOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  // The slices are `len` along the axis, each `outer` x `inner` elements.
  int64_t outer = 1, len = a.numElements(), inner = 1;
  std::optional<unsigned> axis;
  if (std::optional<int64_t> ax = ctx.getOptInt("axis")) {
    Expected<unsigned> n = ctx.normalizeAxis(*ax, a.shape().size(), "axis");
    if (!n)
      return n.takeError();
    axis = *n;
    len = a.shape()[*axis];
    outer = inner = 1;
    for (size_t d = 0; d < a.shape().size(); ++d)
      if (d < *axis)
        outer *= a.shape()[d];
      else if (d > *axis)
        inner *= a.shape()[d];
  }
  bool integral = isIntegral(a.dtype());
  auto elem = [&](int64_t slice, int64_t k) {
    return (k / inner * len + slice) * inner + k % inner;
  };
  // -1, 0, 1 as slice i orders before, with, after slice j.
  auto compare = [&](int64_t i, int64_t j) {
    for (int64_t k = 0, n = outer * inner; k < n; ++k) {
      int64_t x = elem(i, k), y = elem(j, k);
      if (integral) {
        int64_t u = getInt64(a, x), v = getInt64(a, y);
        if (u != v)
          return u < v ? -1 : 1;
        continue;
      }
      double u = a.getDouble(x), v = a.getDouble(y);
      bool un = std::isnan(u), vn = std::isnan(v);
      if (un || vn) {
        if (un != vn)
          return un ? 1 : -1;
        continue;
      }
      if (u != v)
        return u < v ? -1 : 1;
    }
    return 0;
  };
  std::vector<int64_t> order(static_cast<size_t>(len));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t i, int64_t j) { return compare(i, j) < 0; });
  // Groups of equal slices; a group's first is its first occurrence.
  std::vector<int64_t> first, counts, group(static_cast<size_t>(len));
  for (size_t p = 0; p < order.size(); ++p) {
    if (p == 0 || compare(order[p - 1], order[p]) != 0) {
      first.push_back(order[p]);
      counts.push_back(0);
    }
    group[size_t(order[p])] = int64_t(first.size()) - 1;
    ++counts.back();
  }
  int64_t u = int64_t(first.size());
  std::vector<int64_t> rank(static_cast<size_t>(u)); // position of each group in the output
  std::iota(rank.begin(), rank.end(), 0);
  if (!ctx.getBool("sorted")) {
    std::vector<int64_t> byFirst(rank);
    std::sort(byFirst.begin(), byFirst.end(),
              [&](int64_t g, int64_t h) { return first[size_t(g)] < first[size_t(h)]; });
    for (int64_t p = 0; p < u; ++p)
      rank[size_t(byFirst[size_t(p)])] = p;
  }
  Shape shape{u};
  if (axis) {
    shape.assign(a.shape().begin(), a.shape().end());
    shape[*axis] = u;
  }
  Expected<HostTensor> values = ctx.makeResult(0, shape, a.dtype());
  if (!values)
    return values.takeError();
  std::vector<HostTensor> out;
  out.push_back(std::move(*values));
  for (auto [i, n] : {std::pair<unsigned, int64_t>{1, u}, {2, len}, {3, u}}) {
    Expected<HostTensor> t = ctx.makeResult(i, {n}, DType::Int64);
    if (!t)
      return t.takeError();
    out.push_back(std::move(*t));
  }
  size_t eb = dtypeBytes(a.dtype());
  const auto *src = static_cast<const uint8_t *>(a.data());
  auto *dst = static_cast<uint8_t *>(out[0].data());
  for (int64_t g = 0; g < u; ++g) {
    int64_t at = rank[size_t(g)], from = first[size_t(g)];
    // Slice `from` of the input becomes slice `at` of the output (u long).
    for (int64_t k = 0, n = outer * inner; k < n; ++k)
      std::memcpy(dst + size_t((k / inner * u + at) * inner + k % inner) * eb,
                  src + size_t(elem(from, k)) * eb, eb);
    setInt64(out[1], at, from);
    setInt64(out[3], at, counts[size_t(g)]);
  }
  for (int64_t i = 0; i < len; ++i)
    setInt64(out[2], i, rank[size_t(group[size_t(i)])]);
  return out;
}

namespace {
/// A box as corners, in float (as ONNX Runtime computes NMS).
struct Box {
  float yMin, xMin, yMax, xMax;
  float area() const { return (yMax - yMin) * (xMax - xMin); }
};

/// The boxes kept so far, a field per array so that the check of a
/// candidate against all of them vectorizes.
struct KeptBoxes {
  std::vector<float> yMin, xMin, yMax, xMax, area;
  size_t size() const { return area.size(); }
  void clear() {
    for (auto *v : {&yMin, &xMin, &yMax, &xMax, &area})
      v->clear();
  }
  void push(const Box &b) {
    yMin.push_back(b.yMin), xMin.push_back(b.xMin), yMax.push_back(b.yMax);
    xMax.push_back(b.xMax), area.push_back(b.area());
  }
  /// Whether a kept box overlaps `b` by an IoU above `threshold`. A pair
  /// with no positive intersection, or a box of no area, never does.
  bool suppress(const Box &b, float threshold) const {
    float a = b.area();
    if (!(a > 0))
      return false;
    constexpr size_t kBlock = 64; // no early exit inside a block: it vectorizes
    for (size_t base = 0; base < size(); base += kBlock) {
      size_t end = std::min(size(), base + kBlock);
      int hit = 0;
      for (size_t k = base; k < end; ++k) {
        float w = std::min(b.xMax, xMax[k]) - std::max(b.xMin, xMin[k]);
        float h = std::min(b.yMax, yMax[k]) - std::max(b.yMin, yMin[k]);
        float inter = std::max(w, 0.0f) * std::max(h, 0.0f);
        float uni = a + area[k] - inter;
        hit |= int(inter > 0) & int(area[k] > 0) & int(uni > 0) & int(inter / uni > threshold);
      }
      if (hit)
        return true;
    }
    return false;
  }
};
/// The kept boxes in buckets by xMin, each at least as wide as the widest
/// candidate: a candidate can only overlap kept boxes of its own bucket,
/// the one before, and the one of its xMax. Detectors' batched NMS offsets
/// each class's boxes apart, so a candidate meets a few buckets' boxes, not
/// all the boxes kept (a box of a non-finite corner puts all in one bucket).
class BucketedBoxes {
public:
  explicit BucketedBoxes(ArrayRef<Box> candidates) {
    float lo = INFINITY, hi = -INFINITY, widest = 0;
    bool finite = true;
    for (const Box &b : candidates) {
      finite &= std::isfinite(b.xMin) && std::isfinite(b.xMax);
      lo = std::min(lo, b.xMin), hi = std::max(hi, b.xMin);
      widest = std::max(widest, b.xMax - b.xMin);
    }
    origin = finite && lo <= hi ? lo : 0;
    float range = finite && lo <= hi ? hi - lo : 0;
    width = std::max({widest, range / float(kMaxBuckets), 1e-30f});
    buckets.resize(finite ? std::min<size_t>(size_t(range / width) + 1, kMaxBuckets) : 1);
  }
  size_t size() const { return count; }
  void push(const Box &b) {
    buckets[bucketOf(b.xMin)].push(b);
    ++count;
  }
  bool suppress(const Box &b, float threshold) const {
    size_t first = bucketOf(b.xMin), last = bucketOf(b.xMax);
    for (size_t k = first ? first - 1 : 0; k <= last; ++k)
      if (buckets[k].suppress(b, threshold))
        return true;
    return false;
  }

private:
  static constexpr size_t kMaxBuckets = 4096;
  size_t bucketOf(float x) const {
    float k = (x - origin) / width;
    return !(k > 0) ? 0 : std::min(size_t(k), buckets.size() - 1);
  }
  float origin = 0, width = 1;
  std::vector<KeptBoxes> buckets;
  size_t count = 0;
};
} // namespace

static Box readBox(const HostTensor &boxes, int64_t at, bool centerPoint) {
  float v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = float(boxes.getDouble(at + k));
  if (centerPoint) // x_center, y_center, width, height
    return {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
  return {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
}

/// The one value of a scalar operand (shape () or (1)).
static Expected<double> scalarValue(OpContext &ctx, unsigned i, StringRef what) {
  const HostTensor &t = ctx.arg(i);
  if (t.shape().size() > 1 || t.numElements() != 1)
    return ctx.error(what + " must hold one value, got shape " + shapeStr(t.shape()));
  return isIntegral(t.dtype()) ? double(getInt64(t, 0)) : t.getDouble(0);
}

static Expected<OpResults> nmsOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(5))
    return e;
  const HostTensor &boxes = ctx.arg(0), &scores = ctx.arg(1);
  ArrayRef<int64_t> bs = boxes.shape(), ss = scores.shape();
  if (bs.size() != 3 || bs[2] != 4)
    return ctx.error("boxes must be (batches, boxes, 4), got " + shapeStr(bs));
  if (ss.size() != 3 || ss[0] != bs[0] || ss[2] != bs[1])
    return ctx.error("scores must be (batches, classes, boxes) for boxes " + shapeStr(bs) +
                     ", got " + shapeStr(ss));
  Expected<double> maxOut = scalarValue(ctx, 2, "max_output_boxes_per_class");
  Expected<double> iou = maxOut ? scalarValue(ctx, 3, "iou_threshold") : maxOut.takeError();
  Expected<double> minScore = iou ? scalarValue(ctx, 4, "score_threshold") : iou.takeError();
  if (!minScore)
    return minScore.takeError();
  if (!(*iou >= 0 && *iou <= 1))
    return ctx.error("iou_threshold must lie in [0, 1], got " + formatDouble(*iou));
  int64_t limit = int64_t(std::max(0.0, std::min(*maxOut, 9.0e18)));
  bool centerPoint = ctx.getInt("center_point_box") == 1;
  int64_t batches = bs[0], numBoxes = bs[1], classes = ss[1];

  std::vector<int64_t> rows; // batch, class, box
  std::vector<int64_t> order;
  std::vector<double> score(static_cast<size_t>(numBoxes));
  std::vector<Box> all(static_cast<size_t>(numBoxes)), candidates;
  float threshold = float(*iou);
  for (int64_t b = 0; b < batches && limit > 0; ++b) {
    for (int64_t i = 0; i < numBoxes; ++i)
      all[size_t(i)] = readBox(boxes, (b * numBoxes + i) * 4, centerPoint);
    for (int64_t c = 0; c < classes; ++c) {
      int64_t base = (b * classes + c) * numBoxes;
      order.clear();
      for (int64_t i = 0; i < numBoxes; ++i) {
        score[size_t(i)] = scores.getDouble(base + i);
        if (score[size_t(i)] > *minScore)
          order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return score[size_t(x)] > score[size_t(y)]; });
      candidates.clear();
      for (int64_t i : order)
        candidates.push_back(all[size_t(i)]);
      BucketedBoxes kept(candidates);
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= limit)
          break;
        const Box &box = all[size_t(i)];
        if (kept.suppress(box, threshold))
          continue;
        kept.push(box);
        rows.insert(rows.end(), {b, c, i});
      }
    }
  }
  int64_t count = int64_t(rows.size() / 3);
  Expected<HostTensor> out = ctx.makeResult(0, {count, 3}, DType::Int64);
  if (!out)
    return out.takeError();
  for (size_t i = 0; i < rows.size(); ++i)
    setInt64(*out, int64_t(i), rows[i]);
  return single(std::move(*out));
}

/// The integers of operand i (a shape, k, starts), checked to be at most
/// `most` of them.
static Expected<std::vector<int64_t>> intsOf(OpContext &ctx, unsigned i, StringRef what) {
  const HostTensor &t = ctx.arg(i);
  if (!isIntegral(t.dtype()) || t.shape().size() > 1)
    return ctx.error(what + " must be a 1-D integer tensor, got " + dtypeName(t.dtype()) + " " +
                     shapeStr(t.shape()));
  std::vector<int64_t> v;
  for (int64_t k = 0; k < t.numElements(); ++k)
    v.push_back(getInt64(t, k));
  return v;
}

static AttrValue intList(ArrayRef<int64_t> v) {
  std::vector<AttrValue> items;
  for (int64_t x : v)
    items.push_back(AttrValue::ofInt(x));
  return AttrValue::ofList(std::move(items));
}

/// The static operator `name` with `attrs` on `args`: what a dynamic
/// operator is once its value operands are read.
static Expected<OpResults> callStatic(OpContext &ctx, StringRef name, Attrs attrs,
                                      ArrayRef<const HostTensor *> args) {
  Module m;
  Op *op = m.getOp(name);
  op->def = lookupOp(name);
  SmallVector<ExprRef, 2> vars;
  for (size_t i = 0; i < args.size(); ++i)
    vars.push_back(make<Var>("x" + std::to_string(i), nullptr, ctx.call.loc));
  Ref<Call> c = make<Call>(ExprRef(op), std::move(vars), std::move(attrs), ctx.call.loc);
  Expected<OpResults> r = interpretOp(*c, args);
  if (!r)
    return ctx.error(toString(r.takeError()));
  return r;
}

static Expected<OpResults> shapeOfOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  ArrayRef<int64_t> shape = ctx.arg(0).shape();
  Expected<HostTensor> out =
      ctx.makeResult(0, {int64_t(shape.size())}, ctx.getDType("dtype").value_or(DType::Int32));
  if (!out)
    return out.takeError();
  for (size_t i = 0; i < shape.size(); ++i)
    setInt64(*out, int64_t(i), shape[i]);
  return single(std::move(*out));
}

static Expected<OpResults> dynReshapeOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  Expected<std::vector<int64_t>> shape = intsOf(ctx, 1, "newshape");
  if (!shape)
    return shape.takeError();
  std::vector<int64_t> dims = *shape;
  ArrayRef<int64_t> in = ctx.arg(0).shape();
  // ONNX's 0 copies the input's dim (unless allowzero); reshape's 0 does too.
  if (!ctx.getBool("allowzero"))
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] == 0 && i >= in.size())
        return ctx.error("newshape's 0 at " + Twine(i) + " has no dim of the input to copy");
  Attrs a;
  a.set("newshape", intList(dims));
  a.set("allowzero", AttrValue::ofBool(ctx.getBool("allowzero")));
  return callStatic(ctx, "reshape", std::move(a), {&ctx.arg(0)});
}

/// k of n along an axis by a partial sort (a detector's topk keeps 1000 of
/// a million scores): the order a stable full sort gives, the largest
/// first (NaN above every number; equal values by index), or with
/// is_ascend the smallest first.
static Expected<OpResults> dynTopkOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &data = ctx.arg(0), &k = ctx.arg(1);
  if (k.numElements() != 1)
    return ctx.error("k must hold one value, got shape " + shapeStr(k.shape()));
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data.shape().size(), "axis");
  if (!axis)
    return axis.takeError();
  int64_t kv = getInt64(k, 0), len = data.shape()[*axis];
  if (kv < 0 || kv > len)
    return ctx.error("k=" + Twine(kv) + " is outside [0, " + Twine(len) +
                     "], the size of the axis");
  Shape shape(data.shape().begin(), data.shape().end());
  shape[*axis] = kv;
  int64_t inner = 1, outer = 1;
  for (size_t d = *axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  for (size_t d = 0; d < *axis; ++d)
    outer *= shape[d];
  DType indexType = ctx.getDType("dtype").value_or(DType::Int32);
  Expected<HostTensor> values = ctx.makeResult(0, shape, data.dtype());
  Expected<HostTensor> indices = values ? ctx.makeResult(1, shape, indexType) : values.takeError();
  if (!indices)
    return indices.takeError();
  bool ascend = ctx.getBool("is_ascend"), integral = isIntegral(data.dtype());
  std::vector<double> keys(static_cast<size_t>(len));
  std::vector<int64_t> keyInts(integral ? static_cast<size_t>(len) : 0);
  std::vector<int64_t> order(static_cast<size_t>(len));
  size_t eb = dtypeBytes(data.dtype());
  const auto *src = static_cast<const uint8_t *>(data.data());
  auto *dst = static_cast<uint8_t *>(values->data());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t base = o * len * inner + in;
      for (int64_t i = 0; i < len; ++i) {
        if (integral)
          keyInts[size_t(i)] = getInt64(data, base + i * inner);
        else
          keys[size_t(i)] = data.getDouble(base + i * inner);
        order[size_t(i)] = i;
      }
      // a before b: a's key first in the requested direction (NaN the
      // largest), equal keys by index.
      auto before = [&](int64_t a, int64_t b) {
        if (integral) {
          int64_t x = keyInts[size_t(a)], y = keyInts[size_t(b)];
          if (x != y)
            return ascend ? x < y : x > y;
          return a < b;
        }
        double x = keys[size_t(a)], y = keys[size_t(b)];
        bool xn = std::isnan(x), yn = std::isnan(y);
        if (xn != yn)
          return ascend ? yn : xn;
        if (!xn && x != y)
          return ascend ? x < y : x > y;
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + kv, order.end(), before);
      for (int64_t i = 0; i < kv; ++i) {
        int64_t from = order[size_t(i)], at = (o * kv + i) * inner + in;
        std::memcpy(dst + size_t(at) * eb, src + size_t(base + from * inner) * eb, eb);
        setInt64(*indices, at, from);
      }
    }
  OpResults r;
  r.push_back(std::move(*values));
  r.push_back(std::move(*indices));
  return r;
}

static Expected<OpResults> dynSliceOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(5))
    return e;
  std::vector<int64_t> v[4];
  const char *names[] = {"starts", "ends", "axes", "steps"};
  for (unsigned i = 0; i < 4; ++i) {
    Expected<std::vector<int64_t>> x = intsOf(ctx, i + 1, names[i]);
    if (!x)
      return x.takeError();
    v[i] = std::move(*x);
  }
  const HostTensor &data = ctx.arg(0);
  size_t rank = data.shape().size();
  if (v[1].size() != v[0].size() || v[2].size() != v[0].size() || v[3].size() != v[0].size())
    return ctx.error("starts, ends, axes and steps differ in length");
  // ONNX's clamping, per sliced axis: start to [0, dim] ([0, dim - 1]
  // stepping back), end to [-1, dim].
  Shape begin(rank, 0), end(data.shape().begin(), data.shape().end()), step(rank, 1);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < v[0].size(); ++i) {
    Expected<unsigned> axis = ctx.normalizeAxis(v[2][i], rank, "axes");
    if (!axis)
      return axis.takeError();
    if (seen[*axis])
      return ctx.error("axis " + Twine(*axis) + " is sliced twice");
    seen[*axis] = true;
    int64_t dim = data.shape()[*axis], s = v[3][i];
    if (s == 0)
      return ctx.error("a step of 0");
    int64_t b = v[0][i] < 0 ? v[0][i] + dim : v[0][i];
    int64_t e = v[1][i] < 0 ? v[1][i] + dim : v[1][i];
    if (s > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    begin[*axis] = b, end[*axis] = e, step[*axis] = s;
  }
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t n = step[d] > 0 ? (end[d] - begin[d] + step[d] - 1) / step[d]
                            : (begin[d] - end[d] - step[d] - 1) / -step[d];
    out[d] = std::max<int64_t>(n, 0);
  }
  Expected<HostTensor> r = ctx.makeResult(0, out, data.dtype());
  if (!r)
    return r.takeError();
  Shape inStrides = stridesOf(data.shape()), outStrides = stridesOf(out);
  size_t eb = dtypeBytes(data.dtype());
  auto *dst = static_cast<uint8_t *>(r->data());
  const auto *src = static_cast<const uint8_t *>(data.data());
  for (int64_t i = 0; i < r->numElements(); ++i) {
    int64_t from = 0;
    for (size_t d = 0; d < rank; ++d)
      from += (begin[d] + (i / outStrides[d] % out[d]) * step[d]) * inStrides[d];
    std::memcpy(dst + size_t(i) * eb, src + size_t(from) * eb, eb);
  }
  return single(std::move(*r));
}

/// Every element of `out` from the element of `in` that index map `from`
/// gives.
static void gatherBytes(const HostTensor &in, HostTensor &out, ArrayRef<int64_t> from) {
  size_t eb = dtypeBytes(in.dtype());
  auto *dst = static_cast<uint8_t *>(out.data());
  const auto *src = static_cast<const uint8_t *>(in.data());
  for (size_t i = 0; i < from.size(); ++i)
    std::memcpy(dst + i * eb, src + size_t(from[i]) * eb, eb);
}

static Expected<OpResults> dynExpandOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  Expected<std::vector<int64_t>> shape = intsOf(ctx, 1, "shape");
  if (!shape)
    return shape.takeError();
  const HostTensor &data = ctx.arg(0);
  std::optional<Shape> out = broadcastShapes(data.shape(), *shape);
  if (!out || llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.error("shape " + shapeStr(*shape) + " does not broadcast with the input's " +
                     shapeStr(data.shape()));
  Expected<HostTensor> r = ctx.makeResult(0, *out, data.dtype());
  if (!r)
    return r.takeError();
  gatherBytes(data, *r, broadcastIndex(data.shape(), *out));
  return single(std::move(*r));
}

static Expected<OpResults> dynTileOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  Expected<std::vector<int64_t>> reps = intsOf(ctx, 1, "repeats");
  if (!reps)
    return reps.takeError();
  const HostTensor &data = ctx.arg(0);
  size_t rank = data.shape().size();
  if (reps->size() != rank || llvm::any_of(*reps, [](int64_t r) { return r < 0; }))
    return ctx.error("repeats " + shapeStr(*reps) + " must be one non-negative count per dim of " +
                     shapeStr(data.shape()));
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d)
    out[d] = data.shape()[d] * (*reps)[d];
  Expected<HostTensor> r = ctx.makeResult(0, out, data.dtype());
  if (!r)
    return r.takeError();
  Shape inStrides = stridesOf(data.shape()), outStrides = stridesOf(out);
  std::vector<int64_t> from(size_t(r->numElements()));
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = 0;
    for (size_t d = 0; d < rank; ++d)
      f += (int64_t(i) / outStrides[d] % out[d] % data.shape()[d]) * inStrides[d];
    from[i] = f;
  }
  gatherBytes(data, *r, from);
  return single(std::move(*r));
}

static Expected<OpResults> dynFullOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  Expected<std::vector<int64_t>> shape = intsOf(ctx, 0, "shape");
  if (!shape)
    return shape.takeError();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.error("the shape " + shapeStr(*shape) + " has a negative dim");
  const HostTensor &fill = ctx.arg(1);
  if (fill.numElements() != 1)
    return ctx.error("the fill value must be one value");
  Expected<HostTensor> r = ctx.makeResult(0, *shape, fill.dtype());
  if (!r)
    return r.takeError();
  gatherBytes(fill, *r, std::vector<int64_t>(size_t(r->numElements()), 0));
  return single(std::move(*r));
}

static Expected<OpResults> dynArangeOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(3))
    return e;
  const HostTensor &start = ctx.arg(0);
  double s = start.getDouble(0), l = ctx.arg(1).getDouble(0), d = ctx.arg(2).getDouble(0);
  if (start.numElements() != 1 || ctx.arg(1).numElements() != 1 || ctx.arg(2).numElements() != 1)
    return ctx.error("start, limit and delta must be scalars");
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d))
    return ctx.error("start, limit and delta must be finite, and delta not 0");
  // ONNX: max(ceil((limit - start) / delta), 0) elements.
  double count = std::max(std::ceil((l - s) / d), 0.0);
  if (count > double(kMaxResultBytes))
    return ctx.error("a range of " + formatDouble(count) + " elements is too large");
  Expected<HostTensor> r = ctx.makeResult(0, {int64_t(count)}, start.dtype());
  if (!r)
    return r.takeError();
  bool integral = isIntegral(start.dtype());
  for (int64_t i = 0; i < r->numElements(); ++i) {
    if (integral)
      setInt64(*r, i, getInt64(start, 0) + i * getInt64(ctx.arg(2), 0));
    else
      r->setDouble(i, s + double(i) * d);
  }
  return single(std::move(*r));
}

/// RoiAlign as ONNX Runtime computes it: per bin, sample_ratio^2 points (or
/// ceil(the bin's size) per axis when sample_ratio <= 0), each the bilinear
/// interpolation of the four pixels around it (0 outside [-1, size], the
/// border clamped), averaged, or for "max" the largest of the corners'
/// weighted values. Without `aligned` a box is at least 1 x 1 and has no
/// half-pixel offset (ONNX's output_half_pixel, torchvision's aligned=False).
/// The sample points of a box are the same for every channel: they are
/// computed once per box (four offsets and weights each), then every
/// channel's plane is read through them.
namespace {
struct RoiSample {
  int64_t at[4]; // offsets in a channel's plane (yl,xl), (yl,xh), (yh,xl), (yh,xh)
  float w[4];    // their bilinear weights
  bool outside;  // beyond [-1, size]: no value ("max" counts it as 0)
};
} // namespace

static Expected<OpResults> roiAlignOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &data = ctx.arg(0), &rois = ctx.arg(1);
  ArrayRef<int64_t> ds = data.shape();
  if (ds.size() != 4 || rois.shape().size() != 2 || rois.shape()[1] != 5)
    return ctx.error("expected NCHW data and (boxes, 5) rois, got " + shapeStr(ds) + " and " +
                     shapeStr(rois.shape()));
  Shape pooled = ctx.getInts("pooled_size");
  int64_t R = rois.shape()[0], C = ds[1], H = ds[2], W = ds[3], PH = pooled[0], PW = pooled[1];
  float scale = float(ctx.getFloat("spatial_scale"));
  int64_t ratio = ctx.getInt("sample_ratio");
  bool aligned = ctx.getBool("aligned"), isMax = ctx.getString("mode") == "max";
  Expected<HostTensor> out = ctx.makeResult(0, {R, C, PH, PW}, data.dtype());
  if (!out)
    return out.takeError();
  // The data as float32: read in place, or converted once.
  std::vector<float> widened;
  const float *src = data.dtype() == DType::Float32 ? data.as<float>() : nullptr;
  if (!src && R > 0) {
    widened.resize(size_t(data.numElements()));
    for (int64_t i = 0; i < data.numElements(); ++i)
      widened[size_t(i)] = float(data.getDouble(i));
    src = widened.data();
  }
  float *dst = out->dtype() == DType::Float32 ? out->as<float>() : nullptr;
  std::vector<float> bins(size_t(PH * PW));
  std::vector<RoiSample> samples;
  for (int64_t r = 0; r < R; ++r) {
    int64_t batch = int64_t(rois.getDouble(r * 5));
    if (batch < 0 || batch >= ds[0])
      return ctx.error("box " + Twine(r) + " names batch " + Twine(batch) + " of " + Twine(ds[0]));
    float offset = aligned ? 0.5f : 0.0f;
    float x0 = float(rois.getDouble(r * 5 + 1)) * scale - offset,
          y0 = float(rois.getDouble(r * 5 + 2)) * scale - offset;
    float x1 = float(rois.getDouble(r * 5 + 3)) * scale - offset,
          y1 = float(rois.getDouble(r * 5 + 4)) * scale - offset;
    float rw = x1 - x0, rh = y1 - y0;
    if (!aligned)
      rw = std::max(rw, 1.0f), rh = std::max(rh, 1.0f);
    float bh = rh / float(PH), bw = rw / float(PW);
    int64_t gh = ratio > 0 ? ratio : int64_t(std::ceil(rh / float(PH)));
    int64_t gw = ratio > 0 ? ratio : int64_t(std::ceil(rw / float(PW)));
    if (gh > (1 << 16) || gw > (1 << 16) || gh * gw * PH * PW > (int64_t(1) << 22))
      return ctx.error("box " + Twine(r) + " samples too many points per bin");
    float count = float(std::max<int64_t>(gh * gw, 1));
    // The box's sample points, bin by bin (gh * gw each).
    samples.clear();
    for (int64_t ph = 0; ph < PH; ++ph)
      for (int64_t pw = 0; pw < PW; ++pw)
        for (int64_t iy = 0; iy < gh; ++iy)
          for (int64_t ix = 0; ix < gw; ++ix) {
            float y = y0 + float(ph) * bh + (float(iy) + 0.5f) * bh / float(gh);
            float x = x0 + float(pw) * bw + (float(ix) + 0.5f) * bw / float(gw);
            RoiSample s{};
            if (y < -1.0f || y > float(H) || x < -1.0f || x > float(W)) {
              s.outside = true;
              samples.push_back(s);
              continue;
            }
            y = std::max(y, 0.0f), x = std::max(x, 0.0f);
            int64_t yl = int64_t(y), xl = int64_t(x), yh, xh;
            if (yl >= H - 1)
              yh = yl = H - 1, y = float(yl);
            else
              yh = yl + 1;
            if (xl >= W - 1)
              xh = xl = W - 1, x = float(xl);
            else
              xh = xl + 1;
            float ly = y - float(yl), lx = x - float(xl), hy = 1 - ly, hx = 1 - lx;
            s.at[0] = yl * W + xl, s.at[1] = yl * W + xh, s.at[2] = yh * W + xl,
            s.at[3] = yh * W + xh;
            s.w[0] = hy * hx, s.w[1] = hy * lx, s.w[2] = ly * hx, s.w[3] = ly * lx;
            samples.push_back(s);
          }
    int64_t perBin = gh * gw;
    for (int64_t c = 0; c < C; ++c) {
      const float *plane = src + ((batch * C) + c) * H * W;
      for (int64_t b = 0; b < PH * PW; ++b) {
        float acc = isMax ? -INFINITY : 0.0f;
        bool any = false;
        for (const RoiSample &s :
             ArrayRef<RoiSample>(samples).slice(size_t(b * perBin), size_t(perBin))) {
          if (s.outside) {
            if (isMax)
              acc = std::max(acc, 0.0f), any = true;
            continue;
          }
          float v1 = s.w[0] * plane[s.at[0]], v2 = s.w[1] * plane[s.at[1]];
          float v3 = s.w[2] * plane[s.at[2]], v4 = s.w[3] * plane[s.at[3]];
          if (isMax)
            acc = std::max({acc, v1, v2, v3, v4}), any = true;
          else
            acc += v1 + v2 + v3 + v4;
        }
        bins[size_t(b)] = isMax ? (any ? acc : 0.0f) : acc / count;
      }
      int64_t first = (r * C + c) * PH * PW;
      if (dst)
        std::copy(bins.begin(), bins.end(), dst + first);
      else
        for (int64_t b = 0; b < PH * PW; ++b)
          out->setDouble(first + b, bins[size_t(b)]);
    }
  }
  return single(std::move(*out));
}

OpImplFn findDynamicOp(StringRef name) {
  return StringSwitch<OpImplFn>(name)
      .Case("nonzero", nonzeroOp)
      .Case("unique", uniqueOp)
      .Case("vision.non_max_suppression", nmsOp)
      .Case("shape_of", shapeOfOp)
      .Case("dyn.reshape", dynReshapeOp)
      .Case("dyn.topk", dynTopkOp)
      .Case("dyn.slice", dynSliceOp)
      .Case("dyn.expand", dynExpandOp)
      .Case("dyn.tile", dynTileOp)
      .Case("dyn.full", dynFullOp)
      .Case("dyn.arange", dynArangeOp)
      .Case("vision.roi_align", roiAlignOp)
      .Default(nullptr);
}

} // namespace hx::interp
