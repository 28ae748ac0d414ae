//===- NnOps.cpp - Reference dense, batch_matmul, bias_add, softmax -------===//
//
// Shapes as in lib/Ops/Nn.cpp, checked against the actual arguments:
//
//   nn.dense(data[..., K], weight[N, K])
//     out[..., n] = sum_k data[..., k] * weight[n, k]
//   nn.batch_matmul(x[B, M, K], y[B, N, K])
//     out[b, m, n] = sum_k x[b, m, k] * y[b, n, k]
//     transpose_a reads x as [B, K, M]; transpose_b=False reads y as
//     [B, K, N]; a batch of 1 on either side broadcasts
//   nn.bias_add(data, bias[C], axis)   data + bias along `axis`
//   nn.softmax(data, axis)             exp(x - max) / sum(exp(x - max))
//   nn.log_softmax(data, axis)         x - max - log(sum(exp(x - max)))
//   nn.batch_flatten(data)             [N, ...] -> [N, product of the rest]
//   nn.dropout(data, rate)             (data, ones): inference
//   nn.batch_norm(x, g, b, mean, var)  ((x - mean) / sqrt(var + eps) * g + b, mean, var)
//   nn.layer_norm(x, g, b, axis)       the same with the mean and (population)
//                                      variance of each row along axis
//
// Products accumulate in double (in k order) and round once into the result
// dtype (out_dtype when set). Softmax subtracts the slice's maximum first, so
// large inputs do not overflow.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "ParallelRows.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>
#include <cstring>

using namespace llvm;

namespace hx::interp {

static Error checkSameDType(OpContext &ctx, const HostTensor &a, const HostTensor &b) {
  if (a.dtype() == b.dtype())
    return Error::success();
  return ctx.error("dtypes " + dtypeName(a.dtype()) + " and " + dtypeName(b.dtype()) +
                   " do not match");
}

/// The result dtype: out_dtype when set, else the input's.
static DType outDType(OpContext &ctx, DType input) {
  return ctx.getDType("out_dtype").value_or(input);
}

/// out[j] = sum over l < k of a[l * as] * w[j * wj + l * wl] for j < n, each
/// sum in double in order of l. Four outputs at a time share the loads of
/// a and keep four independent sums, so the loop runs at the multiplier's
/// throughput, not its latency; every sum is what the plain loop gives.
static void dotRows(const double *a, int64_t as, const double *w, int64_t wj, int64_t wl, int64_t n,
                    int64_t k, double *out) {
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const double *w0 = w + j * wj, *w1 = w0 + wj, *w2 = w1 + wj, *w3 = w2 + wj;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int64_t l = 0; l < k; ++l) {
      double x = a[l * as];
      s0 += x * w0[l * wl];
      s1 += x * w1[l * wl];
      s2 += x * w2[l * wl];
      s3 += x * w3[l * wl];
    }
    out[j] = s0;
    out[j + 1] = s1;
    out[j + 2] = s2;
    out[j + 3] = s3;
  }
  for (; j < n; ++j) {
    double s = 0;
    for (int64_t l = 0; l < k; ++l)
      s += a[l * as] * w[j * wj + l * wl];
    out[j] = s;
  }
}

static Expected<OpResults> denseOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &data = ctx.arg(0), &weight = ctx.arg(1);
  if (Error e = checkSameDType(ctx, data, weight))
    return e;
  if (data.rank() < 1 || weight.rank() != 2)
    return ctx.error("expected data of rank >= 1 and weight of rank 2, got " +
                     shapeStr(data.shape()) + " and " + shapeStr(weight.shape()));
  int64_t k = data.shape().back(), n = weight.shape()[0];
  if (weight.shape()[1] != k)
    return ctx.error("reduction dimensions differ: data " + shapeStr(data.shape()) + ", weight " +
                     shapeStr(weight.shape()));
  if (std::optional<int64_t> units = ctx.getOptInt("units"); units && *units != n)
    return ctx.error("units=" + Twine(*units) + " does not match the weight's " + Twine(n) +
                     " rows");
  Shape shape(data.shape().begin(), data.shape().end());
  shape.back() = n;
  Expected<HostTensor> out = ctx.makeResult(0, shape, outDType(ctx, data.dtype()));
  if (!out)
    return out.takeError();
  std::vector<double> d = toDoubles(data), w = toDoubles(weight);
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < data.rank(); ++i)
    rows *= data.shape()[i];
  std::vector<double> result(size_t(rows * n));
  parallelRows(rows, 2 * n * k, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      dotRows(d.data() + r * k, 1, w.data(), k, 1, n, k, result.data() + r * n);
  });
  for (int64_t e = 0; e < rows * n; ++e)
    out->setDouble(e, result[size_t(e)]);
  return single(std::move(*out));
}

