//===- LoopNest.cpp - Strided loop nests for kernel definitions -----------===//
//
// emitStridedLoops, the nest behind every elementwise and data-movement
// kernel:
//
//  1. Drop dims of size 1 (their coordinate is always 0).
//  2. Merge each dim into the one before it when every operand is
//     contiguous across the pair (stride[d-1] == stride[d] * size[d]):
//     add(Tensor[(4, 5, 6)], Tensor[(4, 5, 6)]) becomes one loop of 120,
//     add(Tensor[(4, 5, 6)], Tensor[(6)]) two loops of 20 and 6.
//  3. Split a long innermost dim into blocks (KernelBuilder's
//     innerBlockLength: about 4096 estimated operations by default, one
//     point on a GPU), so that a rank-1 nest (or a few expensive points, as
//     the rows of a reduction) still has parallel iterations.
//  4. parallelFor over (outer points x blocks); inside, recover the outer
//     coordinates by division, and run the innermost dim as a serial loop
//     whose offsets step by each operand's (constant) innermost stride.
//
// emitIndexLoops is the same nest without steps 1 and 2, handing the body
// every coordinate instead of operand offsets.
//
// Sizes, strides and their products are int64: the executor refuses any
// value above kMaxBufferBytes (2^48 bytes) before a kernel is compiled
// (hx/Runtime/Executable.h), so none of them can overflow here; the products
// below assert it.
//
//===----------------------------------------------------------------------===//

#include "LoopNest.h"
#include "llvm/Support/MathExtras.h"
#include <cassert>

using namespace llvm;

namespace hx {

/// a * b, which the executor's buffer limit keeps within int64.
static int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  [[maybe_unused]] bool overflow = MulOverflow(a, b, r);
  assert(!overflow && "a shape beyond kMaxBufferBytes reached code generation");
  return r;
}

Shape contiguousStrides(ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (size_t d = shape.size(); d > 1; --d)
    strides[d - 2] = mul(strides[d - 1], std::max<int64_t>(shape[d - 1], 1));
  return strides;
}

Shape broadcastStrides(ArrayRef<int64_t> shape, ArrayRef<int64_t> outShape) {
  Shape own = contiguousStrides(shape);
  Shape out(outShape.size(), 0);
  size_t lead = outShape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    out[lead + d] = shape[d] == 1 ? 0 : own[d];
  return out;
}

bool broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> outShape) {
  if (shape.size() > outShape.size())
    return false;
  size_t lead = outShape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && shape[d] != outShape[lead + d])
      return false;
  return true;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n = mul(n, d);
  return n;
}

namespace {
struct NestDim {
  int64_t size;
  SmallVector<int64_t, 4> strides; // one per operand
};
} // namespace

void emitStridedLoops(KernelBuilder &kb, ArrayRef<int64_t> shape, ArrayRef<StridedOperand> operands,
                      int64_t workPerPoint, function_ref<void(ArrayRef<Value *>)> body) {
  size_t numOps = operands.size();
  for (int64_t d : shape)
    if (d == 0)
      return;

  // Steps 1 and 2: drop unit dims, merge contiguous neighbours.
  SmallVector<NestDim, 4> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    NestDim nd{shape[d], {}};
    for (const StridedOperand &op : operands)
      nd.strides.push_back(op.strides[d]);
    if (!dims.empty()) {
      NestDim &prev = dims.back();
      bool contiguous = true;
      for (size_t k = 0; k < numOps; ++k)
        contiguous &= prev.strides[k] == nd.strides[k] * nd.size;
      if (contiguous) {
        prev.size *= nd.size;
        prev.strides = nd.strides;
        continue;
      }
    }
    dims.push_back(std::move(nd));
  }

  SmallVector<Value *, 4> offsets(numOps);
  if (dims.empty()) {
    for (size_t k = 0; k < numOps; ++k)
      offsets[k] = kb.index(operands[k].base);
    body(offsets);
    return;
  }

  // Step 3: blocks of the innermost dim.
  NestDim inner = dims.pop_back_val();
  int64_t blockLen =
      std::clamp<int64_t>(kb.innerBlockLength(inner.size, workPerPoint), 1, inner.size);
  int64_t blocks = (inner.size + blockLen - 1) / blockLen;
  Shape outerSizes;
  int64_t outerCount = 1;
  for (const NestDim &d : dims) {
    outerSizes.push_back(d.size);
    outerCount *= d.size;
  }

  // Step 4.
  kb.parallelFor(outerCount * blocks, blockLen * workPerPoint, [&](Value *p) {
    Value *outer = blocks > 1 ? kb.idiv(p, blocks) : p;
    SmallVector<Value *, 4> coords;
    if (!dims.empty())
      coords = kb.unflatten(outer, outerSizes);
    SmallVector<Value *, 4> bases;
    for (size_t k = 0; k < numOps; ++k) {
      Shape strides;
      for (const NestDim &d : dims)
        strides.push_back(d.strides[k]);
      bases.push_back(kb.linearOffset(coords, strides, kb.index(operands[k].base)));
    }
    Value *lo = kb.index(0), *hi = kb.index(inner.size);
    if (blocks > 1) {
      lo = kb.imul(kb.irem(p, blocks), blockLen);
      hi = kb.imin(kb.iadd(lo, blockLen), hi);
    }
    kb.forRange(lo, hi, [&](Value *j) {
      SmallVector<Value *, 4> offs(numOps);
      for (size_t k = 0; k < numOps; ++k)
        offs[k] = kb.iadd(bases[k], kb.imul(j, inner.strides[k]));
      body(offs);
    });
  });
}

void emitIndexLoops(KernelBuilder &kb, ArrayRef<int64_t> shape, int64_t workPerPoint,
                    function_ref<void(ArrayRef<Value *>, Value *)> body) {
  if (llvm::is_contained(shape, 0))
    return;
  if (shape.empty()) {
    body({}, kb.index(0));
    return;
  }
  int64_t inner = shape.back();
  ArrayRef<int64_t> outerSizes = shape.drop_back();
  int64_t blockLen = std::clamp<int64_t>(kb.innerBlockLength(inner, workPerPoint), 1, inner);
  int64_t blocks = (inner + blockLen - 1) / blockLen;
  kb.parallelFor(numElements(outerSizes) * blocks, blockLen * workPerPoint, [&](Value *p) {
    Value *outer = blocks > 1 ? kb.idiv(p, blocks) : p;
    SmallVector<Value *, 4> coords;
    if (!outerSizes.empty())
      coords = kb.unflatten(outer, outerSizes);
    Value *rowBase = kb.imul(outer, inner);
    Value *lo = kb.index(0), *hi = kb.index(inner);
    if (blocks > 1) {
      lo = kb.imul(kb.irem(p, blocks), blockLen);
      hi = kb.imin(kb.iadd(lo, blockLen), hi);
    }
    kb.forRange(lo, hi, [&](Value *j) {
      coords.push_back(j);
      body(coords, kb.iadd(rowBase, j));
      coords.pop_back();
    });
  });
}

void emitStridedCopy(KernelBuilder &kb, DType t, ArrayRef<int64_t> shape, unsigned dst,
                     const StridedOperand &dstView, unsigned src, const StridedOperand &srcView) {
  // bool moves as its byte, float16 as its 16 bits: the copy never
  // interprets the value.
  DType moved = KernelBuilder::bitsDType(t);
  emitStridedLoops(kb, shape, {dstView, srcView}, 1, [&](ArrayRef<Value *> off) {
    kb.store(moved, kb.buffer(dst), off[0], kb.load(moved, kb.buffer(src), off[1]));
  });
}

} // namespace hx
