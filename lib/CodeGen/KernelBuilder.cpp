//===- KernelBuilder.cpp - Target-neutral IR for kernel definitions -------===//
//
// The part of KernelBuilder every target shares: buffers and typed memory
// access, constants, int64 index arithmetic, dtype-aware arithmetic,
// comparisons and casts, local variables and serial control flow. Targets
// add the parallel loop, math functions and scratch memory
// (KernelBuilder.h).
//
// Conventions:
//  - bool is i1 in registers and i8 in memory;
//  - float16 is float in registers and half in memory: load extends, store
//    rounds (to nearest even) once, and everything between computes in
//    float32 like a float32 value would (registerType vs memoryType);
//  - index arithmetic is int64 with `nsw` (offsets never overflow: shapes
//    are static and their element counts fit in int64);
//  - integer division never traps: x / 0 is 0 and INT_MIN / -1 wraps;
//  - float max/min propagate NaN (llvm.maximum/minimum, NumPy's rule);
//  - float to integer casts saturate to int64 (NaN is 0) then wrap;
//  - loops are emitted in the header-test form; LLVM rotates them.
//
//===----------------------------------------------------------------------===//

#include "hx/CodeGen/KernelBuilder.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include <cmath>
#include <limits>

using namespace llvm;

namespace hx {

StringRef mathFnName(MathFn fn) {
  switch (fn) {
  case MathFn::Exp:
    return "exp";
  case MathFn::Log:
    return "log";
  case MathFn::Sqrt:
    return "sqrt";
  case MathFn::Tanh:
    return "tanh";
  case MathFn::Pow:
    return "pow";
  case MathFn::Erf:
    return "erf";
  case MathFn::Floor:
    return "floor";
  case MathFn::Ceil:
    return "ceil";
  case MathFn::Round:
    return "round";
  case MathFn::RoundEven:
    return "roundeven";
  case MathFn::Sin:
    return "sin";
  case MathFn::Cos:
    return "cos";
  case MathFn::Tan:
    return "tan";
  case MathFn::Asin:
    return "asin";
  case MathFn::Acos:
    return "acos";
  case MathFn::Atan:
    return "atan";
  case MathFn::Sinh:
    return "sinh";
  case MathFn::Cosh:
    return "cosh";
  case MathFn::Asinh:
    return "asinh";
  case MathFn::Acosh:
    return "acosh";
  case MathFn::Atanh:
    return "atanh";
  }
  return "?";
}

KernelBuilder::KernelBuilder(Module &m, unsigned numBuffers)
    : module(m), b(m.getContext()), nBuffers(numBuffers) {}

KernelBuilder::~KernelBuilder() = default;

//===----------------------------------------------------------------------===//
// Functions and memory
//===----------------------------------------------------------------------===//

llvm::Type *KernelBuilder::registerType(DType t) const {
  LLVMContext &ctx = module.getContext();
  switch (t) {
  case DType::Bool:
    return llvm::Type::getInt1Ty(ctx);
  case DType::Int8:
  case DType::UInt8:
    return llvm::Type::getInt8Ty(ctx);
  case DType::Int16:
  case DType::UInt16:
    return llvm::Type::getInt16Ty(ctx);
  case DType::Int32:
  case DType::UInt32:
    return llvm::Type::getInt32Ty(ctx);
  case DType::Int64:
  case DType::UInt64:
    return llvm::Type::getInt64Ty(ctx);
  case DType::Float16:  // computed in float32 (memoryType is half)
  case DType::BFloat16: // computed in float32 (memoryType is i16)
  case DType::Float32:
    return llvm::Type::getFloatTy(ctx);
  case DType::Float64:
    return llvm::Type::getDoubleTy(ctx);
  }
  llvm_unreachable("unknown dtype");
}

llvm::Type *KernelBuilder::memoryType(DType t) const {
  if (t == DType::Bool)
    return llvm::Type::getInt8Ty(module.getContext());
  if (t == DType::Float16)
    return llvm::Type::getHalfTy(module.getContext());
  if (t == DType::BFloat16)
    return llvm::Type::getInt16Ty(module.getContext());
  return registerType(t);
}

DType KernelBuilder::valueDType(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t;
}

DType KernelBuilder::bitsDType(DType t) {
  return t == DType::Bool                              ? DType::Int8
         : t == DType::Float16 || t == DType::BFloat16 ? DType::Int16
                                                       : t;
}

/// A bfloat16's bits (i16) as the float32 it is.
static Value *widenBFloat16(IRBuilder<> &b, Value *bits) {
  return b.CreateBitCast(b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16), b.getFloatTy());
}

