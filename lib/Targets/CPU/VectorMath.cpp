//===- VectorMath.cpp - exp, log, tanh, erf as straight-line float32 code -===//
//
// CPUKernelBuilder::math for float32 (and float16, computed in float32)
// exp, log, tanh and erf: polynomial approximations written out in the kernel,
// with selects instead of branches and no calls, so that the loop
// vectorizer turns an elementwise loop over them into vector code (a libm
// call per element stops it). Everything works on scalars and vectors
// alike. softmax reaches exp through its definition, GELU erf.
//
//   exp(x):  n = round(x / ln 2), r = x - n ln 2 (in two parts, Cody and
//            Waite), e^r by a degree-7 polynomial (Cephes' expf
//            coefficients), times 2^n as two powers of two built from their
//            bits (so that results down to the denormals come out right).
//            x > 88.72 is +inf, x < -103.98 is 0.
//   log(x):  x = m 2^e with m in [sqrt(1/2), sqrt(2)) (denormals scaled
//            first), log(1 + f) for f = m - 1 by f - f^2/2 + f^3 P(f), P of
//            degree 8 (Cephes' logf coefficients), plus e ln 2 in two parts.
//            0 is -inf, x < 0 NaN, +inf +inf.
//   tanh(x): |x| < 0.625: x + x^3 P(x^2), P of degree 5 fitted to tanh's
//            relative error (1.6e-10 in exact arithmetic); beyond,
//            1 - 2 / (e^(2|x|) + 1) with x's sign.
//   erf(x):  |x| < 1: x P(x^2), P of degree 7 (3e-11); 1 <= |x| < 4:
//            1 - e^(-x^2) Q(1/|x| - 0.625), Q of degree 10 (2e-9); beyond,
//            1; with x's sign.
//   sigmoid(x): e = exp(-|x|) by exp's steps for arguments <= 0 only (n
//            rounded by adding 1.5 * 2^23, whose low bits then hold it; no
//            overflow or infinity to handle), then 1 / (1 + e) for x >= 0
//            and e / (1 + e) below.
//
// The coefficients of P and Q were fitted (Lawson's iteration over
// Chebyshev nodes, against mpmath) for this file. NaN gives NaN, -0 gives
// -0, ±inf give exp's +inf and 0 and tanh's and erf's ±1.
// unittests/Targets/VectorMathTest.cpp measures the error in ulp against
// double-precision libm over a sweep of all float32 bit patterns; the
// bounds it holds are stated in docs/execution.md.
//
//===----------------------------------------------------------------------===//

#include "CPUKernelBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include <cmath>

using namespace llvm;

