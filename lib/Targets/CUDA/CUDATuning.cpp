//===- CUDATuning.cpp - The GPU lowering's numbers for NVIDIA GPUs --------===//
//
// Three tile shapes for the tiled contraction (TiledContraction.cpp), the
// largest first: 128 x 128 (8 x 8 sums per thread), 64 x 64 (4 x 4) and
// 32 x 32 (2 x 2). A contraction takes the largest whose grid still reaches
// 256 blocks, two per multiprocessor of an H200 (132), rounded. Batch-1
// convolutions are the ones short of blocks: ResNet's last ones have
// 49 x 512 outputs, 4 blocks of 128 x 128 but 32 of 32 x 32. The smaller
// shapes hold fewer sums, so they ask ptxas for three and four blocks per
// multiprocessor instead of two (`.minnctapersm`: at most
// 65536 / (blocks * 256) registers per thread).
//
// Slices of A and B are 8 deep, their rows padded by 16 bytes (the layout's
// bank conflicts); a thread's scratch is at most 64 KiB of local memory; a
// grid asks for at most 2^16 blocks.
//
//===----------------------------------------------------------------------===//
#include "hx/Targets/CUDA/CUDATuning.h"
#include "hx/Targets/GPU/TiledContraction.h"

namespace hx {

namespace {
constexpr int64_t kTileK = 8;
constexpr GPUTileShape kTiles[] = {
    {128, 128, 8, 8, 4, 2}, {64, 64, 4, 4, 4, 3}, {32, 32, 2, 2, 2, 4}};
static_assert(tiledContractionRuns(kTiles[0], kTileK) && tiledContractionRuns(kTiles[1], kTileK) &&
                  tiledContractionRuns(kTiles[2], kTileK),
              "tile shapes the contraction can run");
} // namespace

const GPUTuning &cudaTuning() {
  static const GPUContractionSchedule *const schedules[] = {&tiledContraction()};
  static const GPUTuning tuning = [] {
    GPUTuning t;
    t.tiles = kTiles;
    t.targetBlocks = 256;
    t.tileK = kTileK;
    t.padBytes = 16;
    t.maxScratchBytes = 64 * 1024;
    t.maxGrid = 1u << 16;
    t.contractionSchedules = schedules;
    return t;
  }();
  return tuning;
}

} // namespace hx
