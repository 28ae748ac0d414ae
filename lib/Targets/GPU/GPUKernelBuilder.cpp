//===- GPUKernelBuilder.cpp - KernelBuilder for NVIDIA GPUs ---------------===//
//
// See GPUKernelBuilder.h for the mapping. The kernel's entry block holds
// only allocas and a branch to its body, so that finish() can turn the
// branch into "thread 0 of block 0 only" when no parallel loop was emitted.
//
// The tiled contraction, in its largest shape. Each block computes a
// 128 x 128 tile of C from 8-deep slices of A and B staged in shared
// memory; each of its 256 threads keeps an 8 x 8 block of sums in
// registers. The 8 warps tile C as 4 x 2
// warp tiles of 32 x 64, and a warp's lanes as 4 x 8 threads: lane (lr, lc)
// of warp (wm, wn) owns rows wm*32 + lr*8 + 0..7 and the columns
// wn*64 + lc*4 + 0..3 and wn*64 + 32 + lc*4 + 0..3:
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
//    16 bytes longer than the tile put those 32 stores in 32 distinct banks
//    (unpadded: 4 banks, 8 ways each, for float32) and keep every row
//    16-byte aligned;
//  - each thread's rows and columns are addressed from one base pointer
//    with constant offsets, so the backend merges them into 16-byte loads.
//
// That is the largest of three tile shapes (kTiles). A contraction whose
// 128 x 128 tiles would leave the grid short of kTargetBlocks (256: two per
// multiprocessor of an H100 or H200) takes 64 x 64 tiles (4 x 4 sums per
// thread, 16 x 32 warp tiles, rows of 64 + 4 floats, one 16-byte load of As
// and one of Bs per k), or, still short, 32 x 32 (2 x 2 sums, 8 x 16 warp
// tiles, rows of 32 + 4 floats, 8-byte loads). Batch-1 convolutions are
// such contractions: ResNet's last ones have 49 x 512 outputs, 4 blocks of
// 128 x 128 but 32 of 32 x 32. The smaller shapes keep the layout's
// properties (the staging stores' banks, aligned rows, one base pointer),
// hold fewer sums, and ask ptxas for three and four blocks per
// multiprocessor instead of two.
//
// Shapes too small for a tile (m or n below 32) use the untiled default.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelBuilder.h"
#include "hx/Targets/GPU/GPUCompiler.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hx {

GPUKernelBuilder::GPUKernelBuilder(Module &m, StringRef kernelName, unsigned numBuffers,
                                   bool emulate)
    : KernelBuilder(m, numBuffers), name(kernelName.str()), emulate(emulate) {
  LLVMContext &ctx = m.getContext();
  SmallVector<llvm::Type *, 8> params(numBuffers, PointerType::getUnqual(ctx));
  auto *fnTy = FunctionType::get(llvm::Type::getVoidTy(ctx), params, false);
  kernel = llvm::Function::Create(fnTy, GlobalValue::ExternalLinkage, name, m);
  if (!emulate)
    kernel->setCallingConv(CallingConv::PTX_Kernel);
  kernel->setDoesNotThrow();
  SmallVector<Value *, 8> args;
  for (unsigned i = 0; i < numBuffers; ++i) {
    kernel->getArg(i)->setName("buf" + Twine(i));
    args.push_back(kernel->getArg(i));
  }
  beginFunction(kernel, args);
  body = BasicBlock::Create(ctx, "body", kernel);
  b.CreateBr(body);
  b.SetInsertPoint(body);
}

void GPUKernelBuilder::finish() {
  b.CreateRetVoid();
  if (sawParallel)
    return;
  // No parallel loop: one thread does the work.
  BasicBlock *entry = &kernel->getEntryBlock();
  entry->getTerminator()->eraseFromParent();
  BasicBlock *exit = BasicBlock::Create(module.getContext(), "idle", kernel);
  IRBuilder<> eb(exit);
  eb.CreateRetVoid();
  b.SetInsertPoint(entry);
  Value *first = b.CreateICmpEQ(b.CreateAdd(threadIndex(), blockIndex()), index(0));
  b.CreateCondBr(first, body, exit);
}

