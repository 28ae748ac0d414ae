//===- ByteStream.cpp - Little-endian records for hx's binary files -------===//
//
// See ByteStream.h: every read checks the bytes left first.
//
//===----------------------------------------------------------------------===//
#include "hx/Support/ByteStream.h"

using namespace llvm;

namespace hx {

uint64_t ByteReader::fixed(unsigned n) {
  if (failed || data.size() - pos < n) {
    failed = true;
    return 0;
  }
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i)
    v |= uint64_t(uint8_t(data[pos + i])) << (8 * i);
  pos += n;
  return v;
}

StringRef ByteReader::bytes() {
  uint64_t n = fixed(8);
  if (failed || data.size() - pos < n) {
    failed = true;
    return {};
  }
  StringRef b = data.substr(pos, n);
  pos += n;
  return b;
}

uint32_t ByteReader::count(size_t minBytes) {
  uint32_t n = uint32_t(fixed(4));
  if (failed || (minBytes && uint64_t(n) * minBytes > data.size() - pos)) {
    failed = true;
    return 0;
  }
  return n;
}

} // namespace hx