namespace hx {

namespace {

/// Horner's rule with fused multiply-adds: c[0] + c[1] x + ... .
Value *polynomial(IRBuilderBase &b, Value *x, ArrayRef<double> c) {
  llvm::Type *ty = x->getType();
  Value *acc = ConstantFP::get(ty, c.back());
  for (size_t i = c.size() - 1; i-- > 0;)
    acc = b.CreateIntrinsic(Intrinsic::fmuladd, {ty}, {acc, x, ConstantFP::get(ty, c[i])});
  return acc;
}

Value *fconst(Value *like, double v) { return ConstantFP::get(like->getType(), v); }

/// e^x for x (clamped to exp's range) = n ln 2 + r, n an integral float
/// and `ni` the same as int32 (`intTy`): r by Cody and Waite's two parts,
/// e^r by Cephes' polynomial, times 2^n as 2^n1 * 2^n2, each within the
/// normal exponents (results down to the denormals).
Value *reducedExp(IRBuilderBase &b, Value *x, Value *n, Value *ni, llvm::Type *intTy) {
  llvm::Type *ty = x->getType();
  Value *r = b.CreateIntrinsic(Intrinsic::fmuladd, {ty}, {n, fconst(x, -0.693359375), x});
  r = b.CreateIntrinsic(Intrinsic::fmuladd, {ty}, {n, fconst(x, 2.12194440e-4), r});
  Value *p = polynomial(b, r,
                        {1.0, 1.0, 5.0000001201E-1, 1.6666665459E-1, 4.1665795894E-2,
                         8.3334519073E-3, 1.3981999507E-3, 1.9875691500E-4});
  Value *n1 = b.CreateAShr(ni, ConstantInt::get(intTy, 1));
  Value *n2 = b.CreateSub(ni, n1);
  auto pow2 = [&](Value *k) {
    return b.CreateBitCast(
        b.CreateShl(b.CreateAdd(k, ConstantInt::get(intTy, 127)), ConstantInt::get(intTy, 23)), ty);
  };
  return b.CreateFMul(b.CreateFMul(p, pow2(n1)), pow2(n2));
}

} // namespace

Value *CPUKernelBuilder::expF32(Value *x) {
  llvm::Type *ty = x->getType(), *intTy = b.getInt32Ty();
  if (auto *vt = dyn_cast<VectorType>(ty)) // the same shape, in int32
    intTy = VectorType::get(intTy, vt->getElementCount());
  const double hi = 88.72283935546875, lo = -103.97208404541015625;
  Value *isNan = b.CreateFCmpUNO(x, x);
  // Clamp (NaN stays NaN: the comparisons are false).
  Value *xc = b.CreateSelect(b.CreateFCmpOGT(x, fconst(x, hi)), fconst(x, hi), x);
  xc = b.CreateSelect(b.CreateFCmpOLT(xc, fconst(x, lo)), fconst(x, lo), xc);
  Value *n = b.CreateUnaryIntrinsic(
      Intrinsic::floor, b.CreateIntrinsic(Intrinsic::fmuladd, {ty},
                                          {xc, fconst(x, 1.44269504088896341), fconst(x, 0.5)}));
  n = b.CreateSelect(isNan, fconst(x, 0), n);
  Value *e = reducedExp(b, xc, n, b.CreateFPToSI(n, intTy), intTy);
  e = b.CreateSelect(b.CreateFCmpOGT(x, fconst(x, hi)), fconst(x, HUGE_VAL), e);
  e = b.CreateSelect(b.CreateFCmpOLT(x, fconst(x, lo)), fconst(x, 0), e);
  return b.CreateSelect(isNan, x, e);
}

Value *CPUKernelBuilder::logF32(Value *x) {
  llvm::Type *ty = x->getType(), *intTy = b.getInt32Ty();
  if (auto *vt = dyn_cast<VectorType>(ty))
    intTy = VectorType::get(intTy, vt->getElementCount());
  auto ic = [&](int64_t v) { return ConstantInt::get(intTy, uint64_t(v), true); };
  // Denormals are scaled into the normal range first.
  Value *sub = b.CreateFCmpOLT(x, fconst(x, 0x1p-126));
  Value *xs = b.CreateSelect(sub, b.CreateFMul(x, fconst(x, 0x1p23)), x);
  Value *bits = b.CreateBitCast(xs, intTy);
  Value *e = b.CreateSub(b.CreateAnd(b.CreateLShr(bits, ic(23)), ic(0xff)), ic(127));
  e = b.CreateSelect(sub, b.CreateSub(e, ic(23)), e);
  Value *m = b.CreateBitCast(b.CreateOr(b.CreateAnd(bits, ic(0x7fffff)), ic(0x3f800000)), ty);
  // m in [sqrt(1/2), sqrt(2)).
  Value *big = b.CreateFCmpOGT(m, fconst(x, 1.41421356237309505));
  m = b.CreateSelect(big, b.CreateFMul(m, fconst(x, 0.5)), m);
  e = b.CreateSelect(big, b.CreateAdd(e, ic(1)), e);
  Value *f = b.CreateFSub(m, fconst(x, 1));
  Value *fe = b.CreateSIToFP(e, ty);
  Value *z = b.CreateFMul(f, f);
  Value *p = polynomial(b, f,
                        {3.3333331174E-1, -2.4999993993E-1, 2.0000714765E-1, -1.6668057665E-1,
                         1.4249322787E-1, -1.2420140846E-1, 1.1676998740E-1, -1.1514610310E-1,
                         7.0376836292E-2});
  Value *y = b.CreateFMul(b.CreateFMul(f, z), p);
  y = b.CreateIntrinsic(Intrinsic::fmuladd, {ty}, {fe, fconst(x, -2.12194440e-4), y});
  y = b.CreateIntrinsic(Intrinsic::fmuladd, {ty}, {z, fconst(x, -0.5), y});
  Value *r = b.CreateFAdd(f, y);
  r = b.CreateIntrinsic(Intrinsic::fmuladd, {ty}, {fe, fconst(x, 0.693359375), r});
  r = b.CreateSelect(b.CreateFCmpOEQ(x, fconst(x, HUGE_VAL)), x, r);
  r = b.CreateSelect(b.CreateFCmpOEQ(x, fconst(x, 0)), fconst(x, -HUGE_VAL), r);
  r = b.CreateSelect(b.CreateFCmpOLT(x, fconst(x, 0)), fconst(x, NAN), r);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, r);
}

