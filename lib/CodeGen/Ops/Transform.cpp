//===- Transform.cpp - Kernels of the data-movement operators -------------===//
//
// Copies between strided views (emitStridedCopy):
//
//   reshape, squeeze, expand_dims  a contiguous copy of every element (the
//                                  runtime usually aliases them instead)
//   transpose                      result contiguous, input read through
//                                  its strides permuted by `axes`
//   strided_slice                  input read with its strides times the
//                                  slice's steps, from the first element
//   concatenate                    field i copied into the result's slice
//                                  starting at the sum of the earlier
//                                  fields' sizes along `axis`
//   stack                          field i copied into the result viewed
//                                  without `axis`, offset by i along it
//   split                          result i copied from the input's slice
//                                  at its start index along `axis`
//
//   nn.pad                         one nest over the result computing each
//                                  element's source index (or the pad value)
//   layout_transform               the same, re-splitting each primal axis
//   take, gather, gather_nd        the index read per point selects the
//                                  source row (take), element (gather) or
//                                  slice element (gather_nd)
//   scatter_elements, scatter_nd   no parallel loop: updates may collide
//                                  and their order decides, so the data is
//                                  copied and each update combined into its
//                                  element in index order, serially
//
// bool moves as its byte. Each copy is its own parallel nest.
//
//===----------------------------------------------------------------------===//

#include "../LoopNest.h"
#include "OpKernels.h"
#include "hx/Ops/DataLayout.h"

using namespace llvm;

namespace hx {

static Error copyKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *out = spec.outputs[0];
  int64_t n = numElements(out->shape);
  if (n != numElements(in->shape))
    return unsupported(kb, spec, "a result with another element count than the operand");
  Shape flat{n};
  StridedOperand view{{1}, 0};
  emitStridedCopy(kb, out->dtype, flat, spec.outputBuffer(0), view, spec.inputBuffer(0), view);
  return Error::success();
}

static Error transposeKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *out = spec.outputs[0];
  size_t rank = in->rank();
  Shape axes;
  if (std::optional<Shape> given = spec.getOptInts("axes"))
    axes = *given;
  if (axes.empty())
    for (size_t d = rank; d > 0; --d)
      axes.push_back(int64_t(d - 1));
  if (axes.size() != rank)
    return unsupported(kb, spec, "axes " + intListToString(axes));
  Shape inStrides = contiguousStrides(in->shape), readStrides;
  for (int64_t a : axes) {
    std::optional<unsigned> ax = normalizeAxis(a, rank);
    if (!ax)
      return unsupported(kb, spec, "axes " + intListToString(axes));
    readStrides.push_back(inStrides[*ax]);
  }
  emitStridedCopy(kb, out->dtype, out->shape, spec.outputBuffer(0),
                  {contiguousStrides(out->shape), 0}, spec.inputBuffer(0), {readStrides, 0});
  return Error::success();
}

static Error stridedSliceKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *out = spec.outputs[0];
  AttrProblem problem;
  std::optional<SmallVector<SliceDim, 4>> dims = stridedSlice(
      in->shape, spec.getInts("begin"), spec.getInts("end"), spec.getOptInts("strides"),
      spec.getOptInts("axes"), spec.getString("slice_mode"), problem);
  if (!dims)
    return unsupported(kb, spec, problem.message);
  if (dims->size() != out->rank())
    return unsupported(kb, spec, "a result of another rank than the operand");
  Shape inStrides = contiguousStrides(in->shape), readStrides;
  int64_t base = 0;
  for (size_t d = 0; d < dims->size(); ++d) {
    if ((*dims)[d].size != out->shape[d])
      return unsupported(kb, spec, "a result of another shape than the slice's");
    readStrides.push_back((*dims)[d].stride * inStrides[d]);
    base += (*dims)[d].begin * inStrides[d];
  }
  emitStridedCopy(kb, out->dtype, out->shape, spec.outputBuffer(0),
                  {contiguousStrides(out->shape), 0}, spec.inputBuffer(0), {readStrides, base});
  return Error::success();
}

static Error concatenateKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *out = spec.outputs[0];
  std::optional<unsigned> axis = normalizeAxis(spec.getInt("axis"), out->rank());
  if (!axis)
    return unsupported(kb, spec, "axis " + std::to_string(spec.getInt("axis")));
  Shape outStrides = contiguousStrides(out->shape);
  int64_t start = 0;
  for (unsigned i = 0; i < spec.inputs.size(); ++i) {
    const TensorType *field = spec.inputs[i];
    emitStridedCopy(kb, out->dtype, field->shape, spec.outputBuffer(0),
                    {outStrides, start * outStrides[*axis]}, spec.inputBuffer(i),
                    {contiguousStrides(field->shape), 0});
    start += field->shape[*axis];
  }
  return Error::success();
}

