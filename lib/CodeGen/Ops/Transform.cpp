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

ArrayRef<KernelEntry> transformKernels() {
  static const KernelEntry table[] = {
      {"reshape", copyKernel},        {"nn.batch_flatten", copyKernel},
      {"squeeze", copyKernel},        {"expand_dims", copyKernel},
      {"transpose", transposeKernel}, {"concatenate", concatenateKernel},
      {"split", splitKernel},
  };
  return table;
}

} // namespace hx
