//===- KernelBuilder.h - Target-neutral kernel construction -----*- C++ -*-===//
//
// Every operator's math is written once, in lib/CodeGen/Ops, against this
// interface; a target only decides how loops map to its hardware.
//
// The split:
//
//   lib/CodeGen/Ops/<Family>.cpp   what a kernel computes: loop nests over the
//                                  static shapes, typed loads and stores at
//                                  computed element offsets, dtype-aware
//                                  arithmetic, named math functions, one
//                                  parallel outer loop per nest.
//   KernelBuilder (this class)     how those requests become LLVM IR that
//                                  every target shares: index arithmetic,
//                                  arithmetic and casts per dtype, serial
//                                  loops, branches, local variables.
//   a target's subclass            what differs per target: the parallel
//                                  outer loop (the CPU outlines its body and
//                                  calls the runtime's hx_parallel_for; a GPU
//                                  maps it to the grid), math functions (the
//                                  CPU uses LLVM intrinsics or libm, a GPU
//                                  libdevice), scratch memory and the float
//                                  accumulator type.
//
// Values are llvm::Value pointers whose dtype the generator tracks and passes
// back to every typed operation. In registers a dtype is its natural LLVM
// type, bool is i1; in memory bool is one byte. float16 is stored as half and
// held (and computed) in registers as float32: load() extends, store()
// rounds to nearest even, constant() gives the nearest half as a float and
// cast() to float16 rounds to half; every other typed operation treats a
// float16 value like a float32 one (valueDType). Index arithmetic is int64.
//
// Scoping rule for parallelFor: its body runs in another function on
// targets that outline it, so it may use only values it creates itself,
// constants, and buffer pointers it asks for with buffer() inside the body.
// Everything else (forRange, ifThen, local variables, scratch) is ordinary
// nested code. Two more rules make one definition right on every target:
// the parallel loops of one kernel must be independent of each other (a
// GPU runs them in one launch, with no barrier between them), and code
// outside every parallel loop must not store (a GPU may run it on every
// thread) unless the kernel has no parallel loop at all (then a GPU runs
// it on one thread).
//
//===----------------------------------------------------------------------===//
#ifndef HX_CODEGEN_KERNELBUILDER_H
#define HX_CODEGEN_KERNELBUILDER_H

#include "hx/IR/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"
#include <cstdint>
#include <functional>

namespace hx {

/// Math functions a kernel may request; each target maps them to its own
/// implementation. Floor, Ceil, Round (halves away from zero, as C's round)
/// and RoundEven (halves to even, as C's roundeven and IEEE's default) give
/// integral values in the float dtype. The trigonometric and hyperbolic
/// functions and their inverses are C's (sin, asinh, ...).
enum class MathFn : uint8_t {
  Exp,
  Log,
  Sqrt,
  Tanh,
  Pow,
  Erf,
  Floor,
  Ceil,
  Round,
  RoundEven,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh
};
llvm::StringRef mathFnName(MathFn fn);

/// Comparisons (signed for signed integers, ordered for floats; NE is
/// unordered so that NaN != NaN).
enum class CmpOp : uint8_t { EQ, NE, LT, LE, GT, GE };

class KernelBuilder {
public:
  using Value = llvm::Value;
  /// A loop body; receives the int64 induction variable.
  using LoopBody = llvm::function_ref<void(Value *i)>;

  /// A mutable scalar of one dtype (a stack slot the optimizer promotes).
  struct LocalVar {
    Value *slot = nullptr;
    DType dtype = DType::Float32;
    llvm::Type *type = nullptr; ///< a scalar of dtype, or a vector of it
  };

  virtual ~KernelBuilder();
  KernelBuilder(const KernelBuilder &) = delete;
  KernelBuilder &operator=(const KernelBuilder &) = delete;

  /// The dtype a value of `t` is held and computed in: float32 for float16,
  /// else `t` (what a target's math() names its functions after).
  static DType valueDType(DType t);
  /// A dtype whose load and store move `t`'s bits unchanged, for copies that
  /// never interpret a value: bool moves as int8, float16 as int16.
  static DType bitsDType(DType t);

  //===--- Target hooks -----------------------------------------------------===//

  /// "CPU", "CUDA": used in error messages.
  virtual llvm::StringRef targetName() const = 0;