static Error stackKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *out = spec.outputs[0];
  std::optional<unsigned> axis = normalizeAxis(spec.getInt("axis"), out->rank());
  if (!axis || out->shape[*axis] != int64_t(spec.inputs.size()))
    return unsupported(kb, spec, "axis " + std::to_string(spec.getInt("axis")));
  Shape outStrides = contiguousStrides(out->shape), fieldStrides = outStrides;
  fieldStrides.erase(fieldStrides.begin() + *axis);
  for (unsigned i = 0; i < spec.inputs.size(); ++i) {
    const TensorType *field = spec.inputs[i];
    emitStridedCopy(kb, out->dtype, field->shape, spec.outputBuffer(0),
                    {fieldStrides, i * outStrides[*axis]}, spec.inputBuffer(i),
                    {contiguousStrides(field->shape), 0});
  }
  return Error::success();
}

static Error splitKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0];
  std::optional<unsigned> axis = normalizeAxis(spec.getInt("axis"), in->rank());
  if (!axis)
    return unsupported(kb, spec, "axis " + std::to_string(spec.getInt("axis")));
  Shape inStrides = contiguousStrides(in->shape);
  int64_t start = 0;
  for (unsigned i = 0; i < spec.outputs.size(); ++i) {
    const TensorType *piece = spec.outputs[i];
    emitStridedCopy(kb, in->dtype, piece->shape, spec.outputBuffer(i),
                    {contiguousStrides(piece->shape), 0}, spec.inputBuffer(0),
                    {inStrides, start * inStrides[*axis]});
    start += piece->shape[*axis];
  }
  return Error::success();
}

/// nn.pad: one nest over the result. Per dim, the source index i = o -
/// before is used as is inside the data; outside it is clamped ("edge"),
/// mirrored without repeating the border ("reflect": -i, or 2(n-1) - i), or
/// clamped only to keep the load in bounds while the pad value (operand 1,
/// cast to the data's dtype) is selected ("constant"). Data with no
/// elements is all padding.
static Error padKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *value = spec.inputs[1], *out = spec.outputs[0];
  AttrProblem problem;
  std::optional<SmallVector<IntPair, 4>> pads =
      attrIntPairs(spec.attr("pad_width"), in->rank(), "pad_width", problem);
  std::string mode = spec.getString("pad_mode");
  std::optional<Shape> shape;
  if (pads)
    shape = padShape(in->shape, *pads, mode, problem);
  if (!shape)
    return unsupported(kb, spec, problem.message);
  if (*shape != Shape(out->shape.begin(), out->shape.end()) || value->rank() != 0)
    return unsupported(kb, spec, "a result of another shape than the padded operand's");
  DType t = in->dtype, vt = value->dtype;
  bool empty = numElements(in->shape) == 0;
  Shape inStrides = contiguousStrides(in->shape);
  emitIndexLoops(
      kb, out->shape, 4 * int64_t(in->rank()) + 2, [&](ArrayRef<Value *> o, Value *flat) {
        Value *fill = kb.cast(kb.load(vt, kb.buffer(spec.inputBuffer(1)), kb.index(0)), vt, t);
        if (empty) {
          kb.store(t, kb.buffer(spec.outputBuffer(0)), flat, fill);
          return;
        }
        Value *src = kb.index(0), *inside = nullptr;
        for (size_t d = 0; d < in->rank(); ++d) {
          auto [before, after] = (*pads)[d];
          int64_t n = in->shape[d];
          Value *i = kb.iadd(o[d], -before);
          if (before || after) {
            Value *zero = kb.index(0), *last = kb.index(n - 1);
            if (mode == "reflect") {
              i = kb.select(kb.icmp(CmpOp::LT, i, zero), kb.isub(zero, i), i);
              i = kb.select(kb.icmp(CmpOp::GT, i, last), kb.isub(kb.index(2 * (n - 1)), i), i);
            } else {
              if (mode == "constant") {
                Value *ok = kb.logicalAnd(kb.icmp(CmpOp::GE, i, zero), kb.icmp(CmpOp::LE, i, last));
                inside = inside ? kb.logicalAnd(inside, ok) : ok;
              }
              i = kb.imin(kb.imax(i, zero), last);
            }
          }
          src = kb.iadd(src, kb.imul(i, inStrides[d]));
        }
        Value *v = kb.load(t, kb.buffer(spec.inputBuffer(0)), src);
        if (inside)
          v = kb.select(inside, v, fill);
        kb.store(t, kb.buffer(spec.outputBuffer(0)), flat, v);
      });
  return Error::success();
}