static Expected<OpResults> batchMatmulOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &x = ctx.arg(0), &y = ctx.arg(1);
  if (Error e = checkSameDType(ctx, x, y))
    return e;
  if (x.rank() != 3 || y.rank() != 3)
    return ctx.error("operands must have rank 3, got shapes " + shapeStr(x.shape()) + " and " +
                     shapeStr(y.shape()));
  bool ta = ctx.getBool("transpose_a"), tb = ctx.getBool("transpose_b");
  int64_t bx = x.shape()[0], by = y.shape()[0];
  int64_t m = x.shape()[ta ? 2 : 1], k = x.shape()[ta ? 1 : 2];
  int64_t n = y.shape()[tb ? 1 : 2], ky = y.shape()[tb ? 2 : 1];
  if (bx != by && bx != 1 && by != 1)
    return ctx.error("batch dimensions " + Twine(bx) + " and " + Twine(by) + " differ");
  if (k != ky)
    return ctx.error("reduction dimensions differ: " + shapeStr(x.shape()) +
                     (ta ? " (transposed)" : "") + " and " + shapeStr(y.shape()) +
                     (tb ? " (transposed)" : ""));
  int64_t batch = bx == 1 ? by : bx;
  Expected<HostTensor> out = ctx.makeResult(0, {batch, m, n}, outDType(ctx, x.dtype()));
  if (!out)
    return out.takeError();
  std::vector<double> vx = toDoubles(x), vy = toDoubles(y), result(size_t(batch * m * n));
  // One row of one batch index at a time: x's row i steps along k by xk,
  // y's row j starts at j * yj and steps along k by yk.
  int64_t xk = ta ? m : 1, yj = tb ? k : 1, yk = tb ? 1 : n;
  parallelRows(batch * m, 2 * n * k, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t b = row / m, i = row % m;
      const double *px = vx.data() + (bx == 1 ? 0 : b) * m * k + (ta ? i : i * k);
      const double *py = vy.data() + (by == 1 ? 0 : b) * n * k;
      dotRows(px, xk, py, yj, yk, n, k, result.data() + row * n);
    }
  });
  for (int64_t e = 0; e < batch * m * n; ++e)
    out->setDouble(e, result[size_t(e)]);
  return single(std::move(*out));
}

static Expected<OpResults> biasAddOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(2))
    return e;
  const HostTensor &data = ctx.arg(0), &bias = ctx.arg(1);
  if (Error e = checkSameDType(ctx, data, bias))
    return e;
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data.rank(), "axis");
  if (!axis)
    return axis.takeError();
  int64_t c = data.shape()[*axis];
  if (bias.rank() != 1 || bias.shape()[0] != c)
    return ctx.error("bias must have shape (" + Twine(c) + ") to match axis " + Twine(*axis) +
                     " of data " + shapeStr(data.shape()) + ", got " + shapeStr(bias.shape()));
  Expected<HostTensor> out = ctx.makeResult(0, data.shape(), data.dtype());
  if (!out)
    return out.takeError();
  int64_t inner = 1;
  for (size_t d = *axis + 1; d < data.rank(); ++d)
    inner *= data.shape()[d];
  std::vector<double> d = toDoubles(data), b = toDoubles(bias);
  for (int64_t i = 0, n = data.numElements(); i < n; ++i)
    out->setDouble(i, d[size_t(i)] + b[size_t((i / inner) % c)]);
  return single(std::move(*out));
}