  /// Runs body(i) for every i in [0, extent), iterations in any order and
  /// possibly concurrently. `workPerIteration` estimates the scalar
  /// operations of one iteration; a target may run small loops serially. A
  /// parallelFor nested in another runs serially.
  virtual void parallelFor(int64_t extent, int64_t workPerIteration, LoopBody body) = 0;

  /// Calls `fn(args...)` on values of dtype `t` (a float dtype).
  virtual Value *math(MathFn fn, DType t, llvm::ArrayRef<Value *> args) = 0;
  /// 1 / (1 + exp(-x)) of a float dtype, from exp by default.
  virtual Value *sigmoid(DType t, Value *x);

  /// Runs `body` with a private array of `count` elements of dtype `t` (a
  /// pointer valid inside `body` only). Its contents start undefined.
  virtual void withScratch(DType t, int64_t count, llvm::function_ref<void(Value *ptr)> body) = 0;

  /// Emits `emit`'s code where it stands, or where a target finds it heavy,
  /// in a function of its own called there (the cpu: the store of sums
  /// held in registers, whose epilogue would otherwise take them). `emit`
  /// may use any value of the calling code; it defines none used after it.
  virtual void outlined(llvm::StringRef suffix, llvm::function_ref<void()> emit) { emit(); }

  /// The dtype in which sums of `t` accumulate (the dtype itself by default).
  virtual DType accumulatorType(DType t) const { return t; }
  /// The dtype in which an operator's own loops over products of `t` sum
  /// (a depthwise convolution's): accumulatorType(t) by default; float32
  /// where the target's contraction() sums float32 in float32.
  virtual DType productAccumulatorType(DType t) const { return accumulatorType(t); }

  /// How many lanes of dtype `t` the explicit vector code of an operator's
  /// own loops should use (loadVector, storeVector, storeVectorResult): the
  /// CPU's float32 lanes; 1 (scalar code) by default, as on a GPU, whose
  /// threads are its lanes.
  virtual unsigned vectorLanes(DType t) const { return 1; }

  /// How many consecutive points of a nest's innermost dim one parallel
  /// iteration runs serially (LoopNest.h): by default enough work for the
  /// CPU's vector loops; a GPU returns 1, so that neighbouring threads touch
  /// neighbouring elements.
  virtual int64_t innerBlockLength(int64_t innerSize, int64_t workPerPoint) const;