/// A float32 rounded to the nearest bfloat16 (ties to even), as its bits;
/// NaN stays a quiet NaN.
static Value *narrowToBFloat16(IRBuilder<> &b, Value *f) {
  Value *u = b.CreateBitCast(f, b.getInt32Ty());
  Value *odd = b.CreateAnd(b.CreateLShr(u, 16), b.getInt32(1));
  Value *rounded = b.CreateLShr(b.CreateAdd(b.CreateAdd(u, b.getInt32(0x7fff)), odd), 16);
  Value *quiet = b.CreateOr(b.CreateLShr(u, 16), b.getInt32(0x40));
  return b.CreateTrunc(b.CreateSelect(b.CreateFCmpUNO(f, f), quiet, rounded), b.getInt16Ty());
}

void KernelBuilder::beginFunction(Function *fn, Value *bufferArray) {
  cur = FunctionState();
  cur.fn = fn;
  cur.entry = BasicBlock::Create(module.getContext(), "entry", fn);
  b.SetInsertPoint(cur.entry);
  llvm::Type *ptrTy = b.getPtrTy();
  for (unsigned i = 0; i < nBuffers; ++i) {
    Value *slot = b.CreateConstInBoundsGEP1_64(ptrTy, bufferArray, i);
    LoadInst *p = b.CreateAlignedLoad(ptrTy, slot, Align(8), "buf" + Twine(i));
    cur.buffers.push_back(p);
  }
}

void KernelBuilder::beginFunction(Function *fn, ArrayRef<Value *> bufferPointers) {
  cur = FunctionState();
  cur.fn = fn;
  cur.entry = BasicBlock::Create(module.getContext(), "entry", fn);
  b.SetInsertPoint(cur.entry);
  cur.buffers.append(bufferPointers.begin(), bufferPointers.end());
}

Value *KernelBuilder::entryAlloca(llvm::Type *ty, Value *count) {
  IRBuilder<> eb(cur.entry, cur.entry->begin());
  return eb.CreateAlloca(ty, count);
}

Value *KernelBuilder::buffer(unsigned i) const {
  assert(i < cur.buffers.size() && "buffer index out of range");
  return cur.buffers[i];
}

Value *KernelBuilder::load(DType t, Value *ptr, Value *offset) {
  if (prologue.apply && !inPrologue && prologue.buffer < cur.buffers.size() &&
      ptr == cur.buffers[prologue.buffer]) {
    inPrologue = true;
    Value *v = prologue.apply(offset);
    inPrologue = false;
    return v;
  }
  llvm::Type *mt = memoryType(t);
  Value *addr = accessAddress(t, ptr, offset, b.CreateInBoundsGEP(mt, ptr, offset), false);
  Value *v = b.CreateAlignedLoad(mt, addr, Align(dtypeBytes(t)));
  if (t == DType::Bool)
    return b.CreateICmpNE(v, ConstantInt::get(mt, 0));
  if (t == DType::Float16)
    return b.CreateFPExt(v, registerType(t));
  if (t == DType::BFloat16)
    return widenBFloat16(b, v);
  return v;
}

Value *KernelBuilder::loadVector(DType t, Value *ptr, Value *offset, unsigned lanes) {
  auto *vt = FixedVectorType::get(memoryType(t), lanes);
  return b.CreateAlignedLoad(vt, b.CreateInBoundsGEP(memoryType(t), ptr, offset),
                             Align(dtypeBytes(t)));
}

Value *KernelBuilder::splat(Value *v, unsigned lanes) { return b.CreateVectorSplat(lanes, v); }

void KernelBuilder::storeVector(Value *ptr, Value *offset, Value *v) {
  llvm::Type *f32 = b.getFloatTy();
  b.CreateAlignedStore(v, b.CreateInBoundsGEP(f32, ptr, offset), Align(4));
}

