//===- OpImpl.h - What an operator implementation sees ----------*- C++ -*-===//
//
// Private to lib/Interpreter (and its unit tests). Each operator family
// (ElementwiseOps.cpp, ReduceOps.cpp, TransformOps.cpp, NnOps.cpp,
// ConvPoolOps.cpp, SortOps.cpp, DynamicOps.cpp) maps operator names to implementations with a
// find*Op function; InterpretOp.cpp dispatches over them.
//
// An implementation receives an OpContext: the call (attributes, result
// type), the operator's definition and the argument tensors. The call's
// attributes were verified against the schema before it runs, so the
// attribute readers return canonical values; everything about the argument
// tensors (ranks, shapes, dtypes, axes against actual ranks) is checked by the
// implementation, which returns an error, never asserts.
//
// Result shapes are computed from the arguments (so `?` dims in the checked
// type are fine); result dtypes come from the call's checked type when there
// is one. makeResult also cross-checks the shape against a static checked
// type.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_INTERPRETER_OPIMPL_H
#define HX_LIB_INTERPRETER_OPIMPL_H

#include "hx/IR/Expr.h"
#include "hx/IR/OpDef.h"
#include "hx/Ops/AttrReader.h"
#include "hx/Ops/ShapeUtils.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <vector>

namespace hx::interp {

/// The most bytes one result may occupy: larger results (a broadcast of two
/// long vectors, say) are an error instead of an allocation failure.
inline constexpr uint64_t kMaxResultBytes = uint64_t(1) << 34;

using OpResults = std::vector<HostTensor>;

class OpContext : public AttrReader<OpContext> {
public:
  OpContext(const Call &call, const OpDef &def, llvm::ArrayRef<const HostTensor *> args)
      : call(call), def(def), args(args) {}

  const Call &call;
  const OpDef &def;
  llvm::ArrayRef<const HostTensor *> args;

  llvm::StringRef name() const { return def.name; }
  /// "<op>: <msg>".
  llvm::Error error(const llvm::Twine &msg) const;
  /// An error unless there are exactly `n` arguments.
  llvm::Error expectArgs(size_t n) const;
  const HostTensor &arg(size_t i) const { return *args[i]; }

  //===--- Attributes (verified; defaults filled in) ------------------------===//
  // attr, getBool, getInt, ... come from AttrReader (hx/Ops/AttrReader.h):
  // the type relations and kernel generators read them the same way.

  const Call &attributeCall() const { return call; }

  /// Maps `axis` in [-rank, rank) to [0, rank), else an error naming `attr`.
  llvm::Expected<unsigned> normalizeAxis(int64_t axis, size_t rank, llvm::StringRef attrName) const;

  //===--- Results ----------------------------------------------------------===//

  /// The checked type of result `i` (field i of a tuple result), or null.
  const TensorType *resultType(unsigned i) const;
  /// The dtype of result `i`: the checked type's, else `fallback`.
  DType resultDType(unsigned i, DType fallback) const;
  /// A zero-filled result `i` of `shape`. Errors when the checked type's
  /// static shape differs or the result would be too large.
  llvm::Expected<HostTensor> makeResult(unsigned i, llvm::ArrayRef<int64_t> shape,
                                        DType fallbackDType) const;
};

using OpImplFn = llvm::Expected<OpResults> (*)(OpContext &ctx);

/// The implementation of operator `name`, or null.
OpImplFn lookupOpImpl(llvm::StringRef name);

OpImplFn findElementwiseOp(llvm::StringRef name);
OpImplFn findReduceOp(llvm::StringRef name);
OpImplFn findTransformOp(llvm::StringRef name);
OpImplFn findNnOp(llvm::StringRef name);
OpImplFn findConvPoolOp(llvm::StringRef name);
OpImplFn findSortOp(llvm::StringRef name);
OpImplFn findDynamicOp(llvm::StringRef name);

//===--- Element helpers --------------------------------------------------===//

/// Integer or bool: computed exactly in int64 rather than in double.
inline bool isIntegral(DType t) { return t == DType::Bool || isInteger(t); }

/// Element i as int64: integers exactly (uint64 above 2^63 wraps), bool 0/1,
/// floats truncated toward zero (saturating, NaN is 0).
int64_t getInt64(const HostTensor &t, int64_t i);

/// The results of an operator with one result.
inline OpResults single(HostTensor t) {
  OpResults r;
  r.push_back(std::move(t));
  return r;
}
/// Stores v: integers wrap to the width (two's complement), bool is v != 0,
/// floats convert.
void setInt64(HostTensor &t, int64_t i, int64_t v);
/// v truncated toward zero, saturated to the int64 range; NaN is 0.
int64_t truncToInt64(double v);
/// `%g` formatting for messages.
std::string formatDouble(double v);
/// Every element as double, in order.
std::vector<double> toDoubles(const HostTensor &t);

/// Row-major strides of `shape`, in elements.
Shape stridesOf(llvm::ArrayRef<int64_t> shape);
/// For each element of `outShape` in order, the flat index of the element of
/// a tensor of `inShape` that NumPy broadcasting maps to it (`inShape` is
/// right-aligned with `outShape` and broadcastable to it).
std::vector<int64_t> broadcastIndex(llvm::ArrayRef<int64_t> inShape,
                                    llvm::ArrayRef<int64_t> outShape);
/// "(2, 3)".
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

/// Whether the call's result is a tuple (split, topk with ret_type="both"):
/// from the checked type, else from the operator and its attributes.
bool returnsTuple(const Call &call);

} // namespace hx::interp

#endif
