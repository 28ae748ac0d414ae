//===- Nn.cpp - Kernels of dense, batch_matmul, bias_add and softmax ------===//
//
//   nn.dense(data[..., K], weight[N, K]) -> [..., N]
//     a contraction (KernelBuilder::contraction: the target picks the
//     loops) with A = data as [M, K] (M = product of the leading dims) and
//     B = weight, both unit-stride along K.
//   nn.batch_matmul(x, y) -> [B, M, N]
//     the same per batch, reading x as [B, M, K] or [B, K, M]
//     (transpose_a) and y as [B, N, K] (transpose_b, the default) or
//     [B, K, N]; a batch of 1 broadcasts through stride 0.
//   nn.bias_add(data, bias, axis)
//     a strided nest adding bias[c] read with stride 1 on `axis`, 0
//     elsewhere.
//   nn.dropout(data): inference, field 0 the data, field 1 a mask of ones.
//   nn.batch_norm(data, gamma, beta, mean, var): inference, a strided nest
//     reading the per-channel vectors with stride 1 on axis, 0 elsewhere;
//     fields 1 and 2 copy the moving statistics.
//   nn.layer_norm(data, gamma, beta): per row along axis, the mean, then
//     the population variance, then the normalized row.
//   nn.softmax(data, axis), nn.log_softmax(data, axis)
//     per row along `axis` (stride = product of the later dims): m = max,
//     out = exp(x - m) and s = Σ out in the accumulator type, then out /= s.
//     The max subtraction keeps exp from overflowing (numerically stable).
//     A contiguous float32 row runs in the target's vectors
//     (softmaxRowVectors; ViT's 197-wide rows: 271 -> 147 us per call).
//
//===----------------------------------------------------------------------===//

#include "../LoopNest.h"
#include "OpKernels.h"
#include <cstring>
#include <vector>

using namespace llvm;

namespace hx {

static Error denseKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *data = spec.inputs[0], *weight = spec.inputs[1], *out = spec.outputs[0];
  if (data->rank() < 1 || weight->rank() != 2)
    return unsupported(kb, spec, "operand rank");
  int64_t k = data->shape.back(), n = weight->shape[0];
  int64_t m = numElements(ArrayRef<int64_t>(data->shape).drop_back());
  if (weight->shape[1] != k || numElements(out->shape) != m * n)
    return unsupported(kb, spec,
                       "operand shapes " + shapeToString(data->shape) + " and " +
                           shapeToString(weight->shape));
  DType t = data->dtype, acc = kb.accumulatorType(t);
  KernelBuilder::Contraction c;
  c.type = t;
  c.m = m;
  c.n = n;
  c.depth = k;
  auto loadA = [&](Value *, Value *i, Value *kk) {
    return kb.load(t, kb.buffer(spec.inputBuffer(0)), kb.iadd(kb.imul(i, k), kk));
  };
  auto loadB = [&](Value *, Value *j, Value *kk) {
    return kb.load(t, kb.buffer(spec.inputBuffer(1)), kb.iadd(kb.imul(j, k), kk));
  };
  // The result's coordinates of C(i, j): i over its leading dims.
  auto coordsOf = [&](Value *, Value *i, Value *j) {
    SmallVector<Value *, 4> coords = kb.unflatten(i, ArrayRef<int64_t>(out->shape).drop_back());
    coords.push_back(j);
    return coords;
  };
  auto store = [&](Value *, Value *i, Value *j, Value *sum) {
    kb.storeResult(out->dtype, spec.outputBuffer(0), kb.iadd(kb.imul(i, n), j),
                   coordsOf(nullptr, i, j), kb.cast(sum, acc, out->dtype));
  };
  c.loadA = loadA;
  c.loadB = loadB;
  c.store = store;
  c.aBuffer = spec.inputBuffer(0);
  c.aRowStride = k;
  if (out->dtype == DType::Float32) {
    c.cBuffer = spec.outputBuffer(0);
    c.cRowStride = n;
    c.cCoords = coordsOf;
  }
  std::vector<float> weights; // the weights' values, while the kernel is built
  if (const TensorData *w = buildTimeOperand(spec, 1);
      w && kb.readsBuildTimeValues() && w->dtype == DType::Float32 && t == DType::Float32) {
    weights.resize(w->bytes.size() / sizeof(float));
    std::memcpy(weights.data(), w->bytes.data(), weights.size() * sizeof(float));
    c.bValues = weights.data();
    c.bRowStride = k;
  }
  kb.contraction(c);
  return Error::success();
}

