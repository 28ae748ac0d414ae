//===- ShapeUtils.h - Shape arithmetic shared by type relations -*- C++ -*-===//
//
// Pure functions on shapes (dims are >= 0 or TensorType::kDynamic, printed
// `?`), used by the type relations and, later, by kernel generators and the
// reference interpreter. They report failures as values, not diagnostics, so
// they are easy to unit-test.
//
//===----------------------------------------------------------------------===//
#ifndef HX_OPS_SHAPEUTILS_H
#define HX_OPS_SHAPEUTILS_H

#include "hx/IR/Attrs.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace hx {

using Shape = llvm::SmallVector<int64_t, 4>;

/// The largest rank a relation creates from attribute values (expand_dims),
/// and the most fields a relation creates (split): bounds that keep absurd
/// attribute values from exhausting memory.
inline constexpr size_t kMaxRank = 64;
inline constexpr int64_t kMaxSplitSections = 1 << 16;

/// `5`, or `?` for a dynamic dim.
std::string dimToString(int64_t dim);

/// `(5, 7)`, `(5)`, `()`, with `?` for dynamic dims.
std::string shapeToString(llvm::ArrayRef<int64_t> shape);

/// `[0, -1]`: integer attribute values as written (no `?`).
std::string intListToString(llvm::ArrayRef<int64_t> values);

/// NumPy broadcasting (shapes aligned on the right). Per dim: equal dims give
/// that dim, a 1 stretches to the other dim, `?` against n != 1 gives n (as
/// TVM does: the program is only valid if the `?` is 1 or n), `?` against 1 or
/// `?` gives `?`. Nullopt when two static dims differ and neither is 1.
std::optional<Shape> broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// TVM's reshape: `newshape` entries are positive sizes or the special values
///   0  copy the input dim at the same position (a literal 0 if allowZero),
///  -1  infer this dim from the element count (at most one),
///  -2  copy all remaining input dims,
///  -3  merge the next two input dims,
///  -4  split the next input dim into the two following entries (one may be
///  -1).
/// A dynamic input dim makes the dims derived from it (and -1) dynamic. The
/// error message has no operator prefix.
llvm::Expected<Shape> inferReshape(llvm::ArrayRef<int64_t> inShape,
                                   llvm::ArrayRef<int64_t> newshape, bool allowZero = false);

/// Product of the dims, or nullopt if one is dynamic or it overflows.
std::optional<int64_t> shapeProduct(llvm::ArrayRef<int64_t> shape);

/// What is wrong with an operator's attributes: the attribute to blame and
/// the message (no operator prefix). Shared helpers that check several
/// attributes report this, so that a type relation can locate the error at
/// the attribute while the interpreter and the kernels just print it.
struct AttrProblem {
  llvm::StringRef attr;
  std::string message;
  /// The entry of a list attribute to blame, or -1 for the whole value.
  int64_t entry = -1;
};

/// One dim of a strided_slice result: the source index of its first
/// element, the step to the next one, and the element count (`?` for a
/// sliced `?` dim, whose begin is then unknown).
struct SliceDim {
  int64_t begin = 0;
  int64_t stride = 1;
  int64_t size = 0;
};

/// TVM's strided_slice (relay's StridedSliceRel, topi's ConvertToVec and
/// CanonicalizeIndex) over a tensor of `shape`:
///  - axes None: begin, end and strides apply to the leading dims (at most
///    one entry per dim); a missing stride is 1, a missing begin 0
///    (INT64_MAX for a negative stride), a missing end INT64_MAX (0 for a
///    negative stride, so that index 0 is excluded, as in TVM);
///  - axes given (negative counts from the end, no repeats): begin, end and
///    strides (when given) have one entry per listed axis; other dims are
///    whole;
///  - strides None means every stride 1; a stride is never 0;
///  - slice_mode "size": strides are ignored (1) and end[i] is the size of
///    the slice from begin[i], a negative size meaning "to the end";
///  - a negative begin or end counts from the end of its dim; then both
///    clamp to [0, dim] ([-1, dim - 1] for a negative stride), and the slice
///    must not run backwards (begin <= end for a positive stride, begin >=
///    end for a negative one): TVM rejects it.
/// One SliceDim per dim of `shape`, or nullopt with `problem` set.
std::optional<llvm::SmallVector<SliceDim, 4>>
stridedSlice(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> begin,
             llvm::ArrayRef<int64_t> end, const std::optional<Shape> &strides,
             const std::optional<Shape> &axes, llvm::StringRef sliceMode, AttrProblem &problem);

// Readers of attribute values that the type relations, the interpreter and
// the code generators share, so an attribute means the same to all three.

/// `axis` (negative counts from the end) as an index below `rank`; nullopt
/// when out of range.
std::optional<unsigned> normalizeAxis(int64_t axis, size_t rank);

