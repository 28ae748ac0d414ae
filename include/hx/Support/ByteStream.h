//===- ByteStream.h - Little-endian records for hx's binary files -*- C++ -*-===//
//
// The compiled-model file (hx/Run/CompiledFile.h) and the kernels each
// backend saves into it are sequences of these fields: fixed-width
// little-endian integers, and byte strings as a 64-bit length followed by
// the bytes. A ByteReader never reads past its data: a field that does not
// fit (a truncated or corrupted file) makes it fail, every later read
// returns zero or empty, and ok() says so once at the end. A count is
// checked against the bytes left, so a corrupted one cannot make the
// reader's caller reserve memory the data could not fill.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_BYTESTREAM_H
#define HX_SUPPORT_BYTESTREAM_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace hx {

class ByteWriter {
public:
  explicit ByteWriter(std::string &out) : out(out) {}
  void u32(uint32_t v) { fixed(v, 4); }
  void u64(uint64_t v) { fixed(v, 8); }
  void i64(int64_t v) { fixed(uint64_t(v), 8); }
  void bytes(llvm::StringRef b) {
    u64(b.size());
    out.append(b.data(), b.size());
  }

private:
  void fixed(uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      out.push_back(char((v >> (8 * i)) & 0xff));
  }
  std::string &out;
};

class ByteReader {
public:
  explicit ByteReader(llvm::StringRef data) : data(data) {}
  uint32_t u32() { return uint32_t(fixed(4)); }
  uint64_t u64() { return fixed(8); }
  int64_t i64() { return int64_t(fixed(8)); }
  /// A byte string, pointing into the reader's data.
  llvm::StringRef bytes();
  /// A count of records that each take at least `minBytes` bytes: zero
  /// (and a failed reader) when the data left cannot hold them.
  uint32_t count(size_t minBytes = 1);
  bool ok() const { return !failed; }
  bool atEnd() const { return pos == data.size(); }
  size_t offset() const { return pos; }

private:
  uint64_t fixed(unsigned n);
  llvm::StringRef data;
  size_t pos = 0;
  bool failed = false;
};

} // namespace hx

#endif
