//===- HostTensor.cpp - A dense tensor in host memory ---------------------===//
//
// The buffer is one posix_memalign'ed block of kAlignment bytes alignment,
// rounded up to a whole number of alignment units (at least one, so data() of
// an empty tensor is not null) and zero-filled, so kernels may read whole
// cache lines past the last element.
//
// Element access by flat index converts through double:
//  - reads widen exactly (int64 beyond 2^53 rounds; bool is 0 or 1);
//  - writes to an integer dtype truncate toward zero, then wrap to the width
//    as a C cast from int64 does; NaN stores 0 and values beyond the int64
//    (uint64) range saturate first, so no write is undefined behaviour;
//  - float16 is IEEE binary16, rounded to nearest even directly from double
//    (no double rounding through float).
//
//===----------------------------------------------------------------------===//

#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>

using namespace llvm;

namespace hx {

//===----------------------------------------------------------------------===//
// float16
//===----------------------------------------------------------------------===//

/// Rounds a double to binary16 bits, to nearest even.
static uint16_t doubleToHalfBits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  uint16_t sign = uint16_t((bits >> 48) & 0x8000);
  unsigned exp = unsigned((bits >> 52) & 0x7ff);
  uint64_t mant = bits & ((uint64_t(1) << 52) - 1);
  if (exp == 0x7ff)
    return mant ? uint16_t(sign | 0x7e00) : uint16_t(sign | 0x7c00); // NaN, inf
  if (exp == 0)
    return sign; // zero or a double subnormal: far below half's range
  uint64_t m = mant | (uint64_t(1) << 52);
  int e = int(exp) - 1023 + 15; // the biased half exponent
  if (e >= 31)
    return uint16_t(sign | 0x7c00);
  // A normal half keeps 10 of the 52 fraction bits; a subnormal one (e <= 0)
  // shifts 1 - e bits further and has no implicit bit.
  unsigned shift = 42;
  bool normal = e > 0;
  if (!normal)
    shift += unsigned(1 - e);
  if (shift > 60)
    return sign; // below half the smallest subnormal
  uint64_t q = m >> shift;
  uint64_t rem = m & ((uint64_t(1) << shift) - 1);
  uint64_t halfway = uint64_t(1) << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1)))
    ++q;
  // A carry out of the fraction bumps the exponent (to inf at the top): the
  // encoding stays correct because exponent and fraction are adjacent.
  uint64_t h = normal ? (uint64_t(e - 1) << 10) + q : q;
  return uint16_t(sign | h);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal: value = mant * 2^-24, exact in float.
    float f = std::ldexp(float(mant), -24);
    return sign ? -f : f;
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint16_t floatToHalf(float f) { return doubleToHalfBits(double(f)); }

float bfloat16ToFloat(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

uint16_t floatToBFloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

HostTensor widenBFloat16(HostTensor t) {
  if (t.dtype() != DType::BFloat16)
    return t;
  HostTensor wide(DType::Float32, t.shape());
  for (int64_t i = 0, n = t.numElements(); i < n; ++i)
    wide.as<float>()[i] = bfloat16ToFloat(t.as<uint16_t>()[i]);
  return wide;
}

HostTensor npyAs(HostTensor t, DType want) {
  if (want != DType::BFloat16 || t.dtype() != DType::Float32)
    return t;
  HostTensor out(DType::BFloat16, t.shape());
  for (int64_t i = 0, n = t.numElements(); i < n; ++i)
    out.as<uint16_t>()[i] = floatToBFloat16(t.as<float>()[i]);
  return out;
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

void HostTensor::FreeAligned::operator()(uint8_t *p) const { std::free(p); }

HostTensor::HostTensor(DType dtype, ArrayRef<int64_t> shape) : type(dtype) {
  // Callers validate that the element count fits; a negative dim is treated
  // as empty rather than becoming a huge allocation. A zero dim empties the
  // tensor whatever the others are (a .npy file may say (2^62, 16, 0)), so
  // the product is only formed when no dim is zero.
  for (int64_t d : shape)
    dims.push_back(std::max<int64_t>(d, 0));
  count = is_contained(dims, 0)
              ? 0
              : std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<int64_t>());
  size_t bytes = size_t(count) * dtypeBytes(dtype);
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0)
    rounded = kAlignment;
  void *p = nullptr;
  if (posix_memalign(&p, kAlignment, rounded) != 0 || !p)
    report_bad_alloc_error("HostTensor: out of memory");
  std::memset(p, 0, rounded);
  buffer.reset(static_cast<uint8_t *>(p));
}

HostTensor HostTensor::clone() const {
  if (!buffer)
    return HostTensor();
  HostTensor t(type, dims);
  if (byteSize())
    std::memcpy(t.data(), data(), byteSize());
  return t;
}

double HostTensor::getDouble(int64_t i) const {
  const uint8_t *p = buffer.get();
  switch (type) {
  case DType::Bool:
    return p[i] != 0 ? 1.0 : 0.0;
  case DType::Int8:
    return as<int8_t>()[i];
  case DType::Int16:
    return as<int16_t>()[i];
  case DType::Int32:
    return as<int32_t>()[i];
  case DType::Int64:
    return double(as<int64_t>()[i]);
  case DType::UInt8:
    return as<uint8_t>()[i];
  case DType::UInt16:
    return as<uint16_t>()[i];
  case DType::UInt32:
    return as<uint32_t>()[i];
  case DType::UInt64:
    return double(as<uint64_t>()[i]);
  case DType::Float16:
    return halfToFloat(as<uint16_t>()[i]);
  case DType::BFloat16:
    return bfloat16ToFloat(as<uint16_t>()[i]);
  case DType::Float32:
    return as<float>()[i];
  case DType::Float64:
    return as<double>()[i];
  }
  return 0;
}

/// v truncated toward zero as the 64-bit pattern a C cast from int64 (or, at
/// and above 2^63, uint64) gives; saturating outside those ranges, 0 for NaN.
static uint64_t truncateToBits(double v) {
  if (std::isnan(v))
    return 0;
  double t = std::trunc(v);
  constexpr double two63 = 9223372036854775808.0;
  if (t >= two63)
    return t < 2 * two63 ? uint64_t(t) : ~uint64_t(0);
  if (t < -two63)
    return uint64_t(INT64_MIN);
  return uint64_t(int64_t(t));
}

void HostTensor::setDouble(int64_t i, double v) {
  uint8_t *p = buffer.get();
  switch (type) {
  case DType::Bool:
    p[i] = v != 0 ? 1 : 0;
    return;
  case DType::Int8:
  case DType::UInt8:
    p[i] = uint8_t(truncateToBits(v));
    return;
  case DType::Int16:
  case DType::UInt16:
    as<uint16_t>()[i] = uint16_t(truncateToBits(v));
    return;
  case DType::Int32:
  case DType::UInt32:
    as<uint32_t>()[i] = uint32_t(truncateToBits(v));
    return;
  case DType::Int64:
  case DType::UInt64:
    as<uint64_t>()[i] = truncateToBits(v);
    return;
  case DType::Float16:
    as<uint16_t>()[i] = doubleToHalfBits(v);
    return;
  case DType::BFloat16: // as the kernels round: to float32, then to bfloat16
    as<uint16_t>()[i] = floatToBFloat16(float(v));
    return;
  case DType::Float32:
    as<float>()[i] = float(v);
    return;
  case DType::Float64:
    as<double>()[i] = v;
    return;
  }
}

std::string HostTensor::typeString() const {
  std::string out;
  raw_string_ostream os(out);
  TypeRef t = makeTensorType(dims, type);
  printType(os, t.get());
  return out;
}

} // namespace hx
