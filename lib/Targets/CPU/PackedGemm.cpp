//===- PackedGemm.cpp - The cpu's contraction as a packed GEMM ------------===//
//
// CPUKernelBuilder::contraction for shapes that pay for packing: the BLIS
// structure, generated per call with every size a constant.
//
//   C(b, i, j) = sum over k of A(b, i, k) * B(b, j, k)
//
// For each batch index b, three parallel phases (hx_parallel_for each):
//
//   1. pack A: row panels of MR rows; panel q holds A(q*MR + r, k) at
//      Ap[q*MR*K + k*MR + r] (rows past m are 0, padding of a convolution
//      is 0 through insideA). A convolution's input (Contraction::window)
//      is packed by loops over channel and kernel position instead of a
//      loadA per element (im2col with the index arithmetic hoisted). A
//      float32 A with contiguous rows (Contraction::aBuffer: a dense
//      layer's input, an attention product's left operand) is read in
//      place instead, where its row stride does not crowd the L1's sets;
//   2. pack B: column panels of NR columns; panel p holds B(p*NR + l, k)
//      at Bp[p*NR*K + k*NR + l] (columns past n are 0);
//   3. compute: C is cut into tiles of MC rows x NCT columns, one parallel
//      iteration each. A tile runs, for each block of KC along k, for each
//      column panel, for each row panel, the micro-kernel: MR x NR sums in
//      MR * NR / lanes vector registers, each step over k one vector load
//      per NR / lanes lanes of B, one broadcast per row of A and an
//      llvm.fmuladd per register. Partial sums between k blocks go to the
//      tile's own scratch (MC x NCT floats); after the last block the tile is
//      written in vectors where C's rows are contiguous (Contraction::
//      cBuffer, through the epilogue's vector form), else through the
//      operator's store callback, rows and columns past m and n skipped, so
//      edge tiles cost what full ones do (no scalar cliff); a last row panel
//      of fewer than MR rows multiplies only those. Where B was packed when the kernel was built, it comes from
//      memory on each run (a model's weights outgrow the caches): every
//      row panel but a column panel's first prefetches the next column
//      panel's rows of the block (past the tile's last, the first panel of
//      the next block along k), so that B streams in beside the arithmetic
//      instead of stalling the first row panel (ViT-B/16 at one thread:
//      205 -> 174 ms).
//
// The blocking is the BLIS analytical model, from the code's vector unit
// and the host's caches (CPUMachineInfo):
//   NR = 2 vectors, MR = (registers - 3) / 2 rows (6 with 16 registers,
//        14 with AVX-512's 32): MR*NR/lanes accumulators, 2 of B and one
//        broadcast fill the register file;
//   KC: a micro-panel of B (KC x NR) fills the L1 data cache, so that it
//       stays there while every row panel of the tile passes by; the depth
//       is split into equal blocks of at most KC;
//   MC: the tile's block of A (MC x KC) fills half the L2;
//   NC: the block of B all tiles share (KC x NC) fills half the L3; tiles
//       are narrowed (to 4 panels of B at least), then shortened (to 4
//       panels of A at least), until there are 16 of them where the shape
//       allows. The compiler does not know the thread count of the device
//       that will run the kernel; 16 tiles keep 2 to 4 threads busy (the
//       device's pool hands out up to 4 chunks per thread).
//
// The sums accumulate in float32 (float16 is held as float32), blocked over
// k: each block of KC (at most 512) is summed from zero in registers, then
// added to the partial sum of the blocks before, so that the rounding error
// grows with the block's length rather than with K.
// The packed A and B and the tiles' partial sums are allocated per call.
// Where the packed buffers cannot be allocated the contraction runs as the
// default loop nest instead.
//
//===----------------------------------------------------------------------===//

#include "CPUKernelBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include <algorithm>
#include <map>

using namespace llvm;