/// layout_transform: one nest over the result. Per primal axis, its index
/// v = coord[primal] * factor + coord[sub] in the destination layout is
/// split again by the source's factor (v / f, v % f); an axis split the
/// same way in both (or in neither) keeps its coordinates.
static Error layoutTransformKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *out = spec.outputs[0];
  LayoutMap map;
  AttrProblem problem;
  std::optional<Shape> shape = layoutTransformShape(in->shape, spec.getString("src_layout"),
                                                    spec.getString("dst_layout"), map, problem);
  if (!shape)
    return unsupported(kb, spec, problem.message);
  if (*shape != Shape(out->shape.begin(), out->shape.end()))
    return unsupported(kb, spec, "a result of another shape than the layout's");
  DType moved = out->dtype == DType::Bool ? DType::Int8 : out->dtype;
  Shape inStrides = contiguousStrides(in->shape);
  int64_t work = 4 * int64_t(map.axes.size());
  emitIndexLoops(kb, out->shape, work, [&](ArrayRef<Value *> o, Value *flat) {
    Value *src = kb.index(0);
    for (const LayoutMap::Axis &ax : map.axes) {
      if (ax.src.factor == ax.dst.factor) {
        src = kb.iadd(src, kb.imul(o[ax.dst.primal], inStrides[ax.src.primal]));
        if (ax.src.sub >= 0 && ax.dst.sub >= 0)
          src = kb.iadd(src, kb.imul(o[ax.dst.sub], inStrides[ax.src.sub]));
        continue;
      }
      Value *v = o[ax.dst.primal];
      if (ax.dst.sub >= 0)
        v = kb.iadd(kb.imul(v, ax.dst.factor), o[ax.dst.sub]);
      src = kb.iadd(src, kb.imul(kb.idiv(v, ax.src.factor), inStrides[ax.src.primal]));
      if (ax.src.sub >= 0)
        src = kb.iadd(src, kb.imul(kb.irem(v, ax.src.factor), inStrides[ax.src.sub]));
    }
    kb.store(moved, kb.buffer(spec.outputBuffer(0)), flat,
             kb.load(moved, kb.buffer(spec.inputBuffer(0)), src));
  });
  return Error::success();
}

/// take: one strided nest over the result viewed as [pre, count, post],
/// with the indices read at [0, 1, 0] and the data's row base at
/// [n * post, 0, 1]; the index (clamped, or wrapped) selects the row.
static Error takeKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *data = spec.inputs[0], *indices = spec.inputs[1], *out = spec.outputs[0];
  if (spec.getInt("batch_dims") != 0)
    return unsupported(kb, spec, "batch_dims");
  int64_t pre = 1, n = numElements(data->shape), post = 1;
  if (std::optional<int64_t> axisAttr = spec.getOptInt("axis")) {
    std::optional<unsigned> axis = normalizeAxis(*axisAttr, data->rank());
    if (!axis)
      return unsupported(kb, spec, "axis " + std::to_string(*axisAttr));
    ArrayRef<int64_t> shape = data->shape;
    pre = numElements(shape.take_front(*axis));
    n = shape[*axis];
    post = numElements(shape.drop_front(*axis + 1));
  }
  int64_t count = numElements(indices->shape);
  if (pre * count * post == 0)
    return Error::success();
  if (n == 0)
    return unsupported(kb, spec, "an axis of size 0");
  bool wrap = spec.getString("mode") == "wrap";
  DType t = KernelBuilder::bitsDType(out->dtype), it = indices->dtype;
  Shape view = {pre, count, post};
  StridedOperand views[] = {{{count * post, post, 1}, 0}, {{0, 1, 0}, 0}, {{n * post, 0, 1}, 0}};
  emitStridedLoops(kb, view, views, 4, [&](ArrayRef<Value *> off) {
    Value *i = kb.cast(kb.load(it, kb.buffer(spec.inputBuffer(1)), off[1]), it, DType::Int64);
    Value *zero = kb.index(0), *size = kb.index(n);
    if (wrap) {
      Value *r = kb.sub(DType::Int64, i, kb.mul(DType::Int64, kb.div(DType::Int64, i, size), size));
      i = kb.select(kb.icmp(CmpOp::LT, r, zero), kb.iadd(r, size), r);
    } else {
      i = kb.imin(kb.imax(i, zero), kb.index(n - 1));
    }
    Value *src = kb.iadd(off[2], kb.imul(i, post));
    kb.store(t, kb.buffer(spec.outputBuffer(0)), off[0],
             kb.load(t, kb.buffer(spec.inputBuffer(0)), src));
  });
  return Error::success();
}

