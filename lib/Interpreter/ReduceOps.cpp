//===- ReduceOps.cpp - Reference reductions and arg-reductions ------------===//
//
// The reduced axes follow TVM's ReduceRel (see lib/Ops/Reduce.cpp): axis=None
// reduces every axis (exclude ignored), a list reduces those axes (negative
// values count from the end, a repeat is an error), exclude=True reduces the
// others; keepdims keeps them as 1.
//
// One pass over the input: each input element's output position comes from
// an odometer over the input index that advances the output position by the
// output stride of each kept axis (0 for a reduced one).
//
// Accumulation is in double for floats and in wrapping int64 for integers:
//   sum    an empty reduction gives 0
//   mean   sum / count; integer mean truncates toward zero (TVM divides the
//          integer sum); an empty reduction is NaN for floats, an error for
//          integers
//   max,   NaN propagates; an empty reduction is an error (no identity)
//   min
//   prod   an empty reduction gives 1; integers wrap
//
// argmax and argmin give the int32 index, row-major over the reduced dims,
// of the first extreme element (the last with select_last_index); a NaN
// counts as the extreme (NumPy's rule), so the first (last) NaN wins. An
// empty reduction is an error.
//
// cumsum runs along its axis (the flattened data without one), in double
// for a float result and wrapping int64 for an integer one, each element
// first converted to the result's dtype; exclusive leaves out the element
// itself (the first is 0).
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>

using namespace llvm;

namespace hx::interp {

namespace {
enum class Red { Sum, Mean, Max, Min, Prod };
} // namespace

/// The reduced dims of a rank-`rank` operand (TVM's rule).
static Expected<BitVector> reducedDims(OpContext &ctx, size_t rank) {
  BitVector reduced(rank, false);
  if (std::optional<Shape> axes = ctx.getOptInts("axis")) {
    for (int64_t ax : *axes) {
      Expected<unsigned> d = ctx.normalizeAxis(ax, rank, "axis");
      if (!d)
        return d.takeError();
      if (reduced.test(*d))
        return ctx.error("axis " + Twine(*d) + " is listed twice");
      reduced.set(*d);
    }
    if (ctx.getBool("exclude"))
      reduced.flip();
  } else {
    reduced.set();
  }
  return reduced;
}

static Expected<OpResults> reduce(OpContext &ctx, Red kind) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  size_t rank = a.rank();
  Expected<BitVector> reducedOr = reducedDims(ctx, rank);
  if (!reducedOr)
    return reducedOr.takeError();
  const BitVector &reduced = *reducedOr;