static Error batchMatmulKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *x = spec.inputs[0], *y = spec.inputs[1], *out = spec.outputs[0];
  if (x->rank() != 3 || y->rank() != 3 || out->rank() != 3)
    return unsupported(kb, spec, "operand rank");
  bool ta = spec.getBool("transpose_a"), tb = spec.getBool("transpose_b");
  DType t = x->dtype, acc = kb.accumulatorType(t);
  int64_t batch = out->shape[0], m = out->shape[1], n = out->shape[2];
  int64_t k = x->shape[ta ? 1 : 2];
  // Element strides of x along (batch, m, k) and of y along (batch, n, k).
  int64_t xb = x->shape[0] == 1 ? 0 : x->shape[1] * x->shape[2];
  int64_t xm = ta ? 1 : k, xk = ta ? m : 1;
  int64_t yb = y->shape[0] == 1 ? 0 : y->shape[1] * y->shape[2];
  int64_t yn = tb ? k : 1, yk = tb ? 1 : n;
  if (y->shape[tb ? 2 : 1] != k || x->shape[ta ? 2 : 1] != m || y->shape[tb ? 1 : 2] != n ||
      (x->shape[0] != 1 && x->shape[0] != batch) || (y->shape[0] != 1 && y->shape[0] != batch))
    return unsupported(
        kb, spec, "operand shapes " + shapeToString(x->shape) + " and " + shapeToString(y->shape));
  KernelBuilder::Contraction c;
  c.type = t;
  c.batch = batch;
  c.m = m;
  c.n = n;
  c.depth = k;
  auto loadA = [&](Value *b, Value *i, Value *kk) {
    return kb.load(t, kb.buffer(spec.inputBuffer(0)), kb.linearOffset({b, i, kk}, {xb, xm, xk}));
  };
  auto loadB = [&](Value *b, Value *j, Value *kk) {
    return kb.load(t, kb.buffer(spec.inputBuffer(1)), kb.linearOffset({b, j, kk}, {yb, yn, yk}));
  };
  auto store = [&](Value *b, Value *i, Value *j, Value *sum) {
    kb.storeResult(out->dtype, spec.outputBuffer(0), kb.linearOffset({b, i, j}, {m * n, n, 1}),
                   {b, i, j}, kb.cast(sum, acc, out->dtype));
  };
  auto coordsOf = [&](Value *b, Value *i, Value *j) { return SmallVector<Value *, 4>{b, i, j}; };
  if (xk == 1) {
    c.aBuffer = spec.inputBuffer(0);
    c.aBatchStride = xb;
    c.aRowStride = xm;
  }
  c.loadA = loadA;
  c.loadB = loadB;
  c.store = store;
  if (out->dtype == DType::Float32) {
    c.cBuffer = spec.outputBuffer(0);
    c.cBatchStride = m * n;
    c.cRowStride = n;
    c.cCoords = coordsOf;
  }
  kb.contraction(c);
  return Error::success();
}

static Error biasAddKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *data = spec.inputs[0], *out = spec.outputs[0];
  std::optional<unsigned> axis = normalizeAxis(spec.getInt("axis"), data->rank());
  if (!axis)
    return unsupported(kb, spec, "axis " + std::to_string(spec.getInt("axis")));
  if (spec.inputs[1]->shape != Shape{data->shape[*axis]} || out->shape != data->shape)
    return unsupported(kb, spec, "a bias of shape " + shapeToString(spec.inputs[1]->shape));
  Shape strides = contiguousStrides(out->shape);
  Shape biasStrides(out->rank(), 0);
  biasStrides[*axis] = 1;
  StridedOperand views[] = {{strides, 0}, {strides, 0}, {biasStrides, 0}};
  DType t = data->dtype;
  emitStridedLoops(kb, out->shape, views, 1, [&](ArrayRef<Value *> off) {
    Value *x = kb.load(t, kb.buffer(spec.inputBuffer(0)), off[1]);
    Value *b = kb.load(t, kb.buffer(spec.inputBuffer(1)), off[2]);
    kb.store(t, kb.buffer(spec.outputBuffer(0)), off[0], kb.add(t, x, b));
  });
  return Error::success();
}

/// The rows of a float tensor along its `axis` attribute (softmax,
/// log_softmax, layer_norm): one parallel iteration per row, body(len, at,
/// base) where at(i) is the element offset of the row's i-th element and
/// base, where the row is contiguous (the last axis), its first's (else
/// null).
using RowBody =
    function_ref<void(int64_t len, function_ref<Value *(Value *)> at, Value *contiguousBase)>;
