//===- WindowGemm.cpp - A convolution as a GEMM over a copy of its input --===//
//
// CPUKernelBuilder::contraction for a convolution (Contraction::window)
// where it pays: the packed GEMM's micro-kernel with the roles turned
// around, so that nothing is expanded nine times (im2col) and the sums land
// in the result as vectors.
//
//   rows    = the output channels of a group (A: the weights, read in
//             place, or for a group of few channels packed in MR-row panels
//             as the packed GEMM packs them);
//   columns = the output pixels, on a grid one row of which is wq wide
//             (the output row, plus what the kernel reaches past it);
//   B       = never packed: each k = (channel, kernel row, kernel column)
//             reads NR consecutive floats of a copy of the input, starting
//             at offsets[k] + the column.
//
// The copy (per group and image) holds the input with its padding written
// out as zeros and its strides taken out: for a stride of (sh, sw), the
// rows and columns are split by phase, plane (py, px, c) holding
//   copy[yq, xq] = input[c, yq*sh + py - top, xq*sw + px - left]   (0 outside)
// for the phases the kernel reads (py = r*dh mod sh for its rows r, px
// likewise). Output pixel (y, x) at kernel position (r, s) then reads
// plane (r*dh mod sh, s*dw mod sw, c) at (y + r*dh/sh, x + s*dw/sw), so that
//   B(column y*wq + x, k) = copy[offsets[k] + y*wq + x]
// with offsets[k] = plane(k) * hq*wq + (r*dh/sh)*wq + s*dw/sw, a constant
// table in the module. With vectors of 8 lanes or more each plane row is
// written as whole vectors, masked loads reading the input's run (zeros in
// the padding). Stride 1 has one plane per channel (the padded
// input); a 1x1 stride-2 convolution reads one phase of four. A stride-1
// convolution whose padded grid would take more panels of NR columns than
// its output pixels (13x13: 195 columns, 7 panels of 32, for 169 in 6) has
// instead one plane per (channel, kernel column s), the input shifted by
// s*dw: copy[yq, x] = input[c, yq - top, x + s*dw - left], so that wq = outW
// and the grid is the result's pixels in order (Grid::shifted).
//
// The grid's columns x >= outW (wq - outW of each row: 2 for a padded 3x3)
// are computed and dropped: what the kernel reads there is in the copy (or
// its zeroed tail), and the store skips them. A vector of sums within one
// output row is stored as a vector when the operator's result is float32
// (Window::resultBuffer); one that rows' ends cut, with AVX-512 and an
// epilogue that reads rows as one run, as its lanes inside the result
// packed together (vcompressps) and one masked store, else in power-of-two
// pieces of each row; the others lane by lane through the operator's
// store.
//
// Blocking is the packed GEMM's (gemmBlocking), with MR chosen for the
// number of output channels: split over as few panels of at most MRmax rows
// as they need, evenly (13 rows for 64 channels on AVX-512, 8 for a ResNeXt
// group's 16, 4 for its 4), since a partial panel computes its missing rows
// all the same; NR is as many vectors as the register file then holds, up
// to 4. Per (group, image), the copy, the weights' packing (small groups
// only) and the tiles are parallel phases; many small groups (ResNeXt) run
// one group and image per parallel iteration instead, all phases inline
// with buffers of its own.
//
//===----------------------------------------------------------------------===//

#include "CPUKernelBuilder.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Module.h"
#include <algorithm>

using namespace llvm;

