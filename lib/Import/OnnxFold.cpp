//===- OnnxFold.cpp - Folding shape computations at import time ----------===//
//
// Exporters compute shapes in the graph: `x.view(x.size(0), -1)` becomes
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape. hx's operators take
// shapes as attributes, so such chains are evaluated here, on the values
// known at import time (initializers, Constant nodes, the static dims shape
// inference gives), as TVM's ONNX frontend does. A node is folded when every
// input it has is known; otherwise its converter (OnnxConverter.h) turns it
// into hx calls, or -- for the op types registered here, which hx has no
// operator for -- says it needs the value at import time.
//
// Arithmetic runs in double (exact for the integers of shapes), elementwise
// with NumPy broadcasting.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include <cmath>
#include <cstring>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

std::optional<Dims> broadcast(ArrayRef<const HostTensor *> ts) {
  size_t rank = 0;
  for (const HostTensor *t : ts)
    rank = std::max(rank, t->rank());
  Dims out(rank, 1);
  for (const HostTensor *t : ts)
    for (size_t i = 0; i < t->rank(); ++i) {
      int64_t d = t->shape()[i];
      int64_t &o = out[rank - t->rank() + i];
      if (d != 1 && o != 1 && d != o)
        return std::nullopt;
      if (d != 1)
        o = d;
    }
  return out;
}

/// Element `flat` of the broadcast shape `out`, read from `t`.
int64_t sourceIndex(const HostTensor &t, ArrayRef<int64_t> out, int64_t flat) {
  int64_t idx = 0, stride = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    size_t axis = out.size() - 1 - k;
    int64_t coord = flat % out[axis];
    flat /= out[axis];
    if (k < t.rank()) {
      int64_t d = t.shape()[t.rank() - 1 - k];
      idx += (d == 1 ? 0 : coord) * stride;
      stride *= d;
    }
  }
  return idx;
}

Expected<HostTensor> elementwise(NodeCtx &ctx, ArrayRef<const HostTensor *> ts, DType dtype,
                                 function_ref<double(ArrayRef<double>)> fn) {
  std::optional<Dims> shape = broadcast(ts);
  if (!shape)
    return ctx.error("operand shapes do not broadcast");
  if (elementCount(*shape) < 0)
    return ctx.error("the result is too large to fold");
  HostTensor out(dtype, *shape);
  SmallVector<double, 3> args(ts.size());
  for (int64_t i = 0; i < out.numElements(); ++i) {
    for (size_t a = 0; a < ts.size(); ++a)
      args[a] = ts[a]->getDouble(sourceIndex(*ts[a], *shape, i));
    out.setDouble(i, fn(args));
  }
  return out;
}

HostTensor reshaped(const HostTensor &t, ArrayRef<int64_t> shape) {
  HostTensor out(t.dtype(), shape);
  std::memcpy(out.data(), t.data(), t.byteSize());
  return out;
}

/// Gathers along `axis` of `data` at `idx` (a tensor of integers).
Expected<HostTensor> gather(NodeCtx &ctx, const HostTensor &data, const HostTensor &idx,
                            int64_t axis) {
  axis = normAxis(axis, data.rank());
  if (axis < 0 || axis >= int64_t(data.rank()))
    return ctx.error("axis out of range");
  Dims shape(data.shape().begin(), data.shape().begin() + axis);
  shape.insert(shape.end(), idx.shape().begin(), idx.shape().end());
  shape.insert(shape.end(), data.shape().begin() + axis + 1, data.shape().end());
  int64_t outer = 1, inner = 1, n = data.shape()[axis];
  for (int64_t i = 0; i < axis; ++i)
    outer *= data.shape()[i];
  for (size_t i = axis + 1; i < data.rank(); ++i)
    inner *= data.shape()[i];
  if (idx.dtype() != DType::Int64 && idx.dtype() != DType::Int32)
    return ctx.error("the indices must be int32 or int64, not " + dtypeName(idx.dtype()));
  std::vector<int64_t> ix = tensorInts(idx);
  HostTensor out(data.dtype(), shape);
  size_t elt = dtypeBytes(data.dtype());
  auto *src = static_cast<const char *>(data.data());
  auto *dst = static_cast<char *>(out.data());
  for (int64_t o = 0; o < outer; ++o)
    for (size_t j = 0; j < ix.size(); ++j) {
      int64_t k = ix[j] < 0 ? ix[j] + n : ix[j];
      if (k < 0 || k >= n)
        return ctx.error("index " + Twine(ix[j]) + " is out of range for a dim of " + Twine(n));
      std::memcpy(dst + ((o * ix.size() + j) * inner) * elt, src + ((o * n + k) * inner) * elt,
                  inner * elt);
    }
  return out;
}

} // namespace

