//===- TiledContraction.cpp - A contraction as tiles of C per block -------===//
//
// The tiled contraction, in its largest shape (128 x 128, the first of the
// cuda tuning's; CUDATuning.cpp says why those shapes). Each block computes
// a 128 x 128 tile of C from 8-deep slices of A and B staged in shared
// memory; each of its 256 threads keeps an 8 x 8 block of sums in
// registers. The 8 warps tile C as 4 x 2 warp tiles of 32 x 64, and a
// warp's lanes as 4 x 8 threads: lane (lr, lc) of warp (wm, wn) owns rows
// wm*32 + lr*8 + 0..7 and the columns wn*64 + lc*4 + 0..3 and
// wn*64 + 32 + lc*4 + 0..3:
//
//   for tile in grid-stride(batch x tilesM x tilesN):
//     sums[8][8] = 0                                  // registers
//     ra, rb = A, B at (b, m0 + i, k), (b, n0 + j, k), k < 8 // 4 + 4 loads
//     for k0 in 0, 8, ... < depth:
//       As[k][i] = ra (0 outside A), Bs[k][j] = rb (0 outside B)
//       barrier
//       ra, rb = the same at k0 + 8 + k (clamped inside) // in flight while
//       for k < 8: a[0..7] = As[k][row..]              // 2 x 16-byte loads
//                  w[0..7] = Bs[k][col..], Bs[k][col + 32..] // 2 x 16 bytes
//                  sums[r][q] += a[r] * w[q]          // 64 FMAs
//       barrier
//     store the sums that fall inside C
//
// The next slice's global loads are issued before this slice's FMAs and
// first used after them, so their latency hides behind 512 FMAs per thread
// (the warp stalls only at the first use); the other block on the SM
// (.minnctapersm 2) covers the barriers. The loads' indices are clamped
// into the operand, so each is in bounds, and the zeroing of elements
// outside it (or in a convolution's padding: insideA) waits for the store
// into shared memory.
//
// Shared memory is read far more often than it is written, and its 32 banks
// serve one 4-byte word each per cycle, so the layout avoids bank conflicts:
//  - the 8 lanes that a 16-byte load serves together (a quarter warp) read
//    32 consecutive words of Bs (lc*4 + 0..3), one per bank; the quarter
//    warps read the same words (a broadcast). Owning 8 consecutive columns
//    instead (lc*8 + 0..7) would have lanes lc and lc + 4 collide;
//  - a quarter warp reads one row block of As (a broadcast), and a warp
//    reads 32 distinct words of As and 64 of Bs per k: a 4 x 8 warp shape
//    needs fewer words per FMA than 2 x 16 (16 of As and 128 of Bs);
//  - the staging stores: the 8 neighbouring threads that load one row of
//    A's slice (k = 0..7, so the global loads coalesce) store one column of
//    As, across its 8 k-rows, and a warp stores 4 neighbouring columns. Rows
//    16 bytes longer than the tile (the tuning's padBytes) put those 32
//    stores in 32 distinct banks (unpadded: 4 banks, 8 ways each, for
//    float32) and keep every row 16-byte aligned;
//  - each thread's rows and columns are addressed from one base pointer
//    with constant offsets, so the backend merges them into 16-byte loads.
//
// Smaller shapes (64 x 64: 4 x 4 sums per thread, 16 x 32 warp tiles, one
// 16-byte load of As and one of Bs per k; 32 x 32: 2 x 2 sums, 8 x 16 warp
// tiles, 8-byte loads) keep the layout's properties (the staging stores'
// banks, aligned rows, one base pointer) and hold fewer sums. Shapes too
// small for the smallest tile (m or n below it) are not tiled.
//
//===----------------------------------------------------------------------===//

#include "hx/Targets/GPU/TiledContraction.h"
#include "hx/Targets/GPU/GPUKernelBuilder.h"
#include <tuple>

using namespace llvm;

