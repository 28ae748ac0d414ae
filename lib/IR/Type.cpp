//===- Type.cpp - Types ---------------------------------------------------===//
#include "hx/IR/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace hx;
using namespace llvm;

StringRef hx::dtypeName(DType t) {
  switch (t) {
  case DType::Bool:
    return "bool";
  case DType::Int8:
    return "int8";
  case DType::Int16:
    return "int16";
  case DType::Int32:
    return "int32";
  case DType::Int64:
    return "int64";
  case DType::UInt8:
    return "uint8";
  case DType::UInt16:
    return "uint16";
  case DType::UInt32:
    return "uint32";
  case DType::UInt64:
    return "uint64";
  case DType::Float16:
    return "float16";
  case DType::Float32:
    return "float32";
  case DType::Float64:
    return "float64";
  case DType::BFloat16:
    return "bfloat16";
  }
  return "?";
}

std::optional<DType> hx::parseDType(StringRef name) {
  return StringSwitch<std::optional<DType>>(name)
      .Case("bool", DType::Bool)
      .Case("int8", DType::Int8)
      .Case("int16", DType::Int16)
      .Case("int32", DType::Int32)
      .Case("int64", DType::Int64)
      .Case("uint8", DType::UInt8)
      .Case("uint16", DType::UInt16)
      .Case("uint32", DType::UInt32)
      .Case("uint64", DType::UInt64)
      .Case("float16", DType::Float16)
      .Case("float32", DType::Float32)
      .Case("float64", DType::Float64)
      .Case("bfloat16", DType::BFloat16)
      .Default(std::nullopt);
}

unsigned hx::dtypeBytes(DType t) {
  switch (t) {
  case DType::Bool:
  case DType::Int8:
  case DType::UInt8:
    return 1;
  case DType::Int16:
  case DType::UInt16:
  case DType::Float16:
  case DType::BFloat16:
    return 2;
  case DType::Int32:
  case DType::UInt32:
  case DType::Float32:
    return 4;
  case DType::Int64:
  case DType::UInt64:
  case DType::Float64:
    return 8;
  }
  return 0;
}

bool hx::isFloat(DType t) {
  return t == DType::Float16 || t == DType::Float32 || t == DType::Float64 || t == DType::BFloat16;
}
bool hx::isUnsigned(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}
bool hx::isInteger(DType t) { return !isFloat(t) && t != DType::Bool; }

bool TensorType::isStatic() const {
  for (int64_t d : shape)
    if (d == kDynamic)
      return false;
  return true;
}

std::optional<int64_t> TensorType::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d == kDynamic)
      return std::nullopt;
    if (d != 0 && n > INT64_MAX / d)
      return std::nullopt;
    n *= d;
  }
  return n;
}

void TupleType::dropChildren(NodeWorklist &dead) {
  for (TypeRef &f : fields)
    drop(f.raw(), dead);
}

void FuncType::dropChildren(NodeWorklist &dead) {
  for (TypeRef &p : params)
    drop(p.raw(), dead);
  drop(ret.raw(), dead);
}

TypeRef hx::makeTensorType(ArrayRef<int64_t> shape, DType dtype) {
  return make<TensorType>(SmallVector<int64_t, 4>(shape.begin(), shape.end()), dtype);
}

uint64_t hx::storageBytes(const Type *t) {
  uint64_t total = 0;
  SmallVector<const Type *, 4> work{t};
  while (!work.empty()) {
    const Type *cur = work.pop_back_val();
    if (auto *tt = dyn_cast_or_null<TensorType>(cur)) {
      uint64_t n = 1;
      for (int64_t d : tt->shape)
        n *= d == TensorType::kDynamic ? 1 : static_cast<uint64_t>(d);
      total += n * dtypeBytes(tt->dtype);
    } else if (auto *tu = dyn_cast_or_null<TupleType>(cur)) {
      for (auto &f : tu->fields)
        work.push_back(f.get());
    }
  }
  return total;
}

bool hx::typeEqual(const Type *a, const Type *b) {
  if (a == b)
    return true;
  if (!a || !b || a->getKind() != b->getKind())
    return false;
  switch (a->getKind()) {
  case TypeKind::Tensor: {
    auto *x = cast<TensorType>(a), *y = cast<TensorType>(b);
    return x->dtype == y->dtype && x->shape == y->shape;
  }
  case TypeKind::Tuple: {
    auto *x = cast<TupleType>(a), *y = cast<TupleType>(b);
    if (x->fields.size() != y->fields.size())
      return false;
    for (size_t i = 0; i < x->fields.size(); ++i)
      if (!typeEqual(x->fields[i].get(), y->fields[i].get()))
        return false;
    return true;
  }
  case TypeKind::Func: {
    auto *x = cast<FuncType>(a), *y = cast<FuncType>(b);
    if (x->params.size() != y->params.size())
      return false;
    for (size_t i = 0; i < x->params.size(); ++i)
      if (!typeEqual(x->params[i].get(), y->params[i].get()))
        return false;
    return typeEqual(x->ret.get(), y->ret.get());
  }
  case TypeKind::Incomplete:
    return cast<IncompleteType>(a)->id == cast<IncompleteType>(b)->id;
  }
  return false;
}