int64_t onnximport::elementCount(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d && n > kMaxImportElements / d))
      return -1;
    n *= d;
  }
  return n;
}

static const StringMap<int> &foldable() {
  static const StringMap<int> ops = {{"Constant", 0},  {"Shape", 0},   {"Gather", 0},
                                     {"Unsqueeze", 0}, {"Squeeze", 0}, {"Concat", 0},
                                     {"Slice", 0},     {"Cast", 0},    {"Add", 0},
                                     {"Sub", 0},       {"Mul", 0},     {"Div", 0},
                                     {"Equal", 0},     {"Where", 0},   {"Range", 0},
                                     {"Reshape", 0},   {"Expand", 0},  {"ConstantOfShape", 0},
                                     {"Identity", 0},  {"Not", 0},     {"Less", 0},
                                     {"Greater", 0},   {"Sqrt", 0},    {"Neg", 0},
                                     {"Floor", 0},     {"Ceil", 0},    {"Transpose", 0},
                                     {"Flatten", 0},   {"Size", 0},    {"Mod", 0}};
  return ops;
}

bool onnximport::isFoldable(StringRef opType) { return foldable().count(opType); }

static Expected<bool> foldNode(NodeCtx &ctx) {
  StringRef op = ctx.node.op_type();
  if (op == "Constant") {
    for (const onnx::AttributeProto &a : ctx.node.attribute()) {
      if (a.name() == "value") {
        Expected<HostTensor> t = tensorFromProto(a.t());
        if (!t)
          return ctx.error(toString(t.takeError()));
        ctx.setConstant(0, std::move(*t));
      } else if (a.name() == "value_float") {
        HostTensor t(DType::Float32, {});
        t.as<float>()[0] = a.f();
        ctx.setConstant(0, std::move(t));
      } else if (a.name() == "value_floats") {
        HostTensor t(DType::Float32, {int64_t(a.floats_size())});
        for (int i = 0; i < a.floats_size(); ++i)
          t.as<float>()[i] = a.floats(i);
        ctx.setConstant(0, std::move(t));
      } else if (a.name() == "value_int") {
        ctx.setConstant(0, intTensor({a.i()}, DType::Int64, Dims{}));
      } else if (a.name() == "value_ints") {
        ctx.setConstant(0, intTensor(std::vector<int64_t>(a.ints().begin(), a.ints().end())));
      } else {
        return ctx.error("attribute '" + a.name() + "' is not supported");
      }
    }
    return true;
  }
  if (op == "Shape" || op == "Size") {
    OnnxValue *x = ctx.input(0);
    if (!x || !x->isStatic())
      return false;
    Dims d = *x->dims;
    if (op == "Size") {
      int64_t n = elementCount(d);
      if (n < 0)
        return false; // too large to matter at import time
      ctx.setConstant(0, intTensor({n}, DType::Int64, Dims{}));
      return true;
    }
    int64_t r = d.size();
    int64_t start = normAxis(ctx.getInt("start", 0), r);
    int64_t end = normAxis(ctx.getInt("end", r), r);
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, start, r);
    ctx.setConstant(0, intTensor(ArrayRef<int64_t>(d).slice(start, end - start)));
    return true;
  }
  // A Gather of dims a shape only the run knows has static (x.shape[1] of
  // an (n, 4) value).
  if (op == "Gather" && ctx.numInputs() == 2 && ctx.input(0) && ctx.input(0)->shapeOf &&
      ctx.input(1) && ctx.input(1)->constant && ctx.getInt("axis", 0) == 0) {
    const Dims &d = *ctx.input(0)->shapeOf;
    const HostTensor &ix = *ctx.input(1)->constant;
    std::vector<int64_t> picked;
    for (int64_t k : tensorInts(ix)) {
      int64_t at = k < 0 ? k + int64_t(d.size()) : k;
      if (at < 0 || at >= int64_t(d.size()) || d[size_t(at)] < 0)
        return false;
      picked.push_back(d[size_t(at)]);
    }
    ctx.setConstant(0, intTensor(picked, DType::Int64, Dims(ix.shape().begin(), ix.shape().end())));
    return true;
  }
  // Everything else needs every input it has known.
  // ConstantOfShape and Range take only values hx needs at import time: a
  // graph input among them takes the value the run gives (NodeCtx::known).
  bool valuesOnly = op == "ConstantOfShape" || op == "Range";
  SmallVector<const HostTensor *, 4> in;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    OnnxValue *v = ctx.input(i);
    if (!v)
      continue;
    if (!v->constant && valuesOnly && ctx.imp.isGraphInput(ctx.node.input(i))) {
      Expected<const HostTensor *> given = ctx.known(i);
      if (!given)
        return given.takeError();
    }
    if (!v->constant)
      return false;
    in.push_back(v->constant.get());
  }
  if (in.empty())
    return false;
  const HostTensor &a = *in[0];
  auto binary = [&](auto fn, std::optional<DType> dt = std::nullopt) -> Expected<bool> {
    if (in.size() != 2)
      return ctx.error("expected two inputs");
    Expected<HostTensor> r = elementwise(ctx, in, dt.value_or(a.dtype()),
                                         [&](ArrayRef<double> x) { return fn(x[0], x[1]); });
    if (!r)
      return r.takeError();
    ctx.setConstant(0, std::move(*r));
    return true;
  };
  auto unary = [&](auto fn) -> Expected<bool> {
    Expected<HostTensor> r =
        elementwise(ctx, {&a}, a.dtype(), [&](ArrayRef<double> x) { return fn(x[0]); });
    if (!r)
      return r.takeError();
    ctx.setConstant(0, std::move(*r));
    return true;
  };
  bool isInt = !isFloat(a.dtype());
  if (op == "Add")
    return binary([](double x, double y) { return x + y; });
  if (op == "Sub")
    return binary([](double x, double y) { return x - y; });
  if (op == "Mul")
    return binary([](double x, double y) { return x * y; });
  if (op == "Div")
    return binary(
        [&](double x, double y) { return isInt ? (y == 0 ? 0 : std::trunc(x / y)) : x / y; });
  if (op == "Mod") {
    // fmod 1: the dividend's sign (C's fmod); 0: the divisor's (integers).
    bool fmod = ctx.getInt("fmod", 0) != 0;
    if (!fmod && !isInt)
      return false; // the converter refuses it
    return binary([fmod](double x, double y) {
      if (y == 0)
        return fmod ? std::fmod(x, y) : 0.0;
      double r = std::fmod(x, y);
      return !fmod && r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
    });
  }
  if (op == "Equal")
    return binary([](double x, double y) { return double(x == y); }, DType::Bool);
  if (op == "Less")
    return binary([](double x, double y) { return double(x < y); }, DType::Bool);
  if (op == "Greater")
    return binary([](double x, double y) { return double(x > y); }, DType::Bool);
  if (op == "Not")
    return unary([](double x) { return double(x == 0); });
  if (op == "Neg")
    return unary([](double x) { return -x; });
  if (op == "Sqrt")
    return unary([](double x) { return std::sqrt(x); });
  if (op == "Floor")
    return unary([](double x) { return std::floor(x); });
  if (op == "Ceil")
    return unary([](double x) { return std::ceil(x); });
  if (op == "Identity") { // the same constant, not a copy: one table entry
    ctx.alias(0, *ctx.input(0));
    return true;
  }
  if (op == "Where") {
    if (in.size() != 3)
      return ctx.error("expected three inputs");
    Expected<HostTensor> r = elementwise(
        ctx, in, in[1]->dtype(), [](ArrayRef<double> x) { return x[0] != 0 ? x[1] : x[2]; });
    if (!r)
      return r.takeError();
    ctx.setConstant(0, std::move(*r));
    return true;
  }
  if (op == "Cast") {
    std::optional<DType> to = dtypeFromOnnx(ctx.getInt("to", 0));
    if (!to)
      return ctx.error("attribute 'to' is " + onnxTypeName(ctx.getInt("to", 0)) +
                       ", which hx has no dtype for");
    HostTensor out(*to, a.shape());
    if (*to == DType::Int64 && (a.dtype() == DType::Int64 || a.dtype() == DType::Int32)) {
      std::vector<int64_t> v = tensorInts(a); // exactly, not through double
      std::copy(v.begin(), v.end(), out.as<int64_t>());
    } else {
      for (int64_t i = 0; i < a.numElements(); ++i)
        out.setDouble(i, a.getDouble(i));
    }
    ctx.setConstant(0, std::move(out));
    return true;
  }
  if (op == "Gather") {
    if (in.size() != 2)
      return ctx.error("expected two inputs");
    Expected<HostTensor> r = gather(ctx, a, *in[1], ctx.getInt("axis", 0));
    if (!r)
      return r.takeError();
    ctx.setConstant(0, std::move(*r));
    return true;
  }
  if (op == "ConstantOfShape") {
    if (a.dtype() != DType::Int64)
      return ctx.error("the shape must be int64, not " + dtypeName(a.dtype()));
    std::vector<int64_t> shape = tensorInts(a);
    if (elementCount(shape) < 0)
      return ctx.error("the shape " + listText(shape) + " is negative or too large");
    HostTensor out(DType::Float32, shape);
    if (const onnx::AttributeProto *v = ctx.attr("value")) {
      Expected<HostTensor> fill = tensorFromProto(v->t());
      if (!fill || fill->numElements() != 1)
        return ctx.error("attribute 'value' must be a one-element tensor");
      out = HostTensor(fill->dtype(), shape);
      for (int64_t i = 0; i < out.numElements(); ++i)
        out.setDouble(i, fill->getDouble(0));
    }
    ctx.setConstant(0, std::move(out));
    return true;
  }
  if (op == "Range") {
    if (in.size() != 3)
      return ctx.error("expected three inputs");
    if (in[0]->numElements() != 1 || in[1]->numElements() != 1 || in[2]->numElements() != 1)
      return ctx.error("start, limit and delta must be scalars");
    double start = in[0]->getDouble(0), limit = in[1]->getDouble(0), delta = in[2]->getDouble(0);
    if (delta == 0)
      return ctx.error("delta is 0");
    double count = std::ceil((limit - start) / delta);
    if (!std::isfinite(count) || !(count < double(kMaxImportElements)))
      return ctx.error("the range is too long to fold");
    int64_t n = std::max<int64_t>(0, int64_t(count));
    HostTensor out(a.dtype(), {n});
    for (int64_t i = 0; i < n; ++i)
      out.setDouble(i, start + double(i) * delta);
    ctx.setConstant(0, std::move(out));
    return true;
  }
  // The rest change only the shape (or gather whole rows): the output's
  // type from shape inference says what it is, when it is static.
  OnnxValue probe;
  ctx.imp.typeOf(ctx.node.output(0), probe);
  if (op == "Reshape" && !probe.isStatic() && in.size() == 2 && !isFloat(in[1]->dtype())) {
    // Shape inference gave no shape: ONNX's rule on the known target (0
    // copies the input's dim unless allowzero, one -1 takes the rest).
    std::vector<int64_t> target = tensorInts(*in[1]);
    bool allowZero = ctx.getInt("allowzero", 0) != 0;
    int64_t known = 1, infer = -1;
    for (size_t k = 0; k < target.size(); ++k) {
      if (target[k] == 0 && !allowZero) {
        if (k >= size_t(a.rank()))
          return false;
        target[k] = a.shape()[k];
      }
      if (target[k] == -1) {
        if (infer >= 0)
          return false;
        infer = int64_t(k);
      } else if (target[k] < 0) {
        return false;
      } else {
        known *= target[k];
      }
    }
    if (infer >= 0)
      target[size_t(infer)] = known == 0 ? 0 : a.numElements() / known;
    probe.dims = Dims(target.begin(), target.end());
  }
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" || op == "Flatten") {
    if (!probe.isStatic())
      return false;
    if (elementCount(*probe.dims) != a.numElements())
      return ctx.error("the output's shape " + listText(*probe.dims) + " does not hold the " +
                       Twine(a.numElements()) + " elements of the input");
    ctx.setConstant(0, reshaped(a, *probe.dims));
    return true;
  }
  if (op == "Expand") {
    if (!probe.isStatic())
      return false;
    if (elementCount(*probe.dims) < 0)
      return ctx.error("the output is too large to fold");
    HostTensor shape(a.dtype(), *probe.dims);
    Expected<HostTensor> r =
        elementwise(ctx, {&a, &shape}, a.dtype(), [](ArrayRef<double> x) { return x[0]; });
    if (!r)
      return r.takeError();
    ctx.setConstant(0, std::move(*r));
    return true;
  }
  if (op == "Concat") {
    int64_t axis = normAxis(ctx.getInt("axis", 0), a.rank());
    if (axis < 0 || axis >= int64_t(a.rank()))
      return ctx.error("axis " + Twine(ctx.getInt("axis", 0)) + " is out of range");
    HostTensor acc = a.clone();
    for (size_t k = 1; k < in.size(); ++k) {
      // Concatenate along `axis` by gathering rows from a stacked view: go
      // through doubles, shapes here are small.
      Dims shape(acc.shape().begin(), acc.shape().end());
      if (in[k]->rank() != acc.rank())
        return ctx.error("inputs of different ranks");
      for (size_t i = 0; i < shape.size(); ++i)
        if (int64_t(i) != axis && in[k]->shape()[i] != shape[i])
          return ctx.error("inputs differ in a dim other than the axis");
      shape[axis] += in[k]->shape()[axis];
      HostTensor out(acc.dtype(), shape);
      int64_t outer = 1, innerA = 1, innerB = 1;
      for (int64_t i = 0; i < axis; ++i)
        outer *= shape[i];
      for (size_t i = axis; i < shape.size(); ++i) {
        innerA *= acc.shape()[i];
        innerB *= in[k]->shape()[i];
      }
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < innerA; ++i)
          out.setDouble(o * (innerA + innerB) + i, acc.getDouble(o * innerA + i));
        for (int64_t i = 0; i < innerB; ++i)
          out.setDouble(o * (innerA + innerB) + innerA + i, in[k]->getDouble(o * innerB + i));
      }
      acc = std::move(out);
    }
    ctx.setConstant(0, std::move(acc));
    return true;
  }
  if (op == "Slice" || op == "Transpose") {
    // Small constants only (shape paths: PyTorch reverses its pads with a
    // Reshape, a Slice of step -1 and a Transpose); elements are copied as
    // bytes, so int64 values stay exact.
    if (a.numElements() > 4096)
      return false;
    int64_t r = a.rank();
    Dims inDims(a.shape().begin(), a.shape().end());
    // Per output dim: its size, the input dim it reads, the first index and
    // the step along it.
    size_t rank = static_cast<size_t>(r);
    Dims outDims = inDims, first(rank, 0), step(rank, 1), from(rank, 0);
    for (int64_t k = 0; k < r; ++k)
      from[size_t(k)] = k;
    if (op == "Transpose") {
      std::optional<std::vector<int64_t>> perm = ctx.getInts("perm");
      std::vector<int64_t> p;
      if (perm)
        p = *perm;
      else
        for (int64_t k = r - 1; k >= 0; --k)
          p.push_back(k);
      if (int64_t(p.size()) != r)
        return false; // the converter reports it
      for (int64_t k = 0; k < r; ++k) {
        if (p[size_t(k)] < 0 || p[size_t(k)] >= r)
          return false;
        from[size_t(k)] = p[size_t(k)];
        outDims[size_t(k)] = inDims[size_t(p[size_t(k)])];
      }
    } else {
      // By input position: starts, ends, axes, steps (axes, steps optional).
      const HostTensor *part[5] = {};
      for (size_t k = 1; k < 5; ++k)
        if (OnnxValue *v = ctx.input(k))
          part[k] = v->constant.get();
      for (size_t k = 1; k < 5; ++k)
        if (part[k] && isFloat(part[k]->dtype()))
          return false;
      if (!part[1] || !part[2])
        return false;
      std::vector<int64_t> starts = tensorInts(*part[1]), ends = tensorInts(*part[2]);
      std::vector<int64_t> axes, steps;
      if (part[3])
        axes = tensorInts(*part[3]);
      else
        for (size_t k = 0; k < starts.size(); ++k)
          axes.push_back(int64_t(k));
      steps = part[4] ? tensorInts(*part[4]) : std::vector<int64_t>(starts.size(), 1);
      if (ends.size() != starts.size() || axes.size() != starts.size() ||
          steps.size() != starts.size())
        return false;
      for (size_t k = 0; k < starts.size(); ++k) {
        int64_t ax = axes[k] < 0 ? axes[k] + r : axes[k];
        if (ax < 0 || ax >= r || steps[k] == 0)
          return false;
        int64_t n = inDims[size_t(ax)], st = steps[k];
        // ONNX's clamping: [0, n] for a positive step, [-1, n - 1] for a
        // negative one.
        auto clampIdx = [&](int64_t v) {
          if (v < 0)
            v += n;
          return st > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
        };
        int64_t b = clampIdx(starts[k]), e = clampIdx(ends[k]);
        int64_t len = st > 0 ? (e > b ? (e - b + st - 1) / st : 0)
                             : (b > e ? (b - e + (-st) - 1) / (-st) : 0);
        first[size_t(ax)] = b;
        step[size_t(ax)] = st;
        outDims[size_t(ax)] = len;
      }
    }
    HostTensor out(a.dtype(), outDims);
    int64_t count = out.numElements();
    size_t bytes = dtypeBytes(a.dtype());
    Dims inStride(rank, 1);
    for (int64_t k = r - 2; k >= 0; --k)
      inStride[size_t(k)] = inStride[size_t(k + 1)] * inDims[size_t(k + 1)];
    const char *src = static_cast<const char *>(a.data());
    char *dst = static_cast<char *>(out.data());
    Dims idx(rank, 0);
    for (int64_t i = 0; i < count; ++i) {
      int64_t off = 0;
      for (int64_t k = 0; k < r; ++k)
        off += (first[size_t(k)] + idx[size_t(k)] * step[size_t(k)]) *
               inStride[size_t(from[size_t(k)])];
      std::memcpy(dst + size_t(i) * bytes, src + size_t(off) * bytes, bytes);
      for (int64_t k = r - 1; k >= 0; --k) {
        if (++idx[size_t(k)] < outDims[size_t(k)])
          break;
        idx[size_t(k)] = 0;
      }
    }
    ctx.setConstant(0, std::move(out));
    return true;
  }
  return false;
}

Expected<bool> onnximport::tryFold(NodeCtx &ctx) { return foldNode(ctx); }

/// A node of these op types is imported when folding gives its value; one
/// whose inputs only the run knows is an error.
static Error needsStatic(NodeCtx &ctx) {
  return ctx.error("the value must be known at import time (the input's shape has dims that "
                   "only the run knows, or an input is not a constant)");
}

void onnximport::addFoldedOnlyConverters(ConverterTable &t) {
  t.add("Constant", {11, 21}, needsStatic);
}
