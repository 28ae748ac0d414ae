//===- OnnxTensors.cpp - ONNX tensors and dtypes --------------------------===//
//
// TensorProtos to HostTensors (raw_data or the typed fields), checked before
// anything is allocated for them; ONNX element types to hx dtypes; the
// integers of a tensor of shape values.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"
#include <cmath>
#include <cstring>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

std::optional<DType> onnximport::dtypeFromOnnx(int t) {
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return DType::Float32;
  case onnx::TensorProto::UINT8:
    return DType::UInt8;
  case onnx::TensorProto::INT8:
    return DType::Int8;
  case onnx::TensorProto::UINT16:
    return DType::UInt16;
  case onnx::TensorProto::INT16:
    return DType::Int16;
  case onnx::TensorProto::INT32:
    return DType::Int32;
  case onnx::TensorProto::INT64:
    return DType::Int64;
  case onnx::TensorProto::BOOL:
    return DType::Bool;
  case onnx::TensorProto::FLOAT16:
    return DType::Float16;
  case onnx::TensorProto::BFLOAT16:
    return DType::BFloat16;
  case onnx::TensorProto::DOUBLE:
    return DType::Float64;
  case onnx::TensorProto::UINT32:
    return DType::UInt32;
  case onnx::TensorProto::UINT64:
    return DType::UInt64;
  default:
    return std::nullopt;
  }
}

std::string onnximport::onnxTypeName(int t) {
  if (std::optional<DType> dt = dtypeFromOnnx(t))
    return dtypeName(*dt).str();
  switch (t) {
  case onnx::TensorProto::STRING:
    return "string";
  case onnx::TensorProto::COMPLEX64:
    return "complex64";
  case onnx::TensorProto::COMPLEX128:
    return "complex128";
  case onnx::TensorProto::UNDEFINED:
    return "undefined";
  // Newer than the installed onnx's enum (opsets 19 and 21).
  case 17:
    return "float8e4m3fn";
  case 18:
    return "float8e4m3fnuz";
  case 19:
    return "float8e5m2";
  case 20:
    return "float8e5m2fnuz";
  case 21:
    return "uint4";
  case 22:
    return "int4";
  default:
    return "element type " + std::to_string(t);
  }
}

/// The checks of tensorFromProto that need no allocation: the dtype, the
/// dims, and data of the size they say. Returns the element count.
Expected<int64_t> onnximport::checkTensorProto(const onnx::TensorProto &t) {
  std::string what = "tensor '" + t.name() + "'";
  std::optional<DType> dt = dtypeFromOnnx(t.data_type());
  if (!dt)
    return createStringError(what + " is a " + onnxTypeName(t.data_type()) +
                             " tensor, which hx has no dtype for");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return createStringError(what + " keeps its data in an external file, which only a model "
                                    "read from its file can find");
  Dims shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape)
    if (d < 0)
      return createStringError(what + " has a negative dim");
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d && count > (int64_t(1) << 40) / d)
      return createStringError(what + " is too large");
    count *= d;
  }
  // The data must be there before anything is allocated for it.
  size_t bytes = size_t(count) * dtypeBytes(*dt);
  size_t held =
      t.has_raw_data()
          ? t.raw_data().size()
          : size_t(std::max({t.float_data_size(), t.double_data_size(), t.int64_data_size(),
                             t.uint64_data_size(), t.int32_data_size()}));
  if (t.has_raw_data() ? held != bytes : held != size_t(count))
    return createStringError(what + " holds " + Twine(held) +
                             (t.has_raw_data() ? " bytes of data; " : " values; ") + Twine(count) +
                             " elements of " + dtypeName(*dt) + " need " +
                             Twine(t.has_raw_data() ? bytes : size_t(count)));
  return count;
}

Expected<HostTensor> onnximport::tensorFromProto(const onnx::TensorProto &t) {
  Expected<int64_t> checked = checkTensorProto(t);
  if (!checked)
    return checked.takeError();
  int64_t count = *checked;
  std::string what = "tensor '" + t.name() + "'";
  std::optional<DType> dt = dtypeFromOnnx(t.data_type());
  Dims shape(t.dims().begin(), t.dims().end());
  size_t bytes = size_t(count) * dtypeBytes(*dt);
  HostTensor out(*dt, shape);
  if (t.has_raw_data()) {
    if (bytes)
      std::memcpy(out.data(), t.raw_data().data(), bytes);
    return out;
  }
  auto fill = [&](const auto &field, auto store) -> Error {
    if (int64_t(field.size()) != count)
      return createStringError(what + " holds " + Twine(field.size()) + " values; " +
                               out.typeString() + " needs " + Twine(count));
    for (int64_t i = 0; i < count; ++i)
      store(i, field.Get(i));
    return Error::success();
  };
  Error e = Error::success();
  switch (*dt) {
  case DType::Float32:
    e = fill(t.float_data(), [&](int64_t i, float v) { out.as<float>()[i] = v; });
    break;
  case DType::Float64:
    e = fill(t.double_data(), [&](int64_t i, double v) { out.as<double>()[i] = v; });
    break;
  case DType::Int64:
    e = fill(t.int64_data(), [&](int64_t i, int64_t v) { out.as<int64_t>()[i] = v; });
    break;
  case DType::UInt32:
  case DType::UInt64:
    e = fill(t.uint64_data(), [&](int64_t i, uint64_t v) {
      if (*dt == DType::UInt64)
        out.as<uint64_t>()[i] = v; // exactly, not through double
      else
        out.as<uint32_t>()[i] = uint32_t(v);
    });
    break;
  case DType::Float16: // int32_data holds the bits
  case DType::BFloat16:
    e = fill(t.int32_data(), [&](int64_t i, int32_t v) { out.as<uint16_t>()[i] = uint16_t(v); });
    break;
  default: // bool, int8..int32, uint8, uint16
    e = fill(t.int32_data(), [&](int64_t i, int32_t v) { out.setDouble(i, double(v)); });
    break;
  }
  if (e)
    return e;
  return out;
}

std::vector<int64_t> onnximport::tensorInts(const HostTensor &t) {
  std::vector<int64_t> v(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i)
    if (t.dtype() == DType::Int64)
      v[i] = t.as<int64_t>()[i];
    else if (t.dtype() == DType::Int32)
      v[i] = t.as<int32_t>()[i];
    else { // saturating, NaN as 0: callers that need integers check the dtype
      double d = t.getDouble(i);
      v[i] = std::isnan(d) ? 0 : d >= 0x1p63 ? INT64_MAX : d <= -0x1p63 ? INT64_MIN : int64_t(d);
    }
  return v;
}

HostTensor onnximport::intTensor(ArrayRef<int64_t> values, DType dtype, std::optional<Dims> shape) {
  HostTensor t(dtype,
               shape ? ArrayRef<int64_t>(*shape) : ArrayRef<int64_t>{int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::Int64)
      t.as<int64_t>()[i] = values[i];
    else
      t.setDouble(i, double(values[i]));
  }
  return t;
}