namespace hx {

namespace {

/// The copy's geometry.
struct Grid {
  SmallVector<int64_t, 4> phaseY, phaseX; // the phases read, in order
  int64_t hq = 0, wq = 0, plane = 0;      // rows and columns of a plane
  int64_t cols = 0;                       // outH * wq
  int64_t maxSx = 0;                      // how far a row's reads reach past wq
  /// One plane per (channel, kernel column) instead, each shifted by its
  /// column's offset, so that a grid row is the output row (wq = outW).
  bool shifted = false;
  int64_t planes(const KernelBuilder::Window &w) const {
    return shifted ? w.channels * w.kernelW : int64_t(phaseY.size() * phaseX.size()) * w.channels;
  }
};

int64_t phaseIndex(ArrayRef<int64_t> phases, int64_t p) {
  return std::find(phases.begin(), phases.end(), p) - phases.begin();
}

Grid gridFor(const KernelBuilder::Window &w) {
  Grid g;
  for (int64_t r = 0; r < w.kernelH; ++r)
    if (!is_contained(g.phaseY, r * w.dilationH % w.strideH))
      g.phaseY.push_back(r * w.dilationH % w.strideH);
  for (int64_t s = 0; s < w.kernelW; ++s)
    if (!is_contained(g.phaseX, s * w.dilationW % w.strideW))
      g.phaseX.push_back(s * w.dilationW % w.strideW);
  g.hq = w.outH + (w.kernelH - 1) * w.dilationH / w.strideH;
  g.maxSx = (w.kernelW - 1) * w.dilationW / w.strideW;
  g.wq = w.outW + g.maxSx;
  g.plane = g.hq * g.wq;
  g.cols = w.outH * g.wq;
  return g;
}

/// The grid with shifted planes (Grid::shifted) for a convolution of stride
/// 1 whose padded grid takes more panels of `nr` columns than the output's
/// pixels do (13x13: 195 columns in 7 panels of 32, 169 in 6), else the
/// padded one: kernelW copies of the input cost less than the columns.
Grid gridFor(const KernelBuilder::Window &w, int64_t nr) {
  Grid g = gridFor(w);
  auto panels = [&](int64_t cols) { return (cols + nr - 1) / nr; };
  if (w.strideH != 1 || w.strideW != 1 || w.kernelW == 1 ||
      panels(w.outH * w.outW) >= panels(g.cols))
    return g;
  g.shifted = true;
  g.maxSx = 0;
  g.wq = w.outW;
  g.plane = g.hq * g.wq;
  g.cols = w.outH * g.wq;
  return g;
}

} // namespace

/// MR and NR for `rows` output channels (see the file comment).
static std::pair<int64_t, int64_t> windowTile(const CPUMachineInfo &mi, int64_t rows) {
  int64_t regs = mi.registers, mrMax = std::max<int64_t>(2, (regs - 3) / 2);
  // As few panels as MRmax allows, as evenly filled as they can be.
  int64_t panels = (rows + mrMax - 1) / mrMax;
  int64_t mr = (rows + panels - 1) / panels;
  int64_t vectors = std::clamp<int64_t>((regs - 1) / (mr + 1), 2, 4);
  return {mr, vectors * mi.lanes};
}

bool CPUKernelBuilder::windowGemmPays(const Contraction &c) const {
  if (parallelDepth > 0 || valueDType(c.type) != DType::Float32 || !c.window)
    return false;
  const Window &w = *c.window;
  if (w.channels * w.kernelH * w.kernelW != c.depth || w.strideH < 1 || w.strideW < 1)
    return false;
  // Depthwise convolutions keep their direct loop (one channel, 9 terms).
  if (w.channels == 1)
    return false;
  Grid g = gridFor(w), used = gridFor(w, windowTile(machine, c.n).second);
  // The offsets table is int32.
  if (used.planes(w) * used.plane + used.cols + 4 * int64_t(machine.lanes) >= (int64_t(1) << 31))
    return false;
  return g.cols >= 2 * int64_t(machine.lanes) && c.depth >= 4 &&
         c.m * c.n * c.depth >= (int64_t(1) << 15);
}

void CPUKernelBuilder::windowGemm(const Contraction &c) {
  const Window &w = *c.window;
  const int64_t K = c.depth, L = machine.lanes;
  const auto [MR, NR] = windowTile(machine, c.n);
  const Grid grid = gridFor(w, NR);
  const GemmBlocking g = gemmBlocking(c.n, grid.cols, K, MR, NR);
  const int64_t planes = grid.planes(w), numPx = int64_t(grid.phaseX.size());
  // A 1x1 stride-1 convolution without padding over whole planes reads
  // its input where it is: B(column, channel) = input[channel, column].
  // Its last panel, where partial, starts NR columns before the end
  // instead (computing some columns twice, to the same sums) so that no
  // read leaves the input.
  const bool direct = c.type == DType::Float32 && w.kernelH == 1 && w.kernelW == 1 &&
                      w.strideH == 1 && w.strideW == 1 && w.top == 0 && w.left == 0 &&
                      w.outH == w.height && w.outW == w.width && w.stride[3] == 1 &&
                      w.stride[2] == w.width && grid.cols >= NR &&
                      K * w.stride[1] < (int64_t(1) << 31);
  // Weights whose k = (channel, row, column) is contiguous are read in
  // place, not packed: row r of panel q at weight[(q*MR + r) * rowStride +
  // k]. The last panel, where partial, starts MR rows before the end.
  const int64_t rowStride = c.bRowStride;
  const bool weightsInPlace = c.type == DType::Float32 && c.bBuffer != ~0u && c.n > MR;
  const int64_t copyFloats = planes * grid.plane;
  // What the last panel and the reads past a row's end reach beyond the
  // planes; zeroed once.
  const int64_t tailFloats = g.nPad - grid.cols + grid.maxSx + L;
  const int64_t tileFloats = g.mc * g.nct;
  // Vectors that the rows' ends cut are packed and stored at once (see
  // storeTile) where the target compresses lanes in one instruction
  // (AVX-512), the result is float32 with its rows contiguous and its
  // epilogue reads rows as one run.
  const bool packCutVectors = L == 16 && w.resultBuffer != ~0u && w.resultStride[3] == 1 &&
                              w.resultStride[2] == w.outW && vectorStoreSpansRows(w.resultBuffer);
  const DType F32 = DType::Float32, storeAs = accumulatorType(c.type);
  LLVMContext &ctx = module.getContext();
  llvm::Type *f32 = b.getFloatTy(), *i32 = b.getInt32Ty(), *ptrTy = b.getPtrTy();
  auto *vecTy = FixedVectorType::get(f32, unsigned(L));
  allowVectorWidth(L);

  // offsets[k] for k = (channel, kernel row, kernel column).
  std::vector<int32_t> offsets(static_cast<size_t>(K), 0);
  for (int64_t ch = 0; ch < w.channels; ++ch)
    for (int64_t r = 0; r < w.kernelH; ++r)
      for (int64_t s = 0; s < w.kernelW; ++s) {
        int64_t py = phaseIndex(grid.phaseY, r * w.dilationH % w.strideH);
        int64_t px = phaseIndex(grid.phaseX, s * w.dilationW % w.strideW);
        int64_t plane = (py * numPx + px) * w.channels + ch;
        if (grid.shifted)
          plane = ch * w.kernelW + s;
        offsets[size_t((ch * w.kernelH + r) * w.kernelW + s)] =
            direct ? int32_t(ch * w.stride[1])
                   : int32_t(plane * grid.plane + r * w.dilationH / w.strideH * grid.wq +
                             (grid.shifted ? 0 : s * w.dilationW / w.strideW));
      }
  auto *tableTy = ArrayType::get(i32, uint64_t(K));
  auto *table = new GlobalVariable(
      module, tableTy, /*isConstant=*/true, GlobalValue::PrivateLinkage,
      ConstantDataArray::get(ctx, ArrayRef<int32_t>(offsets)), cur.fn->getName() + ".offsets");
  table->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);

