//===- Transform.cpp - Kernels of the data-movement operators -------------===//
//
// Copies between strided views (emitStridedCopy):
//
//   reshape, squeeze, expand_dims  a contiguous copy of every element (the
//                                  runtime usually aliases them instead)
//   transpose                      result contiguous, input read through
//                                  its strides permuted by `axes`
//   concatenate                    field i copied into the result's slice
//                                  starting at the sum of the earlier
//                                  fields' sizes along `axis`
//   split                          result i copied from the input's slice
//                                  at its start index along `axis`
//
// bool moves as its byte. Each copy is its own parallel nest.
//
//===----------------------------------------------------------------------===//

#include "../LoopNest.h"
#include "OpKernels.h"

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

ArrayRef<KernelEntry> transformKernels() {
  static const KernelEntry table[] = {
      {"take", takeKernel},
      {"reshape", copyKernel},
      {"nn.batch_flatten", copyKernel},
      {"squeeze", copyKernel},
      {"expand_dims", copyKernel},
      {"transpose", transposeKernel},
      {"concatenate", concatenateKernel},
      {"split", splitKernel},
  };
  return table;
}

} // namespace hx