/// An int64 index into a dim of size n: negative from the end, then clamped.
static Value *clampedIndex(KernelBuilder &kb, Value *i, int64_t n) {
  Value *zero = kb.index(0);
  i = kb.select(kb.icmp(CmpOp::LT, i, zero), kb.iadd(i, n), i);
  return kb.imin(kb.imax(i, zero), kb.index(n - 1));
}

/// gather: every point of the result reads its index at the same offset and
/// the data at its coordinates with the axis's replaced by the index
/// (negative from the end, then clamped).
static Error gatherKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *data = spec.inputs[0], *indices = spec.inputs[1], *out = spec.outputs[0];
  std::optional<unsigned> axis = normalizeAxis(spec.getInt("axis"), data->rank());
  if (!axis || indices->rank() != data->rank())
    return unsupported(kb, spec, "axis " + std::to_string(spec.getInt("axis")));
  if (numElements(out->shape) == 0)
    return Error::success();
  int64_t n = data->shape[*axis];
  if (n == 0)
    return unsupported(kb, spec, "an axis of size 0");
  DType t = KernelBuilder::bitsDType(out->dtype), it = indices->dtype;
  Shape strides = contiguousStrides(data->shape);
  emitIndexLoops(kb, out->shape, 4, [&](ArrayRef<Value *> coords, Value *flat) {
    Value *i = kb.cast(kb.load(it, kb.buffer(spec.inputBuffer(1)), flat), it, DType::Int64);
    i = clampedIndex(kb, i, n);
    Value *src = kb.index(0);
    for (size_t d = 0; d < coords.size(); ++d)
      src = kb.iadd(src, kb.imul(d == *axis ? i : coords[d], strides[d]));
    kb.store(t, kb.buffer(spec.outputBuffer(0)), flat,
             kb.load(t, kb.buffer(spec.inputBuffer(0)), src));
  });
  return Error::success();
}

/// gather_nd: every point of the result splits into its tuple's coordinates
/// (the indices' dims after the first) and the slice's; the tuple's m
/// indices (each negative from the end, then clamped) and its batch give
/// the data's offset.
static Error gatherNdKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *data = spec.inputs[0], *indices = spec.inputs[1], *out = spec.outputs[0];
  int64_t b = spec.getInt("batch_dims"), m = indices->rank() ? indices->shape[0] : 0;
  if (m < 1 || b < 0 || size_t(b + m) > data->rank())
    return unsupported(kb, spec, "these indices");
  if (numElements(out->shape) == 0)
    return Error::success();
  for (int64_t d = b; d < b + m; ++d)
    if (data->shape[d] == 0)
      return unsupported(kb, spec, "a dim of size 0");
  ArrayRef<int64_t> tupleShape = ArrayRef<int64_t>(indices->shape).drop_front();
  int64_t tuples = numElements(tupleShape);
  Shape strides = contiguousStrides(data->shape), tupleStrides = contiguousStrides(tupleShape);
  size_t nt = tupleShape.size();
  DType t = KernelBuilder::bitsDType(out->dtype), it = indices->dtype;
  emitIndexLoops(kb, out->shape, 4 + 2 * m, [&](ArrayRef<Value *> coords, Value *flat) {
    Value *tuple = kb.linearOffset(coords.take_front(nt), tupleStrides);
    // The batch coordinates are the data's first b; the slice's its last.
    Value *src = kb.linearOffset(coords.take_front(size_t(b)),
                                 ArrayRef<int64_t>(strides).take_front(size_t(b)));
    src = kb.linearOffset(coords.drop_front(nt), ArrayRef<int64_t>(strides).drop_front(b + m), src);
    for (int64_t k = 0; k < m; ++k) {
      int64_t n = data->shape[b + k];
      Value *i = kb.cast(kb.load(it, kb.buffer(spec.inputBuffer(1)), kb.iadd(tuple, k * tuples)),
                         it, DType::Int64);
      src = kb.iadd(src, kb.imul(clampedIndex(kb, i, n), strides[b + k]));
    }
    kb.store(t, kb.buffer(spec.outputBuffer(0)), flat,
             kb.load(t, kb.buffer(spec.inputBuffer(0)), src));
  });
  return Error::success();
}

/// The data copied into the result, serially (a scatter has no parallel loop).
static void copyData(KernelBuilder &kb, const KernelSpec &spec) {
  DType t = KernelBuilder::bitsDType(spec.outputs[0]->dtype);
  kb.forRange(0, numElements(spec.outputs[0]->shape), [&](Value *i) {
    kb.store(t, kb.buffer(spec.outputBuffer(0)), i, kb.load(t, kb.buffer(spec.inputBuffer(0)), i));
  });
}

