//===- Numbers.cpp - hx-smith: its PRNG, types and number formatting ------===//
//
// Everything that turns the seed into bytes without depending on the
// platform: xoshiro256** seeded by splitmix64, numbers printed with integer
// arithmetic (multiples of 1/4), half-precision bits computed exactly for
// the constants' values, and base64 for the constant table.
//
//===----------------------------------------------------------------------===//
#include "Generator.h"
#include <cmath>
#include <cstring>

using namespace llvm;

namespace hx::smith {

//===----------------------------------------------------------------------===//
// Rng
//===----------------------------------------------------------------------===//

static uint64_t splitmix64(uint64_t &x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed) {
  for (uint64_t &w : s)
    w = splitmix64(seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t Rng::next() {
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t Rng::below(uint64_t n) {
  // Lemire's multiply-shift (the tiny bias is irrelevant here).
  return uint64_t((unsigned __int128)next() * n >> 64);
}

//===----------------------------------------------------------------------===//
// Types and numbers
//===----------------------------------------------------------------------===//

int64_t TensorTy::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string TensorTy::str() const {
  std::string s = "Tensor[(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "), " + dtypeName(dtype).str() + "]";
}

std::string formatNumber(double v, DType dt) {
  if (dt == DType::Bool)
    return v != 0 ? "True" : "False";
  if (!isFloat(dt)) {
    std::string s = std::to_string(int64_t(v));
    return dt == DType::Int64 ? s + "i64" : s;
  }
  int64_t quarters = int64_t(std::llround(v * 4));
  std::string s = quarters < 0 ? "-" : "";
  uint64_t q = uint64_t(quarters < 0 ? -quarters : quarters);
  s += std::to_string(q / 4);
  static const char *frac[] = {"", ".25", ".5", ".75"};
  s += frac[q % 4];
  return s + (dt == DType::Float16 ? "f16" : "f");
}

void appendLE(std::string &bytes, uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    bytes.push_back(char((v >> (8 * i)) & 0xff));
}

/// The half bits of a multiple of 1/8 within [-16, 16] (exact in half).
uint16_t halfBits(double v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  double a = std::fabs(v);
  int e = 0;
  double m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  // half: 1.f * 2^(E-15), E = e - 1 + 15; mantissa 10 bits.
  uint16_t exp = uint16_t(e - 1 + 15);
  uint16_t mant = uint16_t(std::lround((m * 2 - 1) * 1024));
  return sign | uint16_t(exp << 10) | mant;
}

std::string base64(const std::string &bytes) {
  static const char *tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = uint8_t(bytes[i]) << 16 | uint8_t(bytes[i + 1]) << 8 | uint8_t(bytes[i + 2]);
    for (int k = 3; k >= 0; --k)
      out.push_back(tbl[(n >> (6 * k)) & 63]);
  }
  if (size_t rest = bytes.size() - i) {
    uint32_t n = uint8_t(bytes[i]) << 16 | (rest == 2 ? uint8_t(bytes[i + 1]) << 8 : 0);
    out.push_back(tbl[(n >> 18) & 63]);
    out.push_back(tbl[(n >> 12) & 63]);
    out.push_back(rest == 2 ? tbl[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

} // namespace hx::smith