Value *KernelBuilder::loadVectorMasked(Value *ptr, Value *offset, ArrayRef<bool> mask) {
  llvm::Type *f32 = b.getFloatTy();
  auto *vt = FixedVectorType::get(f32, unsigned(mask.size()));
  if (llvm::all_of(mask, [](bool m) { return m; }))
    return b.CreateAlignedLoad(vt, b.CreateInBoundsGEP(f32, ptr, offset), Align(4));
  SmallVector<Constant *, 16> bits;
  for (bool m : mask)
    bits.push_back(b.getInt1(m));
  // Not inbounds: the first lanes may lie before the array.
  return b.CreateMaskedLoad(vt, b.CreateGEP(f32, ptr, offset), Align(4), ConstantVector::get(bits),
                            Constant::getNullValue(vt));
}

void KernelBuilder::storeVectorMasked(Value *ptr, Value *offset, Value *v, ArrayRef<bool> mask) {
  if (llvm::all_of(mask, [](bool m) { return m; }))
    return storeVector(ptr, offset, v);
  SmallVector<Constant *, 16> bits;
  for (bool m : mask)
    bits.push_back(b.getInt1(m));
  b.CreateMaskedStore(v, b.CreateGEP(b.getFloatTy(), ptr, offset), Align(4),
                      ConstantVector::get(bits));
}

Value *KernelBuilder::shuffleLanes(Value *v, ArrayRef<int> lanes) {
  return b.CreateShuffleVector(v, lanes);
}

Value *KernelBuilder::extractLane(Value *v, unsigned i) {
  return b.CreateExtractElement(v, uint64_t(i));
}

Value *KernelBuilder::reduceLanes(Value *v, function_ref<Value *(Value *, Value *)> combine) {
  const unsigned lanes = llvm::cast<FixedVectorType>(v->getType())->getNumElements();
  assert((lanes & (lanes - 1)) == 0 && "reduceLanes wants a power of two");
  for (unsigned half = lanes / 2; half >= 1; half /= 2) {
    SmallVector<int, 16> upper;
    for (unsigned l = 0; l < lanes; ++l)
      upper.push_back(int((l + half) % lanes));
    v = combine(v, shuffleLanes(v, upper));
  }
  return extractLane(v, 0);
}

Value *KernelBuilder::selectLanes(ArrayRef<bool> mask, Value *a, Value *c) {
  SmallVector<Constant *, 16> bits;
  for (bool m : mask)
    bits.push_back(b.getInt1(m));
  return b.CreateSelect(ConstantVector::get(bits), a, c);
}

void KernelBuilder::storeVectorResult(unsigned buf, Value *offset, ArrayRef<Value *> coords,
                                      Value *v) {
  if (hasEpilogue(buf))
    v = applyVectorEpilogue(offset, coords, v);
  storeVector(buffer(buf), offset, v);
}

Value *KernelBuilder::applyVectorEpilogue(Value *offset, ArrayRef<Value *> coords, Value *v) {
  ++numEpilogueStores;
  return epilogue.applyVector(offset, coords, v);
}

void KernelBuilder::storeResult(DType t, unsigned buf, Value *offset, ArrayRef<Value *> coords,
                                Value *v) {
  if (epilogue.apply && buf == epilogue.buffer && !inEpilogue) {
    inEpilogue = true;
    v = epilogue.apply(offset, coords, v);
    t = epilogue.storeType;
    inEpilogue = false;
    ++numEpilogueStores;
  }
  bool wasIn = inEpilogue;
  inEpilogue = true; // the store below is the final one
  store(t, buffer(buf), offset, v);
  inEpilogue = wasIn;
}

void KernelBuilder::store(DType t, Value *ptr, Value *offset, Value *v) {
  if (epilogue.apply && !inEpilogue && epilogue.buffer < cur.buffers.size() &&
      ptr == cur.buffers[epilogue.buffer])
    return storeResult(t, epilogue.buffer, offset, {}, v);
  llvm::Type *mt = memoryType(t);
  Value *addr = accessAddress(t, ptr, offset, b.CreateInBoundsGEP(mt, ptr, offset), true);
  if (t == DType::Bool)
    v = b.CreateZExt(v, mt);
  else if (t == DType::Float16)
    v = b.CreateFPTrunc(v, mt);
  else if (t == DType::BFloat16)
    v = narrowToBFloat16(b, v);
  b.CreateAlignedStore(v, addr, Align(dtypeBytes(t)));
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

Value *KernelBuilder::index(int64_t v) { return b.getInt64(v); }

/// The range of an integer dtype as doubles.
static std::pair<double, double> intRange(DType t) {
  unsigned bits = dtypeBytes(t) * 8;
  if (isUnsigned(t))
    return {0.0, std::ldexp(1.0, bits) - 1};
  return {-std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits - 1) - 1};
}