void GPUKernelBuilder::discard() {
  if (kernel) {
    kernel->dropAllReferences();
    kernel->eraseFromParent();
    kernel = nullptr;
  }
  for (GlobalVariable *g : shared)
    g->eraseFromParent();
  shared.clear();
}

/// The emulator's state: i32 [tid.x, ctaid.x, nctaid.x, reserved].
static GlobalVariable *simtState(Module &m) {
  auto *ty = ArrayType::get(llvm::Type::getInt32Ty(m.getContext()), 4);
  return cast<GlobalVariable>(m.getOrInsertGlobal("hx_simt_state", ty));
}

Value *GPUKernelBuilder::specialRegister(Intrinsic::ID id, unsigned emulatedSlot) {
  Value *r;
  if (emulate) {
    GlobalVariable *state = simtState(module);
    r = b.CreateLoad(b.getInt32Ty(),
                     b.CreateConstInBoundsGEP2_32(state->getValueType(), state, 0, emulatedSlot));
  } else {
    r = b.CreateIntrinsic(id, {}, {});
  }
  return b.CreateZExt(r, b.getInt64Ty());
}

Value *GPUKernelBuilder::accessAddress(DType t, Value *ptr, Value *offset, Value *addr,
                                       bool write) {
  if (!emulate)
    return addr;
  unsigned buf = 0;
  while (buf < numBuffers() && buffer(buf) != ptr)
    ++buf;
  if (buf == numBuffers()) // shared memory or a scratch array
    return addr;
  LLVMContext &ctx = module.getContext();
  llvm::Type *ptrTy = PointerType::getUnqual(ctx), *i64 = b.getInt64Ty();
  auto *sizesVar = llvm::cast<GlobalVariable>(module.getOrInsertGlobal("hx_simt_sizes", ptrTy));
  Value *sizes = b.CreateLoad(ptrTy, sizesVar);
  Value *limit = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, sizes, buf));
  int64_t bytes = dtypeBytes(t);
  Value *byte = b.CreateMul(offset, index(bytes));
  // Unsigned: a negative offset is beyond too.
  Value *inside = b.CreateICmpULE(b.CreateAdd(byte, index(bytes)), limit);
  ifThen(b.CreateNot(inside), [&] {
    FunctionCallee fault = module.getOrInsertFunction("hx_simt_fault", llvm::Type::getVoidTy(ctx),
                                                      ptrTy, b.getInt32Ty(), i64, b.getInt1Ty());
    b.CreateCall(fault, {simtState(module), b.getInt32(buf), byte, b.getInt1(write)});
  });
  auto *sinkTy = ArrayType::get(b.getInt8Ty(), 16);
  Value *sink = module.getOrInsertGlobal("hx_simt_sink", sinkTy);
  return b.CreateSelect(inside, addr, sink);
}

Value *GPUKernelBuilder::threadIndex() {
  return specialRegister(Intrinsic::nvvm_read_ptx_sreg_tid_x, 0);
}

Value *GPUKernelBuilder::blockIndex() {
  return specialRegister(Intrinsic::nvvm_read_ptx_sreg_ctaid_x, 1);
}

Value *GPUKernelBuilder::gridSize() {
  return specialRegister(Intrinsic::nvvm_read_ptx_sreg_nctaid_x, 2);
}

void GPUKernelBuilder::barrier() {
  unsigned site = barriers++;
  if (!emulate) {
    b.CreateIntrinsic(Intrinsic::nvvm_barrier0, {}, {});
    return;
  }
  // An opaque call: the optimizer keeps shared-memory accesses on their side.
  LLVMContext &ctx = module.getContext();
  FunctionCallee f = module.getOrInsertFunction("hx_simt_barrier", llvm::Type::getVoidTy(ctx),
                                                PointerType::getUnqual(ctx), b.getInt32Ty());
  b.CreateCall(f, {simtState(module), b.getInt32(site)});
}

void GPUKernelBuilder::wantBlocks(int64_t blocks) {
  grid = std::max<unsigned>(grid, unsigned(std::clamp<int64_t>(blocks, 1, kMaxGrid)));
}