hash_code hx::hashType(const Type *t) {
  hash_code h = hash_value(0);
  SmallVector<const Type *, 4> work{t};
  while (!work.empty()) {
    const Type *cur = work.pop_back_val();
    if (!cur) {
      h = hash_combine(h, -1);
      continue;
    }
    h = hash_combine(h, static_cast<int>(cur->getKind()));
    switch (cur->getKind()) {
    case TypeKind::Tensor: {
      auto *tt = cast<TensorType>(cur);
      h = hash_combine(h, static_cast<int>(tt->dtype),
                       hash_combine_range(tt->shape.begin(), tt->shape.end()));
      break;
    }
    case TypeKind::Tuple: {
      auto *tt = cast<TupleType>(cur);
      h = hash_combine(h, tt->fields.size());
      for (auto &f : tt->fields)
        work.push_back(f.get());
      break;
    }
    case TypeKind::Func: {
      auto *ft = cast<FuncType>(cur);
      h = hash_combine(h, ft->params.size());
      for (auto &p : ft->params)
        work.push_back(p.get());
      work.push_back(ft->ret.get());
      break;
    }
    case TypeKind::Incomplete:
      h = hash_combine(h, cast<IncompleteType>(cur)->id);
      break;
    }
  }
  return h;
}

TypeRef TypeUniquer::unique(TypeRef t) {
  if (!t || t->loc.isValid())
    return t;
  auto &bucket = buckets[static_cast<unsigned>(hashType(t.get()))];
  for (const TypeRef &u : bucket)
    if (typeEqual(u.get(), t.get()))
      return u;
  bucket.push_back(t);
  return t;
}

void hx::printType(raw_ostream &os, const Type *t) {
  if (!t) {
    os << "?";
    return;
  }
  switch (t->getKind()) {
  case TypeKind::Tensor: {
    auto *tt = cast<TensorType>(t);
    if (tt->shape.empty()) {
      os << dtypeName(tt->dtype);
      return;
    }
    os << "Tensor[(";
    for (size_t i = 0; i < tt->shape.size(); ++i) {
      if (i)
        os << ", ";
      if (tt->shape[i] == TensorType::kDynamic)
        os << "?";
      else
        os << tt->shape[i];
    }
    os << "), " << dtypeName(tt->dtype) << "]";
    return;
  }
  case TypeKind::Tuple: {
    auto *tt = cast<TupleType>(t);
    os << "(";
    for (size_t i = 0; i < tt->fields.size(); ++i) {
      if (i)
        os << ", ";
      printType(os, tt->fields[i].get());
    }
    if (tt->fields.size() == 1)
      os << ",";
    os << ")";
    return;
  }
  case TypeKind::Func: {
    auto *ft = cast<FuncType>(t);
    os << "fn (";
    for (size_t i = 0; i < ft->params.size(); ++i) {
      if (i)
        os << ", ";
      printType(os, ft->params[i].get());
    }
    os << ") -> ";
    printType(os, ft->ret.get());
    return;
  }
  case TypeKind::Incomplete:
    os << "_";
    return;
  }
}

std::string hx::typeToString(const Type *t) {
  std::string s;
  raw_string_ostream os(s);
  printType(os, t);
  return s;
}

TypeRef hx::joinTypes(const Type *a, const Type *b) {
  if (!a || !b || a->getKind() != b->getKind())
    return nullptr;
  if (const auto *ta = dyn_cast<TensorType>(a)) {
    const auto *tb = cast<TensorType>(b);
    if (ta->dtype != tb->dtype || ta->rank() != tb->rank())
      return nullptr;
    SmallVector<int64_t, 4> shape(ta->shape);
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] != tb->shape[i])
        shape[i] = TensorType::kDynamic;
    return makeTensorType(shape, ta->dtype);
  }
  if (const auto *ta = dyn_cast<TupleType>(a)) {
    const auto *tb = cast<TupleType>(b);
    if (ta->fields.size() != tb->fields.size())
      return nullptr;
    std::vector<TypeRef> fields;
    for (size_t i = 0; i < ta->fields.size(); ++i) {
      fields.push_back(joinTypes(ta->fields[i].get(), tb->fields[i].get()));
      if (!fields.back())
        return nullptr;
    }
    return make<TupleType>(std::move(fields));
  }
  return typeEqual(a, b) ? TypeRef(const_cast<Type *>(a)) : nullptr;
}