  struct Buffers {
    Value *ap, *in, *cs, *ok;
  };
  auto allocate = [&] {
    Buffers x;
    x.ap = weightsInPlace ? Constant::getNullValue(ptrTy) : allocFloats(index(g.mPad * K));
    x.in = direct ? Constant::getNullValue(ptrTy) : allocFloats(index(copyFloats + tailFloats));
    x.cs =
        g.numKc > 1 ? allocFloats(index(g.numTiles() * tileFloats)) : Constant::getNullValue(ptrTy);
    x.ok = b.getTrue();
    if (!weightsInPlace)
      x.ok = b.CreateAnd(x.ok, b.CreateIsNotNull(x.ap));
    if (!direct)
      x.ok = b.CreateAnd(x.ok, b.CreateIsNotNull(x.in));
    if (g.numKc > 1)
      x.ok = b.CreateAnd(x.ok, b.CreateIsNotNull(x.cs));
    if (!direct)
      ifThen(x.ok, [&] {
        forRange(copyFloats, copyFloats + tailFloats,
                 [&](Value *i) { store(F32, x.in, i, constant(F32, 0)); });
      });
    return x;
  };
  auto release = [&](const Buffers &x) {
    for (Value *p : {x.ap, x.in, x.cs})
      freeBuffer(p);
  };
  // The phase index's value: a select over the (few) phases read.
  auto phaseOf = [&](ArrayRef<int64_t> phases, Value *i) {
    Value *p = index(phases[0]);
    for (size_t t = 1; t < phases.size(); ++t)
      p = select(icmp(CmpOp::EQ, i, index(int64_t(t))), index(phases[t]), p);
    return p;
  };