Value *KernelBuilder::constant(DType t, double v) {
  if (constantLanes > 1) {
    unsigned lanes = constantLanes;
    constantLanes = 1;
    Value *c = constant(t, v);
    constantLanes = lanes;
    return ConstantVector::getSplat(ElementCount::getFixed(lanes), llvm::cast<llvm::Constant>(c));
  }
  llvm::Type *ty = registerType(t);
  if (t == DType::BFloat16) { // via float32, then the nearest bfloat16, held as a float
    APFloat h(static_cast<float>(v));
    bool lost;
    h.convert(APFloat::BFloat(), APFloat::rmNearestTiesToEven, &lost);
    h.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return ConstantFP::get(ty, h);
  }
  if (t == DType::Float16) { // the nearest half, held as a float
    APFloat h(v);
    bool lost;
    h.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &lost);
    h.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return ConstantFP::get(ty, h);
  }
  if (isFloat(t))
    return ConstantFP::get(ty, v);
  if (t == DType::Bool)
    return b.getInt1(v != 0);
  if (std::isnan(v))
    v = 0;
  auto [lo, hi] = intRange(t);
  v = std::trunc(std::min(std::max(v, lo), hi));
  if (isUnsigned(t))
    return ConstantInt::get(ty, uint64_t(v));
  // int64's upper bound 2^63 - 1 is not a double: saturate explicitly.
  if (v >= 9.2233720368547758e18)
    return ConstantInt::get(ty, std::numeric_limits<int64_t>::max(), true);
  return ConstantInt::get(ty, int64_t(v), /*IsSigned=*/true);
}

Value *KernelBuilder::constantInt(DType t, int64_t v) {
  llvm::Type *ty = registerType(t);
  if (isFloat(t))
    return constant(t, double(v));
  if (t == DType::Bool)
    return b.getInt1(v != 0);
  return ConstantInt::get(ty, v, /*IsSigned=*/true);
}

Value *KernelBuilder::lowest(DType t) {
  llvm::Type *ty = registerType(t);
  if (isFloat(t))
    return ConstantFP::getInfinity(ty, /*Negative=*/true);
  if (t == DType::Bool)
    return b.getFalse();
  unsigned bits = ty->getIntegerBitWidth();
  return ConstantInt::get(ty, isUnsigned(t) ? APInt::getMinValue(bits)
                                            : APInt::getSignedMinValue(bits));
}

