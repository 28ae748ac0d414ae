//===- ChannelGemm.cpp - Convolutions over small maps, channels in lanes --===//
//
// CPUKernelBuilder::contraction for a convolution of stride 1 over a small
// map whose weights are known when the kernel is built (Contraction::
// bValues). The window GEMM puts output pixels in the vector lanes, in
// panels of NR columns over a grid as wide as the output plus the kernel's
// reach: a 1x1 over 49 pixels takes 64 lanes, over 196 takes 224; a 3x3
// over 14x14 takes 224 for 196, over 28x28 864 for 784. Here the roles are
// turned around:
//
//   rows    = the output pixels, MR per panel, broadcast. A 1x1 convolution
//             without padding reads them in place (A(pixel, k) = input[k,
//             pixel]: each input channel's plane is one run), its last
//             panel only as tall as the pixels left (49 = 3 x 14 + 7: a
//             micro-kernel of 7 rows). A windowed one reads a copy of its
//             input with the padding written out (plane ch: copy[yq, xq] =
//             input[ch, yq - top, xq - left], 0 outside), its panels tiling
//             the output rows (MR the largest divisor of the width from 9
//             to 14: 14 for 14 and 28, 13 for 13, 9 for 27), so that panel
//             q is row y from column x0 and k = (ch, r, s) reads
//             copy[offsets[k] + y*wq + x0 + pixel] (TileIO::aAt);
//   columns = the output channels, NR (two vectors) per panel: the weights
//             packed into the kernel's code when it is built, panel p
//             holding W[p*NR + l, k] at packed[(p*K + k)*NR + l] (channels
//             past the group's are 0);
//   k       = input channel x kernel position, in the packed GEMM's blocks
//             (gemmTile).
//
// No pixel is computed twice or wasted. A finished tile (MR pixels x NR
// channels, on the stack) is transposed in registers, 16 x 16 lanes at a
// time, and stored channel by channel: a vector of pixels, which are
// consecutive in an NCHW result, through the epilogue's vector form and one
// masked store (lane by lane through the operator's store where a vector
// would reach past the result's end). While a tile's later row panels read
// a column panel of weights from the cache, the next column panel's are
// prefetched (TileIO::prefetchB): read in a burst by the first row panel
// alone, they would wait on memory.
//
//===----------------------------------------------------------------------===//

#include "CPUKernelBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hx {