namespace hx {

namespace {

int64_t roundUp(int64_t v, int64_t to) { return (v + to - 1) / to * to; }
int64_t ceilDiv(int64_t v, int64_t by) { return (v + by - 1) / by; }

} // namespace

CPUKernelBuilder::GemmBlocking CPUKernelBuilder::gemmBlocking(int64_t m, int64_t n, int64_t depth,
                                                              int64_t mr, int64_t nr) const {
  GemmBlocking g;
  g.lanes = machine.lanes;
  g.mr = mr;
  g.nr = nr;
  int64_t l1 = machine.l1 > 0 ? machine.l1 : 32 << 10;
  int64_t l2 = machine.l2 > 0 ? machine.l2 : 256 << 10;
  int64_t l3 = machine.l3 > 0 ? machine.l3 : 8 << 20;
  int64_t kcMax = std::clamp<int64_t>(l1 / (g.nr * 4) / 8 * 8, 64, 512);
  g.numKc = ceilDiv(depth, kcMax);
  g.kc = ceilDiv(depth, g.numKc);
  g.mPad = roundUp(m, g.mr);
  g.nPad = roundUp(n, g.nr);
  g.mc = std::clamp<int64_t>(l2 / 2 / (g.kc * 4) / g.mr * g.mr, g.mr, g.mPad);
  int64_t nc = std::clamp<int64_t>(l3 / 2 / (g.kc * 4) / g.nr * g.nr, g.nr, g.nPad);
  // Enough tiles to spread over the threads (at least kMinTiles where the
  // shape allows): narrower tiles first, down to 4 panels of B, then
  // shorter ones, down to 4 panels of A.
  constexpr int64_t kMinTiles = 16;
  int64_t numMb = ceilDiv(g.mPad, g.mc);
  int64_t wantNb = ceilDiv(kMinTiles, numMb);
  g.nct = std::min(nc, std::max(roundUp(ceilDiv(g.nPad, wantNb), g.nr), 4 * g.nr));
  g.nct = std::min(g.nct, g.nPad);
  int64_t numNb = ceilDiv(g.nPad, g.nct);
  if (numMb * numNb < kMinTiles) {
    int64_t wantMb = ceilDiv(kMinTiles, numNb);
    g.mc = std::min(g.mc, std::max(roundUp(ceilDiv(g.mPad, wantMb), g.mr), 4 * g.mr));
  }
  return g;
}

bool CPUKernelBuilder::packedGemmPays(const Contraction &c) const {
  if (parallelDepth > 0 || valueDType(c.type) != DType::Float32)
    return false;
  return c.m > 4 && c.n >= int64_t(machine.lanes) && c.depth >= 16 &&
         c.m * c.n * c.depth >= (int64_t(1) << 15);
}

void CPUKernelBuilder::contractionLoopSlice(const Contraction &c, Value *bi, Value *rowBase,
                                            int64_t rows) {
  auto loadA = [&](Value *, Value *i, Value *k) { return c.loadA(bi, iadd(rowBase, i), k); };
  auto insideA = [&](Value *, Value *i, Value *k) { return c.insideA(bi, iadd(rowBase, i), k); };
  auto loadB = [&](Value *, Value *j, Value *k) { return c.loadB(bi, j, k); };
  auto store = [&](Value *, Value *i, Value *j, Value *v) { c.store(bi, iadd(rowBase, i), j, v); };
  Contraction one = c;
  one.batch = 1;
  one.m = rows;
  one.window = nullptr;
  one.loadA = loadA;
  one.insideA = c.insideA ? decltype(one.insideA)(insideA) : nullptr;
  one.loadB = loadB;
  one.store = store;
  contractionLoop(one, DType::Float32);
}

void CPUKernelBuilder::allowVectorWidth(int64_t lanes) {
  if (lanes * 32 > 256) // 512-bit vectors are legal only where a function asks
    cur.fn->addFnAttr("min-legal-vector-width", std::to_string(lanes * 32));
}

Value *CPUKernelBuilder::allocFloats(Value *floats) {
  llvm::Type *ptrTy = b.getPtrTy(), *i64 = b.getInt64Ty();
  FunctionCallee alignedAlloc = module.getOrInsertFunction("aligned_alloc", ptrTy, i64, i64);
  // aligned_alloc wants a multiple of the alignment.
  Value *bytes = imul(idiv(iadd(imul(floats, 4), 63), 64), 64);
  return b.CreateCall(alignedAlloc, {index(64), bytes});
}

void CPUKernelBuilder::freeBuffer(Value *p) {
  FunctionCallee freeFn = module.getOrInsertFunction("free", b.getVoidTy(), b.getPtrTy());
  b.CreateCall(freeFn, {p});
}

SmallVector<Value *, 32> CPUKernelBuilder::microKernel(
    Value *aPanel, int64_t aStrideK, int64_t aStrideRow, Value *kLen, int64_t MR, int64_t NR,
    int64_t L, function_ref<Value *(Value *k, int64_t v)> bVector,
    function_ref<void(Value *k)> perStep, function_ref<Value *(Value *k)> aRow) {
  llvm::Type *f32 = b.getFloatTy();
  auto *vecTy = FixedVectorType::get(f32, unsigned(L));
  // The MR x NR/L sums live in stack slots, which the optimizer promotes to
  // registers (PHIs of the k loop).
  SmallVector<Value *, 32> slots;
  for (int64_t x = 0; x < MR * (NR / L); ++x) {
    slots.push_back(entryAlloca(vecTy));
    b.CreateStore(Constant::getNullValue(vecTy), slots.back());
  }
  forRange(index(0), kLen, [&](Value *k) {
    if (perStep)
      perStep(k);
    SmallVector<Value *, 4> bv;
    for (int64_t v = 0; v < NR / L; ++v)
      bv.push_back(bVector(k, v));
    Value *aBase = aRow ? aRow(k) : b.CreateInBoundsGEP(f32, aPanel, imul(k, aStrideK));
    for (int64_t r = 0; r < MR; ++r) {
      Value *a = b.CreateAlignedLoad(
          f32, b.CreateConstInBoundsGEP1_64(f32, aBase, uint64_t(r * aStrideRow)), Align(4));
      Value *splat = b.CreateVectorSplat(unsigned(L), a);
      for (int64_t v = 0; v < NR / L; ++v) {
        Value *slot = slots[r * (NR / L) + v];
        Value *sum = b.CreateIntrinsic(Intrinsic::fmuladd, {vecTy},
                                       {splat, bv[v], b.CreateLoad(vecTy, slot)});
        b.CreateStore(sum, slot);
      }
    }
  });
  SmallVector<Value *, 32> sums;
  for (Value *slot : slots)
    sums.push_back(b.CreateLoad(vecTy, slot));
  return sums;
}

void CPUKernelBuilder::packPanels(DType t, int64_t extent, int64_t R, int64_t K, ElementFn load,
                                  ElementFn inside, Value *buf, Value *batch) {
  // k outer, the R rows unrolled inside: the stores are contiguous, and
  // what the operator computes from k alone (a convolution's channel and
  // kernel offsets) is computed once per k. A full panel reads its rows as
  // they are; only the last, partial one clamps and zeroes.
  parallelForCaptured(ceilDiv(extent, R), 4 * R * K, {buf, batch},
                      [&](Value *q, ArrayRef<Value *> cap) {
                        Value *bufIn = cap[0], *bIn = cap[1];
                        Value *panel = imul(q, R * K);
                        auto panelLoop = [&](bool full) {
                          SmallVector<Value *, 32> rows, inRange;
                          for (int64_t r = 0; r < R; ++r) {
                            Value *i = iadd(imul(q, R), r);
                            inRange.push_back(full ? nullptr : icmp(CmpOp::LT, i, index(extent)));
                            rows.push_back(full ? i : imin(i, index(extent - 1)));
                          }
                          forRange(0, K, [&](Value *k) {
                            Value *at = iadd(panel, imul(k, R));
                            for (int64_t r = 0; r < R; ++r) {
                              Value *v = load(bIn, rows[r], k);
                              Value *keep = inRange[r];
                              if (inside) {
                                Value *in = inside(bIn, rows[r], k);
                                keep = keep ? logicalAnd(keep, in) : in;
                              }
                              if (keep)
                                v = select(keep, v, constant(t, 0));
                              store(DType::Float32, bufIn, iadd(at, r), cast(v, t, DType::Float32));
                            }
                          });
                        };
                        if (extent % R == 0)
                          return panelLoop(true);
                        Value *full = icmp(CmpOp::LE, imul(iadd(q, 1), R), index(extent));
                        ifThen(full, [&] { panelLoop(true); });
                        ifThen(logicalNot(full), [&] { panelLoop(false); });
                      });
}

void CPUKernelBuilder::gemmTile(const GemmBlocking &g, int64_t K, Value *t, Value *partials,
                                const TileIO &io) {
  const int64_t MR = g.mr, NR = g.nr, L = g.lanes;
  const int64_t numQ = g.mPad / MR, numP = g.nPad / NR, numNb = g.numNb();
  const int64_t qPerMb = g.mc / MR, pPerNb = g.nct / NR;
  LLVMContext &ctx = module.getContext();
  llvm::Type *f32 = b.getFloatTy();
  auto *vecTy = FixedVectorType::get(f32, unsigned(L));
  allowVectorWidth(L);
  // This tile's partial sums: its own MC x NCT floats of `partials`.
  Value *partial =
      g.numKc == 1 ? nullptr : b.CreateInBoundsGEP(f32, partials, imul(t, g.mc * g.nct));
  // The finished sums go through a tile on the stack, so that the store
  // can loop over them (its code stays small).
  Value *tile = entryAlloca(ArrayType::get(f32, uint64_t(MR * NR)));
  auto store = [&](Value *q, Value *p, ArrayRef<Value *> sums) {
    for (size_t x = 0; x < sums.size(); ++x)
      b.CreateAlignedStore(
          sums[x], b.CreateConstInBoundsGEP1_64(f32, tile, uint64_t(int64_t(x) * L)), Align(4));
    outlined("store", [&] { io.store(q, p, tile); });
  };
  Value *q0 = imul(idiv(t, numNb), qPerMb);
  Value *q1 = imin(iadd(q0, qPerMb), index(numQ));
  Value *p0 = imul(irem(t, numNb), pPerNb);
  Value *p1 = imin(iadd(p0, pPerNb), index(numP));
  forRange(index(0), index(g.numKc), [&](Value *pc) {
    Value *kBegin = imul(pc, g.kc);
    Value *kLen = imin(index(g.kc), isub(index(K), kBegin));
    Value *first = icmp(CmpOp::EQ, pc, index(0));
    Value *last = icmp(CmpOp::EQ, pc, index(g.numKc - 1));
    forRange(p0, p1, [&](Value *p) {
      forRange(q0, q1, [&](Value *q) {
        // Partial sums of this micro-tile in the scratch: row
        // (q - q0) * MR + r, column (p - p0) * NR + lane.
        auto partialAt = [&](int64_t r, int64_t v) {
          Value *row = iadd(imul(isub(q, q0), MR), index(r));
          Value *colm = iadd(imul(isub(p, p0), NR), index(v * L));
          return b.CreateInBoundsGEP(f32, partial, iadd(imul(row, g.nct), colm));
        };
        // Each block along k sums from zero; the partial sum of the blocks
        // before is added once at the end, so that rounding grows with the
        // block's length, not K's. A panel of `rows` < MR rows (the last,
        // io.lastPanelRows) runs a micro-kernel of that many; its other
        // rows are 0.
        auto panel = [&](int64_t rows) {
          // The next column panel's rows of this block are prefetched
          // while this one is read from the cache (every row panel but the
          // tile's first), so that B, read once from memory, streams in
          // beside the sums instead of in bursts (io.prefetchB).
          Value *nextP = nullptr, *nextK = nullptr;
          if (io.prefetchB) {
            Value *lastP = icmp(CmpOp::EQ, iadd(p, 1), p1);
            Value *later = icmp(CmpOp::GT, q, q0);
            Value *wrap = logicalAnd(lastP, b.CreateNot(last));
            nextP = select(later, select(lastP, select(wrap, p0, p), iadd(p, 1)), p);
            nextK = select(logicalAnd(later, wrap), iadd(kBegin, index(g.kc)), kBegin);
          }
          auto prefetch = [&](Value *k) { io.prefetchB(nextP, nextK, k); };
          auto aRow = [&](Value *k) { return io.aAt(q, kBegin, k); };
          SmallVector<Value *, 32> sums = microKernel(
              io.aAt ? nullptr : io.aPanel(q, kBegin), io.aStrideK ? io.aStrideK : MR,
              io.aStrideRow, kLen, rows, NR, L,
              [&](Value *k, int64_t v) { return io.bVector(p, kBegin, k, v); },
              io.prefetchB ? function_ref<void(Value *)>(prefetch) : nullptr,
              io.aAt ? function_ref<Value *(Value *)>(aRow) : nullptr);
          sums.resize(size_t(MR * (NR / L)), Constant::getNullValue(vecTy));
          if (!partial) {
            store(q, p, sums);
            return;
          }
          // After the first block, add the partial sum of the blocks before
          // (read only then: the first finds none).
          Function *fn = cur.fn;
          BasicBlock *from = b.GetInsertBlock();
          BasicBlock *addOld = BasicBlock::Create(ctx, "ukernel.add", fn);
          BasicBlock *joined = BasicBlock::Create(ctx, "ukernel.sums", fn);
          b.CreateCondBr(first, joined, addOld);
          b.SetInsertPoint(addOld);
          SmallVector<Value *, 32> added(sums);
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t v = 0; v < NR / L; ++v) {
              Value *old = b.CreateAlignedLoad(vecTy, partialAt(r, v), Align(4));
              added[size_t(r * (NR / L) + v)] = b.CreateFAdd(sums[r * (NR / L) + v], old);
            }
          BasicBlock *addEnd = b.GetInsertBlock();
          b.CreateBr(joined);
          b.SetInsertPoint(joined);
          for (size_t x = 0; x < sums.size(); ++x) {
            PHINode *phi = b.CreatePHI(vecTy, 2, "sum");
            phi->addIncoming(sums[x], from);
            phi->addIncoming(added[x], addEnd);
            sums[x] = phi;
          }
          ifThen(last, [&] { store(q, p, sums); });
          ifThen(b.CreateNot(last), [&] {
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t v = 0; v < NR / L; ++v)
                b.CreateAlignedStore(sums[r * (NR / L) + v], partialAt(r, v), Align(4));
          });
        };
        const int64_t lastRows = io.lastPanelRows;
        if (lastRows <= 0 || lastRows >= MR)
          return panel(MR);
        Value *isLast = icmp(CmpOp::EQ, q, index(numQ - 1));
        ifThen(isLast, [&] { panel(lastRows); });
        ifThen(b.CreateNot(isLast), [&] { panel(MR); });
      });
    });
  });
}

