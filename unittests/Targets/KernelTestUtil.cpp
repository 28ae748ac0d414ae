//===- KernelTestUtil.cpp - Parse, compile and run one operator call ------===//

#include "KernelTestUtil.h"
#include "hx/Parser/Parser.h"
#include "hx/Tensor/HostTensor.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>

using namespace llvm;

namespace hx::test {

std::unique_ptr<TypedCall> TypedCall::parse(const std::string &params, const std::string &expr,
                                            std::string *errors, const std::string &trailer) {
  std::unique_ptr<TypedCall> tc(new TypedCall());
  std::string text =
      "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  " + expr + "\n}\n" + trailer;
  unsigned id = tc->sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "test.ir"), SMLoc());
  tc->diags = std::make_unique<DiagEngine>(tc->sm);
  std::string messages;
  tc->diags->setHandler([&](const Diagnostic &d) { messages += d.message + "\n"; });
  tc->module = parseModule(id, *tc->diags);
  bool ok = tc->module && inferTypes(*tc->module, *tc->diags);
  if (ok) {
    Function *fn = tc->module->lookup("main");
    tc->callExpr = fn ? dyn_cast<Call>(fn->body.get()) : nullptr;
    ok = tc->callExpr != nullptr;
    if (!ok)
      messages += "the body of @main is not a call\n";
  }
  tc->diags->setHandler(nullptr);
  if (errors)
    *errors = messages;
  if (!ok)
    return nullptr;
  return tc;
}

Buffer::Buffer(DType dtype, ArrayRef<int64_t> shape)
    : type(dtype), dims(shape.begin(), shape.end()), count(1) {
  for (int64_t d : shape)
    count *= d;
  storage.assign((size_t(count) * dtypeBytes(dtype) + 7) / 8 + 1, 0);
}