  // 1. The copy of image `img`'s channels of group `grp`, one plane row per
  // iteration: zeros, the row's valid run, zeros. A float32 input of
  // unit-stride columns, read only through its pointer (no prologue),
  // copies its run in vectors.
  const bool vectorCopy = c.type == DType::Float32 && w.stride[3] == 1 && L > 1 && w.strideW <= 4 &&
                          !hasPrologue(w.buffer);
  // With wide vectors, every plane row is written in masked vectors.
  const bool maskedCopy = vectorCopy && L >= 8;
  auto copyInput = [&](Value *inBuf, Value *grp, Value *img) {
    parallelForCaptured(
        planes * grid.hq, 2 * grid.wq, {inBuf, grp, img}, [&](Value *row, ArrayRef<Value *> cap) {
          Value *dstBuf = cap[0], *gIn = cap[1], *imgIn = cap[2];
          Value *in = buffer(w.buffer);
          // Plane (phase, channel), or shifted (channel, kernel column s):
          // stride 1, the column read s*dw to the right, as a phase would.
          SmallVector<Value *, 4> at;
          Value *ch, *py, *px;
          if (grid.shifted) {
            at = unflatten(row, {w.channels, w.kernelW, grid.hq});
            ch = at[0], py = index(0), px = imul(at[1], w.dilationW);
          } else {
            at = unflatten(row, {planes / w.channels, w.channels, grid.hq});
            ch = at[1];
            py = phaseOf(grid.phaseY, idiv(at[0], numPx));
            px = phaseOf(grid.phaseX, irem(at[0], numPx));
          }
          Value *dst = imul(row, grid.wq);
          Value *srcY = iadd(iadd(imul(at[2], w.strideH), py), -w.top);
          Value *rowOk = b.CreateICmpULT(srcY, index(w.height));
          // Valid columns xq: 0 <= xq*sw + px - left < width.
          Value *first = isub(index(w.left), px); // xq*sw >= first
          Value *lo = imax(idiv(iadd(imax(first, index(0)), w.strideW - 1), w.strideW), index(0));
          Value *lastX = isub(index(w.width - 1 + w.left), px); // xq*sw <= lastX
          Value *hi = select(icmp(CmpOp::LT, lastX, index(0)), index(0),
                             imin(index(grid.wq), iadd(idiv(imax(lastX, index(0)), w.strideW), 1)));
          lo = select(rowOk, imin(lo, hi), index(grid.wq));
          hi = select(rowOk, hi, index(grid.wq));
          Value *zero = constant(F32, 0);
          Value *srcBase = linearOffset(
              {imgIn, iadd(imul(gIn, w.channels), ch), imin(srcY, index(w.height - 1))},
              {w.stride[0], w.stride[1], w.stride[2]});
          Value *x0 = isub(px, index(w.left));
          if (maskedCopy) {
            // The whole plane row in vectors: lane xq reads input column
            // xq*sw + x0 where lo <= xq < hi, else holds 0. (Loops of
            // single floats here became a memset, a memmove and a memset
            // call per row.)
            copyRowMasked(b.CreateInBoundsGEP(f32, dstBuf, dst),
                          b.CreateGEP(f32, in, iadd(srcBase, x0)), lo, hi, grid.wq, w.strideW);
            return;
          }
          forRange(index(0), lo, [&](Value *xq) { store(F32, dstBuf, iadd(dst, xq), zero); });
          // L columns at a time: L * sw consecutive floats of the row, every
          // sw-th kept, while such a read stays inside the row (its last
          // column read, (xq + L - 1) * sw + x0 + sw - 1, below width); then
          // column by column. (Index divisions are unsigned: their operands
          // clamped at 0 first; a numerator below 0 leaves no whole chunk.)
          Value *scalarFrom = lo;
          if (vectorCopy) {
            Value *room = isub(index(w.width - w.strideW), x0);
            Value *end = select(icmp(CmpOp::LT, room, index(0)), index(0),
                                imin(hi, iadd(idiv(imax(room, index(0)), w.strideW), 1)));
            Value *chunks = idiv(imax(isub(end, lo), index(0)), L);
            auto *wide = FixedVectorType::get(f32, unsigned(L * w.strideW));
            SmallVector<int, 16> every;
            for (int64_t l = 0; l < L; ++l)
              every.push_back(int(l * w.strideW));
            forRange(index(0), chunks, [&](Value *i) {
              Value *xq = iadd(lo, imul(i, L));
              Value *srcX = iadd(imul(xq, w.strideW), x0);
              Value *v = b.CreateAlignedLoad(
                  wide, b.CreateInBoundsGEP(f32, in, iadd(srcBase, srcX)), Align(4));
              if (w.strideW > 1)
                v = b.CreateShuffleVector(v, every);
              b.CreateAlignedStore(v, b.CreateInBoundsGEP(f32, dstBuf, iadd(dst, xq)), Align(4));
            });
            scalarFrom = iadd(lo, imul(chunks, L));
          }
          forRange(scalarFrom, hi, [&](Value *xq) {
            Value *srcX = iadd(imul(xq, w.strideW), x0);
            Value *v = load(c.type, in, iadd(srcBase, imul(srcX, w.stride[3])));
            store(F32, dstBuf, iadd(dst, xq), cast(v, c.type, F32));
          });
          forRange(hi, index(grid.wq), [&](Value *xq) { store(F32, dstBuf, iadd(dst, xq), zero); });
        });
  };