Value *KernelBuilder::highest(DType t) {
  llvm::Type *ty = registerType(t);
  if (isFloat(t))
    return ConstantFP::getInfinity(ty, /*Negative=*/false);
  if (t == DType::Bool)
    return b.getTrue();
  unsigned bits = ty->getIntegerBitWidth();
  return ConstantInt::get(ty, isUnsigned(t) ? APInt::getMaxValue(bits)
                                            : APInt::getSignedMaxValue(bits));
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

Value *KernelBuilder::iadd(Value *a, Value *c) { return b.CreateNSWAdd(a, c); }
Value *KernelBuilder::isub(Value *a, Value *c) { return b.CreateNSWSub(a, c); }
Value *KernelBuilder::imul(Value *a, Value *c) { return b.CreateNSWMul(a, c); }

Value *KernelBuilder::imul(Value *a, int64_t c) {
  if (c == 1)
    return a;
  if (c == 0)
    return index(0);
  return b.CreateNSWMul(a, index(c));
}

Value *KernelBuilder::idiv(Value *a, int64_t c) {
  assert(c > 0 && "division by a positive constant");
  return c == 1 ? a : b.CreateUDiv(a, index(c));
}

Value *KernelBuilder::irem(Value *a, int64_t c) {
  assert(c > 0 && "remainder by a positive constant");
  return c == 1 ? index(0) : b.CreateURem(a, index(c));
}

Value *KernelBuilder::imin(Value *a, Value *c) {
  return b.CreateBinaryIntrinsic(Intrinsic::smin, a, c);
}
Value *KernelBuilder::imax(Value *a, Value *c) {
  return b.CreateBinaryIntrinsic(Intrinsic::smax, a, c);
}

Value *KernelBuilder::icmp(CmpOp op, Value *a, Value *c) { return compare(op, DType::Int64, a, c); }

Value *KernelBuilder::linearOffset(ArrayRef<Value *> coords, ArrayRef<int64_t> strides,
                                   Value *base) {
  assert(coords.size() == strides.size());
  Value *off = base;
  for (size_t d = 0; d < coords.size(); ++d) {
    if (strides[d] == 0)
      continue;
    Value *term = imul(coords[d], strides[d]);
    off = off ? iadd(off, term) : term;
  }
  return off ? off : index(0);
}

SmallVector<Value *, 4> KernelBuilder::unflatten(Value *flat, ArrayRef<int64_t> dims) {
  SmallVector<Value *, 4> coords(dims.size());
  Value *rest = flat;
  for (size_t d = dims.size(); d > 0; --d) {
    if (d == 1) {
      coords[0] = rest;
      break;
    }
    coords[d - 1] = irem(rest, dims[d - 1]);
    rest = idiv(rest, dims[d - 1]);
  }
  return coords;
}

//===----------------------------------------------------------------------===//
// Typed arithmetic
//===----------------------------------------------------------------------===//

Value *KernelBuilder::add(DType t, Value *a, Value *c) {
  return isFloat(t) ? b.CreateFAdd(a, c) : b.CreateAdd(a, c);
}

Value *KernelBuilder::sub(DType t, Value *a, Value *c) {
  return isFloat(t) ? b.CreateFSub(a, c) : b.CreateSub(a, c);
}

Value *KernelBuilder::mul(DType t, Value *a, Value *c) {
  return isFloat(t) ? b.CreateFMul(a, c) : b.CreateMul(a, c);
}

Value *KernelBuilder::mulAdd(DType t, Value *a, Value *c, Value *d) {
  if (!isFloat(t))
    return b.CreateAdd(b.CreateMul(a, c), d);
  return b.CreateIntrinsic(Intrinsic::fmuladd, {a->getType()}, {a, c, d});
}

Value *KernelBuilder::sigmoid(DType t, Value *x) {
  // e = exp(-|x|) never overflows: 1 / (1 + e) for x >= 0, e / (1 + e)
  // below (down to the denormals).
  Value *neg = compare(CmpOp::LT, t, x, constant(t, 0));
  Value *e = math(MathFn::Exp, t, {select(neg, x, this->neg(t, x))});
  Value *num = select(neg, e, constant(t, 1));
  return div(t, num, add(t, constant(t, 1), e));
}

Value *KernelBuilder::div(DType t, Value *a, Value *c) {
  if (isFloat(t))
    return b.CreateFDiv(a, c);
  llvm::Type *ty = a->getType();
  Value *zero = ConstantInt::get(ty, 0);
  Value *one = ConstantInt::get(ty, 1);
  Value *byZero = b.CreateICmpEQ(c, zero);
  if (isUnsigned(t)) {
    Value *q = b.CreateUDiv(a, b.CreateSelect(byZero, one, c));
    return b.CreateSelect(byZero, zero, q);
  }
  // INT_MIN / -1 overflows (and traps on x86): divide by 1 instead, which
  // gives the wrapped result INT_MIN.
  unsigned bits = ty->getIntegerBitWidth();
  Value *overflow =
      b.CreateAnd(b.CreateICmpEQ(c, ConstantInt::getSigned(ty, -1)),
                  b.CreateICmpEQ(a, ConstantInt::get(ty, APInt::getSignedMinValue(bits))));
  Value *safe = b.CreateSelect(b.CreateOr(byZero, overflow), one, c);
  Value *q = b.CreateSDiv(a, safe);
  return b.CreateSelect(byZero, zero, q);
}

Value *KernelBuilder::rem(DType t, Value *a, Value *c) {
  if (isFloat(t))
    return b.CreateFRem(a, c);
  llvm::Type *ty = a->getType();
  Value *zero = ConstantInt::get(ty, 0);
  Value *one = ConstantInt::get(ty, 1);
  Value *byZero = b.CreateICmpEQ(c, zero);
  if (isUnsigned(t) || t == DType::Bool) {
    Value *r = b.CreateURem(a, b.CreateSelect(byZero, one, c));
    return b.CreateSelect(byZero, zero, r);
  }
  // x % 1 and x % -1 are 0; dividing by 1 instead of -1 avoids INT_MIN % -1,
  // which overflows (and traps on x86).
  Value *minusOne = b.CreateICmpEQ(c, ConstantInt::getSigned(ty, -1));
  Value *r = b.CreateSRem(a, b.CreateSelect(b.CreateOr(byZero, minusOne), one, c));
  return b.CreateSelect(byZero, zero, r);
}

Value *KernelBuilder::bitAnd(Value *a, Value *c) { return b.CreateAnd(a, c); }
Value *KernelBuilder::bitOr(Value *a, Value *c) { return b.CreateOr(a, c); }
Value *KernelBuilder::bitXor(Value *a, Value *c) { return b.CreateXor(a, c); }
Value *KernelBuilder::bitNot(Value *a) { return b.CreateNot(a); }

Value *KernelBuilder::shiftLeft(DType t, Value *a, Value *n) {
  llvm::Type *ty = a->getType();
  unsigned bits = ty->getIntegerBitWidth();
  // Unsigned against bits: a negative count is out of range too.
  Value *inRange = b.CreateICmpULT(n, ConstantInt::get(ty, bits));
  Value *count = b.CreateSelect(inRange, n, ConstantInt::get(ty, 0));
  return b.CreateSelect(inRange, b.CreateShl(a, count), ConstantInt::get(ty, 0));
}

Value *KernelBuilder::shiftRight(DType t, Value *a, Value *n) {
  llvm::Type *ty = a->getType();
  unsigned bits = ty->getIntegerBitWidth();
  Value *inRange = b.CreateICmpULT(n, ConstantInt::get(ty, bits));
  if (isUnsigned(t)) {
    Value *count = b.CreateSelect(inRange, n, ConstantInt::get(ty, 0));
    return b.CreateSelect(inRange, b.CreateLShr(a, count), ConstantInt::get(ty, 0));
  }
  return b.CreateAShr(a, b.CreateSelect(inRange, n, ConstantInt::get(ty, bits - 1)));
}

Value *KernelBuilder::max(DType t, Value *a, Value *c) {
  if (isFloat(t))
    return b.CreateBinaryIntrinsic(Intrinsic::maximum, a, c);
  return b.CreateSelect(compare(CmpOp::LT, t, a, c), c, a);
}

Value *KernelBuilder::min(DType t, Value *a, Value *c) {
  if (isFloat(t))
    return b.CreateBinaryIntrinsic(Intrinsic::minimum, a, c);
  return b.CreateSelect(compare(CmpOp::LT, t, c, a), c, a);
}

Value *KernelBuilder::isNaN(DType t, Value *a) {
  return isFloat(t) ? b.CreateFCmpUNO(a, a) : b.getFalse();
}

Value *KernelBuilder::neg(DType t, Value *a) {
  return isFloat(t) ? b.CreateFNeg(a) : b.CreateNeg(a);
}

Value *KernelBuilder::abs(DType t, Value *a) {
  if (isFloat(t))
    return b.CreateUnaryIntrinsic(Intrinsic::fabs, a);
  if (isUnsigned(t) || t == DType::Bool)
    return a;
  return b.CreateBinaryIntrinsic(Intrinsic::abs, a, b.getFalse());
}

Value *KernelBuilder::accumulate(DType t, Value *acc, Value *v) {
  if (!isFloat(t))
    return b.CreateAdd(acc, v);
  FastMathFlags fmf;
  fmf.setAllowReassoc();
  Value *sum = b.CreateFAdd(acc, v);
  if (auto *inst = dyn_cast<Instruction>(sum))
    inst->setFastMathFlags(fmf);
  return sum;
}

Value *KernelBuilder::compare(CmpOp op, DType t, Value *a, Value *c) {
  if (isFloat(t)) {
    switch (op) {
    case CmpOp::EQ:
      return b.CreateFCmpOEQ(a, c);
    case CmpOp::NE:
      return b.CreateFCmpUNE(a, c);
    case CmpOp::LT:
      return b.CreateFCmpOLT(a, c);
    case CmpOp::LE:
      return b.CreateFCmpOLE(a, c);
    case CmpOp::GT:
      return b.CreateFCmpOGT(a, c);
    case CmpOp::GE:
      return b.CreateFCmpOGE(a, c);
    }
  }
  bool u = isUnsigned(t) || t == DType::Bool;
  switch (op) {
  case CmpOp::EQ:
    return b.CreateICmpEQ(a, c);
  case CmpOp::NE:
    return b.CreateICmpNE(a, c);
  case CmpOp::LT:
    return u ? b.CreateICmpULT(a, c) : b.CreateICmpSLT(a, c);
  case CmpOp::LE:
    return u ? b.CreateICmpULE(a, c) : b.CreateICmpSLE(a, c);
  case CmpOp::GT:
    return u ? b.CreateICmpUGT(a, c) : b.CreateICmpSGT(a, c);
  case CmpOp::GE:
    return u ? b.CreateICmpUGE(a, c) : b.CreateICmpSGE(a, c);
  }
  llvm_unreachable("unknown comparison");
}

Value *KernelBuilder::select(Value *cond, Value *a, Value *c) { return b.CreateSelect(cond, a, c); }
Value *KernelBuilder::logicalAnd(Value *a, Value *c) { return b.CreateAnd(a, c); }
Value *KernelBuilder::logicalOr(Value *a, Value *c) { return b.CreateOr(a, c); }
Value *KernelBuilder::logicalNot(Value *a) { return b.CreateNot(a); }

Value *KernelBuilder::isNonzero(DType t, Value *v) {
  if (t == DType::Bool)
    return v;
  if (isFloat(t))
    return b.CreateFCmpUNE(v, ConstantFP::get(v->getType(), 0.0));
  return b.CreateICmpNE(v, ConstantInt::get(v->getType(), 0));
}

Value *KernelBuilder::cast(Value *v, DType from, DType to) {
  if (from == to)
    return v;
  if (to == DType::Bool)
    return isNonzero(from, v);
  llvm::Type *ty = registerType(to);
  if (from == DType::Bool)
    return isFloat(to) ? b.CreateUIToFP(v, ty) : b.CreateZExt(v, ty);
  if (to == DType::BFloat16) // via float32, as the interpreter rounds
    return widenBFloat16(b, narrowToBFloat16(b, cast(v, from, DType::Float32)));
  if (to == DType::Float16) {
    // Rounded to half once, from the source value itself (float64 -> half
    // directly: via float32 could round twice), then held as a float.
    Value *h;
    if (isFloat(from))
      h = b.CreateFPTrunc(v, b.getHalfTy());
    else
      h = isUnsigned(from) ? b.CreateUIToFP(v, b.getHalfTy()) : b.CreateSIToFP(v, b.getHalfTy());
    return b.CreateFPExt(h, ty);
  }
  if (isFloat(from) && isFloat(to))
    return b.CreateFPCast(v, ty);
  if (isFloat(from)) {
    if (isUnsigned(to))
      return b.CreateFPToUI(v, ty);
    // Saturating to int64 (NaN is 0), then wrapping to the width: defined
    // for every input, unlike fptosi.
    Value *wide = b.CreateIntrinsic(Intrinsic::fptosi_sat, {b.getInt64Ty(), v->getType()}, {v});
    return b.CreateTrunc(wide, ty);
  }
  if (isFloat(to))
    return isUnsigned(from) ? b.CreateUIToFP(v, ty) : b.CreateSIToFP(v, ty);
  return b.CreateIntCast(v, ty, /*isSigned=*/!isUnsigned(from));
}

//===----------------------------------------------------------------------===//
// Local variables and control flow
//===----------------------------------------------------------------------===//

KernelBuilder::LocalVar KernelBuilder::localVar(DType t, Value *init) {
  LocalVar v;
  v.dtype = t;
  v.type = registerType(t);
  v.slot = entryAlloca(v.type);
  b.CreateStore(init, v.slot);
  return v;
}

KernelBuilder::LocalVar KernelBuilder::localVector(DType t, Value *init) {
  LocalVar v;
  v.dtype = t;
  v.type = init->getType();
  v.slot = entryAlloca(v.type);
  b.CreateStore(init, v.slot);
  return v;
}

Value *KernelBuilder::get(const LocalVar &v) { return b.CreateLoad(v.type, v.slot); }

void KernelBuilder::set(const LocalVar &v, Value *x) { b.CreateStore(x, v.slot); }

void KernelBuilder::forRange(Value *lo, Value *hi, LoopBody body) {
  forRange(lo, hi, index(1), body);
}

void KernelBuilder::forRange(Value *lo, Value *hi, Value *step, LoopBody body) {
  LLVMContext &ctx = module.getContext();
  Function *fn = cur.fn;
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *header = BasicBlock::Create(ctx, "loop", fn);
  BasicBlock *bodyBB = BasicBlock::Create(ctx, "loop.body", fn);
  BasicBlock *exit = BasicBlock::Create(ctx, "loop.end", fn);
  b.CreateBr(header);

  b.SetInsertPoint(header);
  PHINode *i = b.CreatePHI(b.getInt64Ty(), 2, "i");
  i->addIncoming(lo, pre);
  b.CreateCondBr(b.CreateICmpSLT(i, hi), bodyBB, exit);

  b.SetInsertPoint(bodyBB);
  body(i);
  Value *next = b.CreateNSWAdd(i, step);
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);

  b.SetInsertPoint(exit);
}