Value *CPUKernelBuilder::tanhF32(Value *x) {
  llvm::Type *ty = x->getType();
  Value *a = b.CreateUnaryIntrinsic(Intrinsic::fabs, x);
  Value *x2 = b.CreateFMul(x, x);
  Value *p = polynomial(b, x2,
                        {-0.3333333080277342, 0.1333320600959969, -0.05394676318658691,
                         0.021700703799942614, -0.008177399483437275, 0.0021429628579622394});
  Value *small = b.CreateIntrinsic(Intrinsic::fmuladd, {ty}, {b.CreateFMul(x2, x), p, x});
  Value *e = expF32(b.CreateFAdd(a, a));
  Value *big =
      b.CreateFSub(fconst(x, 1), b.CreateFDiv(fconst(x, 2), b.CreateFAdd(e, fconst(x, 1))));
  big = b.CreateBinaryIntrinsic(Intrinsic::copysign, big, x);
  // NaN fails the comparison and takes `big`, which is NaN.
  return b.CreateSelect(b.CreateFCmpOLT(a, fconst(x, 0.625)), small, big);
}

Value *CPUKernelBuilder::erfF32(Value *x) {
  Value *a = b.CreateUnaryIntrinsic(Intrinsic::fabs, x);
  Value *x2 = b.CreateFMul(x, x);
  Value *small = b.CreateFMul(
      x, polynomial(b, x2,
                    {1.1283791670581378, -0.37612638435074586, 0.1128378197863123,
                     -0.02686540025564215, 0.005220945950512837, -0.0008482835575831592,
                     0.00011256992513827946, -9.641634419685734e-06}));
  Value *s = b.CreateFSub(b.CreateFDiv(fconst(x, 1), a), fconst(x, 0.625));
  Value *q =
      polynomial(b, s,
                 {0.305952993, 0.382283771, -0.172394896, 0.0437670419, 0.0233378659, -0.0469456757,
                  0.0430752366, -0.0268952396, 0.00581236058, 0.0259323962, -0.0367458375});
  Value *erfc = b.CreateFMul(expF32(b.CreateFNeg(x2)), q);
  Value *mid = b.CreateFSub(fconst(x, 1), erfc);
  Value *big = b.CreateSelect(b.CreateFCmpOLT(a, fconst(x, 4)), mid, fconst(x, 1));
  big = b.CreateBinaryIntrinsic(Intrinsic::copysign, big, x);
  Value *r = b.CreateSelect(b.CreateFCmpOLT(a, fconst(x, 1)), small, big);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, r);
}

Value *CPUKernelBuilder::sigmoidF32(Value *x) {
  llvm::Type *ty = x->getType(), *intTy = b.getInt32Ty();
  if (auto *vt = dyn_cast<VectorType>(ty))
    intTy = VectorType::get(intTy, vt->getElementCount());
  // e = exp(z) for z = -|x| <= 0, exp's steps without those for z > 0.
  const double lo = -103.97208404541015625, shifter = 0x1.8p23;
  Value *z = b.CreateFNeg(b.CreateUnaryIntrinsic(Intrinsic::fabs, x));
  Value *under = b.CreateFCmpOLT(z, fconst(x, lo)); // e rounds to 0 (NaN: false)
  Value *zc = b.CreateSelect(under, fconst(x, lo), z);
  // n = z / ln 2 rounded, in the low bits of t (z * log2 e is within 150
  // of 0, so t stays in [2^23, 2^24), where the floats are the integers).
  Value *t = b.CreateIntrinsic(Intrinsic::fmuladd, {ty},
                               {zc, fconst(x, 1.44269504088896341), fconst(x, shifter)});
  Value *n = b.CreateFSub(t, fconst(x, shifter));
  // n (in [-150, 0]) as an int32: t's bits less the shifter's.
  Value *ni = b.CreateSub(b.CreateBitCast(t, intTy), b.CreateBitCast(fconst(x, shifter), intTy));
  Value *e = b.CreateSelect(under, fconst(x, 0), reducedExp(b, zc, n, ni, intTy));
  // 1 / (1 + e) for x >= 0, e / (1 + e) below; NaN stays NaN through e.
  Value *num = b.CreateSelect(b.CreateFCmpOLT(x, fconst(x, 0)), e, fconst(x, 1));
  return b.CreateFDiv(num, b.CreateFAdd(fconst(x, 1), e));
}

} // namespace hx
