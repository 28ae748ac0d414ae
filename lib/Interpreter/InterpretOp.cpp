//===- InterpretOp.cpp - One operator call, and the shared op helpers -----===//
//
// interpretOp checks what the type checker would have checked, so that it is
// safe on any call and any tensors (it is also used on calls that never went
// through InferType):
//  1. the callee is a known operator with an implementation here;
//  2. the attributes match the schema (verifyOpCall, its diagnostics turned
//     into the error message);
//  3. every argument's dtype is one the operator supports (the annotations
//     on_device and device_copy accept anything);
// then dispatches to the family's implementation, which checks shapes and
// axes against the actual arguments.
//
// This file also holds the helpers every family shares: attribute readers,
// result allocation, element access in int64, broadcasting index maps.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "hx/Interpreter/Interpreter.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Support/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace llvm;

namespace hx {
namespace interp {

//===----------------------------------------------------------------------===//
// OpContext
//===----------------------------------------------------------------------===//

Error OpContext::error(const Twine &msg) const {
  return createStringError(inconvertibleErrorCode(), (def.name + ": " + msg).str());
}

Error OpContext::expectArgs(size_t n) const {
  if (args.size() == n)
    return Error::success();
  return error("expected " + Twine(n) + (n == 1 ? " argument" : " arguments") + ", got " +
               Twine(args.size()));
}

Expected<unsigned> OpContext::normalizeAxis(int64_t axis, size_t rank, StringRef attrName) const {
  if (std::optional<unsigned> a = hx::normalizeAxis(axis, rank))
    return *a;
  return error(attrName + "=" + Twine(axis) + " is out of range for rank " + Twine(rank));
}

const TensorType *OpContext::resultType(unsigned i) const {
  const Type *t = call.checkedType.get();
  if (auto *tuple = dyn_cast_or_null<TupleType>(t))
    return i < tuple->fields.size() ? dyn_cast_or_null<TensorType>(tuple->fields[i].get())
                                    : nullptr;
  return i == 0 ? dyn_cast_or_null<TensorType>(t) : nullptr;
}

DType OpContext::resultDType(unsigned i, DType fallback) const {
  const TensorType *t = resultType(i);
  return t ? t->dtype : fallback;
}

Expected<HostTensor> OpContext::makeResult(unsigned i, ArrayRef<int64_t> shape,
                                           DType fallbackDType) const {
  DType dt = resultDType(i, fallbackDType);
  if (const TensorType *t = resultType(i)) {
    bool agrees = t->rank() == shape.size();
    for (size_t d = 0; agrees && d < shape.size(); ++d)
      agrees = t->shape[d] == TensorType::kDynamic || t->shape[d] == shape[d];
    if (!agrees)
      return error("the result has shape " + shapeStr(shape) + " but the call's type is " +
                   typeToString(t));
  }
  std::optional<int64_t> n = shapeProduct(shape);
  if (!n || uint64_t(*n) > kMaxResultBytes / dtypeBytes(dt))
    return error("the result " + shapeStr(shape) + " is too large");
  return HostTensor(dt, shape);
}

//===----------------------------------------------------------------------===//
// Element helpers
//===----------------------------------------------------------------------===//

int64_t getInt64(const HostTensor &t, int64_t i) {
  switch (t.dtype()) {
  case DType::Bool:
    return t.as<uint8_t>()[i] != 0;
  case DType::Int8:
    return t.as<int8_t>()[i];
  case DType::Int16:
    return t.as<int16_t>()[i];
  case DType::Int32:
    return t.as<int32_t>()[i];
  case DType::Int64:
    return t.as<int64_t>()[i];
  case DType::UInt8:
    return t.as<uint8_t>()[i];
  case DType::UInt16:
    return t.as<uint16_t>()[i];
  case DType::UInt32:
    return t.as<uint32_t>()[i];
  case DType::UInt64:
    return int64_t(t.as<uint64_t>()[i]);
  case DType::Float16:
  case DType::Float32:
  case DType::Float64:
  case DType::BFloat16:
    return truncToInt64(t.getDouble(i));
  }
  return 0;
}

int64_t truncToInt64(double v) {
  if (std::isnan(v))
    return 0;
  v = std::trunc(v);
  if (v >= 9223372036854775808.0)
    return INT64_MAX;
  if (v < -9223372036854775808.0)
    return INT64_MIN;
  return int64_t(v);
}

std::string formatDouble(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

void setInt64(HostTensor &t, int64_t i, int64_t v) {
  switch (t.dtype()) {
  case DType::Bool:
    t.as<uint8_t>()[i] = v != 0;
    return;
  case DType::Int8:
  case DType::UInt8:
    t.as<uint8_t>()[i] = uint8_t(v);
    return;
  case DType::Int16:
  case DType::UInt16:
    t.as<uint16_t>()[i] = uint16_t(v);
    return;
  case DType::Int32:
  case DType::UInt32:
    t.as<uint32_t>()[i] = uint32_t(v);
    return;
  case DType::Int64:
  case DType::UInt64:
    t.as<uint64_t>()[i] = uint64_t(v);
    return;
  case DType::Float16:
  case DType::Float32:
  case DType::Float64:
  case DType::BFloat16:
    t.setDouble(i, double(v));
    return;
  }
}

std::vector<double> toDoubles(const HostTensor &t) {
  std::vector<double> out(size_t(t.numElements()));
  if (t.dtype() == DType::Float32) {
    const float *p = t.as<float>();
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = p[i];
    return out;
  }
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = t.getDouble(int64_t(i));
  return out;
}

Shape stridesOf(ArrayRef<int64_t> shape) {
  Shape s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    s[i - 1] = s[i] * shape[i];
  return s;
}

std::vector<int64_t> broadcastIndex(ArrayRef<int64_t> inShape, ArrayRef<int64_t> outShape) {
  size_t rank = outShape.size(), offset = rank - inShape.size();
  // The input's stride along each output dim: 0 where it is broadcast.
  Shape inStrides = stridesOf(inShape), stride(rank, 0);
  for (size_t d = 0; d < inShape.size(); ++d)
    stride[offset + d] = inShape[d] == 1 ? 0 : inStrides[d];
  std::optional<int64_t> total = shapeProduct(outShape);
  std::vector<int64_t> out(size_t(total.value_or(0)));
  Shape idx(rank, 0);
  int64_t pos = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = pos;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < outShape[d]) {
        pos += stride[d];
        break;
      }
      pos -= stride[d] * (outShape[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

std::string shapeStr(ArrayRef<int64_t> shape) { return shapeToString(shape); }

bool returnsTuple(const Call &call) {
  if (const Type *t = call.checkedType.get())
    return isa<TupleType>(t);
  if (call.isOp("split"))
    return true;
  if (call.isOp("topk")) {
    AttrValue v = getAttrOrDefault(call, "ret_type");
    return v.str == "both";
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

/// on_device and device_copy: the identity.
static Expected<OpResults> identityOp(OpContext &ctx) {
  OpResults out;
  for (const HostTensor *t : ctx.args)
    out.push_back(t->clone());
  return out;
}

OpImplFn lookupOpImpl(StringRef name) {
  if (name == kOnDevice || name == kDeviceCopy)
    return identityOp;
  for (auto find : {findElementwiseOp, findReduceOp, findTransformOp, findNnOp, findConvPoolOp,
                    findSortOp, findDynamicOp})
    if (OpImplFn fn = find(name))
      return fn;
  return nullptr;
}

} // namespace interp

using namespace interp;

bool hasInterpreterImpl(StringRef op) { return lookupOpImpl(op) != nullptr; }

Expected<std::vector<HostTensor>> interpretOp(const Call &call, ArrayRef<const HostTensor *> args) {
  const Op *op = call.getOp();
  if (!op)
    return createStringError(inconvertibleErrorCode(),
                             "interpretOp: the callee is not an operator");
  const OpDef *def = op->def ? op->def : lookupOp(op->name);
  if (!def)
    return createStringError(inconvertibleErrorCode(), "unknown operator '" + op->name + "'");
  OpImplFn impl = lookupOpImpl(def->name);
  if (!impl)
    return createStringError(inconvertibleErrorCode(),
                             def->name + ": not supported by the reference interpreter");

  // Attributes and arity, with the verifier's messages.
  SourceMgr sm;
  DiagEngine diags(sm);
  std::string messages;
  diags.setHandler([&](const Diagnostic &d) {
    if (d.severity != Severity::Error)
      return;
    messages += (messages.empty() ? "" : "; ") + d.message;
  });
  if (!verifyOpCall(call, *def, diags))
    return createStringError(inconvertibleErrorCode(), messages);

  OpContext ctx(call, *def, args);
  bool annotation = def->name == kOnDevice || def->name == kDeviceCopy;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i])
      return ctx.error("argument " + Twine(i) + " is missing");
    if (!annotation && !dtypeSetContains(def->dtypes, args[i]->dtype()))
      return ctx.error("unsupported dtype " + dtypeName(args[i]->dtype()) + " of argument " +
                       Twine(i) + " (supported: " + dtypeSetToString(def->dtypes) + ")");
  }
  return impl(ctx);
}

} // namespace hx