  // 3. The tiles of image `img`, group `grp`.
  auto computeTiles = [&](Value *apBuf, Value *inBuf, Value *csBuf, Value *grp, Value *img) {
    parallelForCaptured(
        g.numTiles(), 2 * g.mc * g.nct * K, {apBuf, inBuf, csBuf, grp, img},
        [&](Value *t, ArrayRef<Value *> cap) {
          Value *apIn = cap[0], *inIn = cap[1], *csIn = cap[2], *gIn = cap[3], *imgIn = cap[4];
          // Where B's columns start: the copy, or the input of this group
          // and image.
          Value *bBase = inIn;
          if (direct)
            bBase = b.CreateInBoundsGEP(
                f32, buffer(w.buffer),
                iadd(imul(imgIn, w.stride[0]), imul(gIn, w.channels * w.stride[1])));
          auto colStart = [&](Value *p) {
            Value *j = imul(p, NR);
            return direct && grid.cols % NR ? imin(j, index(grid.cols - NR)) : j;
          };
          TileIO io;
          auto rowStart = [&](Value *q) {
            Value *o = imul(q, MR);
            return weightsInPlace && c.n % MR ? imin(o, index(c.n - MR)) : o;
          };
          auto aPanel = [&](Value *q, Value *kBegin) -> Value * {
            if (weightsInPlace)
              return b.CreateInBoundsGEP(
                  f32, buffer(c.bBuffer),
                  iadd(iadd(imul(gIn, c.bBatchStride), imul(rowStart(q), rowStride)), kBegin));
            return b.CreateInBoundsGEP(f32, apIn, iadd(imul(q, MR * K), imul(kBegin, MR)));
          };
          auto bVector = [&](Value *p, Value *kBegin, Value *k, int64_t v) -> Value * {
            Value *off = b.CreateAlignedLoad(i32, b.CreateInBoundsGEP(i32, table, iadd(kBegin, k)),
                                             Align(4));
            Value *at = iadd(b.CreateSExt(off, b.getInt64Ty()), iadd(colStart(p), index(v * L)));
            return b.CreateAlignedLoad(vecTy, b.CreateInBoundsGEP(f32, bBase, at), Align(4));
          };
          auto storeTile = [&](Value *q, Value *p, Value *tileBuf) {
            Value *rows = index(MR);
            if (c.n % MR != 0 && !weightsInPlace)
              rows = imin(rows, isub(index(c.n), rowStart(q)));
            // A panel moved back stores only what the one before it did
            // not (the same sums, but another thread may be storing them).
            Value *firstRow = isub(imul(q, MR), rowStart(q));
            Value *firstCol = imul(p, NR);
            // Vector by vector, then row by row: where a vector's columns
            // lie is worked out once for the panel's rows.
            forRange(0, NR / L, [&](Value *v) {
              Value *j0 = iadd(colStart(p), imul(v, L));
              Value *y = idiv(j0, grid.wq);
              Value *x0 = isub(j0, imul(y, grid.wq));
              // An epilogue reads its operands along the result's last
              // dim: vectors of x only where x is that dim (NCHW).
              bool nchw = w.resultStride[3] == 1 && w.resultStride[2] == w.outW &&
                          w.resultStride[1] == w.outH * w.outW &&
                          w.resultStride[0] == c.batch * c.n * w.outH * w.outW;
              bool vectors = w.resultBuffer != ~0u && w.resultStride[3] == 1 &&
                             (!hasEpilogue(w.resultBuffer) || nchw);
              // Where the grid is the result's pixels in order (no columns
              // dropped: a kernel one column wide) and the result and the
              // epilogue read rows as one run, a vector may run on into the
              // next row: every vector inside the map is whole.
              bool flat = vectors && grid.wq == w.outW && w.resultStride[2] == w.outW &&
                          vectorStoreSpansRows(w.resultBuffer);
              Value *whole =
                  flat ? logicalAnd(icmp(CmpOp::LE, iadd(j0, L), index(grid.cols)),
                                    icmp(CmpOp::GE, j0, firstCol))
                       : logicalAnd(logicalAnd(icmp(CmpOp::LE, iadd(x0, L), index(w.outW)),
                                               icmp(CmpOp::LT, y, index(w.outH))),
                                    icmp(CmpOp::GE, j0, firstCol));
              // The rows' loop, for a vector that is whole (wholeRows), one
              // that rows' ends cut, or stored lane by lane.
              enum Mode { byLanes, wholeRows, cutRows };
              auto rowLoop = [&](Mode mode) {
                forRange(firstRow, rows, [&](Value *r) {
                  Value *o = iadd(rowStart(q), r);
                  Value *at = iadd(imul(r, NR), imul(v, L));
                  Value *sum =
                      b.CreateAlignedLoad(vecTy, b.CreateInBoundsGEP(f32, tileBuf, at), Align(4));
                  auto byLane = [&] {
                    forRange(0, L, [&](Value *l) {
                      Value *j = iadd(j0, l);
                      Value *yy = idiv(j, grid.wq);
                      Value *xx = isub(j, imul(yy, grid.wq));
                      ifThen(logicalAnd(logicalAnd(icmp(CmpOp::LT, xx, index(w.outW)),
                                                   icmp(CmpOp::LT, yy, index(w.outH))),
                                        icmp(CmpOp::GE, j, firstCol)),
                             [&] {
                               Value *i = iadd(imul(iadd(imul(imgIn, w.outH), yy), w.outW), xx);
                               Value *s = load(F32, tileBuf, iadd(at, l));
                               c.store(gIn, i, o, cast(s, F32, storeAs));
                             });
                    });
                  };
                  if (mode == byLanes)
                    return byLane();
                  if (mode == wholeRows) {
                    Value *ch = iadd(imul(gIn, c.n), o);
                    Value *off =
                        linearOffset({imgIn, ch, y, x0},
                                     {w.resultStride[0], w.resultStride[1], w.resultStride[2], 1});
                    Value *v = sum;
                    if (hasEpilogue(w.resultBuffer))
                      v = applyVectorEpilogue(off, {imgIn, ch, y, x0}, sum);
                    b.CreateAlignedStore(v, b.CreateInBoundsGEP(f32, buffer(w.resultBuffer), off),
                                         Align(4));
                    return;
                  }
                  // A vector the row's end cuts (every vector of a row
                  // narrower than it: 14 and 7 wide, 16 lanes): the columns
                  // inside the result of each grid row it touches, in
                  // power-of-two pieces through the vector form, so that the
                  // epilogue is not computed lane by lane.
                  auto bySegments = [&] {
                    Value *y0 = idiv(j0, grid.wq);
                    for (int64_t k = 0; k <= (L - 1) / grid.wq + 1; ++k) {
                      Value *yy = iadd(y0, k);
                      Value *rowAt = imul(yy, grid.wq);
                      Value *from = imax(imax(j0, rowAt), firstCol);
                      Value *to = imin(iadd(j0, L), iadd(rowAt, w.outW));
                      Value *count = imax(isub(to, from), index(0));
                      count = b.CreateSelect(icmp(CmpOp::LT, yy, index(w.outH)), count, index(0));
                      LocalVar done = localVar(DType::Int64, index(0));
                      for (int64_t piece = L / 2; piece >= 1; piece /= 2)
                        ifThen(icmp(CmpOp::NE, b.CreateAnd(count, index(piece)), index(0)), [&] {
                          Value *j = iadd(from, get(done));
                          Value *xx = isub(j, rowAt);
                          Value *lane = iadd(at, isub(j, j0));
                          if (piece == 1) {
                            Value *i = iadd(imul(iadd(imul(imgIn, w.outH), yy), w.outW), xx);
                            c.store(gIn, i, o, cast(load(F32, tileBuf, lane), F32, storeAs));
                          } else {
                            auto *pt = FixedVectorType::get(f32, unsigned(piece));
                            Value *part = b.CreateAlignedLoad(
                                pt, b.CreateInBoundsGEP(f32, tileBuf, lane), Align(4));
                            Value *ch = iadd(imul(gIn, c.n), o);
                            Value *off = linearOffset(
                                {imgIn, ch, yy, xx},
                                {w.resultStride[0], w.resultStride[1], w.resultStride[2], 1});
                            if (hasEpilogue(w.resultBuffer))
                              part = applyVectorEpilogue(off, {imgIn, ch, yy, xx}, part);
                            b.CreateAlignedStore(
                                part, b.CreateInBoundsGEP(f32, buffer(w.resultBuffer), off),
                                Align(4));
                          }
                          set(done, iadd(get(done), piece));
                        });
                    }
                  };
                  // With AVX-512, a vector that rows cut whose lanes stay
                  // inside the channel's plane: its lanes inside the result
                  // packed together (vcompressps), which lie in one run of
                  // the result when the epilogue reads rows as one run, then
                  // one epilogue and one masked store.
                  if (!packCutVectors)
                    return bySegments();
                  {
                    // Each lane's grid column and row (int32; no division:
                    // the column wraps at most (L - 1) / wq + 1 times).
                    auto *i32v = FixedVectorType::get(b.getInt32Ty(), unsigned(L));
                    SmallVector<Constant *, 16> iota;
                    for (int64_t l = 0; l < L; ++l)
                      iota.push_back(b.getInt32(uint32_t(l)));
                    auto splat32 = [&](Value *v) {
                      return b.CreateVectorSplat(unsigned(L), b.CreateTrunc(v, b.getInt32Ty()));
                    };
                    Value *lanes = ConstantVector::get(iota);
                    Value *xv = b.CreateAdd(splat32(x0), lanes), *yv = splat32(y);
                    Value *wqv = ConstantInt::get(i32v, uint64_t(grid.wq));
                    for (int64_t k = 0; k <= (L - 1) / grid.wq; ++k) {
                      Value *wraps = b.CreateICmpSGE(xv, wqv);
                      xv = b.CreateSelect(wraps, b.CreateSub(xv, wqv), xv);
                      yv = b.CreateAdd(yv, b.CreateZExt(wraps, i32v));
                    }
                    Value *jv = b.CreateAdd(splat32(j0), lanes);
                    Value *in = b.CreateAnd(
                        b.CreateAnd(b.CreateICmpSLT(xv, ConstantInt::get(i32v, uint64_t(w.outW))),
                                    b.CreateICmpSLT(yv, ConstantInt::get(i32v, uint64_t(w.outH)))),
                        b.CreateICmpSGE(jv, splat32(firstCol)));
                    Value *bits =
                        b.CreateZExt(b.CreateBitCast(in, b.getIntNTy(unsigned(L))), b.getInt64Ty());
                    Value *count = b.CreateUnaryIntrinsic(Intrinsic::ctpop, bits);
                    // The first lane inside, and its pixel.
                    Value *jf =
                        iadd(j0, b.CreateBinaryIntrinsic(Intrinsic::cttz, bits, b.getTrue()));
                    Value *yf = idiv(jf, grid.wq);
                    Value *xf = isub(jf, imul(yf, grid.wq));
                    Value *pixel = iadd(imul(yf, w.outW), xf);
                    Value *fits = icmp(CmpOp::LE, iadd(pixel, L), index(w.outH * w.outW));
                    ifThen(logicalAnd(icmp(CmpOp::NE, count, index(0)), logicalNot(fits)),
                           bySegments);
                    ifThen(logicalAnd(icmp(CmpOp::NE, count, index(0)), fits), [&] {
                      Value *packed =
                          b.CreateIntrinsic(Intrinsic::x86_avx512_mask_compress, {vecTy},
                                            {sum, PoisonValue::get(vecTy), in});
                      Value *ch = iadd(imul(gIn, c.n), o);
                      Value *off =
                          linearOffset({imgIn, ch, yf, xf}, {w.resultStride[0], w.resultStride[1],
                                                             w.resultStride[2], 1});
                      if (hasEpilogue(w.resultBuffer))
                        packed = applyVectorEpilogue(off, {imgIn, ch, yf, xf}, packed);
                      Value *first = b.CreateICmpULT(lanes, splat32(count));
                      b.CreateMaskedStore(packed,
                                          b.CreateInBoundsGEP(f32, buffer(w.resultBuffer), off),
                                          Align(4), first);
                    });
                  }
                });
              };
              if (!vectors)
                return rowLoop(byLanes);
              ifThen(whole, [&] { rowLoop(wholeRows); });
              ifThen(logicalNot(whole), [&] { rowLoop(cutRows); });
            });
          };
          io.aPanel = aPanel;
          if (weightsInPlace) {
            io.aStrideK = 1;
            io.aStrideRow = rowStride;
          }
          io.bVector = bVector;
          io.store = storeTile;
          gemmTile(g, K, t, csIn, io);
        });
  };

