//===- Reduce.cpp - Kernels of the reductions and arg-reductions ----------===//
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
// smallest/largest integer): an empty reduction gives that identity. prod
// multiplies from 1 in the accumulator type.
//
// argmax and argmin run the same nest, keeping the best value and its
// index row-major over the reduced dims (each reduced dim's stride in that
// space rides along with its input stride): a later element replaces the
// best when it is strictly greater (smaller), or also when equal with
// select_last_index; a NaN is the extreme (the first NaN stays, or the
// last with select_last_index), as the interpreter has it. float16 compares
// in float32.
//
// cumsum is a strided nest over the points before and after its axis, each
// running a serial loop along it that stores the running sum (before adding
// the element with exclusive), in the accumulator type of the result's
// dtype.
//
//===----------------------------------------------------------------------===//

#include "../LoopNest.h"
#include "OpKernels.h"
#include "llvm/ADT/BitVector.h"

using namespace llvm;

namespace hx {

namespace {
enum class Reduction { Sum, Mean, Max, Min, Prod };

/// A reduced dim (or several merged) of the input.
struct ReducedDim {
  int64_t size;
  int64_t stride;
  /// Its stride in the row-major index over the reduced dims.
  int64_t indexStride;
};

/// The loops of a reduction: the kept dims (the result's points) and the
/// reduced dims, merged where contiguous, size-1 dims left out.
struct ReductionNest {
  Shape keptShape, keptInStrides;
  SmallVector<ReducedDim, 4> rdims;
  /// Elements reduced into each point.
  int64_t count = 1;
};
} // namespace

static Expected<ReductionNest> reductionNest(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0];
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

  Shape inStrides = contiguousStrides(in->shape), redShape;
  for (size_t d = 0; d < rank; ++d)
    if (reduced.test(d))
      redShape.push_back(in->shape[d]);
  Shape redStrides = contiguousStrides(redShape);
  ReductionNest n;
  for (size_t d = 0, r = 0; d < rank; ++d) {
    if (!reduced.test(d)) {
      n.keptShape.push_back(in->shape[d]);
      n.keptInStrides.push_back(inStrides[d]);
      continue;
    }
    int64_t redStride = redStrides[r++];
    n.count *= in->shape[d];
    if (in->shape[d] == 1)
      continue;
    if (!n.rdims.empty() && n.rdims.back().stride == inStrides[d] * in->shape[d])
      n.rdims.back() = {n.rdims.back().size * in->shape[d], inStrides[d], redStride};
    else
      n.rdims.push_back({in->shape[d], inStrides[d], redStride});
  }
  return n;
}

