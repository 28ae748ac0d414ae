//===- CPUKernelBuilder.h - KernelBuilder for the host CPU ------*- C++ -*-===//
//
// Private to lib/Targets/CPU. Emits one kernel function
//
//   void @name(ptr %buffers, ptr %launch)
//
// and maps the target hooks of KernelBuilder to the CPU:
//  - parallelFor outlines its body into an internal function
//      void @name.parN(ptr %closure, i64 %begin, i64 %end)
//    (the closure is the kernel's buffer array: shapes are static, so the
//    body needs nothing else) and calls the runtime's
//      hx_parallel_for(%launch, @name.parN, %buffers, extent)
//    Loops below `minParallelWork` estimated operations, and loops nested in
//    another parallel loop, run inline instead;
//  - float32 exp, log, tanh and erf are polynomials written out in the kernel
//    (VectorMath.cpp), so that loops over them vectorize; the other math
//    functions, and float64's, are LLVM intrinsics (log, sqrt, pow, floor,
//    roundeven, sin, cos, ...) or libm (tanh, erf, tan, the inverse and
//    hyperbolic functions; one call per lane of a vector, as a fused
//    epilogue's vector form computes), resolved from the process by the
//    JIT;
//  - scratch arrays live on the stack up to 64 KiB, else on the heap
//    (malloc/free; when malloc fails the body is skipped);
//  - float sums accumulate in double, except sums of products
//    (contractions, productAccumulatorType): float32 and float16 products
//    accumulate in float32, as every BLAS does;
//  - contraction() is a packed GEMM (PackedGemm.cpp) where the shape pays
//    for packing, a convolution's output channels times its pixels over a
//    copy of its input (WindowGemm.cpp) where that pays, else the default
//    loop nest.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TARGETS_CPU_CPUKERNELBUILDER_H
#define HX_LIB_TARGETS_CPU_CPUKERNELBUILDER_H

#include "hx/CodeGen/KernelBuilder.h"
#include <string>

namespace hx {

/// What the packed GEMM is shaped by: the vector unit the code is compiled
/// for and the host's data caches (bytes; 0 where the host does not say).
struct CPUMachineInfo {
  /// float32 lanes of one vector register (4 SSE, 8 AVX, 16 AVX-512) and
  /// how many such registers there are.
  unsigned lanes = 4;
  unsigned registers = 16;
  /// Whether fused multiply-add is native (else llvm.fmuladd becomes a
  /// multiply and an add).
  bool fma = false;
  int64_t l1 = 0, l2 = 0, l3 = 0;
};

class CPUKernelBuilder : public KernelBuilder {
public:
  /// Creates the kernel function `name` in `m` and positions the builder in
  /// its entry block.
  CPUKernelBuilder(llvm::Module &m, llvm::StringRef name, unsigned numBuffers,
                   int64_t minParallelWork, const CPUMachineInfo &machine = {});

  /// Terminates the kernel function.
  void finish();
  /// Deletes every function this builder created (after an error).
  void discard();
  /// The kernel function and the outlined parallel bodies.
  llvm::ArrayRef<llvm::Function *> functions() const { return fns; }

  llvm::StringRef targetName() const override { return "CPU"; }
  void parallelFor(int64_t extent, int64_t workPerIteration, LoopBody body) override;
  Value *math(MathFn fn, DType t, llvm::ArrayRef<Value *> args) override;
  Value *sigmoid(DType t, Value *x) override;
  Value *max(DType t, Value *a, Value *c) override;
  Value *min(DType t, Value *a, Value *c) override;
  void withScratch(DType t, int64_t count, llvm::function_ref<void(Value *ptr)> body) override;
  /// Emits `emit`'s code, and where it has at least minOutlinedHeavyOps
  /// floating-point multiplies, divides or calls, moves it into a function
  /// of its own, called where it stands (`name`.`suffix`N, never inlined),
  /// whose parameters are the values of the calling function it uses. A
  /// GEMM's store of a finished tile goes there when its epilogue is heavy
  /// (a sigmoid, an erf): the epilogue's constants and temporaries then do
  /// not compete for the registers of the micro-kernel's loop around it.
  void outlined(llvm::StringRef suffix, llvm::function_ref<void()> emit) override;
  static constexpr int64_t minOutlinedHeavyOps = 8;
  DType accumulatorType(DType t) const override;
  DType productAccumulatorType(DType t) const override;
  void contraction(const Contraction &c) override;
  /// The shapes the packed GEMM takes.
  unsigned vectorLanes(DType t) const override { return t == DType::Float32 ? machine.lanes : 1; }
  bool tilesContraction(const Contraction &c) const override {
    return channelGemmPays(c) || windowGemmPays(c) || packedGemmPays(c);
  }

