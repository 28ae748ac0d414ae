//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// The format (numpy/lib/format.py):
//
//   "\x93NUMPY" major minor  header-length  header  data
//
// The length is a little-endian uint16 in version 1.0 and a uint32 in 2.0
// and 3.0. The header is a Python dict literal, padded with spaces and ended
// by '\n', e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
//
// Reading treats every byte as hostile (the reader is fuzzed):
//  1. Magic, version and header length are checked against the bytes
//     present before anything is read.
//  2. The header is parsed by a small recursive-descent parser for the subset
//     of Python literals NumPy writes (strings, True/False/None, integers,
//     tuples and lists), with a nesting limit, then checked: exactly the
//     keys 'descr', 'fortran_order' and 'shape', a supported little-endian
//     (or byte-order-free) dtype, non-negative dims whose byte size does not
//     overflow.
//  3. The data must be exactly the expected size: shorter is "truncated
//     data", longer is "trailing data". Only then is the tensor allocated, so
//     a header claiming terabytes allocates nothing.
//  4. Fortran-order data is transposed into C order; bool bytes are
//     normalized to 0/1.
//
// Writing emits version 1.0, C order, with the header padded so the data
// starts at a multiple of 64 bytes, through a temporary file in the target's
// directory renamed over the target (no partial file on failure).
//
//===----------------------------------------------------------------------===//

#include "hx/Tensor/Npy.h"
#include "hx/Support/Files.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>
#include <optional>

using namespace llvm;

namespace hx {

static constexpr char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicLen = 6;
/// NumPy's own limit on the number of dims (NPY_MAXDIMS in NumPy 2).
static constexpr size_t kMaxNpyRank = 64;
/// Deepest nesting of brackets accepted in a header.
static constexpr unsigned kMaxHeaderNesting = 16;
/// Most keys accepted in one dict (NumPy writes three).
static constexpr size_t kMaxHeaderKeys = 16;

static Error npyError(StringRef name, const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), (name + ": " + msg).str());
}

//===----------------------------------------------------------------------===//
// dtype descriptors
//===----------------------------------------------------------------------===//

/// The descriptor's type code and size ("f4"), without byte order.
static StringRef typeCode(DType t) {
  switch (t) {
  case DType::Bool:
    return "b1";
  case DType::Int8:
    return "i1";
  case DType::Int16:
    return "i2";
  case DType::Int32:
    return "i4";
  case DType::Int64:
    return "i8";
  case DType::UInt8:
    return "u1";
  case DType::UInt16:
    return "u2";
  case DType::UInt32:
    return "u4";
  case DType::UInt64:
    return "u8";
  case DType::Float16:
    return "f2";
  case DType::Float32:
    return "f4";
  case DType::Float64:
    return "f8";
  case DType::BFloat16: // written as float32 (serializeNpy)
    return "f4";
  }
  return "";
}

static std::string descrOf(DType t) {
  std::string s(1, dtypeBytes(t) == 1 ? '|' : '<');
  s += typeCode(t);
  return s;
}

