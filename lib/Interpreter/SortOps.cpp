//===- SortOps.cpp - Reference argsort and topk ---------------------------===//
//
// Both sort each 1-D slice along `axis` with a stable sort, so equal values
// keep their original order: ties are broken by the lower index first, in
// ascending and in descending order alike (TVM's CPU implementation sorts
// (value, index) pairs stably; NumPy's argsort(kind="stable") agrees for
// ascending order).
//
// Keys are compared exactly: as int64 for integer tensors (no rounding of
// values beyond 2^53), as double for floats. NaN sorts as larger than every
// number: last in ascending order, first in descending order.
//
//   argsort(data, axis, is_ascend, dtype)          the permutation, as dtype
//   topk(data, k, axis, ret_type, is_ascend, dtype)
//     the first k of the sorted slice (k < 1: all), largest first unless
//     is_ascend; ret_type "both" gives (values, indices), "values" or
//     "indices" one of them
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace llvm;

namespace hx::interp {

/// a < b in a total order where NaN is the largest value.
static bool lessTotal(double a, double b) {
  if (std::isnan(a))
    return false;
  if (std::isnan(b))
    return true;
  return a < b;
}
static bool lessTotal(int64_t a, int64_t b) { return a < b; }

/// For each slice along `axis` (outer x inner slices of `len` elements at
/// stride `inner`), its indices in sorted order, written to `order` at the
/// slice's positions.
template <typename K>
static void sortSlices(const std::vector<K> &keys, int64_t outer, int64_t len, int64_t inner,
                       bool ascend, std::vector<int64_t> &order) {
  order.resize(keys.size());
  std::vector<int64_t> idx(static_cast<size_t>(len));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t base = o * len * inner + in;
      std::iota(idx.begin(), idx.end(), 0);
      auto key = [&](int64_t i) { return keys[size_t(base + i * inner)]; };
      // Equal keys keep index order: a stable sort in either direction.
      std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
        K ka = key(a), kb = key(b);
        if (ascend ? lessTotal(ka, kb) : lessTotal(kb, ka))
          return true;
        if (ascend ? lessTotal(kb, ka) : lessTotal(ka, kb))
          return false;
        return a < b;
      });
      for (int64_t i = 0; i < len; ++i)
        order[size_t(base + i * inner)] = idx[size_t(i)];
    }
}

namespace {
/// One sorted view of the argument along an axis.
struct Sorted {
  unsigned axis = 0;
  int64_t outer = 1, len = 1, inner = 1;
  std::vector<int64_t> order; // per position: the source index along the axis
};
} // namespace

static Expected<Sorted> sortAlongAxis(OpContext &ctx, const HostTensor &a, bool ascend) {
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), a.rank(), "axis");
  if (!axis)
    return axis.takeError();
  Sorted s;
  s.axis = *axis;
  for (unsigned d = 0; d < *axis; ++d)
    s.outer *= a.shape()[d];
  s.len = a.shape()[*axis];
  for (size_t d = *axis + 1; d < a.rank(); ++d)
    s.inner *= a.shape()[d];
  if (isIntegral(a.dtype())) {
    std::vector<int64_t> keys(size_t(a.numElements()));
    for (size_t i = 0; i < keys.size(); ++i)
      keys[i] = getInt64(a, int64_t(i));
    sortSlices(keys, s.outer, s.len, s.inner, ascend, s.order);
  } else {
    sortSlices(toDoubles(a), s.outer, s.len, s.inner, ascend, s.order);
  }
  return s;
}

static Expected<OpResults> argsortOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  Expected<Sorted> s = sortAlongAxis(ctx, a, ctx.getBool("is_ascend"));
  if (!s)
    return s.takeError();
  Expected<HostTensor> out =
      ctx.makeResult(0, a.shape(), ctx.getDType("dtype").value_or(DType::Int32));
  if (!out)
    return out.takeError();
  for (size_t i = 0; i < s->order.size(); ++i)
    setInt64(*out, int64_t(i), s->order[i]);
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

static Expected<OpResults> topkOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  std::string retType = ctx.getString("ret_type");
  if (retType != "both" && retType != "values" && retType != "indices")
    return ctx.error("ret_type must be \"both\", \"values\" or \"indices\", got \"" + retType +
                     "\"");
  Expected<Sorted> s = sortAlongAxis(ctx, a, ctx.getBool("is_ascend"));
  if (!s)
    return s.takeError();
  int64_t k = ctx.getOptInt("k").value_or(0);
  if (k > s->len)
    return ctx.error("k=" + Twine(k) + " exceeds the size " + Twine(s->len) + " of the axis");
  if (k < 1)
    k = s->len;
  Shape shape(a.shape().begin(), a.shape().end());
  shape[s->axis] = k;
  bool wantValues = retType != "indices", wantIndices = retType != "values";
  OpResults results;
  size_t eb = dtypeBytes(a.dtype());
  if (wantValues) {
    Expected<HostTensor> values = ctx.makeResult(0, shape, a.dtype());
    if (!values)
      return values.takeError();
    if (values->dtype() != a.dtype())
      return ctx.error("the values' dtype differs from the argument's");
    auto *dst = static_cast<uint8_t *>(values->data());
    const auto *src = static_cast<const uint8_t *>(a.data());
    for (int64_t o = 0; o < s->outer; ++o)
      for (int64_t i = 0; i < k; ++i)
        for (int64_t in = 0; in < s->inner; ++in) {
          int64_t from = s->order[size_t((o * s->len + i) * s->inner + in)];
          std::memcpy(dst + size_t((o * k + i) * s->inner + in) * eb,
                      src + size_t((o * s->len + from) * s->inner + in) * eb, eb);
        }
    results.push_back(std::move(*values));
  }
  if (wantIndices) {
    DType dt = ctx.getDType("dtype").value_or(DType::Int32);
    Expected<HostTensor> indices = ctx.makeResult(wantValues ? 1 : 0, shape, dt);
    if (!indices)
      return indices.takeError();
    for (int64_t o = 0; o < s->outer; ++o)
      for (int64_t i = 0; i < k; ++i)
        for (int64_t in = 0; in < s->inner; ++in)
          setInt64(*indices, (o * k + i) * s->inner + in,
                   s->order[size_t((o * s->len + i) * s->inner + in)]);
    results.push_back(std::move(*indices));
  }
  return results;
}

OpImplFn findSortOp(StringRef name) {
  return StringSwitch<OpImplFn>(name)
      .Case("argsort", argsortOp)
      .Case("topk", topkOp)
      .Default(nullptr);
}

} // namespace hx::interp
