//===- NpyTest.cpp - HostTensor and .npy reading and writing --------------===//
#include "hx/Tensor/Npy.h"
#include "TestUtil.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cmath>
#include <cstring>

using namespace hx;
using namespace hx::test;
using namespace llvm;

namespace {

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

TEST(HostTensorTest, AlignedAndZeroFilled) {
  HostTensor t(DType::Float32, {3, 5});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % HostTensor::kAlignment, 0u);
  EXPECT_EQ(t.numElements(), 15);
  EXPECT_EQ(t.byteSize(), 60u);
  for (int64_t i = 0; i < 15; ++i)
    EXPECT_EQ(t.getDouble(i), 0.0);
  HostTensor scalar(DType::Int64, {});
  EXPECT_EQ(scalar.numElements(), 1);
  EXPECT_EQ(scalar.rank(), 0u);
  HostTensor empty(DType::Float32, {0, 4});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_NE(empty.data(), nullptr);
}

TEST(HostTensorTest, TypeString) {
  EXPECT_EQ(HostTensor(DType::Float32, {2, 3}).typeString(), "Tensor[(2, 3), float32]");
  EXPECT_EQ(HostTensor(DType::Int64, {5}).typeString(), "Tensor[(5), int64]");
  EXPECT_EQ(HostTensor(DType::Float32, {}).typeString(), "float32");
}

TEST(HostTensorTest, CloneCopies) {
  HostTensor a = f32({2}, {1, 2});
  HostTensor b = a.clone();
  a.setDouble(0, 7);
  EXPECT_EQ(b.getDouble(0), 1.0);
  EXPECT_EQ(b.typeString(), a.typeString());
}

TEST(HostTensorTest, SetDoubleConvertsPerDType) {
  struct Case {
    DType dtype;
    double in, out;
  } cases[] = {
      {DType::Bool, 0.5, 1},
      {DType::Bool, 0, 0},
      {DType::Int8, -1.9, -1},
      {DType::Int8, 130, -126}, // wraps
      {DType::Int16, 40000, -25536},
      {DType::Int32, 2.9, 2},
      {DType::Int32, -2.9, -2},
      {DType::Int32, 2147483648.0, -2147483648.0},
      {DType::Int64, -1e15, -1e15},
      {DType::UInt8, 255, 255},
      {DType::UInt8, 256, 0},
      {DType::UInt16, 65535, 65535},
      {DType::UInt32, 4e9, 4e9},
      {DType::UInt64, 1e19, 1e19},
      {DType::Float16, 0.1, 0.0999755859375},
      {DType::Float32, 0.1, double(0.1f)},
      {DType::Float64, 0.1, 0.1},
      {DType::Int32, NAN, 0},
  };
  for (const Case &c : cases) {
    HostTensor t(c.dtype, {1});
    t.setDouble(0, c.in);
    EXPECT_EQ(t.getDouble(0), c.out) << dtypeName(c.dtype).str() << " " << c.in;
  }
}

TEST(HostTensorTest, HalfRoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff); // the largest half
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00); // halfway to 65536: rounds to even = inf
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to the even 1.
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between 0x3c01 and 0x3c02: to the even 0x3c02.
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Subnormals: 2^-24 is the smallest; 2^-25 ties to 0; 1.5 * 2^-25 rounds up.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(INFINITY), 0x7c00);
  EXPECT_EQ(floatToHalf(NAN) & 0x7c00, 0x7c00);
  EXPECT_NE(floatToHalf(NAN) & 0x03ff, 0);

  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0xfc00), -INFINITY);
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  // Every finite half survives a round trip.
  for (unsigned h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) != 0x7c00) {
      ASSERT_EQ(floatToHalf(halfToFloat(uint16_t(h))), h) << h;
    }
  }
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

/// A .npy file with this header text and data (no padding, no newline).
std::string npy(const std::string &header, const std::string &data, unsigned major = 1) {
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += char(0);
  size_t n = header.size();
  out += char(n & 0xff);
  out += char((n >> 8) & 0xff);
  if (major != 1) {
    out += char((n >> 16) & 0xff);
    out += char((n >> 24) & 0xff);
  }
  return out + header + data;
}

