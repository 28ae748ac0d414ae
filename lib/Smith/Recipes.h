//===- Recipes.h - hx-smith's per-operator recipes (private) ----*- C++ -*-===//
//
// Helpers the recipe files share, and the recipes of RecipesShape.cpp and
// RecipesNn.cpp that findRecipe (Recipes.cpp) dispatches to.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_SMITH_RECIPES_H
#define HX_LIB_SMITH_RECIPES_H

#include "Generator.h"
#include <optional>

namespace hx::smith {

/// `op(a, b, k=v)`.
std::string call(llvm::StringRef op, const std::vector<std::string> &args,
                 const std::vector<std::string> &attrs = {});
/// `[1, 2]`.
std::string list(const Shape &s);
/// The numpy broadcast of two shapes, or nullopt.
std::optional<Shape> broadcast(const Shape &a, const Shape &b);
/// An axis as written: itself, or now and then counted from the end.
int64_t axisText(Gen &g, int64_t axis, int64_t rank);

// RecipesShape.cpp
bool reshapeRecipe(Gen &g, const OpDef &d);
bool transposeRecipe(Gen &g, const OpDef &d);
bool expandDimsRecipe(Gen &g, const OpDef &d);
bool squeezeRecipe(Gen &g, const OpDef &d);
bool concatenateRecipe(Gen &g, const OpDef &d);
bool stackRecipe(Gen &g, const OpDef &d);
bool splitRecipe(Gen &g, const OpDef &d);
bool stridedSliceRecipe(Gen &g, const OpDef &d);
bool takeRecipe(Gen &g, const OpDef &d);
bool gatherRecipe(Gen &g, const OpDef &d);
bool gatherNdRecipe(Gen &g, const OpDef &d);
bool scatterElementsRecipe(Gen &g, const OpDef &d);
bool scatterNdRecipe(Gen &g, const OpDef &d);
bool padRecipe(Gen &g, const OpDef &d);
bool layoutTransformRecipe(Gen &g, const OpDef &d);
bool batchFlattenRecipe(Gen &g, const OpDef &d);

/// The recipes of RecipesNn.cpp: null for another name.
Recipe findNnRecipe(llvm::StringRef op);

} // namespace hx::smith

#endif