static Error forEachRow(KernelBuilder &kb, const KernelSpec &spec, int64_t workPerElement,
                        RowBody body) {
  const TensorType *data = spec.inputs[0];
  std::optional<unsigned> axis = normalizeAxis(spec.getInt("axis"), data->rank());
  if (!axis)
    return unsupported(kb, spec, "axis " + std::to_string(spec.getInt("axis")));
  if (!isFloat(data->dtype))
    return unsupported(kb, spec, "dtype " + dtypeName(data->dtype));
  ArrayRef<int64_t> shape = data->shape;
  int64_t outer = numElements(shape.take_front(*axis));
  int64_t len = shape[*axis];
  int64_t inner = numElements(shape.drop_front(*axis + 1));
  if (outer * len * inner == 0)
    return Error::success();
  kb.parallelFor(outer * inner, workPerElement * len, [&](Value *p) {
    Value *base = inner == 1 ? kb.imul(p, len)
                             : kb.iadd(kb.imul(kb.idiv(p, inner), len * inner), kb.irem(p, inner));
    body(
        len, [&](Value *i) { return kb.iadd(base, kb.imul(i, inner)); },
        inner == 1 ? base : nullptr);
  });
  return Error::success();
}

/// softmax and log_softmax over a contiguous float32 row in the target's
/// vectors (lanes a power of two), the last vector masked: the maximum by
/// compare and select (a NaN is passed over there, but it still makes its
/// exp, the sum and so every result NaN, as the scalar form's), then
/// e = exp(x - m) with one partial sum per lane, then the scaling.
template <bool Log>
static void softmaxRowVectors(KernelBuilder &kb, Value *in, Value *out, Value *base, int64_t len,
                              unsigned lanes) {
  const DType t = DType::Float32;
  const int64_t full = len / lanes, tail = len % lanes;
  SmallVector<bool, 16> tailMask;
  for (unsigned l = 0; l < lanes; ++l)
    tailMask.push_back(int64_t(l) < tail);
  Value *tailAt = kb.iadd(base, full * int64_t(lanes));
  auto at = [&](Value *v) { return kb.iadd(base, kb.imul(v, int64_t(lanes))); };
  // Each whole vector, then the masked last one (where the row has one).
  auto eachVector = [&](function_ref<void(Value * offset, ArrayRef<bool> mask)> fn) {
    kb.forRange(0, full, [&](Value *v) { fn(at(v), {}); });
    if (tail)
      fn(tailAt, tailMask);
  };
  auto load = [&](Value *ptr, Value *offset, ArrayRef<bool> mask) {
    return mask.empty() ? kb.loadVector(t, ptr, offset, lanes)
                        : kb.loadVectorMasked(ptr, offset, mask);
  };
  auto store = [&](Value *offset, ArrayRef<bool> mask, Value *v) {
    if (mask.empty())
      kb.storeVector(out, offset, v);
    else
      kb.storeVectorMasked(out, offset, v, mask);
  };
  auto maxOf = [&](Value *a, Value *c) { return kb.select(kb.compare(CmpOp::GT, t, c, a), c, a); };
  Value *lowest = kb.splat(kb.lowest(t), lanes), *zero = kb.splat(kb.constant(t, 0), lanes);
  KernelBuilder::LocalVar mx = kb.localVector(t, lowest);
  eachVector([&](Value *offset, ArrayRef<bool> mask) {
    Value *x = load(in, offset, mask);
    if (!mask.empty())
      x = kb.selectLanes(mask, x, lowest);
    kb.set(mx, maxOf(kb.get(mx), x));
  });
  Value *m = kb.splat(kb.reduceLanes(kb.get(mx), maxOf), lanes);
  KernelBuilder::LocalVar sum = kb.localVector(t, zero);
  eachVector([&](Value *offset, ArrayRef<bool> mask) {
    Value *e = kb.math(MathFn::Exp, t, {kb.sub(t, load(in, offset, mask), m)});
    if (!Log)
      store(offset, mask, e);
    kb.set(sum, kb.accumulate(t, kb.get(sum), mask.empty() ? e : kb.selectLanes(mask, e, zero)));
  });
  Value *total = kb.reduceLanes(kb.get(sum), [&](Value *a, Value *c) { return kb.add(t, a, c); });
  if (Log) {
    Value *shift =
        kb.splat(kb.add(t, kb.extractLane(m, 0), kb.math(MathFn::Log, t, {total})), lanes);
    eachVector([&](Value *offset, ArrayRef<bool> mask) {
      store(offset, mask, kb.sub(t, load(in, offset, mask), shift));
    });
    return;
  }
  Value *inv = kb.splat(kb.div(t, kb.constant(t, 1), total), lanes);
  eachVector([&](Value *offset, ArrayRef<bool> mask) {
    store(offset, mask, kb.mul(t, load(out, offset, mask), inv));
  });
}

