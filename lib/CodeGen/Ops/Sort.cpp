//===- Sort.cpp - Kernels of argsort and topk -----------------------------===//
//
// Both sort each row along `axis` (rows are strided when the axis is not
// the last) with a bottom-up merge sort generated in IR, one parallel
// iteration per row:
//
//   idx[0..len) = 0, 1, ...               // in a private scratch array
//   for width = 1, 2, 4, ... < len:       // ceil(log2(len)) passes
//     merge the runs [lo, lo+width) and [lo+width, lo+2*width) of idx
//     from one half of the scratch array into the other
//
// A merge takes from the right run only when its value comes strictly
// first, so the sort is stable: equal values keep ascending indices, in
// ascending and descending order alike (TVM's and NumPy's stable order).
// argsort writes idx as the index dtype; topk writes the first k values
// and/or indices (k < 1 means the whole axis; ret_type picks the results).
// NaN sorts as larger than every number (last ascending, first descending).
//
//===----------------------------------------------------------------------===//

#include "../LoopNest.h"
#include "OpKernels.h"

using namespace llvm;

namespace hx {

namespace {
enum class SortKind { Argsort, Topk };
} // namespace

template <SortKind K> static Error sortKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const TensorType *in = spec.inputs[0];
  size_t rank = in->rank();
  int64_t axisAttr = spec.getInt("axis");
  int64_t axis = axisAttr < 0 ? axisAttr + int64_t(rank) : axisAttr;
  if (axis < 0 || axis >= int64_t(rank))
    return unsupported(kb, spec, "axis " + std::to_string(axisAttr));
  bool ascending = spec.getBool("is_ascend");

  // Which results exist: argsort has indices only; topk per ret_type.
  const TensorType *values = nullptr, *indices = nullptr;
  unsigned valuesBuf = 0, indicesBuf = 0;
  if (K == SortKind::Argsort) {
    indices = spec.outputs[0];
    indicesBuf = spec.outputBuffer(0);
  } else {
    std::string ret = spec.getString("ret_type");
    if (ret == "both" && spec.outputs.size() == 2) {
      values = spec.outputs[0];
      indices = spec.outputs[1];
      valuesBuf = spec.outputBuffer(0);
      indicesBuf = spec.outputBuffer(1);
    } else if (ret == "values") {
      values = spec.outputs[0];
      valuesBuf = spec.outputBuffer(0);
    } else if (ret == "indices") {
      indices = spec.outputs[0];
      indicesBuf = spec.outputBuffer(0);
    } else {
      return unsupported(kb, spec, "ret_type \"" + ret + "\"");
    }
  }
  if (indices && indices->dtype != DType::Int32 && indices->dtype != DType::Int64)
    return unsupported(kb, spec, "index dtype " + dtypeName(indices->dtype));

  ArrayRef<int64_t> shape = in->shape;
  int64_t outer = numElements(shape.take_front(axis));
  int64_t len = shape[axis];
  int64_t inner = numElements(shape.drop_front(axis + 1));
  int64_t kOut = (values ? values : indices)->shape[axis];
  if (outer * inner * kOut == 0)
    return Error::success();
  DType t = in->dtype;
  unsigned passes = 0;
  while ((int64_t(1) << passes) < len)
    ++passes;

  kb.parallelFor(outer * inner, 10 * len * (passes + 1), [&](Value *p) {
    Value *o = kb.idiv(p, inner), *i = kb.irem(p, inner);
    Value *base = kb.iadd(kb.imul(o, len * inner), i);
    Value *outBase = kb.iadd(kb.imul(o, kOut * inner), i);
    Value *data = kb.buffer(spec.inputBuffer(0));
    auto valueAt = [&](Value *idx) { return kb.load(t, data, kb.iadd(base, kb.imul(idx, inner))); };
    // x < y, with NaN larger than every number.
    auto before = [&](Value *x, Value *y) {
      return kb.logicalOr(kb.compare(CmpOp::LT, t, x, y),
                          kb.logicalAnd(kb.isNaN(t, y), kb.logicalNot(kb.isNaN(t, x))));
    };

    kb.withScratch(DType::Int64, 2 * len, [&](Value *buf) {
      kb.forRange(0, len, [&](Value *j) { kb.store(DType::Int64, buf, j, j); });
      // The merge passes: the run at lo merges [lo, lo+w) and [lo+w, lo+2w).
      KernelBuilder::LocalVar width = kb.localVar(DType::Int64, kb.index(1));
      KernelBuilder::LocalVar src = kb.localVar(DType::Int64, kb.index(0));
      kb.forRange(0, passes, [&](Value *) {
        Value *w = kb.get(width), *from = kb.get(src), *to = kb.isub(kb.index(len), from);
        Value *lenV = kb.index(len);
        kb.forRange(kb.index(0), lenV, kb.imul(w, 2), [&](Value *lo) {
          Value *mid = kb.imin(kb.iadd(lo, w), lenV);
          Value *hi = kb.imin(kb.iadd(mid, w), lenV);
          KernelBuilder::LocalVar li = kb.localVar(DType::Int64, lo);
          KernelBuilder::LocalVar ri = kb.localVar(DType::Int64, mid);
          kb.forRange(lo, hi, [&](Value *k) {
            Value *l = kb.get(li), *rr = kb.get(ri);
            Value *hasL = kb.icmp(CmpOp::LT, l, mid), *hasR = kb.icmp(CmpOp::LT, rr, hi);
            // Clamped positions keep the loads in bounds; the selects
            // below ignore what they read.
            Value *a = kb.load(DType::Int64, buf, kb.iadd(kb.select(hasL, l, lo), from));
            Value *b = kb.load(DType::Int64, buf, kb.iadd(kb.select(hasR, rr, lo), from));
            Value *va = valueAt(a), *vb = valueAt(b);
            Value *rightFirst = ascending ? before(vb, va) : before(va, vb);
            Value *takeR = kb.logicalOr(kb.logicalNot(hasL), kb.logicalAnd(hasR, rightFirst));
            kb.store(DType::Int64, buf, kb.iadd(k, to), kb.select(takeR, b, a));
            kb.set(li, kb.select(takeR, l, kb.iadd(l, 1)));
            kb.set(ri, kb.select(takeR, kb.iadd(rr, 1), rr));
          });
        });
        kb.set(width, kb.imul(w, 2));
        kb.set(src, to);
      });
      int64_t sorted = passes % 2 == 0 ? 0 : len;
      kb.forRange(0, kOut, [&](Value *j) {
        Value *idx = kb.load(DType::Int64, buf, kb.iadd(j, sorted));
        Value *off = kb.iadd(outBase, kb.imul(j, inner));
        if (indices)
          kb.store(indices->dtype, kb.buffer(indicesBuf), off,
                   kb.cast(idx, DType::Int64, indices->dtype));
        if (values)
          kb.store(t, kb.buffer(valuesBuf), off, valueAt(idx));
      });
    });
  });
  return Error::success();
}

ArrayRef<KernelEntry> sortKernels() {
  static const KernelEntry table[] = {
      {"argsort", sortKernel<SortKind::Argsort>},
      {"topk", sortKernel<SortKind::Topk>},
  };
  return table;
}

} // namespace hx