GlobalVariable *CPUKernelBuilder::packBuildTimeB(const Contraction &c, const GemmBlocking &g,
                                                 StringRef suffix) {
  const int64_t K = c.depth, NR = g.nr;
  std::vector<float> packed(size_t(c.batch * g.nPad * K), 0.0f);
  for (int64_t bi = 0; bi < c.batch; ++bi)
    for (int64_t j = 0; j < c.n; ++j)
      for (int64_t k = 0; k < K; ++k)
        packed[size_t(((bi * g.nPad + j / NR * NR) * K) + k * NR + j % NR)] =
            c.bValues[bi * c.bBatchStride + j * c.bRowStride + k];
  auto *init = ConstantDataArray::get(module.getContext(), ArrayRef<float>(packed));
  auto *packedB = new GlobalVariable(module, init->getType(), /*isConstant=*/true,
                                     GlobalValue::PrivateLinkage, init, cur.fn->getName() + suffix);
  packedB->setAlignment(Align(64));
  return packedB;
}

void CPUKernelBuilder::copyRowMasked(Value *dst, Value *src, Value *lo, Value *hi, int64_t width,
                                     int64_t stride) {
  const int64_t L = machine.lanes;
  llvm::Type *f32 = b.getFloatTy();
  auto *wide = FixedVectorType::get(f32, unsigned(L * stride));
  SmallVector<Constant *, 16> iota;
  SmallVector<int, 64> every, spread;
  for (int64_t l = 0; l < L; ++l) {
    iota.push_back(b.getInt64(uint64_t(l)));
    every.push_back(int(l * stride));
  }
  for (int64_t l = 0; l < L * stride; ++l)
    spread.push_back(l % stride == 0 ? int(l / stride) : int(L));
  Value *loV = b.CreateVectorSplat(unsigned(L), lo);
  Value *hiV = b.CreateVectorSplat(unsigned(L), hi);
  const int64_t chunks = (width + L - 1) / L;
  auto chunk = [&](Value *v, Value *storeMask) {
    Value *xq = imul(v, L);
    Value *cols = b.CreateAdd(b.CreateVectorSplat(unsigned(L), xq), ConstantVector::get(iota));
    Value *valid = b.CreateAnd(b.CreateICmpSGE(cols, loV), b.CreateICmpSLT(cols, hiV));
    // Lane i of the wide read is column i / stride's, kept where
    // i % stride == 0.
    Value *wideMask =
        stride == 1
            ? valid
            : b.CreateShuffleVector(valid, ConstantVector::getNullValue(valid->getType()), spread);
    // Not inbounds: the masked lanes may lie before the row.
    Value *vals = b.CreateMaskedLoad(wide, b.CreateGEP(f32, src, imul(xq, stride)), Align(4),
                                     wideMask, Constant::getNullValue(wide));
    if (stride > 1)
      vals = b.CreateShuffleVector(vals, every);
    Value *dstPtr = b.CreateInBoundsGEP(f32, dst, xq);
    if (storeMask)
      b.CreateMaskedStore(vals, dstPtr, Align(4), storeMask);
    else
      b.CreateAlignedStore(vals, dstPtr, Align(4));
  };
  const bool lastWhole = width % L == 0;
  forRange(0, lastWhole ? chunks : chunks - 1, [&](Value *v) { chunk(v, nullptr); });
  if (!lastWhole) {
    SmallVector<Constant *, 16> bits;
    for (int64_t l = 0; l < L; ++l)
      bits.push_back(b.getInt1(l < width % L));
    chunk(index(chunks - 1), ConstantVector::get(bits));
  }
}

