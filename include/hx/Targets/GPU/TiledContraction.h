//===- TiledContraction.h - A contraction as tiles of C per block -*- C++ -*-===//
//
// The GPU targets' contraction schedule (GPUContractionSchedule): each
// block computes a tile of C from slices of A and B staged in shared
// memory, each thread a block of sums in registers (TiledContraction.cpp
// has the layout). Its tile shape is the tuning's choice (GPUTuning: the
// largest of its shapes that still gives the grid enough blocks), and
// tiledContractionRuns says which shapes the layout can run, so that an
// architecture's tuning checks its shapes when it is compiled.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_GPU_TILEDCONTRACTION_H
#define HX_TARGETS_GPU_TILEDCONTRACTION_H

#include "hx/Targets/GPU/GPUArch.h"
#include "hx/Targets/GPU/GPUCompiler.h"

namespace hx {

/// The tiled contraction.
const GPUContractionSchedule &tiledContraction();

/// The tile shape the tiled contraction takes for `batch` x m x n with
/// `tuning`: the largest of its shapes that gives at least targetBlocks
/// blocks, else the smallest.
const GPUTileShape &tilesFor(const GPUTuning &tuning, int64_t batch, int64_t m, int64_t n);

/// A warp's lanes as kLaneRows x kLaneCols threads.
inline constexpr int64_t kWarp = 32, kLaneRows = 4, kLaneCols = 8;
static_assert(kLaneRows * kLaneCols == kWarp, "a warp of lanes");

/// Whether the tiled contraction can run shape `t` with slices `tileK` deep.
constexpr bool tiledContractionRuns(const GPUTileShape &t, int64_t tileK) {
  int64_t warpTileM = kLaneRows * t.threadM, warpTileN = kLaneCols * t.threadN;
  return t.tileM == t.tileN &&                                   // one row stride for both tiles
         t.tileM % warpTileM == 0 && t.tileN % warpTileN == 0 && // whole warp tiles
         (t.tileM / warpTileM) * (t.tileN / warpTileN) * kWarp ==
             GPUCompiler::kBlockDim &&                    // one sum block per thread
         t.tileM * tileK % GPUCompiler::kBlockDim == 0 && // whole slices
         t.threadN % t.columnGroup == 0;                  // whole column groups
}

} // namespace hx

#endif