GlobalVariable *GPUKernelBuilder::sharedArray(DType t, int64_t count, StringRef suffix) {
  auto *ty = ArrayType::get(memoryType(t), uint64_t(count));
  // Emulated: external, so that the barrier call may touch it.
  auto *g = new GlobalVariable(
      module, ty, /*isConstant=*/false,
      emulate ? GlobalValue::ExternalLinkage : GlobalValue::InternalLinkage,
      emulate ? llvm::Constant::getNullValue(ty) : UndefValue::get(ty), name + "." + suffix,
      nullptr, GlobalValue::NotThreadLocal, /*AddressSpace=*/emulate ? 0 : 3);
  g->setAlignment(Align(16));
  shared.push_back(g);
  return g;
}

void GPUKernelBuilder::parallelFor(int64_t extent, int64_t workPerIteration, LoopBody loop) {
  if (extent <= 0)
    return;
  if (parallelDepth > 0) {
    forRange(0, extent, loop);
    return;
  }
  sawParallel = true;
  constexpr int64_t block = GPUCompiler::kBlockDim;
  wantBlocks((extent + block - 1) / block);
  Value *start = iadd(imul(blockIndex(), block), threadIndex());
  Value *stride = imul(gridSize(), block);
  ++parallelDepth;
  forRange(start, index(extent), stride, loop);
  --parallelDepth;
}

Value *GPUKernelBuilder::math(MathFn fn, DType t, ArrayRef<Value *> args) {
  bool f32 = valueDType(t) == DType::Float32; // float16 computes in float32
  StringRef callee;
  switch (fn) {
  case MathFn::Sqrt:
    return b.CreateUnaryIntrinsic(Intrinsic::sqrt, args[0]);
  case MathFn::Floor:
    return b.CreateUnaryIntrinsic(Intrinsic::floor, args[0]);
  case MathFn::Ceil:
    return b.CreateUnaryIntrinsic(Intrinsic::ceil, args[0]);
  case MathFn::Round:
    return b.CreateUnaryIntrinsic(Intrinsic::round, args[0]);
  case MathFn::Exp:
    callee = f32 ? "__nv_expf" : "__nv_exp";
    break;
  case MathFn::Log:
    callee = f32 ? "__nv_logf" : "__nv_log";
    break;
  case MathFn::Tanh:
    callee = f32 ? "__nv_tanhf" : "__nv_tanh";
    break;
  case MathFn::Pow:
    callee = f32 ? "__nv_powf" : "__nv_pow";
    break;
  case MathFn::Erf:
    callee = f32 ? "__nv_erff" : "__nv_erf";
    break;
  }
  if (emulate) // the host's libm: expf for __nv_expf
    callee.consume_front("__nv_");
  llvm::Type *ty = registerType(t);
  SmallVector<llvm::Type *, 2> params(args.size(), ty);
  FunctionCallee f = module.getOrInsertFunction(callee, FunctionType::get(ty, params, false));
  if (auto *decl = dyn_cast<llvm::Function>(f.getCallee())) {
    decl->setDoesNotThrow();
    decl->setDoesNotAccessMemory();
    decl->setWillReturn();
  }
  CallInst *call = b.CreateCall(f, args);
  call->setDoesNotAccessMemory();
  return call;
}

void GPUKernelBuilder::withScratch(DType t, int64_t count, function_ref<void(Value *)> use) {
  count = std::max<int64_t>(count, 1);
  if (count * int64_t(dtypeBytes(t)) > kMaxScratchBytes) {
    err = "a scratch array of " + std::to_string(count * int64_t(dtypeBytes(t))) +
          " bytes per thread (the limit is " + std::to_string(kMaxScratchBytes) + ")";
    count = 1;
  }
  use(entryAlloca(ArrayType::get(memoryType(t), uint64_t(count))));
}

Value *GPUKernelBuilder::multiplyAdd(DType t, Value *x, Value *y, Value *z) {
  if (isFloat(t)) // fused where the hardware has it (fma.rn)
    return b.CreateIntrinsic(Intrinsic::fmuladd, {registerType(t)}, {x, y, z});
  return add(t, mul(t, x, y), z);
}