  /// A batched matrix product, the loop nest nn.dense, nn.batch_matmul and
  /// nn.conv2d (as an implicit GEMM) share:
  ///
  ///   C(b, i, j) = sum over k of A(b, i, k) * B(b, j, k)
  ///
  /// for b < batch, i < m, j < n, k < depth, accumulated in
  /// accumulatorType(type). The operator says how to read A and B (called
  /// with in-range int64 coordinates, returning a value of `type`) and how
  /// to store each sum (given in the accumulator dtype); the target chooses
  /// the loops. The callbacks run inside the parallel region (see the
  /// scoping rule) and may be called several times per element.
  ///
  /// `insideA`, if set, says whether A(b, i, k) is an element of A or 0 (a
  /// convolution's padding): where it is false, loadA's value, which must
  /// still come from an in-bounds load, is replaced by 0. Kept apart from
  /// loadA so that a target may issue the load early and zero it late.
  ///
  /// `window`, if set, says what loadA and insideA compute when A is a
  /// convolution's input read as an implicit GEMM, so that a target may
  /// pack A with its own loops instead of one loadA per element (the values
  /// must be the same): with b the group, i = (image, y, x) over
  /// (images, outH, outW) and k = (c, r, s) over (channels, kernelH,
  /// kernelW), A(b, i, k) is
  ///   input[image, b * channels + c, y * strideH + r * dilationH - top,
  ///         x * strideW + s * dilationW - left]
  /// and 0 where the row or column falls outside [0, height) x [0, width).
  struct Window {
    unsigned buffer = 0;
    int64_t images = 0, height = 0, width = 0;
    /// Element strides of the input along image, channel, row, column.
    int64_t stride[4] = {0, 0, 0, 0};
    int64_t outH = 0, outW = 0, channels = 0, kernelH = 0, kernelW = 0;
    int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1, top = 0, left = 0;
    /// Where C(b, i, j) goes, for a target that stores vectors of sums
    /// itself: with i = (image, y, x) as above, result[image, b * n + j, y,
    /// x] at these element strides (image, channel, row, column). Set only
    /// where the operator's store is a plain float32 store of the sum, or
    /// goes through an epilogue with a vector form (a target storing
    /// vectors then applies applyVectorEpilogue); ~0u otherwise.
    unsigned resultBuffer = ~0u;
    int64_t resultStride[4] = {0, 0, 0, 0};
  };
  struct Contraction {
    DType type = DType::Float32;
    int64_t batch = 1, m = 0, n = 0, depth = 0;
    llvm::function_ref<Value *(Value *b, Value *i, Value *k)> loadA;
    llvm::function_ref<Value *(Value *b, Value *i, Value *k)> insideA;
    llvm::function_ref<Value *(Value *b, Value *j, Value *k)> loadB;
    llvm::function_ref<void(Value *b, Value *i, Value *j, Value *sum)> store;
    const Window *window = nullptr;
    /// Where B is, for a target that reads it in place instead of through
    /// loadB: B(b, j, k) is element b * batchStride + j * rowStride + k of
    /// buffer `bBuffer` (k contiguous). Set only where loadB is a plain
    /// load of that element; ~0u otherwise.
    unsigned bBuffer = ~0u;
    int64_t bBatchStride = 0, bRowStride = 0;
    /// Where A is, likewise: A(b, i, k) is element b * aBatchStride + i *
    /// aRowStride + k of buffer `aBuffer` (k contiguous), where loadA is a
    /// plain load of that element (no padding); ~0u otherwise.
    unsigned aBuffer = ~0u;
    int64_t aBatchStride = 0, aRowStride = 0;
    /// B's values, where they are known when the kernel is built (float32
    /// weights bound as constants, buildTimeOperand): B(b, j, k) is
    /// bValues[b * bBatchStride + j * bRowStride + k]. A target may lay
    /// them out into its code then; loadB still reads them at run time.
    const float *bValues = nullptr;
    /// Where C goes, for a target that stores vectors of sums itself:
    /// C(b, i, j) is element b * cBatchStride + i * cRowStride + j of result
    /// buffer `cBuffer` (j the result's innermost dim), at coordinates
    /// cCoords(b, i, j). Set only where `store` is storeResult of that
    /// element as float32 (a target storing vectors applies the epilogue's
    /// vector form, where it has one); ~0u otherwise.
    unsigned cBuffer = ~0u;
    int64_t cBatchStride = 0, cRowStride = 0;
    llvm::function_ref<llvm::SmallVector<Value *, 4>(Value *b, Value *i, Value *j)> cCoords;
  };
  /// By default one parallel iteration per C element with a serial dot
  /// product (the CPU vectorizes it); a GPU tiles it in shared memory with
  /// a block of C per thread.
  virtual void contraction(const Contraction &c);
  /// Whether contraction(c) is tiled for c's shape: an operator with a
  /// better direct loop nest for untiled shapes (nn.conv2d) uses
  /// contraction() only then.
  virtual bool tilesContraction(const Contraction &c) const { return false; }
  /// Whether contraction() reads Contraction::bValues (else an operator
  /// need not gather them).
  virtual bool readsBuildTimeValues() const { return false; }

  //===--- Buffers ------------------------------------------------------------===//

