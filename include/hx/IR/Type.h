//===- Type.h - Tensor, tuple and function types ----------------*- C++ -*-===//
#ifndef HX_IR_TYPE_H
#define HX_IR_TYPE_H

#include "hx/IR/Node.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace hx {

enum class DType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  Float32,
  Float64,
  /// bfloat16: float32's exponent, 8 bits of significand. Computed in
  /// float32 (the kernels) or double (the interpreter), rounded once to
  /// nearest even on store; a .npy file holds it as float32.
  BFloat16,
};

llvm::StringRef dtypeName(DType t);
std::optional<DType> parseDType(llvm::StringRef name);
unsigned dtypeBytes(DType t);
bool isFloat(DType t);
bool isInteger(DType t);  // signed or unsigned, not bool
bool isUnsigned(DType t); // uint8 to uint64

enum class TypeKind : uint8_t { Tensor, Tuple, Func, Incomplete };

class Type : public Node {
public:
  TypeKind getKind() const { return kind; }
  llvm::SMLoc loc;

protected:
  explicit Type(TypeKind k) : kind(k) {}

private:
  TypeKind kind;
};
using TypeRef = Ref<Type>;

/// `Tensor[(5, ?), float32]`; a rank-0 tensor prints as its dtype (`float32`).
class TensorType : public Type {
public:
  static constexpr int64_t kDynamic = -1;
  /// The largest static dimension hx accepts (2^48): the parser rejects a
  /// larger one and so does infer-type when a relation computes one, so
  /// every printed type parses back.
  static constexpr int64_t kMaxDim = int64_t(1) << 48;
  TensorType(llvm::SmallVector<int64_t, 4> shape, DType dtype)
      : Type(TypeKind::Tensor), shape(std::move(shape)), dtype(dtype) {}
  llvm::SmallVector<int64_t, 4> shape;
  DType dtype;

  size_t rank() const { return shape.size(); }
  bool isStatic() const;
  /// Number of elements, or nullopt when a dim is dynamic (or it overflows).
  std::optional<int64_t> numElements() const;
  static bool classof(const Type *t) { return t->getKind() == TypeKind::Tensor; }
};

class TupleType : public Type {
public:
  explicit TupleType(std::vector<TypeRef> fields)
      : Type(TypeKind::Tuple), fields(std::move(fields)) {}
  std::vector<TypeRef> fields;
  static bool classof(const Type *t) { return t->getKind() == TypeKind::Tuple; }

protected:
  void dropChildren(NodeWorklist &dead) override;
};

class FuncType : public Type {
public:
  FuncType(std::vector<TypeRef> params, TypeRef ret)
      : Type(TypeKind::Func), params(std::move(params)), ret(std::move(ret)) {}
  std::vector<TypeRef> params;
  TypeRef ret;
  static bool classof(const Type *t) { return t->getKind() == TypeKind::Func; }

protected:
  void dropChildren(NodeWorklist &dead) override;
};

/// A type variable of infer-type (TVM's IncompleteType): a type not known
/// yet, solved by unification (lib/Transforms/InferType). It exists only
/// while infer-type runs: a typed module holds none. Two are the same
/// variable when their ids are equal; it prints as `_`, as Relay writes an
/// incomplete type.
class IncompleteType : public Type {
public:
  explicit IncompleteType(uint32_t id) : Type(TypeKind::Incomplete), id(id) {}
  uint32_t id;
  static bool classof(const Type *t) { return t->getKind() == TypeKind::Incomplete; }
};

TypeRef makeTensorType(llvm::ArrayRef<int64_t> shape, DType dtype);
/// Bytes a value of this type occupies: tensors and tuples of tensors; a `?`
/// dimension counts as 1, functions as 0.
uint64_t storageBytes(const Type *t);
/// Structural equality (locations are ignored).
bool typeEqual(const Type *a, const Type *b);
/// The type of an if whose branches have types `a` and `b`: tensors of one
/// dtype and rank join with `?` where their sizes differ, tuples field by
/// field, other types only when equal; null when they do not join.
TypeRef joinTypes(const Type *a, const Type *b);
/// A structural hash consistent with typeEqual.
llvm::hash_code hashType(const Type *t);

/// Shares one object among structurally equal types that have no location
/// (the ones type relations compute), so a module of a million expressions
/// holds a few hundred type objects instead of a million. Types with a
/// location (annotations) are returned unchanged: notes point at them. A
/// uniquer belongs to one pass run; nothing is global.
class TypeUniquer {
public:
  TypeRef unique(TypeRef t);

private:
  llvm::DenseMap<unsigned, llvm::SmallVector<TypeRef, 1>> buckets;
};
void printType(llvm::raw_ostream &os, const Type *t);
std::string typeToString(const Type *t);

} // namespace hx

#endif