void KernelBuilder::forRange(int64_t lo, int64_t hi, LoopBody body) {
  if (hi <= lo)
    return;
  if (hi - lo == 1) {
    body(index(lo));
    return;
  }
  forRange(index(lo), index(hi), body);
}

void KernelBuilder::ifThen(Value *cond, function_ref<void()> then) {
  LLVMContext &ctx = module.getContext();
  BasicBlock *thenBB = BasicBlock::Create(ctx, "if.then", cur.fn);
  BasicBlock *merge = BasicBlock::Create(ctx, "if.end", cur.fn);
  b.CreateCondBr(cond, thenBB, merge);
  b.SetInsertPoint(thenBB);
  then();
  b.CreateBr(merge);
  b.SetInsertPoint(merge);
}

} // namespace hx

//===----------------------------------------------------------------------===//
// Loop structure defaults
//===----------------------------------------------------------------------===//

namespace hx {

/// The estimated work of one parallel iteration when a nest's innermost dim
/// is split into blocks: 4096 elements of a cheap elementwise body, one
/// point of a body that costs 4096 or more (a reduction).
static constexpr int64_t kBlockWork = 4096;

int64_t KernelBuilder::innerBlockLength(int64_t innerSize, int64_t workPerPoint) const {
  return std::min(innerSize, std::max<int64_t>(1, kBlockWork / std::max<int64_t>(workPerPoint, 1)));
}

void KernelBuilder::contraction(const Contraction &c) {
  if (c.batch * c.m * c.n == 0)
    return;
  contractionLoop(c, accumulatorType(c.type));
}

void KernelBuilder::contractionLoop(const Contraction &c, DType acc) {
  DType storeAs = accumulatorType(c.type);
  parallelFor(c.batch * c.m * c.n, 2 * std::max<int64_t>(c.depth, 1), [&](Value *p) {
    SmallVector<Value *, 4> idx = unflatten(p, {c.batch, c.m, c.n});
    LocalVar sum = localVar(acc, constant(acc, 0));
    forRange(0, c.depth, [&](Value *k) {
      Value *a = c.loadA(idx[0], idx[1], k);
      if (c.insideA)
        a = select(c.insideA(idx[0], idx[1], k), a, constant(c.type, 0));
      a = cast(a, c.type, acc);
      Value *w = cast(c.loadB(idx[0], idx[2], k), c.type, acc);
      set(sum, accumulate(acc, get(sum), mul(acc, a, w)));
    });
    c.store(idx[0], idx[1], idx[2], cast(get(sum), acc, storeAs));
  });
}

} // namespace hx