  unsigned numBuffers() const { return nBuffers; }
  /// The data pointer of buffer `i` (operands then results), in the function
  /// being emitted.
  Value *buffer(unsigned i) const;
  /// Element `offset` (int64) of a typed array at `ptr`.
  Value *load(DType t, Value *ptr, Value *offset);
  void store(DType t, Value *ptr, Value *offset, Value *v);
  /// `lanes` consecutive elements from element `offset` of a typed array
  /// at `ptr` (a float32 or integer dtype), as one vector; and a vector of
  /// `lanes` copies of `v`. For vector epilogues on targets that store
  /// vectors themselves.
  Value *loadVector(DType t, Value *ptr, Value *offset, unsigned lanes);
  Value *splat(Value *v, unsigned lanes);
  /// Stores a vector of float32 at element `offset` of a float32 array at
  /// `ptr` (never a result with an epilogue: storeVectorResult).
  void storeVector(Value *ptr, Value *offset, Value *v);
  /// Stores a vector of float32 sums of consecutive elements along the
  /// result's innermost dim into result buffer `buf` (float32) from element
  /// `offset`, through the epilogue's vector form where there is an
  /// epilogue (the caller checks canStoreVectorResult).
  void storeVectorResult(unsigned buf, Value *offset, llvm::ArrayRef<Value *> coords, Value *v);
  /// `mask.size()` consecutive float32 from element `offset` of `ptr`, the
  /// lanes whose mask is false never read (0 there): a vector may start
  /// before the array or run past its end where those lanes are masked.
  Value *loadVectorMasked(Value *ptr, Value *offset, llvm::ArrayRef<bool> mask);
  /// Stores the lanes of float32 vector `v` whose mask is true at
  /// consecutive elements from `offset` of `ptr`; the others are not
  /// written.
  void storeVectorMasked(Value *ptr, Value *offset, Value *v, llvm::ArrayRef<bool> mask);
  /// The lanes `lanes` of vector `v`, as a vector; lane `i` of `v`.
  Value *shuffleLanes(Value *v, llvm::ArrayRef<int> lanes);
  Value *extractLane(Value *v, unsigned i);
  /// Lane 0 of `combine` applied to the lanes of v pairwise, halving the
  /// lanes in play log2(lanes) times (a power of two): a horizontal sum or
  /// maximum.
  Value *reduceLanes(Value *v, llvm::function_ref<Value *(Value *, Value *)> combine);
  /// Per lane, `a` where `mask` is true, else `b` (vectors of mask.size()).
  Value *selectLanes(llvm::ArrayRef<bool> mask, Value *a, Value *b);
  /// Whether storeVectorResult may store into `buf`: no epilogue, or one
  /// with a vector form.
  bool canStoreVectorResult(unsigned buf) const {
    return !hasEpilogue(buf) || hasVectorEpilogue(buf);
  }

  //===--- Fused epilogues -----------------------------------------------------===//

  /// A fused kernel's epilogue (FusedKernel.cpp) on one result buffer: a
  /// store of `v` into `buffer` stores apply(offset, coords, v), of dtype
  /// `storeType`, instead. `coords` are the element's coordinates in the
  /// result's dims where the store gives them (storeResult), else empty.
  /// The operator whose result it is must store each element once, with its
  /// final value, through store() or storeResult() on that buffer's
  /// pointer, never read it back, and never store into it otherwise
  /// (operators check hasEpilogue before a vector store of their own).
  struct Epilogue {
    unsigned buffer = ~0u;
    DType storeType = DType::Float32;
    std::function<Value *(Value *offset, llvm::ArrayRef<Value *> coords, Value *v)> apply;
    /// The same on a vector of float32 sums of consecutive elements along
    /// the result's innermost dim, all in one row (`offset` and `coords`
    /// the first's), giving a vector of float32; null where the epilogue
    /// has no vector form (another dtype, a parameter read with a stride
    /// other than 0 or 1 along that dim).
    std::function<Value *(Value *offset, llvm::ArrayRef<Value *> coords, Value *v)> applyVector;
    /// applyVector also holds for consecutive elements that run on from
    /// the end of one row into the next (the result's last two dims read
    /// as one, `coords` still the first element's): every parameter reads
    /// those two dims jointly contiguous, as the result lies, or not at all.
    bool vectorSpansRows = false;
    /// The epilogue computes a math function (a sigmoid, an erf): its
    /// constants and temporaries are many, so that an operator may keep its
    /// code away from loops that hold values in registers (outlined).
    bool math = false;
  };
  void setEpilogue(Epilogue e) { epilogue = std::move(e); }
  /// A fused kernel's prologue (a reduction's, FusedKernel.cpp): a load of
  /// element `offset` through buffer `buffer`'s pointer gives apply(offset),
  /// computed from other buffers, instead. `buffer` is one the operator
  /// never reads otherwise (its result); the operator must read the operand
  /// only through load() on that pointer.
  struct Prologue {
    unsigned buffer = ~0u;
    std::function<Value *(Value *offset)> apply;
  };
  void setPrologue(Prologue p) { prologue = std::move(p); }
  bool hasEpilogue(unsigned buffer) const { return epilogue.apply && epilogue.buffer == buffer; }
  /// Whether loads through `buffer`'s pointer are a prologue's values (read
  /// it only through load()).
  bool hasPrologue(unsigned buffer) const { return prologue.apply && prologue.buffer == buffer; }
  bool hasVectorEpilogue(unsigned buffer) const {
    return hasEpilogue(buffer) && epilogue.applyVector;
  }
  bool hasMathEpilogue(unsigned buffer) const { return hasEpilogue(buffer) && epilogue.math; }
  /// Whether a vector store into `buffer` may run on across its rows (in
  /// a contiguous result): no epilogue, or a vector form that spans rows.
  bool vectorStoreSpansRows(unsigned buffer) const {
    return !hasEpilogue(buffer) || (epilogue.applyVector && epilogue.vectorSpansRows);
  }
  /// A vector store's values through the epilogue's vector form (for a
  /// target's own vector stores into `buffer`, hasVectorEpilogue).
  Value *applyVectorEpilogue(Value *offset, llvm::ArrayRef<Value *> coords, Value *v);
  /// While `lanes` > 1, constant() gives splats of that many lanes, so that
  /// the typed arithmetic above computes on vectors (a vector epilogue).
  void setConstantLanes(unsigned lanes) { constantLanes = lanes; }
  /// How many stores went through the epilogue so far.
  unsigned epilogueStores() const { return numEpilogueStores; }
  /// Stores `v` (dtype `t`) as element `offset` of buffer `buf`, whose
  /// coordinates in the result's dims are `coords` (row-major, so that
  /// offset is their linear offset; may be empty): through the epilogue
  /// where there is one, which can then read its operands without dividing
  /// the offset back into coordinates.
  void storeResult(DType t, unsigned buf, Value *offset, llvm::ArrayRef<Value *> coords, Value *v);

