//===- Arrays.h - NumPy arrays to and from host tensors ---------*- C++ -*-===//
//
// Private to lib/Python. An input array is copied once into a HostTensor
// (hx's tensors own 64-byte-aligned, padded buffers that kernels may read
// whole cache lines of, so they cannot view NumPy's memory); the run then
// copies it to its device. A result is handed to NumPy without a copy: the
// array views the HostTensor's buffer and owns the tensor through a capsule.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_PYTHON_ARRAYS_H
#define HX_LIB_PYTHON_ARRAYS_H

#include "hx/Tensor/HostTensor.h"
#include <pybind11/numpy.h>
#include <pybind11/stl.h> // in every file of the module: one set of casters
#include <stdexcept>
#include <string>

namespace hx::python {

/// What hx.Error carries: the located diagnostics of a failed call, or a
/// message naming the parameter or option.
class HxError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The array `obj` as a tensor of dtype and shape equal to the array's
/// (any strides; native byte order). `what` names the input in errors
/// ("input %x"). Throws HxError for a dtype hx has no equivalent of.
HostTensor toHostTensor(pybind11::handle obj, const std::string &what);

/// A NumPy array owning `t`'s buffer (no copy).
pybind11::array toArray(HostTensor t);

} // namespace hx::python

#endif