std::string floats(std::initializer_list<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.begin(), s.size());
  return s;
}

/// The error parsing `bytes` as x.npy; checks that it names the file.
std::string npyError(const std::string &bytes) {
  Expected<HostTensor> t = parseNpy(bytes, "x.npy");
  if (t) {
    ADD_FAILURE() << "parsed " << t->typeString();
    return "";
  }
  std::string msg = toString(t.takeError());
  EXPECT_EQ(msg.rfind("x.npy: ", 0), 0u) << msg;
  return msg;
}

#define EXPECT_CONTAINS(haystack, needle)                                                          \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

TEST(NpyTest, RoundTripsEveryDType) {
  for (DType dt : {DType::Bool, DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8,
                   DType::Float16, DType::Float32, DType::Float64}) {
    HostTensor t(dt, {2, 3});
    for (int64_t i = 0; i < 6; ++i)
      t.setDouble(i, dt == DType::Bool ? i % 2 : double(i) - 2);
    std::string bytes = serializeNpy(t);
    // Version 1.0 with the data 64-byte aligned.
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    EXPECT_EQ((bytes.size() - t.byteSize()) % 64, 0u);
    Expected<HostTensor> back = parseNpy(bytes, "t.npy");
    ASSERT_TRUE(bool(back)) << toString(back.takeError());
    EXPECT_EQ(back->typeString(), t.typeString());
    EXPECT_EQ(valuesOf(*back), valuesOf(t)) << dtypeName(dt).str();
  }
  // Rank 0 and rank 1 shapes print as () and (n,).
  for (std::vector<int64_t> shape : {std::vector<int64_t>{}, std::vector<int64_t>{4}}) {
    HostTensor t(DType::Float32, shape);
    std::string bytes = serializeNpy(t);
    EXPECT_CONTAINS(bytes, shape.empty() ? "'shape': ()" : "'shape': (4,)");
    Expected<HostTensor> back = parseNpy(bytes, "t.npy");
    ASSERT_TRUE(bool(back)) << toString(back.takeError());
    EXPECT_EQ(back->typeString(), t.typeString());
  }
}

TEST(NpyTest, ReadsWhatNumPyWrites) {
  // Spacing, double quotes, a trailing comma, versions 2.0 and 3.0.
  std::string data = floats({1, 2, 3});
  for (unsigned major : {1u, 2u, 3u}) {
    Expected<HostTensor> t = parseNpy(
        npy("{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(3,)}   \n", data, major),
        "t.npy");
    ASSERT_TRUE(bool(t)) << toString(t.takeError());
    EXPECT_TRUE(tensorIs(*t, DType::Float32, {3}, {1, 2, 3}));
  }
  // '|b1' bools; nonzero bytes read as true.
  Expected<HostTensor> b = parseNpy(
      npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", std::string("\0\1\7", 3)),
      "t.npy");
  ASSERT_TRUE(bool(b)) << toString(b.takeError());
  EXPECT_TRUE(tensorIs(*b, DType::Bool, {3}, {0, 1, 1}));
  EXPECT_EQ(b->as<uint8_t>()[2], 1);
}

TEST(NpyTest, FortranOrderIsTransposed) {
  // (2, 3) in column order: columns [1, 4], [2, 5], [3, 6].
  Expected<HostTensor> t = parseNpy(
      npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", floats({1, 4, 2, 5, 3, 6})),
      "t.npy");
  ASSERT_TRUE(bool(t)) << toString(t.takeError());
  EXPECT_TRUE(tensorIs(*t, DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  // (2, 2, 2): element (i, j, k) = 4i + 2j + k sits at i + 2j + 4k.
  t = parseNpy(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2, 2), }",
                   floats({0, 4, 2, 6, 1, 5, 3, 7})),
               "t.npy");
  ASSERT_TRUE(bool(t)) << toString(t.takeError());
  EXPECT_TRUE(tensorIs(*t, DType::Float32, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}));
}