/// softmax and log_softmax over one row in a scalar loop, its sums in
/// `acc`.
template <bool Log>
static void softmaxRowScalar(KernelBuilder &kb, Value *in, Value *out, int64_t len,
                             function_ref<Value *(Value *)> at, DType t, DType acc) {
  KernelBuilder::LocalVar mx = kb.localVar(t, kb.lowest(t));
  kb.forRange(0, len, [&](Value *i) { kb.set(mx, kb.max(t, kb.get(mx), kb.load(t, in, at(i)))); });
  Value *m = kb.get(mx);
  // softmax: e = exp(x - m) goes to the result, then is scaled: one exp
  // per element. log_softmax: x - m - log(sum of e).
  KernelBuilder::LocalVar sum = kb.localVar(acc, kb.constant(acc, 0));
  kb.forRange(0, len, [&](Value *i) {
    Value *e = kb.math(MathFn::Exp, t, {kb.sub(t, kb.load(t, in, at(i)), m)});
    if (!Log)
      kb.store(t, out, at(i), e);
    kb.set(sum, kb.accumulate(acc, kb.get(sum), kb.cast(e, t, acc)));
  });
  if (Log) {
    Value *shift = kb.add(acc, kb.cast(m, t, acc), kb.math(MathFn::Log, acc, {kb.get(sum)}));
    kb.forRange(0, len, [&](Value *i) {
      Value *x = kb.cast(kb.load(t, in, at(i)), t, acc);
      kb.store(t, out, at(i), kb.cast(kb.sub(acc, x, shift), acc, t));
    });
    return;
  }
  Value *inv = kb.div(acc, kb.constant(acc, 1), kb.get(sum));
  kb.forRange(0, len, [&](Value *i) {
    Value *e = kb.cast(kb.load(t, out, at(i)), t, acc);
    kb.store(t, out, at(i), kb.cast(kb.mul(acc, e, inv), acc, t));
  });
}

template <bool Log> static Error softmaxKernel(KernelBuilder &kb, const KernelSpec &spec) {
  // A row's sums in productAccumulatorType: float32 on the cpu, where the
  // vector loops keep one partial sum per lane.
  DType t = spec.inputs[0]->dtype, acc = kb.productAccumulatorType(t);
  const unsigned lanes = t == DType::Float32 ? kb.vectorLanes(t) : 1;
  return forEachRow(
      kb, spec, 50, [&](int64_t len, function_ref<Value *(Value *)> at, Value *contiguousBase) {
        Value *in = kb.buffer(spec.inputBuffer(0)), *out = kb.buffer(spec.outputBuffer(0));
        if (contiguousBase && lanes > 1 && (lanes & (lanes - 1)) == 0 && acc == t)
          softmaxRowVectors<Log>(kb, in, out, contiguousBase, len, lanes);
        else
          softmaxRowScalar<Log>(kb, in, out, len, at, t, acc);
      });
}

static Error batchNormKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *data = spec.inputs[0];
  std::optional<unsigned> axis = normalizeAxis(spec.getInt("axis"), data->rank());
  if (!axis)
    return unsupported(kb, spec, "axis " + std::to_string(spec.getInt("axis")));
  DType t = data->dtype, acc = kb.accumulatorType(t);
  if (!isFloat(t))
    return unsupported(kb, spec, "dtype " + dtypeName(t));
  int64_t channels = data->shape[*axis];
  for (unsigned i = 1; i < 5; ++i)
    if (spec.inputs[i]->shape != Shape{channels})
      return unsupported(kb, spec, "a vector of shape " + shapeToString(spec.inputs[i]->shape));
  double eps = spec.getFloat("epsilon");
  bool center = spec.getBool("center"), scale = spec.getBool("scale");
  Shape strides = contiguousStrides(data->shape);
  Shape channel(data->rank(), 0);
  channel[*axis] = 1;
  StridedOperand views[] = {{strides, 0}, {strides, 0}, {channel, 0},
                            {channel, 0}, {channel, 0}, {channel, 0}};
  emitStridedLoops(kb, data->shape, views, 8, [&](ArrayRef<Value *> off) {
    auto operand = [&](unsigned i) {
      return kb.cast(kb.load(t, kb.buffer(spec.inputBuffer(i)), off[i + 1]), t, acc);
    };
    Value *var = kb.add(acc, operand(4), kb.constant(acc, eps));
    Value *y = kb.div(acc, kb.sub(acc, operand(0), operand(3)), kb.math(MathFn::Sqrt, acc, {var}));
    if (scale)
      y = kb.mul(acc, y, operand(1));
    if (center)
      y = kb.add(acc, y, operand(2));
    kb.store(t, kb.buffer(spec.outputBuffer(0)), off[0], kb.cast(y, acc, t));
  });
  // Fields 1 and 2: the moving statistics, unchanged at inference.
  Shape vec = contiguousStrides({channels});
  emitStridedCopy(kb, t, {channels}, spec.outputBuffer(1), {vec, 0}, spec.inputBuffer(3), {vec, 0});
  emitStridedCopy(kb, t, {channels}, spec.outputBuffer(2), {vec, 0}, spec.inputBuffer(4), {vec, 0});
  return Error::success();
}

