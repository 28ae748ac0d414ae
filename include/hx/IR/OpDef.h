//===- OpDef.h - The schema of a primitive operator -------------*- C++ -*-===//
//
// What the IR knows about an operator: its name, arity, attribute schema
// (names, kinds, defaults), accepted dtypes and type relation. Which target
// kinds lack it is the target-kind table's (TargetKind.h). The IR only
// declares the schema; the Ops layer
// (lib/Ops, hx/Ops/OpRegistry.h) defines the builtin table and the type
// relations, and the parser points each Op node at its entry (Op::def). The
// printer reads defaults from here without depending on the registry.
//
//===----------------------------------------------------------------------===//
#ifndef HX_IR_OPDEF_H
#define HX_IR_OPDEF_H

#include "hx/IR/Attrs.h"
#include "hx/IR/Type.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace hx {

/// A set of dtypes, one bit per DType.
using DTypeSet = uint16_t;
constexpr DTypeSet dtypeBit(DType t) { return DTypeSet(1u << unsigned(t)); }
constexpr bool dtypeSetContains(DTypeSet s, DType t) { return (s & dtypeBit(t)) != 0; }
/// float16 goes wherever float32 does: the interpreter computes it in double
/// and kernels in float32 (KernelBuilder.h), both rounding once to half on
/// store.
inline constexpr DTypeSet kFloatOnly = dtypeBit(DType::Float16) | dtypeBit(DType::Float32);
/// Every integer dtype, signed and unsigned.
inline constexpr DTypeSet kIntegers = dtypeBit(DType::Int8) | dtypeBit(DType::Int16) |
                                      dtypeBit(DType::Int32) | dtypeBit(DType::Int64) |
                                      dtypeBit(DType::UInt8) | dtypeBit(DType::UInt16) |
                                      dtypeBit(DType::UInt32) | dtypeBit(DType::UInt64);
/// The float dtypes of elementwise math, reductions and casts: float64 too
/// (computed in double by both the interpreter and the kernels), and
/// bfloat16 (computed as float16 is).
inline constexpr DTypeSet kFloats =
    kFloatOnly | dtypeBit(DType::Float64) | dtypeBit(DType::BFloat16);
/// What the elementwise, comparison, reduction, transform and cast
/// families take.
inline constexpr DTypeSet kNumeric = kFloats | kIntegers;
inline constexpr DTypeSet kAnySupported = kNumeric | dtypeBit(DType::Bool);
inline constexpr DTypeSet kIndexTypes = dtypeBit(DType::Int32) | dtypeBit(DType::Int64);
/// "float16, float32, int32, int64" in DType order.
std::string dtypeSetToString(DTypeSet s);

/// What an attribute value may be. The checks are lenient the way TVM's
/// Python front end is: an integer where a float is expected, a single
/// integer for a list, an identifier for a string.
enum class AttrKind : uint8_t {
  Bool,         ///< True / False (also 0 / 1)
  Int,          ///< an integer
  OptInt,       ///< an integer or None
  Float,        ///< a float or an integer
  String,       ///< a string or an identifier
  DType,        ///< a dtype name (string or identifier); "" means unset
  IntList,      ///< a list of integers, or one integer
  OptIntList,   ///< a list of integers, one integer, or None
  IntOrIntList, ///< an integer or a list of integers (kept apart)
  IntListList,  ///< a list of integer lists ([[0, 0], [1, 1]]: nn.pad's pad_width)
  SizeList,     ///< a list of integers and Nones, one integer, or None
  OptFloatList, ///< a list of numbers, or None
  Device,       ///< meta[VirtualDevice][i]
  OptDevice,    ///< a device or None
};

/// "an integer", "a list of integers", ... for diagnostics.
llvm::StringRef attrKindDescription(AttrKind k);

struct AttrSpec {
  llvm::StringRef name;
  AttrKind kind;
  /// A required attribute has no default and must be written.
  bool required = false;
  AttrValue defaultValue;
};

/// How an operator fuses with its neighbours: TVM's OpPatternKind, in
/// TVM's order (a group's pattern is the largest of its members').
///   elementwise   out[i] = f(in[i]), same shape
///   broadcast     out[i] = f(in[j]) with j a broadcast of i (add, bias_add)
///   injective     each output element reads one input element (reshape,
///                 transpose, concatenate, take)
///   comm-reduce   a commutative reduction over some axes (sum, max)
///   out-elementwise-fusable  a complex operator whose output can take an
///                 elementwise epilogue (conv2d, dense, pooling)
///   opaque        fuses with nothing (sort, softmax, annotations)
enum class OpPattern : uint8_t {
  Elementwise,
  Broadcast,
  Injective,
  CommReduce,
  OutElementwiseFusable,
  Opaque,
};

/// "elementwise", "broadcast", ..., as TVM names them in lower case.
llvm::StringRef opPatternName(OpPattern p);

class TypeRelContext;
/// Computes the result type of one call from its argument types, or emits a
/// located diagnostic and returns null.
using TypeRelationFn = TypeRef (*)(TypeRelContext &ctx);

struct OpDef {
  llvm::StringRef name;
  /// One line for `--help` style listings.
  llvm::StringRef summary;
  /// The exact number of positional arguments.
  unsigned numArgs = 1;
  /// The single argument is a tuple of tensors (concatenate): the operator is
  /// variadic over that tuple.
  bool takesTuple = false;
  std::vector<AttrSpec> attrs;
  /// The dtypes of tensor inputs the operator supports.
  DTypeSet dtypes = kFloatOnly;
  TypeRelationFn relation = nullptr;
  /// The fusion class (fuse-ops reads it).
  OpPattern pattern = OpPattern::Opaque;
  /// The result's shape depends on the operands' values (nonzero,
  /// vision.non_max_suppression): its type has `?` dims, no kernel computes
  /// it, and a run evaluates the call on the host between two stages
  /// (hx/Run/Stages.h), as the interpreter does.
  bool valueDependentShape = false;
  /// The family file that defines it: "elementwise", "nn", ... (set by the
  /// registry; the interpreter, kernel and smith files mirror the families).
  llvm::StringRef family;

  const AttrSpec *findAttr(llvm::StringRef attrName) const;
};

} // namespace hx

#endif