  Shape outShape, compact; // compact: the kept dims only
  int64_t count = 1;       // elements reduced into each output
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced.test(d)) {
      outShape.push_back(a.shape()[d]);
      compact.push_back(a.shape()[d]);
    } else {
      count *= a.shape()[d];
      if (ctx.getBool("keepdims"))
        outShape.push_back(1);
    }
  }
  Expected<HostTensor> out = ctx.makeResult(0, outShape, a.dtype());
  if (!out)
    return out.takeError();
  int64_t n = out->numElements();
  if (n > 0 && count == 0 && (kind == Red::Max || kind == Red::Min))
    return ctx.error("cannot reduce over an empty axis (no identity)");
  if (n > 0 && count == 0 && kind == Red::Mean && isIntegral(a.dtype()))
    return ctx.error("integer mean over an empty axis");

  // Output stride of each input dim (0 when reduced).
  Shape compactStrides = stridesOf(compact), outStride(rank, 0);
  for (size_t d = 0, k = 0; d < rank; ++d)
    if (!reduced.test(d))
      outStride[d] = compactStrides[k++];

  bool isMax = kind == Red::Max, isExtremum = kind == Red::Max || kind == Red::Min;
  std::vector<bool> seen(size_t(n), false);
  Shape idx(rank, 0);
  int64_t pos = 0;
  if (!isIntegral(a.dtype())) {
    std::vector<double> acc(size_t(n), kind == Red::Prod ? 1.0 : 0.0), in = toDoubles(a);
    for (size_t i = 0; i < in.size(); ++i) {
      double v = in[i];
      double &r = acc[size_t(pos)];
      if (kind == Red::Prod)
        r *= v;
      else if (!isExtremum)
        r += v;
      else if (!seen[size_t(pos)] || std::isnan(v))
        r = v, seen[size_t(pos)] = true;
      else if (!std::isnan(r))
        r = isMax ? std::max(r, v) : std::min(r, v);
      for (size_t d = rank; d-- > 0;) {
        if (++idx[d] < a.shape()[d]) {
          pos += outStride[d];
          break;
        }
        pos -= outStride[d] * (a.shape()[d] - 1);
        idx[d] = 0;
      }
    }
    for (int64_t i = 0; i < n; ++i)
      out->setDouble(i, kind == Red::Mean ? acc[size_t(i)] / double(count) : acc[size_t(i)]);
  } else {
    std::vector<int64_t> acc(size_t(n), kind == Red::Prod ? 1 : 0);
    for (int64_t i = 0, total = a.numElements(); i < total; ++i) {
      int64_t v = getInt64(a, i);
      int64_t &r = acc[size_t(pos)];
      if (kind == Red::Prod)
        r = int64_t(uint64_t(r) * uint64_t(v));
      else if (!isExtremum)
        r = int64_t(uint64_t(r) + uint64_t(v));
      else if (!seen[size_t(pos)])
        r = v, seen[size_t(pos)] = true;
      else if (a.dtype() == DType::UInt64) // unsigned order
        r = int64_t(isMax ? std::max(uint64_t(r), uint64_t(v))
                          : std::min(uint64_t(r), uint64_t(v)));
      else
        r = isMax ? std::max(r, v) : std::min(r, v);
      for (size_t d = rank; d-- > 0;) {
        if (++idx[d] < a.shape()[d]) {
          pos += outStride[d];
          break;
        }
        pos -= outStride[d] * (a.shape()[d] - 1);
        idx[d] = 0;
      }
    }
    for (int64_t i = 0; i < n; ++i)
      setInt64(*out, i, kind == Red::Mean ? acc[size_t(i)] / count : acc[size_t(i)]);
  }
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

template <Red K> static Expected<OpResults> reduceOp(OpContext &ctx) { return reduce(ctx, K); }

/// argmax (isMax) or argmin.
static Expected<OpResults> argReduce(OpContext &ctx, bool isMax) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  size_t rank = a.rank();
  Expected<BitVector> reducedOr = reducedDims(ctx, rank);
  if (!reducedOr)
    return reducedOr.takeError();
  const BitVector &reduced = *reducedOr;
  bool last = ctx.getBool("select_last_index");

  Shape outShape, kept, red;
  for (size_t d = 0; d < rank; ++d) {
    (reduced.test(d) ? red : kept).push_back(a.shape()[d]);
    if (!reduced.test(d) || ctx.getBool("keepdims"))
      outShape.push_back(reduced.test(d) ? 1 : a.shape()[d]);
  }
  Expected<HostTensor> out = ctx.makeResult(0, outShape, DType::Int32);
  if (!out)
    return out.takeError();
  int64_t n = out->numElements();
  int64_t count = 1;
  for (int64_t d : red)
    count *= d;
  if (n > 0 && count == 0)
    return ctx.error("cannot reduce over an empty axis (no index)");

  // Per input dim: its stride among the kept dims (the output position) and
  // among the reduced dims (the index), 0 in the other.
  Shape keptStrides = stridesOf(kept), redStrides = stridesOf(red);
  Shape outStride(rank, 0), idxStride(rank, 0);
  for (size_t d = 0, k = 0, r = 0; d < rank; ++d) {
    if (reduced.test(d))
      idxStride[d] = redStrides[r++];
    else
      outStride[d] = keptStrides[k++];
  }

  std::vector<double> best(size_t(n), 0.0);
  std::vector<int64_t> bestIdx(size_t(n), -1);
  std::vector<double> in = isIntegral(a.dtype()) ? std::vector<double>() : toDoubles(a);
  std::vector<int64_t> ints(size_t(isIntegral(a.dtype()) ? a.numElements() : 0));
  for (size_t i = 0; i < ints.size(); ++i)
    ints[i] = getInt64(a, int64_t(i));
  std::vector<int64_t> bestInt(size_t(n), 0);
  Shape idx(rank, 0);
  int64_t pos = 0, at = 0;
  for (int64_t i = 0, total = a.numElements(); i < total; ++i) {
    size_t p = size_t(pos);
    bool better;
    if (bestIdx[p] < 0) {
      better = true;
    } else if (!ints.empty()) {
      int64_t v = ints[size_t(i)], b = bestInt[p];
      better = isMax ? (last ? v >= b : v > b) : (last ? v <= b : v < b);
    } else {
      double v = in[size_t(i)], b = best[p];
      if (std::isnan(b))
        better = last && std::isnan(v);
      else
        better = std::isnan(v) || (isMax ? (last ? v >= b : v > b) : (last ? v <= b : v < b));
    }
    if (better) {
      bestIdx[p] = at;
      if (!ints.empty())
        bestInt[p] = ints[size_t(i)];
      else
        best[p] = in[size_t(i)];
    }
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < a.shape()[d]) {
        pos += outStride[d];
        at += idxStride[d];
        break;
      }
      pos -= outStride[d] * (a.shape()[d] - 1);
      at -= idxStride[d] * (a.shape()[d] - 1);
      idx[d] = 0;
    }
  }
  for (int64_t i = 0; i < n; ++i)
    setInt64(*out, i, bestIdx[size_t(i)]);
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