/// result[to] = combine(result[to], updates[from]) for scatter's mode.
static void combineAt(KernelBuilder &kb, const KernelSpec &spec, StringRef mode, Value *to,
                      Value *from) {
  DType t = spec.outputs[0]->dtype;
  Value *out = kb.buffer(spec.outputBuffer(0));
  if (mode == "update") {
    DType bits = KernelBuilder::bitsDType(t);
    kb.store(bits, out, to, kb.load(bits, kb.buffer(spec.inputBuffer(2)), from));
    return;
  }
  Value *old = kb.load(t, out, to), *v = kb.load(t, kb.buffer(spec.inputBuffer(2)), from);
  Value *r = mode == "add"   ? kb.add(t, old, v)
             : mode == "mul" ? kb.mul(t, old, v)
             : mode == "min" ? (t == DType::Bool ? kb.bitAnd(old, v) : kb.min(t, old, v))
                             : (t == DType::Bool ? kb.bitOr(old, v) : kb.max(t, old, v));
  kb.store(t, out, to, r);
}

static Error scatterElementsKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *data = spec.inputs[0], *indices = spec.inputs[1];
  std::optional<unsigned> axis = normalizeAxis(spec.getInt("axis"), data->rank());
  if (!axis || indices->rank() != data->rank())
    return unsupported(kb, spec, "axis " + std::to_string(spec.getInt("axis")));
  int64_t n = data->shape[*axis], total = numElements(indices->shape);
  if (total > 0 && n == 0)
    return unsupported(kb, spec, "an axis of size 0");
  std::string mode = spec.getString("reduction");
  DType it = indices->dtype;
  Shape strides = contiguousStrides(data->shape);
  copyData(kb, spec);
  if (total == 0)
    return Error::success();
  kb.forRange(0, total, [&](Value *u) {
    SmallVector<Value *, 4> coords = kb.unflatten(u, indices->shape);
    Value *i = kb.cast(kb.load(it, kb.buffer(spec.inputBuffer(1)), u), it, DType::Int64);
    coords[*axis] = clampedIndex(kb, i, n);
    combineAt(kb, spec, mode, kb.linearOffset(coords, strides), u);
  });
  return Error::success();
}

static Error scatterNdKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *data = spec.inputs[0], *indices = spec.inputs[1];
  int64_t m = indices->rank() ? indices->shape[0] : 0;
  if (m < 1 || size_t(m) > data->rank())
    return unsupported(kb, spec, "these indices");
  int64_t tuples = numElements(ArrayRef<int64_t>(indices->shape).drop_front());
  int64_t slice = numElements(ArrayRef<int64_t>(data->shape).drop_front(m));
  for (int64_t d = 0; d < m; ++d)
    if (tuples * slice > 0 && data->shape[d] == 0)
      return unsupported(kb, spec, "a dim of size 0");
  std::string mode = spec.getString("mode");
  DType it = indices->dtype;
  Shape strides = contiguousStrides(data->shape);
  copyData(kb, spec);
  if (tuples * slice == 0)
    return Error::success();
  kb.forRange(0, tuples, [&](Value *t) {
    Value *to = kb.index(0);
    for (int64_t k = 0; k < m; ++k) {
      Value *i = kb.cast(kb.load(it, kb.buffer(spec.inputBuffer(1)), kb.iadd(t, k * tuples)), it,
                         DType::Int64);
      to = kb.iadd(to, kb.imul(clampedIndex(kb, i, data->shape[k]), strides[k]));
    }
    Value *from = kb.imul(t, slice);
    kb.forRange(0, slice,
                [&](Value *e) { combineAt(kb, spec, mode, kb.iadd(to, e), kb.iadd(from, e)); });
  });
  return Error::success();
}

ArrayRef<KernelEntry> transformKernels() {
  static const KernelEntry table[] = {
      {"take", takeKernel},
      {"gather", gatherKernel},
      {"gather_nd", gatherNdKernel},
      {"scatter_elements", scatterElementsKernel},
      {"scatter_nd", scatterNdKernel},
      {"nn.pad", padKernel},
      {"layout_transform", layoutTransformKernel},
      {"reshape", copyKernel},
      {"nn.batch_flatten", copyKernel},
      {"squeeze", copyKernel},
      {"expand_dims", copyKernel},
      {"transpose", transposeKernel},
      {"strided_slice", stridedSliceKernel},
      {"concatenate", concatenateKernel},
      {"stack", stackKernel},
      {"split", splitKernel},
  };
  return table;
}

} // namespace hx
