//===- TestUtil.cpp - Helpers for the interpreter tests -------------------===//
#include "TestUtil.h"
#include "hx/Parser/Parser.h"
#include "hx/Support/Diagnostics.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace llvm;

namespace hx::test {

HostTensor makeTensor(DType dtype, ArrayRef<int64_t> shape, ArrayRef<double> values) {
  HostTensor t(dtype, shape);
  EXPECT_EQ(size_t(t.numElements()), values.size()) << "literal size for " << t.typeString();
  for (size_t i = 0; i < values.size() && int64_t(i) < t.numElements(); ++i)
    t.setDouble(int64_t(i), values[i]);
  return t;
}

HostTensor makeInt64(ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
  HostTensor t(DType::Int64, shape);
  EXPECT_EQ(size_t(t.numElements()), values.size());
  for (size_t i = 0; i < values.size() && int64_t(i) < t.numElements(); ++i)
    t.as<int64_t>()[i] = values[i];
  return t;
}

std::vector<double> valuesOf(const HostTensor &t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numElements(); ++i)
    out.push_back(t.getDouble(i));
  return out;
}

Expected<std::vector<HostTensor>> runModule(const std::string &text, ArrayRef<HostTensor> inputs) {
  SourceMgr sm;
  unsigned id = sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "t.ir"), SMLoc());
  DiagEngine diags(sm);
  std::string messages;
  raw_string_ostream os(messages);
  diags.setOutput(&os);
  ParserOptions opts;
  opts.maxNesting = kMaxNestingLimit;
  std::unique_ptr<Module> m = parseModule(id, diags, opts);
  if (!m || !inferTypes(*m, diags))
    return createStringError(inconvertibleErrorCode(), "front end failed:\n" + messages);
  return interpret(*m, inputs);
}

std::string mainModule(const std::string &params, const std::string &body) {
  return "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  " + body + "\n}\n";
}

Expected<HostTensor> runOne(const std::string &params, const std::string &body,
                            ArrayRef<HostTensor> inputs) {
  Expected<std::vector<HostTensor>> r = runModule(mainModule(params, body), inputs);
  if (!r)
    return r.takeError();
  if (r->size() != 1)
    return createStringError(inconvertibleErrorCode(),
                             "expected one result, got " + std::to_string(r->size()));
  return std::move(r->front());
}

static std::string listStr(ArrayRef<double> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%.9g", v[i]);
    s += (i ? ", " : "") + std::string(buf);
  }
  return s + "]";
}

::testing::AssertionResult tensorIs(const HostTensor &t, DType dtype, ArrayRef<int64_t> shape,
                                    ArrayRef<double> expected, double tol) {
  HostTensor want(dtype, shape);
  if (t.typeString() != want.typeString())
    return ::testing::AssertionFailure()
           << "type " << t.typeString() << ", expected " << want.typeString();
  std::vector<double> got = valuesOf(t);
  bool ok = got.size() == expected.size();
  for (size_t i = 0; ok && i < got.size(); ++i) {
    double e = expected[i], g = got[i];
    if (std::isnan(e))
      ok = std::isnan(g);
    else if (std::isinf(e))
      ok = g == e;
    else
      ok = std::fabs(g - e) <= tol * std::max(1.0, std::fabs(e));
  }
  if (!ok)
    return ::testing::AssertionFailure()
           << "values " << listStr(got) << ", expected " << listStr(expected);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult tensorIs(Expected<HostTensor> t, DType dtype, ArrayRef<int64_t> shape,
                                    ArrayRef<double> expected, double tol) {
  if (!t)
    return ::testing::AssertionFailure() << "error: " << toString(t.takeError());
  return tensorIs(*t, dtype, shape, expected, tol);
}

} // namespace hx::test
