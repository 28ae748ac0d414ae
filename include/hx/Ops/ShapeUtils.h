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
};
enum class ResizeRounding : uint8_t { Round, Floor, Ceil, RoundPreferFloor, RoundPreferCeil };
/// "nearest_neighbor", "linear", "cubic", in any case (TVM lowers it).
std::optional<ResizeMethod> parseResizeMethod(llvm::StringRef method);
std::optional<ResizeCoord> parseResizeCoord(llvm::StringRef mode);
/// "" is TVM's default for `coord`: round for align_corners, else floor.
std::optional<ResizeRounding> parseResizeRounding(llvm::StringRef rounding, ResizeCoord coord);

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
