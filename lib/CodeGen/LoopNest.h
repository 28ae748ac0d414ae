//===- LoopNest.h - Strided loop nests for kernel definitions ---*- C++ -*-===//
//
// Helpers the kernel definitions share (private to lib/CodeGen): strides of
// contiguous and broadcast operands, and the canonical parallel loop nest
// over a shape that visits every point once and hands each operand's
// element offset to a body. Everything here is written against
// KernelBuilder only.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_CODEGEN_LOOPNEST_H
#define HX_LIB_CODEGEN_LOOPNEST_H

#include "hx/CodeGen/KernelBuilder.h"
#include "hx/Ops/ShapeUtils.h"

namespace hx {

/// Row-major element strides of a contiguous tensor of `shape`.
Shape contiguousStrides(llvm::ArrayRef<int64_t> shape);

/// The strides with which an operand of `shape` (contiguous) is read when it
/// is broadcast NumPy-style to `outShape`: dims aligned on the right, a
/// missing or size-1 dim has stride 0.
Shape broadcastStrides(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> outShape);

/// Whether an operand of `shape` broadcasts NumPy-style to `outShape`.
bool broadcastsTo(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> outShape);

/// The product of the dims.
int64_t numElements(llvm::ArrayRef<int64_t> shape);

/// One operand of a strided nest: its element strides per dim of the nest
/// (0 broadcasts) and the offset of the nest's origin.
struct StridedOperand {
  Shape strides;
  int64_t base = 0;
};

/// Visits every point of `shape` once: calls body(offsets) with the int64
/// element offset of each operand, base + Σ coord[d] * strides[d], in
/// `operands` order. The nest collapses size-1 dims and dims that are
/// contiguous for every operand, runs the outer dims (and blocks of a long
/// innermost dim) as one parallelFor, and the innermost dim as a serial,
/// unit-step loop (vectorizable when the strides there are 0 or 1). An empty
/// shape (a dim of 0) emits nothing. `workPerPoint` estimates the scalar
/// operations of one call of body. body runs inside the parallel region:
/// see KernelBuilder's scoping rule.
void emitStridedLoops(KernelBuilder &kb, llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<StridedOperand> operands, int64_t workPerPoint,
                      llvm::function_ref<void(llvm::ArrayRef<llvm::Value *> offsets)> body);

/// Visits every point of `shape` once, for gathers whose source offset is
/// not linear in the coordinates (nn.pad's borders, layout_transform's
/// splits): calls body(coords, flat) with the point's int64 coordinates and
/// its row-major element offset. The dims before the last run as one
/// parallelFor (with blocks of a long last dim, as in emitStridedLoops), the
/// last dim as a serial loop. An empty shape emits nothing; rank 0 calls
/// body once with no coordinates. body runs inside the parallel region.
void emitIndexLoops(
    KernelBuilder &kb, llvm::ArrayRef<int64_t> shape, int64_t workPerPoint,
    llvm::function_ref<void(llvm::ArrayRef<llvm::Value *> coords, llvm::Value *flat)> body);

/// Copies a strided view of buffer `src` into a strided view of buffer `dst`
/// (both of dtype `t`) over `shape`.
void emitStridedCopy(KernelBuilder &kb, DType t, llvm::ArrayRef<int64_t> shape, unsigned dst,
                     const StridedOperand &dstView, unsigned src, const StridedOperand &srcView);

} // namespace hx

#endif
