//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes NumPy's .npy format (versions 1.0, 2.0 and 3.0 on input,
// 1.0 on output): dtypes float16/32/64, int8/16/32/64, uint8, bool, little
// endian ('<' or '|'), C order. Fortran-order arrays are read and transposed
// into C order. Every malformed file is an error message that names the
// file; nothing here aborts on bad input.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TENSOR_NPY_H
#define HX_TENSOR_NPY_H

#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace hx {

/// Parses the bytes of a .npy file; `name` is used in error messages
/// ("in.npy: not a .npy file (bad magic)").
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes, llvm::StringRef name);
/// Reads and parses a file.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);
/// The .npy bytes of a tensor (version 1.0, C order).
std::string serializeNpy(const HostTensor &t);
/// Writes atomically: a temporary file in the same directory, renamed over
/// `path` on success, so a failure leaves no partial file.
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &t);

} // namespace hx

#endif