void CPUKernelBuilder::prefetchPanelRow(Value *base, Value *at, int64_t floats) {
  for (int64_t line = 0; line < floats * 4; line += 64) {
    // Not inbounds: past a tile's last panel the rows asked for may lie
    // beyond the array (a prefetch does not fault).
    Value *ptr = b.CreateGEP(b.getFloatTy(), base, iadd(at, index(line / 4)));
    b.CreateIntrinsic(Intrinsic::prefetch, {b.getPtrTy()},
                      {ptr, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
  }
}

void CPUKernelBuilder::packedGemm(const Contraction &c) {
  const int64_t lanes = machine.lanes;
  const GemmBlocking g = gemmBlocking(
      c.m, c.n, c.depth, std::max<int64_t>(2, (int64_t(machine.registers) - 3) / 2), 2 * lanes);
  const int64_t K = c.depth, MR = g.mr, NR = g.nr, L = g.lanes;
  const int64_t numQ = g.mPad / MR;
  const DType F32 = DType::Float32, storeAs = accumulatorType(c.type);
  llvm::Type *f32 = b.getFloatTy(), *ptrTy = b.getPtrTy();
  auto *vecTy = FixedVectorType::get(f32, unsigned(L));
  allowVectorWidth(L);

  // B's values known when the kernel is built (Contraction::bValues) are
  // packed now, into a constant of the kernel's code: no run packs them.
  // Up to kMaxPackedBytes; beyond, they are packed on each run as others.
  constexpr int64_t kMaxPackedBytes = int64_t(256) << 20;
  GlobalVariable *packedB = nullptr;
  if (c.bValues && c.batch * g.nPad * K * 4 <= kMaxPackedBytes)
    packedB = packBuildTimeB(c, g, ".packedB");

  // A float32 A whose rows are contiguous (a dense layer's input, an
  // attention product's left operand) is read in place: packing it would write and read all of it again per call
  // (3136 x 384: 10 MB of traffic beside 0.9 ms of arithmetic), and its MR
  // rows are MR streams the micro-kernel broadcasts from, row r at
  // A + (q*MR + r) * rowStride + k; the last panel computes only the rows
  // left (lastPanelRows). Not where the row stride puts more than 8 of the
  // MR rows in one set of the L1 (64 sets of 64-byte lines: a stride of
  // 1024 or 3072 floats would put all 14 in one).
  auto aInPlacePays = [&] {
    if (c.aBuffer == ~0u || c.type != DType::Float32 || c.window || hasPrologue(c.aBuffer))
      return false;
    std::map<int64_t, int> perSet;
    for (int64_t r = 0; r < MR; ++r)
      if (++perSet[(r * c.aRowStride * 4 / 64) % 64] > 8)
        return false;
    return true;
  };
  const bool aInPlace = aInPlacePays();
  // Finished sums go to C in vectors where C's rows are contiguous
  // (Contraction::cBuffer) and its epilogue, if any, has a vector form:
  // not through a copy per row of the tile (a memcpy call of up to NR
  // floats each, 8% of an attention product of depth 64).
  const bool vectorStore =
      c.cBuffer != ~0u && c.type == DType::Float32 && canStoreVectorResult(c.cBuffer);
  const int64_t numP = g.nPad / NR;

  // The packed buffers, 64-byte aligned, for one batch index at a time.
  // With more than one block along k, each tile keeps its partial sums in
  // its own part of cs (MC x NCT floats, in the L2 while the tile runs).
  const int64_t tileFloats = g.mc * g.nct;
  struct Buffers {
    Value *ap, *bp, *cs, *ok;
  };
  auto allocate = [&] {
    Buffers x;
    x.ap = aInPlace ? Constant::getNullValue(ptrTy) : allocFloats(index(g.mPad * K));
    x.bp = packedB ? Constant::getNullValue(ptrTy) : allocFloats(index(g.nPad * K));
    x.cs =
        g.numKc > 1 ? allocFloats(index(g.numTiles() * tileFloats)) : Constant::getNullValue(ptrTy);
    x.ok = aInPlace ? b.getTrue() : b.CreateIsNotNull(x.ap);
    if (!packedB)
      x.ok = b.CreateAnd(x.ok, b.CreateIsNotNull(x.bp));
    if (g.numKc > 1)
      x.ok = b.CreateAnd(x.ok, b.CreateIsNotNull(x.cs));
    return x;
  };
  // Freed on both paths (one allocation may have failed; free(null) is
  // nothing).
  auto release = [&](const Buffers &x) {
    for (Value *p : {x.ap, x.bp, x.cs})
      freeBuffer(p);
  };

  // The three phases for one batch index.
  auto onePass = [&](Value *batch, Value *ap, Value *bp, Value *cs) {
    // A convolution's input (Contraction::window) packs with loops over
    // channel, kernel row and kernel column: per panel, each row's image,
    // row and column base once; per kernel row, each row's offset and
    // whether it is inside; per element an add, a compare, a load.
    auto packWindow = [&](const Window &wd, Value *buf) {
      parallelForCaptured(numQ, 4 * MR * K, {buf, batch}, [&](Value *q, ArrayRef<Value *> cap) {
        Value *bufIn = cap[0], *group = cap[1];
        Value *in = buffer(wd.buffer);
        Value *panel = imul(q, MR * K);
        SmallVector<Value *, 16> valid, yBase, xBase, base;
        for (int64_t r = 0; r < MR; ++r) {
          Value *i = iadd(imul(q, MR), r);
          valid.push_back(icmp(CmpOp::LT, i, index(c.m)));
          SmallVector<Value *, 4> p =
              unflatten(imin(i, index(c.m - 1)), {wd.images, wd.outH, wd.outW});
          yBase.push_back(iadd(imul(p[1], wd.strideH), -wd.top));
          xBase.push_back(iadd(imul(p[2], wd.strideW), -wd.left));
          base.push_back(iadd(imul(p[0], wd.stride[0]), imul(group, wd.channels * wd.stride[1])));
        }
        forRange(0, wd.channels, [&](Value *ch) {
          Value *chOff = imul(ch, wd.stride[1]);
          forRange(0, wd.kernelH, [&](Value *kr) {
            Value *dy = imul(kr, wd.dilationH);
            SmallVector<Value *, 16> rowOk, rowOff;
            for (int64_t r = 0; r < MR; ++r) {
              Value *y = iadd(yBase[r], dy);
              rowOk.push_back(logicalAnd(valid[r], b.CreateICmpULT(y, index(wd.height))));
              rowOff.push_back(iadd(iadd(base[r], chOff), imul(y, wd.stride[2])));
            }
            Value *kRow = imul(iadd(imul(ch, wd.kernelH), kr), wd.kernelW);
            forRange(0, wd.kernelW, [&](Value *ks) {
              Value *dx = imul(ks, wd.dilationW);
              Value *at = iadd(panel, imul(iadd(kRow, ks), MR));
              for (int64_t r = 0; r < MR; ++r) {
                Value *x = iadd(xBase[r], dx);
                Value *ok = logicalAnd(rowOk[r], b.CreateICmpULT(x, index(wd.width)));
                Value *off = select(ok, iadd(rowOff[r], imul(x, wd.stride[3])), index(0));
                Value *v = select(ok, load(c.type, in, off), constant(c.type, 0));
                store(F32, bufIn, iadd(at, r), cast(v, c.type, F32));
              }
            });
          });
        });
      });
    };
    // 1. Pack A: Ap[q*MR*K + k*MR + r] = A(q*MR + r, k), 0 past m.
    // (or read A where it is: aInPlace).
    if (!aInPlace && c.window && c.window->channels * c.window->kernelH * c.window->kernelW == K)
      packWindow(*c.window, ap);
    else if (!aInPlace)
      packPanels(c.type, c.m, MR, K, c.loadA, c.insideA, ap, batch);
    // 2. Pack B: Bp[p*NR*K + k*NR + l] = B(p*NR + l, k), 0 past n; or
    // find it packed in the code.
    if (packedB)
      bp = b.CreateInBoundsGEP(f32, packedB, imul(batch, g.nPad * K));
    else
      packPanels(c.type, c.n, NR, K, c.loadB, nullptr, bp, batch);
    // 3. Compute, one tile of MC rows x NCT columns per iteration.
    parallelForCaptured(
        g.numTiles(), 2 * g.mc * g.nct * K, {ap, bp, cs, batch},
        [&](Value *t, ArrayRef<Value *> cap) {
          Value *apIn = cap[0], *bpIn = cap[1], *csIn = cap[2], *bIn = cap[3];
          TileIO io;
          auto aPanel = [&](Value *q, Value *kBegin) {
            if (aInPlace)
              return b.CreateInBoundsGEP(
                  f32, buffer(c.aBuffer),
                  iadd(iadd(imul(bIn, c.aBatchStride), imul(q, MR * c.aRowStride)), kBegin));
            return b.CreateInBoundsGEP(f32, apIn, iadd(imul(q, MR * K), imul(kBegin, MR)));
          };
          // B panels start 64-byte aligned and every offset into them is a
          // multiple of a vector.
          auto bVector = [&](Value *p, Value *kBegin, Value *k, int64_t v) -> Value * {
            Value *at = iadd(iadd(imul(p, NR * K), imul(iadd(kBegin, k), NR)), index(v * L));
            return b.CreateAlignedLoad(vecTy, b.CreateInBoundsGEP(f32, bpIn, at),
                                       Align(uint64_t(L * 4)));
          };
          auto storeTile = [&](Value *q, Value *p, Value *tile) {
            Value *i0 = imul(q, MR), *j0 = imul(p, NR);
            Value *rows = imin(index(MR), isub(index(c.m), i0));
            if (vectorStore) {
              // Whole column panels in vectors; the last, where n cuts it,
              // in its whole vectors and power-of-two pieces.
              auto panelStore = [&](int64_t cols) {
                forRange(index(0), rows, [&](Value *r) {
                  Value *i = iadd(i0, r);
                  for (int64_t from = 0; from < cols;) {
                    int64_t piece = std::min<int64_t>(L, int64_t(1) << Log2_64(cols - from));
                    Value *j = iadd(j0, from);
                    Value *at = iadd(imul(r, NR), from);
                    if (piece == 1) {
                      c.store(bIn, i, j, load(F32, tile, at));
                    } else {
                      auto *pt = FixedVectorType::get(f32, unsigned(piece));
                      Value *v =
                          b.CreateAlignedLoad(pt, b.CreateInBoundsGEP(f32, tile, at), Align(4));
                      Value *off = iadd(iadd(imul(bIn, c.cBatchStride), imul(i, c.cRowStride)), j);
                      if (hasEpilogue(c.cBuffer))
                        v = applyVectorEpilogue(off, c.cCoords(bIn, i, j), v);
                      b.CreateAlignedStore(v, b.CreateInBoundsGEP(f32, buffer(c.cBuffer), off),
                                           Align(4));
                    }
                    from += piece;
                  }
                });
              };
              const int64_t lastCols = c.n - (numP - 1) * NR;
              if (lastCols == NR)
                return panelStore(NR);
              Value *isLast = icmp(CmpOp::EQ, p, index(numP - 1));
              ifThen(isLast, [&] { panelStore(lastCols); });
              ifThen(b.CreateNot(isLast), [&] { panelStore(NR); });
              return;
            }
            Value *cols = imin(index(NR), isub(index(c.n), j0));
            forRange(index(0), rows, [&](Value *r) {
              forRange(index(0), cols, [&](Value *l) {
                Value *s = load(F32, tile, iadd(imul(r, NR), l));
                c.store(bIn, iadd(i0, r), iadd(j0, l), cast(s, F32, storeAs));
              });
            });
          };
          io.aPanel = aPanel;
          if (aInPlace) {
            io.aStrideK = 1;
            io.aStrideRow = c.aRowStride;
          }
          // The last row panel computes the rows it has (packed, its
          // others are zeros, which it need not multiply).
          io.lastPanelRows = c.m % MR;
          io.bVector = bVector;
          io.store = storeTile;
          // Weights packed at build time come from memory on each run (a
          // model's weights outgrow the caches): the next column panel's
          // rows are prefetched while this one is read from the cache.
          auto prefetchB = [&](Value *p, Value *kBegin, Value *k) {
            prefetchPanelRow(bpIn, iadd(imul(p, NR * K), imul(iadd(kBegin, k), NR)), NR);
          };
          if (packedB)
            io.prefetchB = prefetchB;
          gemmTile(g, K, t, csIn, io);
        });
  };

  // Small products of a large batch (attention heads) run one batch index
  // per parallel iteration, each with its own buffers and the three phases
  // inline; the others run the batch in order, each phase across the
  // threads. Where the buffers cannot be allocated, the default loop nest.
  constexpr int64_t kBatchParallelWork = int64_t(1) << 23;
  if (c.batch > 1 && 2 * c.m * c.n * K < kBatchParallelWork) {
    parallelForCaptured(c.batch, 2 * c.m * c.n * K, {}, [&](Value *bi, ArrayRef<Value *>) {
      allowVectorWidth(L);
      Buffers x = allocate();
      ifThen(b.CreateNot(x.ok), [&] { contractionLoopSlice(c, bi, index(0), c.m); });
      ifThen(x.ok, [&] { onePass(bi, x.ap, x.bp, x.cs); });
      release(x);
    });
    return;
  }
  Buffers x = allocate();
  ifThen(b.CreateNot(x.ok), [&] { contractionLoop(c, F32); });
  ifThen(x.ok, [&] { forRange(0, c.batch, [&](Value *bi) { onePass(bi, x.ap, x.bp, x.cs); }); });
  release(x);
}

} // namespace hx