/// An integer-list attribute's values; a single integer is a one-element
/// list.
Shape attrInts(const AttrValue &v);
/// The same, nullopt for None.
std::optional<Shape> attrOptInts(const AttrValue &v);
using IntPair = std::pair<int64_t, int64_t>;
/// A list-of-pairs attribute `attr` ([[before, after], ...]: nn.pad's
/// pad_width) as exactly `count` pairs of non-negative integers; nullopt
/// with `problem` (blaming the entry when one is wrong) otherwise.
std::optional<llvm::SmallVector<IntPair, 4>>
attrIntPairs(const AttrValue &v, size_t count, llvm::StringRef attr, AttrProblem &problem);
/// nn.pad's result shape: each dim grown by its (before, after) pair of
/// `pads` (a `?` dim stays `?`, as in TVM). `mode` is "constant", "edge"
/// (which repeats the border element, so a padded dim must not be empty) or
/// "reflect" (which mirrors the elements next to the border, so each pad must
/// be below its dim's size, TVM's rule); nullopt with `problem` otherwise.
std::optional<Shape> padShape(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<IntPair> pads,
                              llvm::StringRef mode, AttrProblem &problem);
/// TVM's 2-D padding (1, 2 or 4 values) as (top, left, bottom, right);
/// nullopt for another count.
std::optional<std::array<int64_t, 4>> padding2d(llvm::ArrayRef<int64_t> p);
/// An adaptive pool's output_size (TVM's AdaptivePool2DAttrs) for an input
/// of spatial dims (h, w): None or [] keeps (h, w), one value is both dims,
/// two are (height, width), and a None item keeps that input dim. Nullopt
/// for more than two values or a negative one.
std::optional<std::array<int64_t, 2>> adaptiveOutputSize(const AttrValue &v, int64_t h, int64_t w);
/// A number-list attribute's values (integers as doubles); empty for None.
llvm::SmallVector<double, 4> attrFloats(const AttrValue &v);

/// How image.resize2d samples (and nn.upsampling, which TVM lowers to it):
/// topi/image/resize.py's method, coordinate_transformation_mode and
/// rounding_method.
enum class ResizeMethod : uint8_t { NearestNeighbor, Linear, Cubic };
enum class ResizeCoord : uint8_t {
  HalfPixel,
  AlignCorners,
  Asymmetric,
  PytorchHalfPixel,
  TfHalfPixelForNN,
  TfCropAndResize,
  HalfPixelSymmetric,
};
enum class ResizeRounding : uint8_t { Round, Floor, Ceil, RoundPreferFloor, RoundPreferCeil };
/// "nearest_neighbor", "linear", "cubic", in any case (TVM lowers it).
std::optional<ResizeMethod> parseResizeMethod(llvm::StringRef method);
std::optional<ResizeCoord> parseResizeCoord(llvm::StringRef mode);
/// "" is TVM's default for `coord`: round for align_corners, else floor.
std::optional<ResizeRounding> parseResizeRounding(llvm::StringRef rounding, ResizeCoord coord);

/// How image.resize2d samples (the interpreter and the kernels alike).
struct ResizeSampling {
  ResizeMethod method;
  ResizeCoord coord;
  ResizeRounding rounding;
  float alpha;  // cubic_alpha
  bool exclude; // cubic_exclude
  /// roi (start_h, start_w, end_h, end_w), for tf_crop_and_resize.
  std::array<double, 4> roi;
  float extrapolation;
  /// The output/input scales (H, W) coordinates map by; 0: the sizes'.
  std::array<double, 2> scales = {0, 0};
};
/// nn.upsampling's sampling: TVM's topi upsampling, align_corners or
/// asymmetric coordinates and the default rounding.
ResizeSampling upsamplingSampling(ResizeMethod method, bool alignCorners);

/// nn.upsampling's method as TVM maps it to resize2d's: a leading "bi" is
/// dropped (bilinear is linear, bicubic is cubic).
std::optional<ResizeMethod> parseUpsamplingMethod(llvm::StringRef method);
/// The output size nn.upsampling gives an input dim: in * scale rounded to
/// the nearest integer, halves to even (TVM folds round(in * scale) with
/// nearbyint); nullopt when it is negative, not finite or too large.
std::optional<int64_t> upsampledDim(int64_t in, double scale);

/// TVM's 1-D padding (1 or 2 values) as (left, right); nullopt for another
/// count.
std::optional<std::array<int64_t, 2>> padding1d(llvm::ArrayRef<int64_t> p);
/// Where each of the distinct `letters` stands in `layout` ("NHWC" in terms
/// of "NCHW" gives {0, 3, 1, 2}, "NWC" in terms of "NCW" {0, 2, 1});
/// nullopt unless `layout` is a permutation of `letters`.
std::optional<llvm::SmallVector<unsigned, 4>> layoutPositions(llvm::StringRef layout,
                                                              llvm::StringRef letters);

} // namespace hx

#endif