/// A zero dimension empties the tensor whatever the others are: the product
/// of the others may overflow int64, in either order (found by hx-fuzz-npy,
/// UBSan: the HostTensor constructor multiplied them first).
TEST(NpyTest, ZeroDimWithHugeDimsIsEmpty) {
  for (const char *order : {"False", "True"}) {
    Expected<HostTensor> t =
        parseNpy(npy(std::string("{'descr': '<i1', 'fortran_order': ") + order +
                         ", 'shape': (2666666666666666666, 16, 16, 3, 0, 66666, 1), }",
                     ""),
                 "t.npy");
    ASSERT_TRUE(bool(t)) << toString(t.takeError());
    EXPECT_EQ(t->numElements(), 0) << order;
    EXPECT_EQ(t->byteSize(), 0u) << order;
  }
}

TEST(NpyTest, PreambleErrors) {
  EXPECT_CONTAINS(npyError(""), "not a .npy file (bad magic)");
  EXPECT_CONTAINS(npyError("PK\x03\x04 not numpy"), "not a .npy file (bad magic)");
  EXPECT_CONTAINS(npyError(std::string("\x93NUMPY", 6)), "truncated header");
  EXPECT_CONTAINS(npyError(std::string("\x93NUMPY\x01\x00\x10", 9)), "truncated header");
  std::string v4 = npy("{}", "");
  v4[6] = 4;
  EXPECT_CONTAINS(npyError(v4), "unsupported .npy version 4.0");
  std::string v11 = npy("{}", "");
  v11[7] = 1;
  EXPECT_CONTAINS(npyError(v11), "unsupported .npy version 1.1");
  // The header claims more bytes than the file has.
  std::string shortHeader = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "");
  EXPECT_CONTAINS(npyError(shortHeader.substr(0, shortHeader.size() - 5)),
                  "truncated header (expected 57 bytes, found 52)");
}

TEST(NpyTest, HeaderErrors) {
  const std::string data = floats({1});
  auto error = [&](const std::string &header) { return npyError(npy(header, data)); };
  EXPECT_CONTAINS(error("hello"), "invalid header: the header is not a dict literal");
  EXPECT_CONTAINS(error("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "),
                  "invalid header");
  EXPECT_CONTAINS(error("{'descr': '<f4' 'shape': (1,)}"), "invalid header: expected ','");
  EXPECT_CONTAINS(error("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk"),
                  "unexpected text after the header dict");
  EXPECT_CONTAINS(error("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (1,)}"),
                  "duplicate key 'shape'");
  EXPECT_CONTAINS(error("{'descr': '<f4', 'fortran_order': False}"), "missing key 'shape'");
  EXPECT_CONTAINS(error("{'fortran_order': False, 'shape': (1,)}"), "missing key 'descr'");
  EXPECT_CONTAINS(error("{'descr': '<f4', 'shape': (1,)}"), "missing key 'fortran_order'");
  EXPECT_CONTAINS(error("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}"),
                  "unexpected key 'x'");
  EXPECT_CONTAINS(error("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}"),
                  "'fortran_order' must be True or False");
  EXPECT_CONTAINS(error("{'descr': '<f4', 'fortran_order': False, 'shape': (1)}"),
                  "'shape' must be a tuple");
  EXPECT_CONTAINS(error("{'descr': '<f4', 'fortran_order': False, 'shape': ('a',)}"),
                  "'shape' must be a tuple");
  EXPECT_CONTAINS(error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}"),
                  "structured arrays are not supported");
  // Deep nesting is refused, not recursed into.
  EXPECT_CONTAINS(error("{'descr': " + std::string(1000, '(')), "nests too deeply");
}

TEST(NpyTest, DTypeErrors) {
  auto error = [](const std::string &descr) {
    return npyError(npy("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1,), }",
                        std::string(8, '\0')));
  };
  EXPECT_CONTAINS(error(">f4"), "big-endian dtype '>f4' is not supported");
  EXPECT_CONTAINS(error("<c8"), "unsupported dtype '<c8'");
  EXPECT_CONTAINS(error("<U3"), "unsupported dtype '<U3'");
  EXPECT_CONTAINS(error("|f4"), "dtype '|f4' has no byte order");
  EXPECT_CONTAINS(error(""), "empty dtype descriptor");
}