namespace {

constexpr int64_t kMaxPackedBytes = int64_t(64) << 20;

int64_t roundUp(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

/// Transposes the L x L matrix whose rows are the vectors `m` (L a power
/// of two) in log2(L) stages of two-source shuffles: the stage of block b
/// swaps, in every 2b x 2b block, its off-diagonal b x b blocks.
static void transposeSquareIn(IRBuilderBase &b, SmallVectorImpl<Value *> &m) {
  const int64_t L = int64_t(m.size());
  for (int64_t blk = L / 2; blk >= 1; blk /= 2) {
    SmallVector<int, 16> lo, hi;
    for (int64_t x = 0; x < L; ++x) {
      bool first = (x / blk) % 2 == 0;
      lo.push_back(int(first ? x : L + x - blk));
      hi.push_back(int(first ? x + blk : L + x));
    }
    for (int64_t i = 0; i < L; ++i)
      if ((i / blk) % 2 == 0) {
        Value *a = b.CreateShuffleVector(m[size_t(i)], m[size_t(i + blk)], lo);
        Value *c = b.CreateShuffleVector(m[size_t(i)], m[size_t(i + blk)], hi);
        m[size_t(i)] = a;
        m[size_t(i + blk)] = c;
      }
  }
}

} // namespace

/// Whether c is a 1x1 convolution of stride 1 without padding that reads
/// its input in place (each channel's plane one run).
static bool isPointwise(const KernelBuilder::Contraction &c) {
  const KernelBuilder::Window &w = *c.window;
  return w.kernelH == 1 && w.kernelW == 1 && w.strideH == 1 && w.strideW == 1 && w.top == 0 &&
         w.left == 0 && w.outH == w.height && w.outW == w.width && w.stride[3] == 1 &&
         w.stride[2] == w.width && w.stride[1] >= w.outH * w.outW && c.depth == w.channels;
}

/// The pixels of a row panel of a windowed convolution: the largest divisor
/// of the output's width from 9 to mrMax, so that no panel crosses an output
/// row (0: none).
static int64_t rowPanelPixels(int64_t outW, int64_t mrMax) {
  for (int64_t m = mrMax; m >= 9; --m)
    if (outW % m == 0)
      return m;
  return 0;
}

bool CPUKernelBuilder::channelGemmPays(const Contraction &c) const {
  if (parallelDepth > 0 || c.type != DType::Float32 || !c.window || !c.bValues ||
      machine.lanes != 16)
    return false;
  const Window &w = *c.window;
  const int64_t hw = w.outH * w.outW, L = machine.lanes, NR = 2 * L;
  const int64_t mrMax = std::max<int64_t>(2, (int64_t(machine.registers) - 3) / 2);
  bool nchwResult = w.resultBuffer != ~0u && w.resultStride[3] == 1 &&
                    w.resultStride[2] == w.outW && w.resultStride[1] == hw &&
                    w.resultStride[0] == c.batch * c.n * hw;
  if (!nchwResult || c.n < L ||
      (hasEpilogue(w.resultBuffer) && !vectorStoreSpansRows(w.resultBuffer)) ||
      c.batch * roundUp(c.n, NR) * c.depth * 4 > kMaxPackedBytes)
    return false;
  if (isPointwise(c)) {
    // Its lanes against the window GEMM's: pixels in panels of NR there
    // (rows in panels of about 14), channels in panels of NR here.
    int64_t windowLanes = roundUp(hw, NR) * c.n, channelLanes = hw * roundUp(c.n, NR);
    return 100 * channelLanes <= 92 * windowLanes;
  }
  // A windowed convolution of stride 1 over a copy of its input with the
  // padding written out, where the window GEMM's grid (wider than the
  // output by the kernel's reach) wastes at least 6% of its lanes: 28x28,
  // 14x14, 13x13 and 27x27 maps, not 56x56.
  bool windowed = w.strideH == 1 && w.strideW == 1 && w.dilationH == 1 && w.dilationW == 1 &&
                  w.stride[3] == 1 && c.depth == w.channels * w.kernelH * w.kernelW &&
                  rowPanelPixels(w.outW, mrMax) > 0;
  int64_t gridLanes = roundUp(w.outH * (w.outW + w.kernelW - 1), NR);
  return windowed && 100 * gridLanes >= 106 * hw;
}

void CPUKernelBuilder::channelGemm(const Contraction &c) {
  const Window &w = *c.window;
  const int64_t K = c.depth, L = machine.lanes, hw = w.outH * w.outW, NR = 2 * L;
  const int64_t mrMax = std::max<int64_t>(2, (int64_t(machine.registers) - 3) / 2);
  const bool pointwise = isPointwise(c);
  const int64_t MR = pointwise ? mrMax : rowPanelPixels(w.outW, mrMax);
  const GemmBlocking g = gemmBlocking(hw, c.n, K, MR, NR);
  // A windowed convolution reads a copy of its input per group and image,
  // the padding written out: plane ch holds copy[yq, xq] = input[ch, yq -
  // top, xq - left] (0 outside), hq x wq; row panel q is output row y =
  // q / (outW / MR) from column x0, and reads k = (ch, r, s) at
  // copy[offsets[k] + y * wq + x0 + pixel].
  const int64_t hq = w.outH + w.kernelH - 1, wq = w.outW + w.kernelW - 1, plane = hq * wq;
  const int64_t panelsPerRow = w.outW / MR;
  const DType F32 = DType::Float32, storeAs = accumulatorType(c.type);
  LLVMContext &ctx = module.getContext();
  llvm::Type *f32 = b.getFloatTy(), *ptrTy = b.getPtrTy();
  auto *vecTy = FixedVectorType::get(f32, unsigned(L));
  allowVectorWidth(L);

  // The weights, packed now: group gr's panel p at ((gr * panels + p) * K
  // + k) * NR + l.
  const int64_t panels = g.nPad / NR;
  GlobalVariable *packedB = packBuildTimeB(c, g, ".channelB");

  GlobalVariable *table = nullptr;
  if (!pointwise) {
    std::vector<int32_t> offsets;
    for (int64_t ch = 0; ch < w.channels; ++ch)
      for (int64_t r = 0; r < w.kernelH; ++r)
        for (int64_t s = 0; s < w.kernelW; ++s)
          offsets.push_back(int32_t(ch * plane + r * wq + s));
    auto *tableInit = ConstantDataArray::get(ctx, ArrayRef<int32_t>(offsets));
    table =
        new GlobalVariable(module, tableInit->getType(), /*isConstant=*/true,
                           GlobalValue::PrivateLinkage, tableInit, cur.fn->getName() + ".offsets");
  }
  // The copy of image img's channels of group grp, a plane row per
  // iteration in masked vectors (zeros in the padding).
  auto copyInput = [&](Value *copy, Value *grp, Value *img) {
    parallelForCaptured(
        w.channels * hq, 2 * wq, {copy, grp, img}, [&](Value *row, ArrayRef<Value *> cap) {
          Value *dst = cap[0], *gIn = cap[1], *imgIn = cap[2];
          Value *ch = idiv(row, hq), *yq = irem(row, hq);
          Value *iy = iadd(yq, -w.top);
          Value *rowOk = b.CreateICmpULT(iy, index(w.height));
          // Columns xq with 0 <= xq - left < width, none where the row is out.
          Value *lo = select(rowOk, index(std::min<int64_t>(w.left, wq)), index(0));
          Value *hi = select(rowOk, index(std::min<int64_t>(w.left + w.width, wq)), index(0));
          Value *src = b.CreateGEP(f32, buffer(w.buffer),
                                   linearOffset({imgIn, iadd(imul(gIn, w.channels), ch),
                                                 imin(imax(iy, index(0)), index(w.height - 1))},
                                                {w.stride[0], w.stride[1], w.stride[2]}));
          copyRowMasked(b.CreateInBoundsGEP(f32, dst, imul(row, wq)),
                        b.CreateGEP(f32, src, index(-w.left)), lo, hi, wq, 1);
        });
  };

  const int64_t resultElems = w.images * c.batch * c.n * hw;
  auto onePass = [&](Value *grp, Value *img, Value *cs, Value *copy) {
    parallelForCaptured(
        g.numTiles(), 2 * g.mc * g.nct * K, {grp, img, cs, copy},
        [&](Value *t, ArrayRef<Value *> cap) {
          Value *gIn = cap[0], *imgIn = cap[1], *csIn = cap[2], *copyIn = cap[3];
          Value *input = b.CreateInBoundsGEP(
              f32, buffer(w.buffer),
              iadd(imul(imgIn, w.stride[0]), imul(gIn, w.channels * w.stride[1])));
          TileIO io;
          auto aPanel = [&](Value *q, Value *kBegin) -> Value * {
            return b.CreateInBoundsGEP(f32, input, iadd(imul(kBegin, w.stride[1]), imul(q, MR)));
          };
          io.aStrideK = w.stride[1];
          io.aStrideRow = 1;
          io.lastPanelRows = hw % MR;
          auto aAt = [&](Value *q, Value *kBegin, Value *k) -> Value * {
            Value *off = b.CreateAlignedLoad(
                b.getInt32Ty(), b.CreateInBoundsGEP(b.getInt32Ty(), table, iadd(kBegin, k)),
                Align(4));
            Value *y = idiv(q, panelsPerRow), *x0 = imul(irem(q, panelsPerRow), MR);
            return b.CreateInBoundsGEP(
                f32, copyIn, iadd(b.CreateSExt(off, b.getInt64Ty()), iadd(imul(y, wq), x0)));
          };
          if (!pointwise)
            io.aAt = aAt;
          auto bVector = [&](Value *p, Value *kBegin, Value *k, int64_t v) -> Value * {
            Value *at = iadd(imul(iadd(imul(iadd(imul(gIn, panels), p), K), iadd(kBegin, k)), NR),
                             index(v * L));
            return b.CreateAlignedLoad(vecTy, b.CreateInBoundsGEP(f32, packedB, at),
                                       Align(uint64_t(L * 4)));
          };
          auto storeTile = [&](Value *q, Value *p, Value *tile) {
            // The panel's first pixel (a windowed convolution's panels tile
            // the output rows: the same index).
            Value *i0 = imul(q, MR);
            Value *rows = imin(index(MR), isub(index(hw), i0));
            Value *cols = imin(index(NR), isub(index(c.n), imul(p, NR)));
            SmallVector<Constant *, 16> count;
            for (int64_t l = 0; l < L; ++l)
              count.push_back(b.getInt32(uint32_t(l)));
            Value *inside = b.CreateICmpULT(
                ConstantVector::get(count),
                b.CreateVectorSplat(unsigned(L), b.CreateTrunc(rows, b.getInt32Ty())));
            // The tile transposed, L channels at a time (the rows past MR
            // are 0): channel l's pixels at tileT[l * L + r].
            Value *tileT = entryAlloca(ArrayType::get(f32, uint64_t(NR * L)));
            for (int64_t v = 0; v < NR / L; ++v) {
              SmallVector<Value *, 16> m;
              for (int64_t r = 0; r < L; ++r)
                m.push_back(
                    r < MR ? static_cast<Value *>(b.CreateAlignedLoad(
                                 vecTy,
                                 b.CreateConstInBoundsGEP1_64(f32, tile, uint64_t(r * NR + v * L)),
                                 Align(4)))
                           : Constant::getNullValue(vecTy));
              transposeSquareIn(b, m);
              for (int64_t l = 0; l < L; ++l)
                b.CreateAlignedStore(
                    m[size_t(l)],
                    b.CreateConstInBoundsGEP1_64(f32, tileT, uint64_t((v * L + l) * L)), Align(4));
            }
            Value *y = idiv(i0, w.outW), *x = irem(i0, w.outW);
            forRange(index(0), cols, [&](Value *l) {
              Value *ch = iadd(imul(gIn, c.n), iadd(imul(p, NR), l));
              Value *off = linearOffset({imgIn, ch, i0}, {w.resultStride[0], w.resultStride[1], 1});
              Value *v =
                  b.CreateAlignedLoad(vecTy, b.CreateInBoundsGEP(f32, tileT, imul(l, L)), Align(4));
              Value *fits = icmp(CmpOp::LE, iadd(off, L), index(resultElems));
              ifThen(fits, [&] {
                Value *out = v;
                if (hasEpilogue(w.resultBuffer))
                  out = applyVectorEpilogue(off, {imgIn, ch, y, x}, v);
                b.CreateMaskedStore(out, b.CreateInBoundsGEP(f32, buffer(w.resultBuffer), off),
                                    Align(4), inside);
              });
              // Where a vector would reach past the result: lane by lane.
              ifThen(logicalNot(fits), [&] {
                forRange(index(0), rows, [&](Value *r) {
                  Value *i = iadd(imul(imgIn, hw), iadd(i0, r));
                  Value *s = load(F32, tileT, iadd(imul(l, L), r));
                  c.store(gIn, i, iadd(imul(p, NR), l), cast(s, F32, storeAs));
                });
              });
            });
          };
          // B's row of NR floats is two cache lines.
          auto prefetchB = [&](Value *p, Value *kBegin, Value *k) {
            prefetchPanelRow(
                packedB, imul(iadd(imul(iadd(imul(gIn, panels), p), K), iadd(kBegin, k)), NR), NR);
          };
          io.aPanel = aPanel;
          io.bVector = bVector;
          io.prefetchB = prefetchB;
          io.store = storeTile;
          gemmTile(g, K, t, csIn, io);
        });
  };

  Value *cs =
      g.numKc > 1 ? allocFloats(index(g.numTiles() * g.mc * g.nct)) : Constant::getNullValue(ptrTy);
  Value *copy = pointwise ? Constant::getNullValue(ptrTy) : allocFloats(index(w.channels * plane));
  Value *ok = b.getTrue();
  if (g.numKc > 1)
    ok = b.CreateAnd(ok, b.CreateIsNotNull(cs));
  if (!pointwise)
    ok = b.CreateAnd(ok, b.CreateIsNotNull(copy));
  ifThen(b.CreateNot(ok), [&] { contractionLoop(c, F32); });
  ifThen(ok, [&] {
    forRange(0, c.batch, [&](Value *grp) {
      forRange(0, w.images, [&](Value *img) {
        if (!pointwise)
          copyInput(copy, grp, img);
        onePass(grp, img, cs, copy);
      });
    });
  });
  freeBuffer(cs);
  freeBuffer(copy);
}

} // namespace hx