/// The dtype of a descriptor such as '<f4' or '|b1', or an error message.
static std::optional<DType> parseDescr(StringRef descr, std::string &why) {
  static constexpr DType all[] = {DType::Bool,   DType::Int8,    DType::Int16,   DType::Int32,
                                  DType::Int64,  DType::UInt8,   DType::UInt16,  DType::UInt32,
                                  DType::UInt64, DType::Float16, DType::Float32, DType::Float64};
  if (descr.empty()) {
    why = "empty dtype descriptor";
    return std::nullopt;
  }
  char order = descr[0];
  StringRef code = descr;
  if (order == '<' || order == '>' || order == '|' || order == '=')
    code = descr.drop_front();
  else
    order = '=';
  for (DType t : all) {
    if (code != typeCode(t))
      continue;
    bool oneByte = dtypeBytes(t) == 1;
    if (order == '>' && !oneByte) {
      why = "big-endian dtype '" + descr.str() + "' is not supported (only little-endian)";
      return std::nullopt;
    }
    if (order == '|' && !oneByte) {
      why = "dtype '" + descr.str() + "' has no byte order";
      return std::nullopt;
    }
    return t;
  }
  why = "unsupported dtype '" + descr.str() + "'";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Header literal parser
//===----------------------------------------------------------------------===//

namespace {
struct PyValue {
  enum class Kind { None, Bool, Int, Str, Tuple, List, Dict } kind = Kind::None;
  bool boolValue = false;
  int64_t intValue = 0;
  bool intOverflow = false; // the literal does not fit in int64
  std::string str;
  std::vector<PyValue> items; // Tuple, List; Dict: the values, each with its key
  std::string key;            // a Dict entry's key
};

class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : text(text) {}

  /// Parses the whole header as one dict; on failure `error` says why.
  std::optional<PyValue> parseDict() {
    skipSpace();
    if (!peek('{'))
      return fail("the header is not a dict literal (expected '{')");
    std::optional<PyValue> v = parseValue(0);
    if (!v)
      return std::nullopt;
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the header dict at offset " + std::to_string(pos));
    return v;
  }

  std::string error;

private:
  StringRef text;
  size_t pos = 0;

  std::nullopt_t fail(std::string msg) {
    if (error.empty())
      error = std::move(msg);
    return std::nullopt;
  }
  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  bool peek(char c) const { return pos < text.size() && text[pos] == c; }
  bool consume(char c) {
    skipSpace();
    if (!peek(c))
      return false;
    ++pos;
    return true;
  }
  std::string here() const {
    if (pos >= text.size())
      return "at the end of the header";
    return "at offset " + std::to_string(pos);
  }

  std::optional<PyValue> parseValue(unsigned depth) {
    if (depth > kMaxHeaderNesting)
      return fail("the header nests too deeply");
    skipSpace();
    if (pos >= text.size())
      return fail("the header dict is not closed");
    char c = text[pos];
    if (c == '\'' || c == '"')
      return parseString();
    if (c == '{')
      return parseDictBody(depth);
    if (c == '(' || c == '[')
      return parseSequence(depth);
    if (c == '-' || c == '+' || isDigit(c))
      return parseInt();
    if (isAlpha(c)) {
      size_t start = pos;
      while (pos < text.size() && isAlnum(text[pos]))
        ++pos;
      StringRef word = text.slice(start, pos);
      PyValue v;
      if (word == "True" || word == "False") {
        v.kind = PyValue::Kind::Bool;
        v.boolValue = word == "True";
        return v;
      }
      if (word == "None")
        return v;
      pos = start;
      return fail("unexpected name '" + word.str() + "' in the header " + here());
    }
    return fail(std::string("unexpected character '") + (isPrint(c) ? std::string(1, c) : "?") +
                "' in the header " + here());
  }

  std::optional<PyValue> parseString() {
    char quote = text[pos++];
    PyValue v;
    v.kind = PyValue::Kind::Str;
    while (pos < text.size() && text[pos] != quote) {
      if (text[pos] == '\\' || text[pos] == '\n')
        return fail("unsupported character in a string of the header " + here());
      v.str.push_back(text[pos++]);
    }
    if (pos >= text.size())
      return fail("unterminated string in the header");
    ++pos;
    return v;
  }

  std::optional<PyValue> parseInt() {
    PyValue v;
    v.kind = PyValue::Kind::Int;
    bool negative = false;
    if (text[pos] == '-' || text[pos] == '+')
      negative = text[pos++] == '-';
    size_t start = pos;
    uint64_t mag = 0;
    while (pos < text.size() && isDigit(text[pos])) {
      unsigned digit = unsigned(text[pos++] - '0');
      if (mag > (uint64_t(INT64_MAX) - digit) / 10)
        v.intOverflow = true;
      else
        mag = mag * 10 + digit;
    }
    if (pos == start)
      return fail("expected digits in the header " + here());
    if (peek('L') || peek('l')) // Python 2 long literals
      ++pos;
    v.intValue = negative ? -int64_t(mag) : int64_t(mag);
    return v;
  }

  /// `(a, b, ...)`, `(a,)`, `()`, `[a, b]`. A parenthesized single value
  /// without a comma is that value, as in Python.
  std::optional<PyValue> parseSequence(unsigned depth) {
    char open = text[pos++];
    char close = open == '(' ? ')' : ']';
    PyValue v;
    v.kind = open == '(' ? PyValue::Kind::Tuple : PyValue::Kind::List;
    bool sawComma = false;
    while (true) {
      if (consume(close))
        break;
      std::optional<PyValue> item = parseValue(depth + 1);
      if (!item)
        return std::nullopt;
      v.items.push_back(std::move(*item));
      if (consume(','))
        sawComma = true;
      else if (consume(close))
        break;
      else
        return fail(std::string("expected ',' or '") + close + "' in the header " + here());
    }
    if (open == '(' && v.items.size() == 1 && !sawComma) {
      PyValue inner = std::move(v.items[0]);
      return inner;
    }
    return v;
  }

  std::optional<PyValue> parseDictBody(unsigned depth) {
    ++pos; // '{'
    PyValue v;
    v.kind = PyValue::Kind::Dict;
    while (true) {
      if (consume('}'))
        break;
      skipSpace();
      if (!peek('\'') && !peek('"'))
        return fail("expected a string key in the header " + here());
      std::optional<PyValue> key = parseString();
      if (!key)
        return std::nullopt;
      if (!consume(':'))
        return fail("expected ':' after key '" + key->str + "' in the header " + here());
      std::optional<PyValue> value = parseValue(depth + 1);
      if (!value)
        return std::nullopt;
      if (v.items.size() >= kMaxHeaderKeys)
        return fail("too many keys in the header dict");
      for (const PyValue &e : v.items)
        if (e.key == key->str)
          return fail("duplicate key '" + key->str + "' in the header");
      value->key = key->str;
      v.items.push_back(std::move(*value));
      if (consume(','))
        continue;
      if (consume('}'))
        break;
      return fail("expected ',' or '}' in the header " + here());
    }
    return v;
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Reads a little-endian unsigned integer of `n` bytes.
static uint64_t readLE(StringRef bytes, size_t offset, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i)
    v |= uint64_t(uint8_t(bytes[offset + i])) << (8 * i);
  return v;
}

Expected<HostTensor> parseNpy(StringRef bytes, StringRef name) {
  // 1. Preamble.
  if (bytes.size() < kMagicLen || bytes.substr(0, kMagicLen) != StringRef(kMagic, kMagicLen))
    return npyError(name, "not a .npy file (bad magic)");
  if (bytes.size() < kMagicLen + 2)
    return npyError(name, "truncated header (no version)");
  unsigned major = uint8_t(bytes[kMagicLen]), minor = uint8_t(bytes[kMagicLen + 1]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return npyError(name, "unsupported .npy version " + Twine(major) + "." + Twine(minor) +
                              " (supported: 1.0, 2.0, 3.0)");
  unsigned lenBytes = major == 1 ? 2 : 4;
  size_t lenOffset = kMagicLen + 2;
  if (bytes.size() < lenOffset + lenBytes)
    return npyError(name, "truncated header (no header length)");
  uint64_t headerLen = readLE(bytes, lenOffset, lenBytes);
  size_t headerStart = lenOffset + lenBytes;
  if (headerLen > bytes.size() - headerStart)
    return npyError(name, "truncated header (expected " + Twine(headerLen) + " bytes, found " +
                              Twine(bytes.size() - headerStart) + ")");
  StringRef headerText = bytes.substr(headerStart, headerLen);
  StringRef data = bytes.substr(headerStart + headerLen);

  // 2. Header.
  HeaderParser parser(headerText);
  std::optional<PyValue> dict = parser.parseDict();
  if (!dict)
    return npyError(name, "invalid header: " + parser.error);
  const PyValue *descr = nullptr, *fortran = nullptr, *shapeValue = nullptr;
  for (const PyValue &value : dict->items) {
    if (value.key == "descr")
      descr = &value;
    else if (value.key == "fortran_order")
      fortran = &value;
    else if (value.key == "shape")
      shapeValue = &value;
    else
      return npyError(name, "invalid header: unexpected key '" + value.key + "'");
  }
  for (auto [ptr, key] : {std::pair{descr, "descr"}, std::pair{fortran, "fortran_order"},
                          std::pair{shapeValue, "shape"}})
    if (!ptr)
      return npyError(name, Twine("invalid header: missing key '") + key + "'");

  if (descr->kind != PyValue::Kind::Str)
    return npyError(name, "unsupported dtype: 'descr' is not a string (structured arrays "
                          "are not supported)");
  std::string why;
  std::optional<DType> dtype = parseDescr(descr->str, why);
  if (!dtype)
    return npyError(name, why);
  if (fortran->kind != PyValue::Kind::Bool)
    return npyError(name, "invalid header: 'fortran_order' must be True or False");
  if (shapeValue->kind != PyValue::Kind::Tuple)
    return npyError(name, "invalid header: 'shape' must be a tuple of integers");
  if (shapeValue->items.size() > kMaxNpyRank)
    return npyError(name, "invalid shape: rank " + Twine(shapeValue->items.size()) +
                              " exceeds the maximum " + Twine(kMaxNpyRank));
  SmallVector<int64_t, 4> shape;
  uint64_t count = 1;
  bool overflow = false;
  for (const PyValue &d : shapeValue->items) {
    if (d.kind != PyValue::Kind::Int)
      return npyError(name, "invalid header: 'shape' must be a tuple of integers");
    if (d.intOverflow)
      return npyError(name, "invalid shape: a dimension is too large");
    if (d.intValue < 0)
      return npyError(name, "invalid shape: negative dimension " + Twine(d.intValue));
    shape.push_back(d.intValue);
    if (d.intValue != 0 && count > uint64_t(INT64_MAX) / uint64_t(d.intValue))
      overflow = true;
    else
      count *= uint64_t(d.intValue);
  }
  // A zero dim makes the product 0 whatever overflowed before it.
  for (int64_t d : shape)
    if (d == 0) {
      count = 0;
      overflow = false;
    }
  unsigned elemBytes = dtypeBytes(*dtype);
  if (overflow || count > uint64_t(INT64_MAX) / elemBytes)
    return npyError(name, "invalid shape: the element count overflows");
  uint64_t expected = count * elemBytes;

  // 3. Data size.
  if (data.size() < expected)
    return npyError(name, "truncated data (expected " + Twine(expected) + " bytes, found " +
                              Twine(data.size()) + ")");
  if (data.size() > expected)
    return npyError(name, "trailing data (expected " + Twine(expected) + " bytes, found " +
                              Twine(data.size()) + ")");

  // 4. Copy, transposing Fortran order.
  HostTensor t(*dtype, shape);
  if (!fortran->boolValue || shape.size() < 2) {
    if (expected)
      std::memcpy(t.data(), data.data(), expected);
  } else if (count) { // (an empty tensor's strides may overflow: nothing to copy)
    // Element (i0, ..., in-1) sits at sum(ik * fstride[k]) in the file, with
    // fstride[0] = 1; walk the C-order indices with an odometer.
    size_t rank = shape.size();
    SmallVector<int64_t, 8> fstride(rank, 1), idx(rank, 0);
    for (size_t k = 1; k < rank; ++k)
      fstride[k] = fstride[k - 1] * shape[k - 1];
    auto *out = static_cast<uint8_t *>(t.data());
    int64_t src = 0;
    for (int64_t i = 0; i < int64_t(count); ++i) {
      std::memcpy(out + size_t(i) * elemBytes, data.data() + size_t(src) * elemBytes, elemBytes);
      for (size_t k = rank; k-- > 0;) {
        if (++idx[k] < shape[k]) {
          src += fstride[k];
          break;
        }
        src -= fstride[k] * (shape[k] - 1);
        idx[k] = 0;
      }
    }
  }
  if (*dtype == DType::Bool) {
    auto *p = static_cast<uint8_t *>(t.data());
    for (uint64_t i = 0; i < count; ++i)
      p[i] = p[i] != 0;
  }
  return t;
}

Expected<HostTensor> readNpy(StringRef path) {
  ReadFileOptions opts;
  opts.nullTerminated = false;
  Expected<std::unique_ptr<MemoryBuffer>> buf = readUserFile(path, opts);
  if (!buf)
    return npyError(path, "cannot read: " + toString(buf.takeError()));
  return parseNpy((*buf)->getBuffer(), path);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

std::string serializeNpy(const HostTensor &t) {
  // NumPy has no bfloat16: float32, which holds every value exactly.
  if (t.dtype() == DType::BFloat16)
    return serializeNpy(widenBFloat16(t.clone()));
  std::string header = "{'descr': '" + descrOf(t.dtype()) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.rank(); ++i) {
    if (i)
      header += ", ";
    header += std::to_string(t.shape()[i]);
  }
  if (t.rank() == 1)
    header += ",";
  header += "), }";
  // Pad with spaces and a final newline so the data is 64-byte aligned.
  size_t preamble = kMagicLen + 2 + 2;
  size_t total = preamble + header.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  header.append(padded - total, ' ');
  header += '\n';

  std::string out(kMagic, kMagicLen);
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char((header.size() >> 8) & 0xff);
  out += header;
  if (t.byteSize())
    out.append(static_cast<const char *>(t.data()), t.byteSize());
  return out;
}

Error writeNpy(StringRef path, const HostTensor &t) {
  if (Error e = writeFileAtomically(path, serializeNpy(t)))
    return npyError(path, toString(std::move(e)));
  return Error::success();
}

} // namespace hx
