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
//    a box of zero area, never suppresses. IoU is computed in double.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <cmath>
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

namespace {
struct Box {
  double yMin, xMin, yMax, xMax;
  double area() const { return (yMax - yMin) * (xMax - xMin); }
};
} // namespace

static Box readBox(const HostTensor &boxes, int64_t at, bool centerPoint) {
  double v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = boxes.getDouble(at + k);
  if (centerPoint) // x_center, y_center, width, height
    return {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
  return {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
}

static bool suppresses(const Box &a, const Box &b, double iouThreshold) {
  double ixMin = std::max(a.xMin, b.xMin), ixMax = std::min(a.xMax, b.xMax);
  double iyMin = std::max(a.yMin, b.yMin), iyMax = std::min(a.yMax, b.yMax);
  if (ixMax <= ixMin || iyMax <= iyMin)
    return false;
  double inter = (ixMax - ixMin) * (iyMax - iyMin);
  double areaA = a.area(), areaB = b.area();
  double uni = areaA + areaB - inter;
  if (inter <= 0 || areaA <= 0 || areaB <= 0 || uni <= 0)
    return false;
  return inter / uni > iouThreshold;
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
  std::vector<Box> kept;
  std::vector<Box> all(static_cast<size_t>(numBoxes));
  for (int64_t b = 0; b < batches && limit > 0; ++b) {
    for (int64_t i = 0; i < numBoxes; ++i)
      all[size_t(i)] = readBox(boxes, (b * numBoxes + i) * 4, centerPoint);
    for (int64_t c = 0; c < classes; ++c) {
      int64_t base = (b * classes + c) * numBoxes;
      order.clear();
      for (int64_t i = 0; i < numBoxes; ++i)
        if (scores.getDouble(base + i) > *minScore)
          order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        return scores.getDouble(base + x) > scores.getDouble(base + y);
      });
      kept.clear();
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= limit)
          break;
        const Box &box = all[size_t(i)];
        if (llvm::any_of(kept, [&](const Box &k) { return suppresses(box, k, *iou); }))
          continue;
        kept.push_back(box);
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

OpImplFn findDynamicOp(StringRef name) {
  return StringSwitch<OpImplFn>(name)
      .Case("nonzero", nonzeroOp)
      .Case("vision.non_max_suppression", nmsOp)
      .Default(nullptr);
}

} // namespace hx::interp
