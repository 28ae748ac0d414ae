//===- HostTensor.h - A dense tensor in host memory -------------*- C++ -*-===//
//
// The value type that crosses the boundary between hx and its users: inputs
// read from .npy files, outputs written to them, the reference interpreter's
// values and the runtime's parameters and results. A HostTensor owns one
// 64-byte-aligned, row-major (C order), contiguous buffer of a static shape.
// Rank 0 is a scalar (one element). It is movable, not implicitly copyable
// (clone() copies).
//
//===----------------------------------------------------------------------===//
#ifndef HX_TENSOR_HOSTTENSOR_H
#define HX_TENSOR_HOSTTENSOR_H

#include "hx/IR/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <memory>

namespace hx {

class HostTensor {
public:
  static constexpr size_t kAlignment = 64;

  HostTensor() = default;
  /// A zero-filled tensor. The shape must be static (no negative dims).
  HostTensor(DType dtype, llvm::ArrayRef<int64_t> shape);
  HostTensor(HostTensor &&) noexcept = default;
  HostTensor &operator=(HostTensor &&) noexcept = default;
  HostTensor clone() const;

  DType dtype() const { return type; }
  llvm::ArrayRef<int64_t> shape() const { return dims; }
  size_t rank() const { return dims.size(); }
  int64_t numElements() const { return count; }
  size_t byteSize() const { return size_t(count) * dtypeBytes(type); }

  void *data() { return buffer.get(); }
  const void *data() const { return buffer.get(); }
  template <typename T> T *as() { return reinterpret_cast<T *>(buffer.get()); }
  template <typename T> const T *as() const { return reinterpret_cast<const T *>(buffer.get()); }

  /// Element i (flat, row-major) converted to double (bool: 0 or 1; float16
  /// widened).
  double getDouble(int64_t i) const;
  /// Stores v into element i converted to the dtype: integers truncate toward
  /// zero and wrap as C casts do for in-range values, bool is v != 0, float16
  /// rounds to nearest even.
  void setDouble(int64_t i, double v);

  /// `Tensor[(2, 3), float32]` as the IR prints it.
  std::string typeString() const;

private:
  struct FreeAligned {
    void operator()(uint8_t *p) const;
  };
  DType type = DType::Float32;
  llvm::SmallVector<int64_t, 4> dims;
  int64_t count = 0;
  std::unique_ptr<uint8_t[], FreeAligned> buffer;
};

/// IEEE half <-> float conversions (round to nearest even).
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
/// bfloat16 <-> float: the upper 16 bits, rounded to nearest even (NaN
/// stays a quiet NaN).
float bfloat16ToFloat(uint16_t h);
uint16_t floatToBFloat16(float f);

/// NumPy has no bfloat16: hx writes a bfloat16 tensor to .npy as float32
/// (exactly), and reads float32 where bfloat16 is wanted. `t` converted to
/// bfloat16 when `want` is bfloat16 and `t` is float32 (each value rounded
/// to nearest even); `t` itself otherwise.
HostTensor npyAs(HostTensor t, DType want);
/// A bfloat16 tensor as float32 (exact); any other tensor unchanged.
HostTensor widenBFloat16(HostTensor t);

} // namespace hx

#endif
