//===- DataLayout.h - TVM data layouts and layout_transform -----*- C++ -*-===//
//
// TVM's layout strings ("NCHW", "NHWC", "NCHW4c") and the map between two
// of them that layout_transform applies (TVM's BijectiveLayout), shared by
// the type relation, the reference interpreter and the kernel definition so
// that a layout means the same to all three.
//
// A layout lists axes, outermost first. An upper-case letter is a primal
// axis; a positive number followed by a lower-case letter is a sub-axis of
// the primal axis of the same letter, holding the inner `factor` positions
// of it: in NCHW4c, channel c is at C = c / 4 and 4c = c % 4. Every primal
// axis of one layout must appear in the other, either split or not.
//
//===----------------------------------------------------------------------===//
#ifndef HX_OPS_DATALAYOUT_H
#define HX_OPS_DATALAYOUT_H

#include "hx/Ops/ShapeUtils.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>

namespace hx {

/// One axis of a layout: a primal axis (factor 0) or a sub-axis.
struct LayoutAxis {
  char name = 'A';    ///< 'A'-'Z' for a primal axis, 'a'-'z' for a sub-axis
  int64_t factor = 0; ///< the sub-axis extent; 0 for a primal axis
  bool isPrimal() const { return factor == 0; }
};

using DataLayout = llvm::SmallVector<LayoutAxis, 6>;

/// The largest sub-axis factor a layout may name (TVM's are int32).
inline constexpr int64_t kMaxLayoutFactor = (int64_t(1) << 31) - 1;

/// Parses a layout; errors start with `what` and the quoted text
/// (`src_layout "NCHW4"`), no operator prefix. Errors: an empty layout, a
/// character that is not a letter or a digit, a number not followed by a
/// lower-case letter, a sub-axis without a factor, a factor of 0 or above
/// kMaxLayoutFactor, a sub-axis whose primal axis is missing, an axis that
/// repeats (hx allows one sub-axis per primal axis).
llvm::Expected<DataLayout> parseLayout(llvm::StringRef text, llvm::StringRef what = "layout");

/// Where a layout keeps one primal axis: the position of the primal axis,
/// the position of its sub-axis (-1 when it is not split) and the sub-axis
/// factor (1 when it is not split). Its index v is then
/// coord[primal] * factor + coord[sub].
struct PrimalPlace {
  int primal = -1;
  int sub = -1;
  int64_t factor = 1;
};

/// layout_transform from one layout to another: per primal axis, its place
/// in the source and in the destination layout.
struct LayoutMap {
  struct Axis {
    PrimalPlace src, dst;
  };
  llvm::SmallVector<Axis, 6> axes;
};

/// TVM's BijectiveLayout::ForwardShape for a tensor of `shape` in layout
/// `src` transformed to `dst`, filling `map`: each primal axis of dst has
/// the source's primal extent (the primal dim times its sub-axis factor)
/// divided by dst's factor, each sub-axis its factor; a `?` primal dim
/// stays `?`. Nullopt with `problem` (blaming src_layout or dst_layout)
/// when a layout does not parse, src's rank is not the shape's, the primal
/// axes differ, a static source sub-axis dim is not its factor, or a static
/// extent is not divisible by dst's factor (TVM would round the dim up and
/// fill the rest with zeros; hx rejects it).
std::optional<Shape> layoutTransformShape(llvm::ArrayRef<int64_t> shape, llvm::StringRef src,
                                          llvm::StringRef dst, LayoutMap &map,
                                          AttrProblem &problem);

} // namespace hx

#endif