static Error layerNormKernel(KernelBuilder &kb, const KernelSpec &spec) {
  DType t = spec.inputs[0]->dtype, acc = kb.productAccumulatorType(t);
  for (unsigned i = 1; i < 3; ++i)
    if (spec.inputs[i]->rank() != 1)
      return unsupported(kb, spec, "a vector of shape " + shapeToString(spec.inputs[i]->shape));
  double eps = spec.getFloat("epsilon");
  bool center = spec.getBool("center"), scale = spec.getBool("scale");
  return forEachRow(kb, spec, 10, [&](int64_t len, function_ref<Value *(Value *)> at, Value *) {
    Value *in = kb.buffer(spec.inputBuffer(0)), *out = kb.buffer(spec.outputBuffer(0));
    auto x = [&](Value *i) { return kb.cast(kb.load(t, in, at(i)), t, acc); };
    // Two passes: the mean, then the (population) variance around it.
    KernelBuilder::LocalVar sum = kb.localVar(acc, kb.constant(acc, 0));
    kb.forRange(0, len, [&](Value *i) { kb.set(sum, kb.accumulate(acc, kb.get(sum), x(i))); });
    Value *mean = kb.div(acc, kb.get(sum), kb.constant(acc, double(len)));
    KernelBuilder::LocalVar sq = kb.localVar(acc, kb.constant(acc, 0));
    kb.forRange(0, len, [&](Value *i) {
      Value *d = kb.sub(acc, x(i), mean);
      kb.set(sq, kb.accumulate(acc, kb.get(sq), kb.mul(acc, d, d)));
    });
    Value *var = kb.div(acc, kb.get(sq), kb.constant(acc, double(len)));
    Value *inv = kb.div(acc, kb.constant(acc, 1),
                        kb.math(MathFn::Sqrt, acc, {kb.add(acc, var, kb.constant(acc, eps))}));
    kb.forRange(0, len, [&](Value *i) {
      Value *y = kb.mul(acc, kb.sub(acc, x(i), mean), inv);
      if (scale)
        y = kb.mul(acc, y, kb.cast(kb.load(t, kb.buffer(spec.inputBuffer(1)), i), t, acc));
      if (center)
        y = kb.add(acc, y, kb.cast(kb.load(t, kb.buffer(spec.inputBuffer(2)), i), t, acc));
      kb.store(t, out, at(i), kb.cast(y, acc, t));
    });
  });
}

static Error dropoutKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *data = spec.inputs[0];
  Shape strides = contiguousStrides(data->shape);
  StridedOperand views[] = {{strides, 0}, {strides, 0}, {strides, 0}};
  DType t = data->dtype;
  emitStridedLoops(kb, data->shape, views, 1, [&](ArrayRef<Value *> off) {
    kb.store(t, kb.buffer(spec.outputBuffer(0)), off[0],
             kb.load(t, kb.buffer(spec.inputBuffer(0)), off[1]));
    kb.store(t, kb.buffer(spec.outputBuffer(1)), off[2], kb.constant(t, 1));
  });
  return Error::success();
}

ArrayRef<KernelEntry> nnKernels() {
  static const KernelEntry table[] = {
      {"nn.dense", denseKernel},
      {"nn.batch_matmul", batchMatmulKernel},
      {"nn.bias_add", biasAddKernel},
      {"nn.softmax", softmaxKernel<false>},
      {"nn.log_softmax", softmaxKernel<true>},
      {"nn.dropout", dropoutKernel},
      {"nn.batch_norm", batchNormKernel},
      {"nn.layer_norm", layerNormKernel},
  };
  return table;
}

} // namespace hx