template <bool Log> static Expected<OpResults> softmaxOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &data = ctx.arg(0);
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data.rank(), "axis");
  if (!axis)
    return axis.takeError();
  Expected<HostTensor> out = ctx.makeResult(0, data.shape(), data.dtype());
  if (!out)
    return out.takeError();
  int64_t len = data.shape()[*axis], inner = 1;
  for (size_t d = *axis + 1; d < data.rank(); ++d)
    inner *= data.shape()[d];
  int64_t outer = len * inner != 0 ? data.numElements() / (len * inner) : 0;
  std::vector<double> v = toDoubles(data);
  std::vector<double> e(static_cast<size_t>(len));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t base = o * len * inner + in;
      double mx = -INFINITY;
      for (int64_t i = 0; i < len; ++i)
        mx = std::max(mx, v[size_t(base + i * inner)]);
      double sum = 0;
      for (int64_t i = 0; i < len; ++i)
        sum += e[size_t(i)] = std::exp(v[size_t(base + i * inner)] - mx);
      for (int64_t i = 0; i < len; ++i)
        out->setDouble(base + i * inner,
                       Log ? v[size_t(base + i * inner)] - mx - std::log(sum) : e[size_t(i)] / sum);
    }
  return single(std::move(*out));
}

static Expected<OpResults> batchFlattenOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &data = ctx.arg(0);
  if (data.rank() < 1)
    return ctx.error("the data must have rank 1 or more");
  int64_t rest = 1;
  for (size_t d = 1; d < data.rank(); ++d)
    rest *= data.shape()[d];
  Expected<HostTensor> out = ctx.makeResult(0, {data.shape()[0], rest}, data.dtype());
  if (!out)
    return out.takeError();
  if (data.byteSize())
    std::memcpy(out->data(), data.data(), data.byteSize());
  return single(std::move(*out));
}

/// Per (outer, channel, inner) position of a tensor split around `axis`.
/// What batch_norm and layer_norm share: the data split around `axis`
/// into (outer, len, inner), per-channel vectors (operands 1..numVectors)
/// of len elements each, and the attributes.
struct NormSetup {
  int64_t outer = 1, len = 0, inner = 1;
  double eps = 0;
  bool center = true, scale = true;
  std::vector<double> x;
  std::vector<std::vector<double>> vectors; // operand i at index i - 1
};

static Expected<NormSetup> normSetup(OpContext &ctx, unsigned numVectors) {
  if (Error e = ctx.expectArgs(1 + numVectors))
    return e;
  const HostTensor &data = ctx.arg(0);
  Expected<unsigned> axis = ctx.normalizeAxis(ctx.getInt("axis"), data.rank(), "axis");
  if (!axis)
    return axis.takeError();
  NormSetup n;
  n.len = data.shape()[*axis];
  for (size_t d = *axis + 1; d < data.rank(); ++d)
    n.inner *= data.shape()[d];
  for (size_t d = 0; d < *axis; ++d)
    n.outer *= data.shape()[d];
  for (unsigned i = 1; i <= numVectors; ++i) {
    if (ctx.arg(i).numElements() != n.len)
      return ctx.error("operand " + Twine(i) + " has " + Twine(ctx.arg(i).numElements()) +
                       " elements, expected " + Twine(n.len));
    n.vectors.push_back(toDoubles(ctx.arg(i)));
  }
  n.eps = ctx.getFloat("epsilon");
  n.center = ctx.getBool("center");
  n.scale = ctx.getBool("scale");
  n.x = toDoubles(data);
  return n;
}