namespace {
// A warp's lanes as kLaneRows x kLaneCols threads.
constexpr int64_t kWarp = 32, kLaneRows = 4, kLaneCols = 8;
static_assert(kLaneRows * kLaneCols == kWarp, "a warp of lanes");

/// What the contraction below needs of a tile shape.
constexpr bool validTiles(const GPUKernelBuilder::Tiles &t) {
  int64_t warpTileM = kLaneRows * t.threadM, warpTileN = kLaneCols * t.threadN;
  return t.tileM == t.tileN &&                                   // one row stride for both tiles
         t.tileM % warpTileM == 0 && t.tileN % warpTileN == 0 && // whole warp tiles
         (t.tileM / warpTileM) * (t.tileN / warpTileN) * kWarp ==
             GPUCompiler::kBlockDim && // one sum block per thread
         t.tileM * GPUKernelBuilder::kTileK % GPUCompiler::kBlockDim == 0 && // whole slices
         t.threadN % t.columnGroup == 0;                                     // whole column groups
}
static_assert(validTiles(GPUKernelBuilder::kTiles[0]) && validTiles(GPUKernelBuilder::kTiles[1]) &&
                  validTiles(GPUKernelBuilder::kTiles[2]),
              "tile shapes the contraction can run");
} // namespace

const GPUKernelBuilder::Tiles &GPUKernelBuilder::tilesFor(int64_t batch, int64_t m, int64_t n) {
  for (const Tiles &t : kTiles)
    if (batch * ((m + t.tileM - 1) / t.tileM) * ((n + t.tileN - 1) / t.tileN) >= kTargetBlocks)
      return t;
  return kTiles[std::size(kTiles) - 1];
}

