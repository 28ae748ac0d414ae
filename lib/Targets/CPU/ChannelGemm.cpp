//===- ChannelGemm.cpp - A 1x1 convolution over a small map, channels in lanes -===//
//
// CPUKernelBuilder::contraction for a 1x1 convolution of stride 1 without
// padding over a small map (7x7, 13x13, 14x14) whose weights are known when
// the kernel is built (Contraction::bValues). The window GEMM puts output
// pixels in the vector lanes, in panels of NR columns: 49 pixels take 64
// lanes, 196 take 224, a fifth to a quarter of the work wasted. Here the
// roles are turned around:
//
//   rows    = the output pixels, MR per panel, read in place: A(pixel, k) =
//             input[k, pixel], broadcast (each input channel's plane is one
//             run, k its stride); the last panel has only the pixels left
//             (49 = 3 x 14 + 7: a micro-kernel of 7 rows), so no pixel is
//             computed twice or wasted;
//   columns = the output channels, NR (two vectors) per panel: the weights
//             packed into the kernel's code when it is built, panel p
//             holding W[p*NR + l, k] at packed[(p*K + k)*NR + l] (channels
//             past the group's are 0);
//   k       = the input channels, in the packed GEMM's blocks (gemmTile).
//
// A finished tile (MR pixels x NR channels, on the stack) is transposed in
// registers, 16 x 16 lanes at a time, and stored channel by channel: a
// vector of pixels, which are consecutive in an NCHW result, through the
// epilogue's vector form and one masked store (lane by lane through the
// operator's store where a vector would reach past the result's end). While
// a tile's later row panels read a column panel of weights from the cache,
// the next column panel's are prefetched (TileIO::prefetchB): read in a
// burst by the first row panel alone, they would wait on memory.
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

bool CPUKernelBuilder::channelGemmPays(const Contraction &c) const {
  if (parallelDepth > 0 || c.type != DType::Float32 || !c.window || !c.bValues ||
      machine.lanes != 16)
    return false;
  const Window &w = *c.window;
  const int64_t hw = w.outH * w.outW, L = machine.lanes, NR = 2 * L;
  bool pointwise = w.kernelH == 1 && w.kernelW == 1 && w.strideH == 1 && w.strideW == 1 &&
                   w.top == 0 && w.left == 0 && w.outH == w.height && w.outW == w.width &&
                   w.stride[3] == 1 && w.stride[2] == w.width && w.stride[1] >= hw &&
                   c.depth == w.channels;
  bool nchwResult = w.resultBuffer != ~0u && w.resultStride[3] == 1 &&
                    w.resultStride[2] == w.outW && w.resultStride[1] == hw &&
                    w.resultStride[0] == c.batch * c.n * hw;
  if (!pointwise || !nchwResult || c.n < L ||
      (hasEpilogue(w.resultBuffer) && !vectorStoreSpansRows(w.resultBuffer)) ||
      c.batch * roundUp(c.n, NR) * c.depth * 4 > kMaxPackedBytes)
    return false;
  // Its lanes against the window GEMM's: pixels in panels of NR there
  // (rows in panels of about 14), channels in panels of NR here.
  int64_t windowLanes = roundUp(hw, NR) * c.n, channelLanes = hw * roundUp(c.n, NR);
  return 100 * channelLanes <= 92 * windowLanes;
}

void CPUKernelBuilder::channelGemm(const Contraction &c) {
  const Window &w = *c.window;
  const int64_t K = c.depth, L = machine.lanes, hw = w.outH * w.outW;
  const int64_t MR = std::max<int64_t>(2, (int64_t(machine.registers) - 3) / 2), NR = 2 * L;
  const GemmBlocking g = gemmBlocking(hw, c.n, K, MR, NR);
  const DType F32 = DType::Float32, storeAs = accumulatorType(c.type);
  LLVMContext &ctx = module.getContext();
  llvm::Type *f32 = b.getFloatTy(), *ptrTy = b.getPtrTy();
  auto *vecTy = FixedVectorType::get(f32, unsigned(L));
  allowVectorWidth(L);

  // The weights, packed now: group gr's panel p at ((gr * panels + p) * K
  // + k) * NR + l.
  const int64_t panels = g.nPad / NR;
  std::vector<float> packed(size_t(c.batch * g.nPad * K), 0.0f);
  for (int64_t gr = 0; gr < c.batch; ++gr)
    for (int64_t j = 0; j < c.n; ++j)
      for (int64_t k = 0; k < K; ++k)
        packed[size_t(((gr * panels + j / NR) * K + k) * NR + j % NR)] =
            c.bValues[gr * c.bBatchStride + j * c.bRowStride + k];
  auto *init = ConstantDataArray::get(ctx, ArrayRef<float>(packed));
  auto *packedB =
      new GlobalVariable(module, init->getType(), /*isConstant=*/true, GlobalValue::PrivateLinkage,
                         init, cur.fn->getName() + ".channelB");
  packedB->setAlignment(Align(64));

  const int64_t resultElems = w.images * c.batch * c.n * hw;
  auto onePass = [&](Value *grp, Value *img, Value *cs) {
    parallelForCaptured(
        g.numTiles(), 2 * g.mc * g.nct * K, {grp, img, cs}, [&](Value *t, ArrayRef<Value *> cap) {
          Value *gIn = cap[0], *imgIn = cap[1], *csIn = cap[2];
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
          auto bVector = [&](Value *p, Value *kBegin, Value *k, int64_t v) -> Value * {
            Value *at = iadd(imul(iadd(imul(iadd(imul(gIn, panels), p), K), iadd(kBegin, k)), NR),
                             index(v * L));
            return b.CreateAlignedLoad(vecTy, b.CreateInBoundsGEP(f32, packedB, at),
                                       Align(uint64_t(L * 4)));
          };
          auto storeTile = [&](Value *q, Value *p, Value *tile) {
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
            Value *at = imul(iadd(imul(iadd(imul(gIn, panels), p), K), iadd(kBegin, k)), NR);
            for (int64_t line = 0; line < NR * 4; line += 64) {
              Value *ptr = b.CreateInBoundsGEP(f32, packedB, iadd(at, index(line / 4)));
              b.CreateIntrinsic(Intrinsic::prefetch, {ptrTy},
                                {ptr, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
            }
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
  Value *ok = g.numKc > 1 ? b.CreateIsNotNull(cs) : b.getTrue();
  ifThen(b.CreateNot(ok), [&] { contractionLoop(c, F32); });
  ifThen(ok, [&] {
    forRange(0, c.batch, [&](Value *grp) {
      forRange(0, w.images, [&](Value *img) { onePass(grp, img, cs); });
    });
  });
  freeBuffer(cs);
}

} // namespace hx
