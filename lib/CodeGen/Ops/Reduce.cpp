//===- Reduce.cpp - Kernels of sum, mean, max and min ---------------------===//
//
// The reduced axes follow lib/Ops/Reduce.cpp (axis=None: all; a list:
// those, negative from the end; exclude=True: the others). The kernel is a
// strided nest over the kept dims (the result's points) whose body runs
// serial loops over the reduced dims, merged where contiguous:
//
//   sum(Tensor[(4, 5, 6)], axis=[2]) :
//     parallel over 20 points p { acc = 0; for k in 0..6: acc += x[p*6+k] }
//
// so a reduction over the last axis reads unit-stride and vectorizes (the
// accumulation is marked reassociable). Sums accumulate in the target's
// accumulator type (KernelBuilder::accumulatorType); mean divides the sum by
// the count (integers truncate). max and min start from -inf/+inf (the
// smallest/largest integer): an empty reduction gives that identity.
//
//===----------------------------------------------------------------------===//

#include "../LoopNest.h"
#include "OpKernels.h"
#include "llvm/ADT/BitVector.h"

using namespace llvm;

namespace hx {

namespace {
enum class Reduction { Sum, Mean, Max, Min };

/// A reduced dim (or several merged) of the input.
struct ReducedDim {
  int64_t size;
  int64_t stride;
};
} // namespace

template <Reduction R> static Error reduceKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *out = spec.outputs[0];
  DType t = in->dtype;
  size_t rank = in->rank();

  BitVector reduced(rank, false);
  if (std::optional<Shape> axes = spec.getOptInts("axis")) {
    for (int64_t a : *axes) {
      std::optional<unsigned> ax = normalizeAxis(a, rank);
      if (!ax)
        return unsupported(kb, spec, "axis " + std::to_string(a));
      reduced.set(*ax);
    }
    if (spec.getBool("exclude"))
      reduced.flip();
  } else {
    reduced.set();
  }

  Shape inStrides = contiguousStrides(in->shape);
  Shape keptShape, keptInStrides;
  SmallVector<ReducedDim, 4> rdims;
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced.test(d)) {
      keptShape.push_back(in->shape[d]);
      keptInStrides.push_back(inStrides[d]);
      continue;
    }
    count *= in->shape[d];
    if (in->shape[d] == 1)
      continue;
    if (!rdims.empty() && rdims.back().stride == inStrides[d] * in->shape[d])
      rdims.back() = {rdims.back().size * in->shape[d], inStrides[d]};
    else
      rdims.push_back({in->shape[d], inStrides[d]});
  }

  DType acc = (R == Reduction::Sum || R == Reduction::Mean) ? kb.accumulatorType(t) : t;
  StridedOperand views[] = {{contiguousStrides(keptShape), 0}, {keptInStrides, 0}};
  emitStridedLoops(kb, keptShape, views, std::max<int64_t>(count, 1), [&](ArrayRef<Value *> off) {
    Value *init = R == Reduction::Max   ? kb.lowest(acc)
                  : R == Reduction::Min ? kb.highest(acc)
                                        : kb.constant(acc, 0);
    KernelBuilder::LocalVar var = kb.localVar(acc, init);
    Value *src = kb.buffer(spec.inputBuffer(0));
    // One serial loop per reduced dim, the last (unit-stride) innermost.
    std::function<void(size_t, Value *)> nest = [&](size_t level, Value *base) {
      if (level == rdims.size()) {
        Value *x = kb.cast(kb.load(t, src, base), t, acc);
        Value *a = kb.get(var);
        if (R == Reduction::Max)
          kb.set(var, kb.max(acc, a, x));
        else if (R == Reduction::Min)
          kb.set(var, kb.min(acc, a, x));
        else
          kb.set(var, kb.accumulate(acc, a, x));
        return;
      }
      if (count == 0)
        return;
      kb.forRange(0, rdims[level].size, [&](Value *k) {
        nest(level + 1, kb.iadd(base, kb.imul(k, rdims[level].stride)));
      });
    };
    if (count != 0)
      nest(0, off[1]);
    Value *r = kb.get(var);
    if (R == Reduction::Mean)
      r = count == 0 ? (isFloat(acc) ? kb.div(acc, r, kb.constant(acc, 0)) : kb.constant(acc, 0))
                     : kb.div(acc, r, kb.constantInt(acc, count));
    kb.store(out->dtype, kb.buffer(spec.outputBuffer(0)), off[0], kb.cast(r, acc, out->dtype));
  });
  return Error::success();
}

ArrayRef<KernelEntry> reduceKernels() {
  static const KernelEntry table[] = {
      {"sum", reduceKernel<Reduction::Sum>},
      {"mean", reduceKernel<Reduction::Mean>},
      {"max", reduceKernel<Reduction::Max>},
      {"min", reduceKernel<Reduction::Min>},
  };
  return table;
}

} // namespace hx