void GPUKernelBuilder::contraction(const Contraction &c) {
  if (c.batch * c.m * c.n == 0)
    return;
  if (parallelDepth > 0 || c.m < 32 || c.n < 32 || c.depth < 1) {
    KernelBuilder::contraction(c);
    return;
  }
  constexpr int64_t threads = GPUCompiler::kBlockDim, warp = kWarp;
  // A thread's columns: threadN / columnGroup groups of columnGroup, a
  // warp's width apart.
  const Tiles &t = tilesFor(c.batch, c.m, c.n);
  blocksPerSM = blocksPerSM ? std::min(blocksPerSM, t.blocksPerSM) : t.blocksPerSM;
  const int64_t tileM = t.tileM, tileN = t.tileN, threadM = t.threadM, threadN = t.threadN,
                columnGroup = t.columnGroup;
  const int64_t warpTileM = kLaneRows * threadM, warpTileN = kLaneCols * threadN;
  const int64_t warpsN = tileN / warpTileN; // validTiles holds for t
  sawParallel = true;
  // Tiles hold and sum the operands' dtype; the store gets the accumulator's.
  DType acc = isFloat(c.type) ? c.type : accumulatorType(c.type);
  DType storeType = accumulatorType(c.type);
  llvm::Type *accTy = memoryType(acc);
  // Elements per k-row of As and Bs: the tile and kPadBytes.
  int64_t rowStride = tileM + kPadBytes / int64_t(dtypeBytes(acc));
  int64_t tilesM = (c.m + tileM - 1) / tileM, tilesN = (c.n + tileN - 1) / tileN;
  int64_t tiles = c.batch * tilesM * tilesN;
  wantBlocks(tiles);
  GlobalVariable *as = sharedArray(acc, kTileK * rowStride, "A");
  GlobalVariable *bs = sharedArray(acc, kTileK * rowStride, "B");

  ++parallelDepth;
  forRange(blockIndex(), index(tiles), gridSize(), [&](Value *tile) {
    Value *tid = threadIndex();
    Value *lane = irem(tid, warp), *w = idiv(tid, warp);
    Value *lr = idiv(lane, kLaneCols), *lc = irem(lane, kLaneCols);
    // The first row and column this thread owns within the tile.
    Value *row = iadd(imul(idiv(w, warpsN), warpTileM), imul(lr, threadM));
    Value *col = iadd(imul(irem(w, warpsN), warpTileN), imul(lc, columnGroup));
    // Column q of the thread's block, from `col`: groups a warp's width apart.
    auto columnOf = [&](int64_t q) {
      return (q / columnGroup) * (kLaneCols * columnGroup) + q % columnGroup;
    };
    SmallVector<Value *, 4> t3 = unflatten(tile, {c.batch, tilesM, tilesN});
    Value *batch = t3[0], *m0 = imul(t3[1], tileM), *n0 = imul(t3[2], tileN);
    SmallVector<LocalVar, 64> sums;
    for (int64_t s = 0; s < threadM * threadN; ++s)
      sums.push_back(localVar(acc, constant(acc, 0)));
    Value *aRow = b.CreateInBoundsGEP(accTy, as, row);
    Value *bCol = b.CreateInBoundsGEP(accTy, bs, col);

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
        s.regs.push_back(localVar(c.type, constant(c.type, 0)));
        if (inside)
          s.masks.push_back(localVar(DType::Bool, constant(DType::Bool, 0)));
      }
      return s;
    };
    auto element = [&](const Slice &s, int64_t r, Value *k0) {
      Value *e = iadd(tid, r * threads);
      Value *il = idiv(e, kTileK), *kl = irem(e, kTileK);
      return std::make_tuple(il, kl, iadd(s.origin, il), iadd(k0, kl));
    };
    auto fetch = [&](const Slice &s, Value *k0) {
      for (int64_t r = 0; r < kPerThread; ++r) {
        auto [il, kl, i, k] = element(s, r, k0);
        Value *ic = imin(i, index(s.extent - 1)), *kc = imin(k, index(c.depth - 1));
        set(s.regs[r], s.load(batch, ic, kc));
        if (s.inside)
          set(s.masks[r], s.inside(batch, ic, kc));
      }
    };
    auto commit = [&](const Slice &s, Value *k0) {
      for (int64_t r = 0; r < kPerThread; ++r) {
        auto [il, kl, i, k] = element(s, r, k0);
        Value *inside =
            logicalAnd(icmp(CmpOp::LT, i, index(s.extent)), icmp(CmpOp::LT, k, index(c.depth)));
        if (s.inside)
          inside = logicalAnd(inside, get(s.masks[r]));
        Value *v = select(inside, cast(get(s.regs[r]), c.type, acc), constant(acc, 0));
        store(acc, s.dst, iadd(imul(kl, rowStride), il), v);
      }
    };
    Slice sa = slice(c.m, m0, c.loadA, c.insideA, as), sb = slice(c.n, n0, c.loadB, nullptr, bs);
    fetch(sa, index(0));
    fetch(sb, index(0));
    forRange(index(0), index(c.depth), index(kTileK), [&](Value *k0) {
      commit(sa, k0);
      commit(sb, k0);
      barrier();
      // The next slice (past the end: the last one again, unused).
      Value *next = iadd(k0, kTileK);
      fetch(sa, next);
      fetch(sb, next);
      for (int64_t kl = 0; kl < kTileK; ++kl) {
        SmallVector<Value *, 8> a, wv;
        for (int64_t r = 0; r < threadM; ++r)
          a.push_back(load(acc, aRow, index(kl * rowStride + r)));
        for (int64_t q = 0; q < threadN; ++q)
          wv.push_back(load(acc, bCol, index(kl * rowStride + columnOf(q))));
        for (int64_t r = 0; r < threadM; ++r)
          for (int64_t q = 0; q < threadN; ++q) {
            const LocalVar &s = sums[r * threadN + q];
            set(s, multiplyAdd(acc, a[r], wv[q], get(s)));
          }
      }
      barrier();
    });
    for (int64_t r = 0; r < threadM; ++r)
      for (int64_t q = 0; q < threadN; ++q) {
        Value *i = iadd(m0, iadd(row, r));
        Value *j = iadd(n0, iadd(col, columnOf(q)));
        Value *inside = logicalAnd(icmp(CmpOp::LT, i, index(c.m)), icmp(CmpOp::LT, j, index(c.n)));
        ifThen(inside,
               [&] { c.store(batch, i, j, cast(get(sums[r * threadN + q]), acc, storeType)); });
      }
  });
  --parallelDepth;
}

} // namespace hx