template <bool IsMax> static Expected<OpResults> argReduceOp(OpContext &ctx) {
  return argReduce(ctx, IsMax);
}

static Expected<OpResults> cumsumOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &a = ctx.arg(0);
  DType outType = ctx.getDType("dtype").value_or(a.dtype());
  std::optional<int64_t> axisAttr = ctx.getOptInt("axis");
  int64_t outer = 1, n = a.numElements(), inner = 1;
  Shape outShape{a.numElements()};
  if (axisAttr) {
    Expected<unsigned> axis = ctx.normalizeAxis(*axisAttr, a.rank(), "axis");
    if (!axis)
      return axis.takeError();
    outShape.assign(a.shape().begin(), a.shape().end());
    n = a.shape()[*axis];
    for (size_t d = 0; d < a.rank(); ++d)
      if (d < *axis)
        outer *= a.shape()[d];
      else if (d > *axis)
        inner *= a.shape()[d];
  }
  Expected<HostTensor> out = ctx.makeResult(0, outShape, outType);
  if (!out)
    return out.takeError();
  bool exclusive = ctx.getBool("exclusive"), isF = isFloat(outType);
  // An element as the integer result's dtype sees it: a float truncated
  // toward zero, saturated to int64 (NaN 0), as the kernels' cast.
  auto asInt = [&](int64_t at) -> int64_t {
    if (isIntegral(a.dtype()))
      return getInt64(a, at);
    double v = std::trunc(a.getDouble(at));
    return std::isnan(v)                 ? 0
           : v >= 9.2233720368547758e18  ? INT64_MAX
           : v <= -9.2233720368547758e18 ? INT64_MIN
                                         : int64_t(v);
  };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double accF = 0;
      int64_t accI = 0;
      auto store = [&](int64_t at) {
        if (isF)
          out->setDouble(at, accF);
        else
          setInt64(*out, at, accI);
      };
      for (int64_t k = 0; k < n; ++k) {
        int64_t at = (o * n + k) * inner + i;
        if (exclusive)
          store(at);
        if (isF)
          accF += isIntegral(a.dtype()) ? double(getInt64(a, at)) : a.getDouble(at);
        else
          accI = int64_t(uint64_t(accI) + uint64_t(asInt(at)));
        if (!exclusive)
          store(at);
      }
    }
  }
  OpResults results;
  results.push_back(std::move(*out));
  return results;
}

OpImplFn findReduceOp(StringRef name) {
  return StringSwitch<OpImplFn>(name)
      .Case("sum", reduceOp<Red::Sum>)
      .Case("mean", reduceOp<Red::Mean>)
      .Case("max", reduceOp<Red::Max>)
      .Case("min", reduceOp<Red::Min>)
      .Case("prod", reduceOp<Red::Prod>)
      .Case("argmax", argReduceOp<true>)
      .Case("argmin", argReduceOp<false>)
      .Case("cumsum", cumsumOp)
      .Default(nullptr);
}

} // namespace hx::interp
