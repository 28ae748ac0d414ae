//===- Window.h - Windowed operators' geometry, shared ---------*- C++ -*-===//
//
// Private to lib/CodeGen/Ops: how the convolution, pooling and resizing
// kernels (ConvPool.cpp, WindowVectors.cpp, Resize.cpp) read their
// operands' layouts and windows, and the vector forms of the depthwise
// convolutions and max pools that WindowVectors.cpp generates.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_CODEGEN_OPS_WINDOW_H
#define HX_LIB_CODEGEN_OPS_WINDOW_H

#include "OpKernels.h"
#include <array>
#include <utility>
#include <vector>

namespace hx {

/// Element strides of the four logical dims (NCHW or OIHW order) and their
/// sizes. A 1-D layout (NCW, OIW) is viewed as 2-D with H = 1 (stride 0).
struct LayoutView {
  std::array<int64_t, 4> size;
  std::array<int64_t, 4> stride;
  /// The element offset of (0, 0, 0, 0): nonzero for a view of part of
  /// the tensor (a convolution's weights without its dead taps).
  int64_t offset = 0;
};

/// The geometry of a 2-D window: padding (top, left, bottom, right), strides
/// and dilation.
struct Window2d {
  int64_t top, left, bottom, right, sh, sw, dh, dw;
};

/// A windowed pool's data and result views and its window.
struct Pool2d {
  LayoutView data, out;
  Window2d window;
  int64_t ph, pw; // pool_size
};

/// floor(a / b) and ceil(a / b) for b > 0.
inline int64_t floorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); }
inline int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }
inline bool anyZero(llvm::ArrayRef<int64_t> shape) { return llvm::is_contained(shape, 0); }

/// [lo, hi) as vectors of `lanes` elements, then power-of-two pieces:
/// (first, width) each.
std::vector<std::pair<int64_t, unsigned>> rowPieces(int64_t lo, int64_t hi, unsigned lanes);

/// Tensor `t` viewed in the layout attribute `attr` (else `fallbackAttr`),
/// a permutation of `letters`; an error for another layout.
llvm::Expected<LayoutView> getLayout(const KernelBuilder &kb, const KernelSpec &spec,
                                     const TensorType *t, llvm::StringRef attr,
                                     llvm::StringRef letters, llvm::StringRef fallbackAttr = {});
/// (first, second) from a 1- or 2-value attribute, both at least 1; for
/// `spatial` 1 (1-D) a 1-value one as (1, value).
llvm::Expected<std::pair<int64_t, int64_t>> getPair(const KernelBuilder &kb, const KernelSpec &spec,
                                                    llvm::StringRef attr, unsigned spatial = 2);
/// A window's geometry; a 1-D window (`spatial` 1) is a 2-D one of height 1.
llvm::Expected<Window2d> getWindow(const KernelBuilder &kb, const KernelSpec &spec,
                                   unsigned spatial = 2);
/// The data and result views of a pooling (or resizing) operator (`layout`,
/// and `out_layout` defaulting to it; the resizing operators have none:
/// `hasOutLayout` false).
llvm::Expected<std::pair<LayoutView, LayoutView>>
getPoolLayouts(const KernelBuilder &kb, const KernelSpec &spec, bool hasOutLayout = true);
llvm::Expected<Pool2d> getPool(const KernelBuilder &kb, const KernelSpec &spec);

/// A float32 depthwise convolution (one input channel per group, `ocg`
/// output channels per group) with an NCHW result, as vectors held across
/// its taps (WindowVectors.cpp), where the target has vectors and the
/// shape allows; false (nothing emitted) otherwise.
bool emitDepthwiseVectors(KernelBuilder &kb, const KernelSpec &spec, const LayoutView &dv,
                          const LayoutView &wv, const LayoutView &ov, const Window2d &win,
                          int64_t ocg);
/// A float32 nn.max_pool2d the same way; false (nothing emitted) otherwise.
bool emitMaxPoolVectors(KernelBuilder &kb, const KernelSpec &spec, const Pool2d &pool);

} // namespace hx

#endif