namespace hx {

const GPUTileShape &tilesFor(const GPUTuning &tuning, int64_t batch, int64_t m, int64_t n) {
  for (const GPUTileShape &t : tuning.tiles)
    if (batch * ((m + t.tileM - 1) / t.tileM) * ((n + t.tileN - 1) / t.tileN) >=
        tuning.targetBlocks)
      return t;
  return tuning.tiles.back();
}

namespace {

class TiledContraction : public GPUContractionSchedule {
public:
  bool takes(const KernelBuilder::Contraction &c, const GPUTuning &tuning) const override {
    if (tuning.tiles.empty())
      return false;
    const GPUTileShape &smallest = tuning.tiles.back();
    return c.m >= smallest.tileM && c.n >= smallest.tileN && c.depth >= 1;
  }
  void emit(GPUKernelBuilder &kb, const KernelBuilder::Contraction &c) const override;
};

void TiledContraction::emit(GPUKernelBuilder &kb, const KernelBuilder::Contraction &c) const {
  using Value = llvm::Value;
  using LocalVar = KernelBuilder::LocalVar;
  const GPUTuning &tuning = kb.tuning();
  const int64_t kTileK = tuning.tileK;
  constexpr int64_t threads = GPUCompiler::kBlockDim, warp = kWarp;
  // A thread's columns: threadN / columnGroup groups of columnGroup, a
  // warp's width apart.
  const GPUTileShape &t = tilesFor(tuning, c.batch, c.m, c.n);
  kb.requestBlocksPerSM(t.blocksPerSM);
  const int64_t tileM = t.tileM, tileN = t.tileN, threadM = t.threadM, threadN = t.threadN,
                columnGroup = t.columnGroup;
  const int64_t warpTileM = kLaneRows * threadM, warpTileN = kLaneCols * threadN;
  const int64_t warpsN = tileN / warpTileN; // tiledContractionRuns holds for t
  // Tiles hold and sum the operands' dtype; the store gets the accumulator's.
  DType acc = isFloat(c.type) ? c.type : kb.accumulatorType(c.type);
  DType storeType = kb.accumulatorType(c.type);
  // Elements per k-row of As and Bs: the tile and padBytes.
  int64_t rowStride = tileM + tuning.padBytes / int64_t(dtypeBytes(acc));
  int64_t tilesM = (c.m + tileM - 1) / tileM, tilesN = (c.n + tileN - 1) / tileN;
  int64_t tiles = c.batch * tilesM * tilesN;
  GlobalVariable *as = kb.sharedArray(acc, kTileK * rowStride, "A");
  GlobalVariable *bs = kb.sharedArray(acc, kTileK * rowStride, "B");

  kb.blockStrideLoop(tiles, [&](Value *tile) {
    Value *tid = kb.threadIndex();
    Value *lane = kb.irem(tid, warp), *w = kb.idiv(tid, warp);
    Value *lr = kb.idiv(lane, kLaneCols), *lc = kb.irem(lane, kLaneCols);
    // The first row and column this thread owns within the tile.
    Value *row = kb.iadd(kb.imul(kb.idiv(w, warpsN), warpTileM), kb.imul(lr, threadM));
    Value *col = kb.iadd(kb.imul(kb.irem(w, warpsN), warpTileN), kb.imul(lc, columnGroup));
    // Column q of the thread's block, from `col`: groups a warp's width apart.
    auto columnOf = [&](int64_t q) {
      return (q / columnGroup) * (kLaneCols * columnGroup) + q % columnGroup;
    };
    SmallVector<Value *, 4> t3 = kb.unflatten(tile, {c.batch, tilesM, tilesN});
    Value *batch = t3[0], *m0 = kb.imul(t3[1], tileM), *n0 = kb.imul(t3[2], tileN);
    SmallVector<LocalVar, 64> sums;
    for (int64_t s = 0; s < threadM * threadN; ++s)
      sums.push_back(kb.localVar(acc, kb.constant(acc, 0)));
    Value *aRow = kb.elementAddress(acc, as, row);
    Value *bCol = kb.elementAddress(acc, bs, col);

    // A kTileK-deep slice of A or B is staged in two steps, so that its
    // global loads are in flight while the previous slice is summed:
    // fetch() loads this thread's elements into registers (indices clamped,
    // so every load is in bounds), with the operand's own inside predicate
    // (insideA) if it has one; commit() zeroes those outside the operand
    // and stores them into shared memory.
    struct Slice {
      int64_t extent;
      Value *origin;
      function_ref<Value *(Value *, Value *, Value *)> load, inside;
      GlobalVariable *dst;
      SmallVector<LocalVar, 4> regs, masks; // this thread's elements, fetched
    };
    const int64_t kPerThread = tileM * kTileK / threads; // tileM == tileN
    auto slice = [&](int64_t extent, Value *origin,
                     function_ref<Value *(Value *, Value *, Value *)> load,
                     function_ref<Value *(Value *, Value *, Value *)> inside, GlobalVariable *dst) {
      Slice s{extent, origin, load, inside, dst, {}, {}};
      for (int64_t r = 0; r < kPerThread; ++r) {
        s.regs.push_back(kb.localVar(c.type, kb.constant(c.type, 0)));
        if (inside)
          s.masks.push_back(kb.localVar(DType::Bool, kb.constant(DType::Bool, 0)));
      }
      return s;
    };
    auto element = [&](const Slice &s, int64_t r, Value *k0) {
      Value *e = kb.iadd(tid, r * threads);
      Value *il = kb.idiv(e, kTileK), *kl = kb.irem(e, kTileK);
      return std::make_tuple(il, kl, kb.iadd(s.origin, il), kb.iadd(k0, kl));
    };
    auto fetch = [&](const Slice &s, Value *k0) {
      for (int64_t r = 0; r < kPerThread; ++r) {
        auto [il, kl, i, k] = element(s, r, k0);
        Value *ic = kb.imin(i, kb.index(s.extent - 1)), *kc = kb.imin(k, kb.index(c.depth - 1));
        kb.set(s.regs[r], s.load(batch, ic, kc));
        if (s.inside)
          kb.set(s.masks[r], s.inside(batch, ic, kc));
      }
    };
    auto commit = [&](const Slice &s, Value *k0) {
      for (int64_t r = 0; r < kPerThread; ++r) {
        auto [il, kl, i, k] = element(s, r, k0);
        Value *inside = kb.logicalAnd(kb.icmp(CmpOp::LT, i, kb.index(s.extent)),
                                      kb.icmp(CmpOp::LT, k, kb.index(c.depth)));
        if (s.inside)
          inside = kb.logicalAnd(inside, kb.get(s.masks[r]));
        Value *v = kb.select(inside, kb.cast(kb.get(s.regs[r]), c.type, acc), kb.constant(acc, 0));
        kb.store(acc, s.dst, kb.iadd(kb.imul(kl, rowStride), il), v);
      }
    };
    Slice sa = slice(c.m, m0, c.loadA, c.insideA, as), sb = slice(c.n, n0, c.loadB, nullptr, bs);
    fetch(sa, kb.index(0));
    fetch(sb, kb.index(0));
    kb.forRange(kb.index(0), kb.index(c.depth), kb.index(kTileK), [&](Value *k0) {
      commit(sa, k0);
      commit(sb, k0);
      kb.barrier();
      // The next slice (past the end: the last one again, unused).
      Value *next = kb.iadd(k0, kTileK);
      fetch(sa, next);
      fetch(sb, next);
      for (int64_t kl = 0; kl < kTileK; ++kl) {
        SmallVector<Value *, 8> a, wv;
        for (int64_t r = 0; r < threadM; ++r)
          a.push_back(kb.load(acc, aRow, kb.index(kl * rowStride + r)));
        for (int64_t q = 0; q < threadN; ++q)
          wv.push_back(kb.load(acc, bCol, kb.index(kl * rowStride + columnOf(q))));
        for (int64_t r = 0; r < threadM; ++r)
          for (int64_t q = 0; q < threadN; ++q) {
            const LocalVar &s = sums[r * threadN + q];
            kb.set(s, kb.multiplyAdd(acc, a[r], wv[q], kb.get(s)));
          }
      }
      kb.barrier();
    });
    for (int64_t r = 0; r < threadM; ++r)
      for (int64_t q = 0; q < threadN; ++q) {
        Value *i = kb.iadd(m0, kb.iadd(row, r));
        Value *j = kb.iadd(n0, kb.iadd(col, columnOf(q)));
        Value *inside = kb.logicalAnd(kb.icmp(CmpOp::LT, i, kb.index(c.m)),
                                      kb.icmp(CmpOp::LT, j, kb.index(c.n)));
        kb.ifThen(inside, [&] {
          c.store(batch, i, j, kb.cast(kb.get(sums[r * threadN + q]), acc, storeType));
        });
      }
  });
}

} // namespace

const GPUContractionSchedule &tiledContraction() {
  static const TiledContraction schedule;
  return schedule;
}

} // namespace hx