template <typename T> static T readAs(const std::vector<uint64_t> &s, int64_t i) {
  T v;
  std::memcpy(&v, reinterpret_cast<const char *>(s.data()) + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T> static void writeAs(std::vector<uint64_t> &s, int64_t i, T v) {
  std::memcpy(reinterpret_cast<char *>(s.data()) + i * sizeof(T), &v, sizeof(T));
}

double Buffer::get(int64_t i) const {
  switch (type) {
  case DType::Float16:
    return halfToFloat(readAs<uint16_t>(storage, i));
  case DType::Float32:
    return readAs<float>(storage, i);
  case DType::Float64:
    return readAs<double>(storage, i);
  default:
    return double(getInt(i));
  }
}

int64_t Buffer::getInt(int64_t i) const {
  switch (type) {
  case DType::Bool:
    return readAs<uint8_t>(storage, i) != 0;
  case DType::Int32:
    return readAs<int32_t>(storage, i);
  case DType::Int64:
    return readAs<int64_t>(storage, i);
  case DType::Float32:
    return int64_t(readAs<float>(storage, i));
  case DType::Float16:
    return int64_t(get(i));
  default:
    ADD_FAILURE() << "unsupported dtype in a test buffer";
    return 0;
  }
}

void Buffer::set(int64_t i, double v) {
  switch (type) {
  case DType::Float16:
    writeAs<uint16_t>(storage, i, floatToHalf(float(v)));
    return;
  case DType::Float32:
    writeAs<float>(storage, i, float(v));
    return;
  case DType::Float64:
    writeAs<double>(storage, i, v);
    return;
  case DType::Bool:
    writeAs<uint8_t>(storage, i, v != 0);
    return;
  default:
    setInt(i, int64_t(v));
  }
}

void Buffer::setInt(int64_t i, int64_t v) {
  switch (type) {
  case DType::Bool:
    writeAs<uint8_t>(storage, i, v != 0);
    return;
  case DType::Int32:
    writeAs<int32_t>(storage, i, int32_t(v));
    return;
  case DType::Int64:
    writeAs<int64_t>(storage, i, v);
    return;
  default:
    set(i, double(v));
  }
}

void fillRandom(Buffer &b, std::mt19937 &rng, double lo, double hi) {
  if (isFloat(b.dtype())) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (int64_t i = 0; i < b.size(); ++i)
      b.set(i, dist(rng));
    return;
  }
  if (b.dtype() == DType::Bool) {
    std::uniform_int_distribution<int> dist(0, 1);
    for (int64_t i = 0; i < b.size(); ++i)
      b.setInt(i, dist(rng));
    return;
  }
  std::uniform_int_distribution<int64_t> dist(int64_t(std::ceil(lo)), int64_t(std::floor(hi)));
  for (int64_t i = 0; i < b.size(); ++i)
    b.setInt(i, dist(rng));
}

static void flatten(const Type *t, std::vector<const TensorType *> &out) {
  if (const auto *tuple = dyn_cast<TupleType>(t)) {
    for (const TypeRef &f : tuple->fields)
      flatten(f.get(), out);
    return;
  }
  out.push_back(cast<TensorType>(t));
}

std::vector<const TensorType *> resultTypes(const Call &call) {
  std::vector<const TensorType *> out;
  flatten(call.checkedType.get(), out);
  return out;
}

std::vector<Buffer> runKernel(CPUCompiler &compiler, const Call &call,
                              std::vector<Buffer *> inputs) {
  std::vector<Buffer> results;
  Expected<unsigned> id = compiler.addKernel(call);
  if (!id) {
    ADD_FAILURE() << "addKernel: " << toString(id.takeError());
    return results;
  }
  if (Error e = compiler.finalize()) {
    ADD_FAILURE() << "finalize: " << toString(std::move(e));
    return results;
  }
  KernelFn fn = compiler.lookup(*id);
  if (!fn) {
    ADD_FAILURE() << "no kernel for id " << *id;
    return results;
  }
  for (const TensorType *t : resultTypes(call))
    results.emplace_back(t->dtype, t->shape);
  std::vector<void *> buffers;
  for (Buffer *in : inputs)
    buffers.push_back(in->data());
  for (Buffer &r : results)
    buffers.push_back(r.data());
  fn(buffers.data(), nullptr);
  return results;
}

std::unique_ptr<CPUCompiler> makeCompiler(CPUCompilerOptions opts) {
  Expected<std::unique_ptr<CPUCompiler>> c = CPUCompiler::create(opts);
  if (!c) {
    ADD_FAILURE() << toString(c.takeError());
    return nullptr;
  }
  return std::move(*c);
}

int64_t numElementsOf(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Shape unflattenIndex(int64_t i, ArrayRef<int64_t> shape) {
  Shape coords(shape.size());
  for (size_t d = shape.size(); d > 0; --d) {
    coords[d - 1] = i % shape[d - 1];
    i /= shape[d - 1];
  }
  return coords;
}

int64_t flattenIndex(ArrayRef<int64_t> coords, ArrayRef<int64_t> shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    i = i * shape[d] + coords[d];
  return i;
}

int64_t broadcastIndex(ArrayRef<int64_t> outCoords, ArrayRef<int64_t> in) {
  size_t lead = outCoords.size() - in.size();
  int64_t i = 0;
  for (size_t d = 0; d < in.size(); ++d)
    i = i * in[d] + (in[d] == 1 ? 0 : outCoords[lead + d]);
  return i;
}

std::string tensorType(ArrayRef<int64_t> shape, DType t) {
  std::string s = "Tensor[(";
  for (size_t d = 0; d < shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "), " + dtypeName(t).str() + "]";
}

void expectNear(const Buffer &actual, const std::vector<double> &expected, double tol,
                const std::string &what) {
  ASSERT_EQ(actual.size(), int64_t(expected.size())) << what;
  int failures = 0;
  for (int64_t i = 0; i < actual.size() && failures < 5; ++i) {
    double a = actual.get(i), e = expected[size_t(i)];
    bool ok;
    if (isFloat(actual.dtype()))
      ok = (std::isnan(a) && std::isnan(e)) || a == e ||
           std::fabs(a - e) <= tol * std::max(1.0, std::fabs(e));
    else
      ok = actual.getInt(i) == int64_t(e);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << ": element " << i << " is " << a << ", expected " << e;
    }
  }
}

} // namespace hx::test
