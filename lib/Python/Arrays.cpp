//===- Arrays.cpp - NumPy arrays to and from host tensors -----------------===//
//
// DTypes map by NumPy's kind and item size: b1 bool, i1..i8, u1..u8,
// f2 float16, f4 float32, f8 float64.
//
//===----------------------------------------------------------------------===//
#include "Arrays.h"
#include "llvm/ADT/SmallVector.h"
#include <cstring>
#include <optional>

namespace py = pybind11;

namespace hx::python {

static std::optional<DType> dtypeOf(const py::dtype &d) {
  switch (d.kind()) {
  case 'b':
    return d.itemsize() == 1 ? std::optional(DType::Bool) : std::nullopt;
  case 'i':
    switch (d.itemsize()) {
    case 1:
      return DType::Int8;
    case 2:
      return DType::Int16;
    case 4:
      return DType::Int32;
    case 8:
      return DType::Int64;
    }
    return std::nullopt;
  case 'u':
    switch (d.itemsize()) {
    case 1:
      return DType::UInt8;
    case 2:
      return DType::UInt16;
    case 4:
      return DType::UInt32;
    case 8:
      return DType::UInt64;
    }
    return std::nullopt;
  case 'f':
    switch (d.itemsize()) {
    case 2:
      return DType::Float16;
    case 4:
      return DType::Float32;
    case 8:
      return DType::Float64;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

HostTensor toHostTensor(py::handle obj, const std::string &what) {
  if (!py::isinstance<py::array>(obj))
    throw HxError(what + ": expected a NumPy array, got " +
                  py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
  auto a = py::reinterpret_borrow<py::array>(obj);
  py::dtype d = a.dtype();
  std::optional<DType> dt = dtypeOf(d);
  if (d.kind() == 'U' || d.kind() == 'S')
    throw HxError(what + ": an array of strings (dtype " + py::str(d).cast<std::string>() +
                  "), which hx has no dtype for");
  if (d.kind() == 'O')
    throw HxError(what + ": an array of Python objects (dtype object), which hx has no dtype "
                         "for");
  if (!dt || d.has_fields())
    throw HxError(what + ": dtype " + py::str(d).cast<std::string>() + " has no hx equivalent");
  if (d.byteorder() == '>')
    throw HxError(what + ": a big-endian array (use .astype('" + dtypeName(*dt).str() +
                  "') to convert it)");
  llvm::SmallVector<int64_t, 4> shape(a.shape(), a.shape() + a.ndim());
  HostTensor t(*dt, shape);
  if (!t.byteSize())
    return t;
  // One copy from C-ordered memory; any other layout is made C-ordered by
  // NumPy first.
  py::array c = a;
  if (!(a.flags() & py::array::c_style)) {
    c = py::array::ensure(a, py::array::c_style);
    if (!c)
      throw py::error_already_set();
  }
  std::memcpy(t.data(), c.data(), t.byteSize());
  return t;
}

py::array toArray(HostTensor t) {
  t = widenBFloat16(std::move(t)); // NumPy has no bfloat16
  py::dtype d(dtypeName(t.dtype()).str());
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  auto *owned = new HostTensor(std::move(t));
  py::capsule owner(owned, [](void *p) { delete static_cast<HostTensor *>(p); });
  return py::array(d, shape, owned->data(), owner);
}

} // namespace hx::python