  //===--- Constants ----------------------------------------------------------===//

  /// An int64 index constant.
  Value *index(int64_t v);
  /// A constant of dtype `t`: floats exact, integers truncated toward zero
  /// and saturated to the dtype's range, bool is v != 0.
  Value *constant(DType t, double v);
  Value *constantInt(DType t, int64_t v);
  /// The identity of max (-inf, or the smallest integer) and of min.
  Value *lowest(DType t);
  Value *highest(DType t);

  //===--- Index arithmetic (int64) ---------------------------------------------===//

  Value *iadd(Value *a, Value *b);
  Value *iadd(Value *a, int64_t b) { return iadd(a, index(b)); }
  Value *isub(Value *a, Value *b);
  Value *imul(Value *a, Value *b);
  Value *imul(Value *a, int64_t b);
  /// Division and remainder by a positive constant, for non-negative `a`.
  Value *idiv(Value *a, int64_t b);
  Value *irem(Value *a, int64_t b);
  Value *imin(Value *a, Value *b);
  Value *imax(Value *a, Value *b);
  Value *icmp(CmpOp op, Value *a, Value *b);
  /// Σ coords[d] * strides[d] + base (strides may be 0).
  Value *linearOffset(llvm::ArrayRef<Value *> coords, llvm::ArrayRef<int64_t> strides,
                      Value *base = nullptr);
  /// The row-major coordinates of `flat` within `dims` (all positive).
  llvm::SmallVector<Value *, 4> unflatten(Value *flat, llvm::ArrayRef<int64_t> dims);

  //===--- Typed arithmetic -----------------------------------------------------===//