  bool readsBuildTimeValues() const override { return true; }

  /// Bytes of scratch above which withScratch uses the heap.
  static constexpr int64_t kMaxStackScratch = 64 * 1024;

private:
  /// A parallelFor whose body also receives `captured` (values of the
  /// calling function: pointers and int64s), passed through a closure on
  /// the caller's stack: [buffer pointers..., captured...].
  using CapturedBody = llvm::function_ref<void(Value *i, llvm::ArrayRef<Value *> captured)>;
  void parallelForCaptured(int64_t extent, int64_t workPerIteration,
                           llvm::ArrayRef<Value *> captured, CapturedBody body);
  /// PackedGemm.cpp: the BLIS structure shared by both GEMMs.
  struct GemmBlocking {
    /// Vector lanes, rows and columns of the micro-tile (NR a multiple of
    /// lanes), the k block and the number of them, the rows and columns of
    /// one parallel tile, and m and n rounded up to MR and NR.
    int64_t lanes, mr, nr, kc, numKc, mc, nct, mPad, nPad;
    int64_t numMb() const { return (mPad + mc - 1) / mc; }
    int64_t numNb() const { return (nPad + nct - 1) / nct; }
    int64_t numTiles() const { return numMb() * numNb(); }
  };
  GemmBlocking gemmBlocking(int64_t m, int64_t n, int64_t depth, int64_t mr, int64_t nr) const;
  /// Packs panels of R rows (rows < extent, each element load(batch, row, k),
  /// zeroed where inside is false) into buf: panel q holds row q*R + r at
  /// buf[q*R*K + k*R + r], 0 past extent. One parallel iteration per panel.
  using ElementFn = llvm::function_ref<Value *(Value *b, Value *row, Value *k)>;
  void packPanels(DType t, int64_t extent, int64_t R, int64_t K, ElementFn load, ElementFn inside,
                  Value *buf, Value *batch);
  /// Where one tile's operands come from and where its sums go.
  struct TileIO {
    /// Row panel q of A from k = kBegin on, where element (r, k) lies at
    /// k * aStrideK + r * aStrideRow (packed: MR and 1).
    llvm::function_ref<Value *(Value *q, Value *kBegin)> aPanel;
    int64_t aStrideK = 0, aStrideRow = 1;
    /// Vector v (lanes v*L ..) of the NR columns of column panel p at
    /// k = kBegin + k.
    llvm::function_ref<Value *(Value *p, Value *kBegin, Value *k, int64_t v)> bVector;
    /// The finished MR x NR sums of row panel q and column panel p, at
    /// `tile` (MR rows of NR floats, on the stack).
    llvm::function_ref<void(Value *q, Value *p, Value *tile)> store;
    /// The rows of A's last row panel where it holds fewer than MR (A need
    /// not extend past them: they alone are computed, the tile's other
    /// rows are 0); 0: every panel runs MR rows.
    int64_t lastPanelRows = 0;
    /// Prefetches row kBegin + k of column panel p's B (the NR floats that
    /// bVector reads there), where B comes from memory once per tile;
    /// null: none. gemmTile asks for the next column panel of the block,
    /// past the tile's last for the first of the next block along k.
    llvm::function_ref<void(Value *p, Value *kBegin, Value *k)> prefetchB;
    /// Where given, row 0 of row panel q at k = kBegin + k (row r aStrideRow
    /// further), in place of aPanel: A's rows at offsets that k does not
    /// step evenly (a convolution's input, per kernel position).
    llvm::function_ref<Value *(Value *q, Value *kBegin, Value *k)> aAt;
  };
  /// Tile t (of g.numTiles()): for each k block, each column panel, each
  /// row panel, the micro-kernel; partial sums between k blocks in tile t's
  /// MC x NCT floats of `partials` (unused with one k block).
  void gemmTile(const GemmBlocking &g, int64_t K, Value *t, Value *partials, const TileIO &io);
  /// The register micro-kernel: the MR x NR sums over k < kLen of
  /// aPanel[k*aStrideK + r*aStrideRow] (or aRow(k)[r*aStrideRow]) *
  /// bVector(k, v)[l], as MR * NR/L vectors of L floats; perStep(k), where
  /// given, runs first in each step.
  llvm::SmallVector<Value *, 32>
  microKernel(Value *aPanel, int64_t aStrideK, int64_t aStrideRow, Value *kLen, int64_t MR,
              int64_t NR, int64_t L, llvm::function_ref<Value *(Value *k, int64_t v)> bVector,
              llvm::function_ref<void(Value *k)> perStep = nullptr,
              llvm::function_ref<Value *(Value *k)> aRow = nullptr);
  /// The default loop nest (float32 sums) over one slice of c: batch
  /// index `bi`, rows [rowBase, rowBase + rows) of C; the fallback of a
  /// parallel iteration whose packed buffers could not be allocated.
  void contractionLoopSlice(const Contraction &c, Value *bi, Value *rowBase, int64_t rows);
  /// Lets the function being emitted use vectors of `lanes` floats.
  void allowVectorWidth(int64_t lanes);
  /// aligned_alloc of `floats` float32s, 64-byte aligned; free.
  Value *allocFloats(Value *floats);
  void freeBuffer(Value *p);
  bool packedGemmPays(const Contraction &c) const;
  void packedGemm(const Contraction &c);
  /// VectorMath.cpp: float32 exp, log, tanh, erf and sigmoid as straight-line code over
  /// scalars or vectors (no calls, so loops over them vectorize).
  Value *expF32(Value *x);
  Value *logF32(Value *x);
  Value *tanhF32(Value *x);
  Value *erfF32(Value *x);
  Value *sigmoidF32(Value *x);
  /// B's values (Contraction::bValues) in NR-column panels as the packed
  /// GEMM reads them (batch bi's panel p at (bi * nPad + p * NR) * K,
  /// k * NR + lane within it; columns past n are 0), a constant of the
  /// kernel's code named after it plus `suffix`.
  llvm::GlobalVariable *packBuildTimeB(const Contraction &c, const GemmBlocking &g,
                                       llvm::StringRef suffix);
  /// Writes `width` floats at dst: element xq is src[xq * stride] where lo
  /// <= xq < hi (a masked load: nothing else is read), else 0; in vectors
  /// of the machine's lanes, the last store masked at `width`. A plane row
  /// of a convolution's copy of its input, padding written out.
  void copyRowMasked(Value *dst, Value *src, Value *lo, Value *hi, int64_t width, int64_t stride);
  /// Prefetches the `floats` floats at base + at (a row of a packed panel
  /// of B), one prefetch per cache line, for reading soon.
  void prefetchPanelRow(Value *base, Value *at, int64_t floats);
  /// ChannelGemm.cpp: convolutions of stride 1 over small maps (1x1 over at
  /// most 256 pixels, windowed over rows 9 to 28 wide) with their output
  /// channels in the lanes, their weights packed when the kernel is built.
  bool channelGemmPays(const Contraction &c) const;
  void channelGemm(const Contraction &c);
  /// WindowGemm.cpp: a convolution with its output channels as the rows.
  bool windowGemmPays(const Contraction &c) const;
  void windowGemm(const Contraction &c);

  std::string name;
  CPUMachineInfo machine;
  int64_t minParallelWork;
  llvm::Function *kernel = nullptr;
  llvm::SmallVector<llvm::Function *, 4> fns;
  unsigned parallelDepth = 0;
};

} // namespace hx

#endif