TEST(NpyTest, ShapeErrors) {
  auto error = [](const std::string &shape) {
    return npyError(
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }", floats({1})));
  };
  EXPECT_CONTAINS(error("(-1,)"), "invalid shape: negative dimension -1");
  EXPECT_CONTAINS(error("(2, -3)"), "invalid shape: negative dimension -3");
  EXPECT_CONTAINS(error("(1099511627776, 1099511627776)"), "the element count overflows");
  EXPECT_CONTAINS(error("(4611686018427387904,)"), "the element count overflows");
  EXPECT_CONTAINS(error("(99999999999999999999,)"), "a dimension is too large");
  std::string manyDims = "(";
  for (int i = 0; i < 65; ++i)
    manyDims += "1,";
  EXPECT_CONTAINS(error(manyDims + ")"), "rank 65 exceeds the maximum 64");
}

TEST(NpyTest, DataSizeMustMatch) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 5), }";
  EXPECT_CONTAINS(npyError(npy(header, std::string(12, '\0'))),
                  "x.npy: truncated data (expected 80 bytes, found 12)");
  EXPECT_CONTAINS(npyError(npy(header, std::string(96, '\0'))),
                  "x.npy: trailing data (expected 80 bytes, found 96)");
  EXPECT_CONTAINS(npyError(npy(header, "")), "truncated data (expected 80 bytes, found 0)");
  // A zero-sized array has no data, whatever the other dims claim.
  Expected<HostTensor> empty = parseNpy(
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1099511627776), }", ""), "t.npy");
  ASSERT_TRUE(bool(empty)) << toString(empty.takeError());
  EXPECT_EQ(empty->numElements(), 0);
}

TEST(NpyTest, EveryTruncationIsAnErrorNotACrash) {
  HostTensor t = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  std::string bytes = serializeNpy(t);
  for (size_t n = 0; n < bytes.size(); ++n) {
    Expected<HostTensor> r = parseNpy(StringRef(bytes.data(), n), "x.npy");
    ASSERT_FALSE(bool(r)) << n;
    EXPECT_EQ(toString(r.takeError()).rfind("x.npy: ", 0), 0u);
  }
}

class NpyFileTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_FALSE(sys::fs::createUniqueDirectory("hx-npy-test", dir)); }
  void TearDown() override { sys::fs::remove_directories(dir); }
  std::string path(StringRef name) {
    SmallString<128> p(dir);
    sys::path::append(p, name);
    return std::string(p);
  }
  SmallString<128> dir;
};

TEST_F(NpyFileTest, WriteThenRead) {
  HostTensor t = makeTensor(DType::Int64, {3}, {-1, 0, 1});
  std::string p = path("a.npy");
  ASSERT_FALSE(bool(writeNpy(p, t)));
  Expected<HostTensor> back = readNpy(p);
  ASSERT_TRUE(bool(back)) << toString(back.takeError());
  EXPECT_TRUE(tensorIs(*back, DType::Int64, {3}, {-1, 0, 1}));
  // Overwriting replaces the file and leaves no temporary behind.
  ASSERT_FALSE(bool(writeNpy(p, f32({1}, {5}))));
  back = readNpy(p);
  ASSERT_TRUE(bool(back)) << toString(back.takeError());
  EXPECT_TRUE(tensorIs(*back, DType::Float32, {1}, {5}));
  std::error_code ec;
  int entries = 0;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(NpyFileTest, ErrorsNameThePath) {
  std::string missing = path("missing.npy");
  std::string msg = errorOf(readNpy(missing));
  EXPECT_EQ(msg.rfind(missing + ": cannot read", 0), 0u) << msg;

  std::string bad = path("bad.npy");
  {
    std::error_code ec;
    raw_fd_ostream os(bad, ec);
    ASSERT_FALSE(ec);
    os << "not numpy";
  }
  msg = errorOf(readNpy(bad));
  EXPECT_EQ(msg, bad + ": not a .npy file (bad magic)");

  std::string noDir = path("no/such/dir/out.npy");
  msg = errorOf(writeNpy(noDir, f32({1}, {1})));
  EXPECT_EQ(msg.rfind(noDir + ": ", 0), 0u) << msg;
  EXPECT_FALSE(sys::fs::exists(noDir));
}

} // namespace