template <Reduction R> static Error reduceKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *out = spec.outputs[0];
  DType t = in->dtype;
  Expected<ReductionNest> nest0 = reductionNest(kb, spec);
  if (!nest0)
    return nest0.takeError();
  const Shape &keptShape = nest0->keptShape, &keptInStrides = nest0->keptInStrides;
  const SmallVector<ReducedDim, 4> &rdims = nest0->rdims;
  int64_t count = nest0->count;

  DType acc = (R == Reduction::Max || R == Reduction::Min) ? t : kb.accumulatorType(t);
  StridedOperand views[] = {{contiguousStrides(keptShape), 0}, {keptInStrides, 0}};
  emitStridedLoops(kb, keptShape, views, std::max<int64_t>(count, 1), [&](ArrayRef<Value *> off) {
    Value *init = R == Reduction::Max    ? kb.lowest(acc)
                  : R == Reduction::Min  ? kb.highest(acc)
                  : R == Reduction::Prod ? kb.constant(acc, 1)
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
        else if (R == Reduction::Prod)
          kb.set(var, kb.mul(acc, a, x));
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

template <bool IsMax> static Error argReduceKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *out = spec.outputs[0];
  DType t = in->dtype, ct = KernelBuilder::valueDType(t);
  bool last = spec.getBool("select_last_index");
  Expected<ReductionNest> n = reductionNest(kb, spec);
  if (!n)
    return n.takeError();
  CmpOp cmp = IsMax ? (last ? CmpOp::GE : CmpOp::GT) : (last ? CmpOp::LE : CmpOp::LT);
  StridedOperand views[] = {{contiguousStrides(n->keptShape), 0}, {n->keptInStrides, 0}};
  emitStridedLoops(
      kb, n->keptShape, views, std::max<int64_t>(n->count, 1), [&](ArrayRef<Value *> off) {
        KernelBuilder::LocalVar best = kb.localVar(ct, IsMax ? kb.lowest(ct) : kb.highest(ct));
        KernelBuilder::LocalVar bestIdx = kb.localVar(DType::Int64, kb.index(0));
        Value *src = kb.buffer(spec.inputBuffer(0));
        // One serial loop per reduced dim; `at` is the index over them.
        std::function<void(size_t, Value *, Value *)> nest = [&](size_t level, Value *base,
                                                                 Value *at) {
          if (level == n->rdims.size()) {
            Value *x = kb.cast(kb.load(t, src, base), t, ct);
            Value *b = kb.get(best);
            Value *better = kb.compare(cmp, ct, x, b);
            if (isFloat(ct)) {
              Value *nanX = kb.isNaN(ct, x), *nanB = kb.isNaN(ct, b);
              better = kb.logicalOr(nanX, better);
              better =
                  last ? kb.select(nanB, nanX, better) : kb.logicalAnd(kb.logicalNot(nanB), better);
            }
            kb.set(best, kb.select(better, x, b));
            kb.set(bestIdx, kb.select(better, at, kb.get(bestIdx)));
            return;
          }
          const ReducedDim &r = n->rdims[level];
          kb.forRange(0, r.size, [&](Value *k) {
            nest(level + 1, kb.iadd(base, kb.imul(k, r.stride)),
                 kb.iadd(at, kb.imul(k, r.indexStride)));
          });
        };
        if (n->count != 0)
          nest(0, off[1], kb.index(0));
        kb.store(out->dtype, kb.buffer(spec.outputBuffer(0)), off[0],
                 kb.cast(kb.get(bestIdx), DType::Int64, out->dtype));
      });
  return Error::success();
}

static Error cumsumKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0], *out = spec.outputs[0];
  DType t = in->dtype, ot = out->dtype, acc = kb.accumulatorType(ot);
  int64_t outer = 1, n = 1, inner = 1;
  if (std::optional<int64_t> a = spec.getOptInt("axis")) {
    std::optional<unsigned> axis = normalizeAxis(*a, in->rank());
    if (!axis)
      return unsupported(kb, spec, "axis " + std::to_string(*a));
    for (size_t d = 0; d < in->rank(); ++d)
      (d < *axis ? outer : d > *axis ? inner : n) *= in->shape[d];
  } else {
    for (int64_t d : in->shape)
      n *= d;
  }
  bool exclusive = spec.getBool("exclusive");
  Shape points{outer, inner}, strides{n * inner, 1};
  StridedOperand views[] = {{strides, 0}, {strides, 0}};
  emitStridedLoops(kb, points, views, std::max<int64_t>(n, 1), [&](ArrayRef<Value *> off) {
    KernelBuilder::LocalVar sum = kb.localVar(acc, kb.constant(acc, 0));
    Value *src = kb.buffer(spec.inputBuffer(0)), *dst = kb.buffer(spec.outputBuffer(0));
    kb.forRange(0, n, [&](Value *k) {
      Value *o = kb.iadd(off[0], kb.imul(k, inner)), *i = kb.iadd(off[1], kb.imul(k, inner));
      Value *x = kb.cast(kb.cast(kb.load(t, src, i), t, ot), ot, acc);
      if (exclusive)
        kb.store(ot, dst, o, kb.cast(kb.get(sum), acc, ot));
      kb.set(sum, kb.add(acc, kb.get(sum), x));
      if (!exclusive)
        kb.store(ot, dst, o, kb.cast(kb.get(sum), acc, ot));
    });
  });
  return Error::success();
}

ArrayRef<KernelEntry> reduceKernels() {
  static const KernelEntry table[] = {
      {"sum", reduceKernel<Reduction::Sum>},   {"mean", reduceKernel<Reduction::Mean>},
      {"max", reduceKernel<Reduction::Max>},   {"min", reduceKernel<Reduction::Min>},
      {"prod", reduceKernel<Reduction::Prod>}, {"argmax", argReduceKernel<true>},
      {"argmin", argReduceKernel<false>},      {"cumsum", cumsumKernel},
  };
  return table;
}

} // namespace hx