  auto oneGroup = [&](const Buffers &x, Value *grp, ArrayRef<Value *> images) {
    // 2. The weights of group grp: A(q*MR + r, k) = B(grp, q*MR + r, k).
    if (!weightsInPlace)
      packPanels(c.type, c.n, MR, K, c.loadB, nullptr, x.ap, grp);
    auto oneImage = [&](Value *img) {
      if (!direct)
        copyInput(x.in, grp, img);
      computeTiles(x.ap, x.in, x.cs, grp, img);
    };
    if (!images.empty())
      return oneImage(images[0]);
    forRange(0, w.images, oneImage);
  };

  // Small groups (ResNeXt's) run one (group, image) per parallel iteration.
  // Where the buffers cannot be allocated, the default loop nest.
  constexpr int64_t kUnitParallelWork = int64_t(1) << 23;
  const int64_t units = c.batch * w.images;
  if (units > 1 && 2 * c.n * grid.cols * K < kUnitParallelWork) {
    parallelForCaptured(units, 2 * c.n * grid.cols * K, {}, [&](Value *u, ArrayRef<Value *>) {
      allowVectorWidth(L);
      Value *grp = idiv(u, w.images), *img = irem(u, w.images);
      Buffers x = allocate();
      ifThen(x.ok, [&] { oneGroup(x, grp, {img}); });
      // Else this unit's part of the default loop nest: its group, its
      // image's rows of C.
      ifThen(b.CreateNot(x.ok),
             [&] { contractionLoopSlice(c, grp, imul(img, w.outH * w.outW), w.outH * w.outW); });
      release(x);
    });
    return;
  }
  Buffers x = allocate();
  ifThen(b.CreateNot(x.ok), [&] { contractionLoop(c, F32); });
  ifThen(x.ok, [&] { forRange(0, c.batch, [&](Value *grp) { oneGroup(x, grp, {}); }); });
  release(x);
}

} // namespace hx