/// Inference batch_norm: statistics are the moving ones.
static Expected<OpResults> batchNormOp(OpContext &ctx) {
  Expected<NormSetup> n = normSetup(ctx, 4);
  if (!n)
    return n.takeError();
  const HostTensor &data = ctx.arg(0);
  int64_t len = n->len, inner = n->inner;
  double eps = n->eps;
  bool center = n->center, scale = n->scale;
  const std::vector<double> &x = n->x, &gamma = n->vectors[0], &beta = n->vectors[1],
                            &mean = n->vectors[2], &var = n->vectors[3];
  Expected<HostTensor> out = ctx.makeResult(0, data.shape(), data.dtype());
  if (!out)
    return out.takeError();
  for (int64_t i = 0; i < data.numElements(); ++i) {
    size_t c = size_t((i / inner) % std::max<int64_t>(len, 1));
    double y = (x[size_t(i)] - mean[c]) / std::sqrt(var[c] + eps);
    out->setDouble(i, y * (scale ? gamma[c] : 1.0) + (center ? beta[c] : 0.0));
  }
  OpResults results;
  results.push_back(std::move(*out));
  for (unsigned i : {3u, 4u}) {
    Expected<HostTensor> stat = ctx.makeResult(i - 2, ctx.arg(i).shape(), data.dtype());
    if (!stat)
      return stat.takeError();
    if (ctx.arg(i).byteSize())
      std::memcpy(stat->data(), ctx.arg(i).data(), ctx.arg(i).byteSize());
    results.push_back(std::move(*stat));
  }
  return results;
}

static Expected<OpResults> layerNormOp(OpContext &ctx) {
  Expected<NormSetup> n = normSetup(ctx, 2);
  if (!n)
    return n.takeError();
  const HostTensor &data = ctx.arg(0);
  int64_t outer = n->outer, len = n->len, inner = n->inner;
  double eps = n->eps;
  bool center = n->center, scale = n->scale;
  const std::vector<double> &x = n->x, &gamma = n->vectors[0], &beta = n->vectors[1];
  Expected<HostTensor> out = ctx.makeResult(0, data.shape(), data.dtype());
  if (!out)
    return out.takeError();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t base = o * len * inner + in;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < len; ++i)
        mean += x[size_t(base + i * inner)];
      mean /= double(len);
      for (int64_t i = 0; i < len; ++i) {
        double d = x[size_t(base + i * inner)] - mean;
        var += d * d;
      }
      var /= double(len);
      for (int64_t i = 0; i < len; ++i) {
        double y = (x[size_t(base + i * inner)] - mean) / std::sqrt(var + eps);
        out->setDouble(base + i * inner,
                       y * (scale ? gamma[size_t(i)] : 1.0) + (center ? beta[size_t(i)] : 0.0));
      }
    }
  return single(std::move(*out));
}

/// Inference: the data passes unchanged and the mask keeps everything.
static Expected<OpResults> dropoutOp(OpContext &ctx) {
  if (Error e = ctx.expectArgs(1))
    return e;
  const HostTensor &data = ctx.arg(0);
  Expected<HostTensor> out = ctx.makeResult(0, data.shape(), data.dtype());
  if (!out)
    return out.takeError();
  Expected<HostTensor> mask = ctx.makeResult(1, data.shape(), data.dtype());
  if (!mask)
    return mask.takeError();
  for (int64_t i = 0; i < data.numElements(); ++i) {
    out->setDouble(i, data.getDouble(i));
    mask->setDouble(i, 1);
  }
  OpResults results;
  results.push_back(std::move(*out));
  results.push_back(std::move(*mask));
  return results;
}

OpImplFn findNnOp(StringRef name) {
  return StringSwitch<OpImplFn>(name)
      .Case("nn.dense", denseOp)
      .Case("nn.batch_matmul", batchMatmulOp)
      .Case("nn.bias_add", biasAddOp)
      .Case("nn.softmax", softmaxOp<false>)
      .Case("nn.log_softmax", softmaxOp<true>)
      .Case("nn.batch_flatten", batchFlattenOp)
      .Case("nn.dropout", dropoutOp)
      .Case("nn.batch_norm", batchNormOp)
      .Case("nn.layer_norm", layerNormOp)
      .Default(nullptr);
}

} // namespace hx::interp