  Value *add(DType t, Value *a, Value *b);
  Value *sub(DType t, Value *a, Value *b);
  Value *mul(DType t, Value *a, Value *b);
  /// a * b + c: for floats llvm.fmuladd (one rounding where the target
  /// fuses it).
  Value *mulAdd(DType t, Value *a, Value *b, Value *c);
  /// Floats divide; integers truncate toward zero, x / 0 is 0 and the
  /// overflowing INT_MIN / -1 wraps (never a trap).
  Value *div(DType t, Value *a, Value *b);
  /// The remainder of a / b truncated toward zero, with a's sign (C's %
  /// and fmod): for integers x % 0 is 0 and INT_MIN % -1 is 0 (never a
  /// trap); for floats fmod, x % 0 is NaN.
  Value *rem(DType t, Value *a, Value *b);
  /// Bitwise and, or, xor and not of integers (logical ones of bool).
  Value *bitAnd(Value *a, Value *b);
  Value *bitOr(Value *a, Value *b);
  Value *bitXor(Value *a, Value *b);
  Value *bitNot(Value *a);
  /// a << n and a >> n (arithmetic for signed dtypes, logical for unsigned)
  /// of integers of dtype `t`. A count outside [0, bits) gives 0 for the
  /// left shift and, for the right shift, what shifting by bits - 1 gives
  /// for signed dtypes (the sign's fill) and 0 for unsigned ones.
  Value *shiftLeft(DType t, Value *a, Value *n);
  Value *shiftRight(DType t, Value *a, Value *n);
  /// The larger (smaller) operand; for floats NaN in either gives NaN (of
  /// -0 and +0 either: llvm.maximum's +0 here, a target may differ).
  virtual Value *max(DType t, Value *a, Value *b);
  virtual Value *min(DType t, Value *a, Value *b);
  /// Whether a float is NaN (false for other dtypes), as a bool.
  Value *isNaN(DType t, Value *a);
  Value *neg(DType t, Value *a);
  Value *abs(DType t, Value *a);
  /// a + b where the order of a chain of such additions does not matter (a
  /// reduction the target may reassociate and vectorize).
  Value *accumulate(DType t, Value *acc, Value *v);
  /// A bool (i1).
  Value *compare(CmpOp op, DType t, Value *a, Value *b);
  Value *select(Value *cond, Value *a, Value *b);
  Value *logicalAnd(Value *a, Value *b);
  Value *logicalOr(Value *a, Value *b);
  Value *logicalNot(Value *a);
  /// Whether v (of dtype t) is nonzero, as a bool.
  Value *isNonzero(DType t, Value *v);
  /// Converts v from dtype `from` to `to`: float to integer truncates toward
  /// zero, saturating at the int64 range (NaN gives 0), then wraps to the
  /// width; integers wrap; to bool means != 0.
  Value *cast(Value *v, DType from, DType to);

  //===--- Local variables -------------------------------------------------------===//

  LocalVar localVar(DType t, Value *init);
  /// A local variable of init's type, a vector of dtype t's lanes.
  LocalVar localVector(DType t, Value *init);
  Value *get(const LocalVar &v);
  void set(const LocalVar &v, Value *x);

  //===--- Control flow ----------------------------------------------------------===//

  /// A serial loop: body(i) for i in [lo, hi) (int64), in order.
  void forRange(Value *lo, Value *hi, LoopBody body);
  void forRange(int64_t lo, int64_t hi, LoopBody body);
  /// body(i) for i = lo, lo + step, ... < hi; `step` must be positive.
  void forRange(Value *lo, Value *hi, Value *step, LoopBody body);
  void ifThen(Value *cond, llvm::function_ref<void()> then);

protected:
  KernelBuilder(llvm::Module &m, unsigned numBuffers);

  /// What differs between the kernel function and an outlined body.
  struct FunctionState {
    llvm::Function *fn = nullptr;
    llvm::BasicBlock *entry = nullptr;
    llvm::SmallVector<Value *, 8> buffers;
  };

  /// Starts emitting into `fn` (which has no blocks yet): creates its entry
  /// block and loads the buffer pointers from `bufferArray` (void **).
  void beginFunction(llvm::Function *fn, Value *bufferArray);
  /// The same for a function that takes the buffer pointers as parameters.
  void beginFunction(llvm::Function *fn, llvm::ArrayRef<Value *> bufferPointers);
  FunctionState saveFunction() const { return cur; }
  void restoreFunction(FunctionState s) { cur = std::move(s); }
  /// The address load and store use for element `offset` of `ptr`, given
  /// its in-bounds GEP `addr`: `addr` itself, unless a target checks
  /// accesses (the SIMT emulator checks those of the buffers).
  virtual Value *accessAddress(DType t, Value *ptr, Value *offset, Value *addr, bool write) {
    return addr;
  }
  /// The default contraction, summing in `acc` (stored as
  /// accumulatorType(c.type)): one parallel iteration per element of C, a
  /// serial dot product each.
  void contractionLoop(const Contraction &c, DType acc);
  /// An alloca in the current function's entry block.
  Value *entryAlloca(llvm::Type *ty, Value *count = nullptr);

  /// The LLVM type of a dtype in registers (bool is i1, float16 is float)
  /// and in memory (bool is i8, float16 is half).
  llvm::Type *registerType(DType t) const;
  llvm::Type *memoryType(DType t) const;

  llvm::Module &module;
  llvm::IRBuilder<> b;
  FunctionState cur;

private:
  unsigned nBuffers;
  Epilogue epilogue;
  Prologue prologue;
  bool inEpilogue = false, inPrologue = false;
  unsigned constantLanes = 1;
  unsigned numEpilogueStores = 0;
};

} // namespace hx

#endif
