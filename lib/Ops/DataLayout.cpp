//===- DataLayout.cpp - TVM data layouts and layout_transform -------------===//
//
// parseLayout follows TVM's Layout constructor (digits accumulate a factor,
// a lower-case letter consumes it, an upper-case letter must not follow a
// number) and adds the checks TVM leaves to later asserts or skips: a
// trailing number, repeated axes. layoutTransformShape follows
// BijectiveLayout's shape rule with one sub-axis per primal axis.
//
//===----------------------------------------------------------------------===//

#include "hx/Ops/DataLayout.h"
#include "hx/IR/Type.h"
#include "llvm/ADT/StringExtras.h"
#include <limits>

using namespace llvm;

namespace hx {

static constexpr int64_t kDyn = TensorType::kDynamic;

Expected<DataLayout> parseLayout(StringRef text, StringRef what) {
  auto fail = [&](const Twine &why) -> Expected<DataLayout> {
    return createStringError(what + " \"" + text + "\" " + why);
  };
  if (text.empty())
    return fail("is empty (an undefined layout)");
  DataLayout axes;
  int64_t factor = 0;
  bool digits = false;
  for (char c : text) {
    if (isDigit(c)) {
      factor = factor * 10 + (c - '0');
      if (factor > kMaxLayoutFactor)
        return fail("has a sub-axis factor above " + Twine(kMaxLayoutFactor));
      digits = true;
    } else if (isUpper(c)) {
      if (digits)
        return fail("has a number before the primal axis " + Twine(c) +
                    " (only sub-axes, lower-case, take a factor)");
      axes.push_back({c, 0});
    } else if (isLower(c)) {
      if (!digits || factor == 0)
        return fail("has the sub-axis " + Twine(c) + " without a positive factor (as in 4" +
                    Twine(c) + ")");
      axes.push_back({c, factor});
      factor = 0;
      digits = false;
    } else {
      return fail("has '" + Twine(c) + "', not a letter or a digit");
    }
  }
  if (digits)
    return fail("ends with a number that no sub-axis letter follows");
  for (size_t i = 0; i < axes.size(); ++i) {
    char name = axes[i].name;
    for (size_t j = 0; j < i; ++j)
      if (axes[j].name == name)
        return fail("has the axis " + Twine(name) + " twice");
    if (!axes[i].isPrimal() &&
        !llvm::any_of(axes, [&](const LayoutAxis &a) { return a.name == toUpper(name); }))
      return fail("has the sub-axis " + Twine(name) + " but not its primal axis " +
                  Twine(toUpper(name)));
  }
  return axes;
}

/// Where `layout` keeps primal axis `primal`; primal == -1 when it has none.
static PrimalPlace placeOf(const DataLayout &layout, char primal) {
  PrimalPlace p;
  for (size_t i = 0; i < layout.size(); ++i) {
    if (layout[i].name == primal)
      p.primal = int(i);
    else if (layout[i].name == toLower(primal)) {
      p.sub = int(i);
      p.factor = layout[i].factor;
    }
  }
  return p;
}

std::optional<Shape> layoutTransformShape(ArrayRef<int64_t> shape, StringRef src, StringRef dst,
                                          LayoutMap &map, AttrProblem &problem) {
  auto fail = [&](StringRef attr, const Twine &msg) -> std::optional<Shape> {
    problem = {attr, msg.str()};
    return std::nullopt;
  };
  Expected<DataLayout> from = parseLayout(src, "src_layout");
  if (!from)
    return fail("src_layout", toString(from.takeError()));
  Expected<DataLayout> to = parseLayout(dst, "dst_layout");
  if (!to)
    return fail("dst_layout", toString(to.takeError()));
  if (from->size() != shape.size())
    return fail("src_layout", "src_layout " + src + " has " + Twine(from->size()) +
                                  " axes for a tensor of rank " + Twine(shape.size()));
  for (const DataLayout *layout : {&*from, &*to})
    for (const LayoutAxis &a : *layout)
      if (a.isPrimal() && placeOf(layout == &*from ? *to : *from, a.name).primal < 0)
        return fail("dst_layout", "cannot transform " + src + " to " + dst + ": the primal axis " +
                                      Twine(a.name) + " is not in both");

  map.axes.clear();
  Shape out(to->size(), 0);
  for (const LayoutAxis &a : *from) {
    if (!a.isPrimal())
      continue;
    LayoutMap::Axis axis{placeOf(*from, a.name), placeOf(*to, a.name)};
    map.axes.push_back(axis);
    int64_t extent = shape[axis.src.primal];
    if (axis.src.sub >= 0) {
      int64_t inner = shape[axis.src.sub];
      if (inner != kDyn && inner != axis.src.factor)
        return fail("src_layout", "the sub-axis " + Twine(toLower(a.name)) + " of src_layout " +
                                      src + " is dim " + Twine(axis.src.sub) + " of size " +
                                      Twine(inner) + " in " + shapeToString(shape) + ", not " +
                                      Twine(axis.src.factor));
      if (extent != kDyn && extent > std::numeric_limits<int64_t>::max() / axis.src.factor)
        return fail("src_layout",
                    "the axis " + Twine(a.name) + " of " + shapeToString(shape) + " is too large");
      if (extent != kDyn)
        extent *= axis.src.factor;
    }
    if (extent != kDyn && extent % axis.dst.factor != 0)
      return fail("dst_layout", "the axis " + Twine(a.name) + " of size " + Twine(extent) +
                                    " cannot be split into blocks of " + Twine(axis.dst.factor) +
                                    " (dst_layout " + dst + ")");
    out[axis.dst.primal] = extent == kDyn ? kDyn : extent / axis.dst.factor;
    if (axis.dst.sub >= 0)
      out[axis.dst.sub] = axis.dst.factor;
  }
  return out;
}

} // namespace hx
