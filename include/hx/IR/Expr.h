//===- Expr.h - Relay expressions -------------------------------*- C++ -*-===//
//
// Expressions form a DAG of reference-counted nodes: a graph binding `%0 = e;`
// names one node however often `%0` is used. Every node carries its location
// -- a source position and the framework node it came from, if any
// (hx/Support/Loc.h) -- and, once InferType has run, its checked type.
//
// Use llvm::isa / dyn_cast / cast on Expr pointers.
//
//===----------------------------------------------------------------------===//
#ifndef HX_IR_EXPR_H
#define HX_IR_EXPR_H

#include "hx/IR/Attrs.h"
#include "hx/IR/Node.h"
#include "hx/IR/Type.h"
#include "hx/Support/Loc.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Casting.h"
#include <memory>
#include <string>
#include <vector>

namespace hx {

struct OpDef;

enum class ExprKind : uint8_t {
  Var,
  GlobalVar,
  Op,
  Constant,
  Call,
  Tuple,
  TupleGetItem,
  Let,
  If,
  Function,
};

/// Which of an expression's two numbering slots an ExprNumbering uses.
enum class ExprSlot : uint8_t {
  /// Traversals (walkPostOrder, rewritePostOrder) and passes that run no
  /// foreign code while they number (InferType).
  Walk,
  /// An analysis whose numbering lives across walks (the device analysis).
  Analysis,
};

class Expr : public Node {
public:
  ExprKind getKind() const { return kind; }

private:
  // Declared first so it fills the base's tail padding.
  mutable uint32_t walkSlot = 0;

public:
  /// Where the expression is in the text, and the framework node it came
  /// from: a pass that builds an expression for an old one gives it the old
  /// one's Loc, so both survive rewrites.
  Loc loc;
  /// Filled in by InferType.
  TypeRef checkedType;

  /// The raw numbering slot; see ExprNumbering.
  uint32_t &slot(ExprSlot s) const { return s == ExprSlot::Walk ? walkSlot : analysisSlot; }

  /// Variables, globals, operators and constants: printed inline, never bound.
  bool isAtomic() const { return kind <= ExprKind::Constant; }

protected:
  Expr(ExprKind k, Loc l) : loc(std::move(l)), kind(k) {}
  void dropChildren(NodeWorklist &dead) override;

private:
  ExprKind kind;
  mutable uint32_t analysisSlot = 0;
};
using ExprRef = Ref<Expr>;

/// A parameter, let-bound or free variable. Uses point at the binding node.
class Var : public Expr {
public:
  Var(std::string name, TypeRef annotation, Loc l)
      : Expr(ExprKind::Var, std::move(l)), name(std::move(name)),
        annotation(std::move(annotation)) {}
  std::string name; // without '%'
  TypeRef annotation;
  /// Parameter device `%x {virtual_device=...}`; kNoDevice if none.
  DeviceIndex device = kNoDevice;
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::Var; }

protected:
  void dropChildren(NodeWorklist &dead) override;
};

class GlobalVar : public Expr {
public:
  GlobalVar(std::string name, Loc l)
      : Expr(ExprKind::GlobalVar, std::move(l)), name(std::move(name)) {}
  std::string name; // without '@'
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::GlobalVar; }
};

/// A primitive operator. One node per name and module (Module::getOp).
class Op : public Expr {
public:
  Op(std::string name, Loc l) : Expr(ExprKind::Op, std::move(l)), name(std::move(name)) {}
  std::string name;
  /// The registry's definition, when the operator is known.
  const OpDef *def = nullptr;
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::Op; }
};

/// The value of a tensor constant (`meta[relay.Constant][i]`): immutable and
/// shared by every node that refers to it, replicas included, so a weight is
/// held once on the host however often it is used or replicated.
struct TensorData {
  DType dtype = DType::Float32;
  llvm::SmallVector<int64_t, 4> shape;
  /// Row-major (C order), little-endian; exactly numElements * dtypeBytes.
  std::vector<uint8_t> bytes;
  /// The `.npy` file the value came from, as the metadata wrote it (relative
  /// to the .ir file); the printer writes it back instead of base64. Empty
  /// when the value came inline.
  std::string npyPath;
};

/// A scalar literal (`1f`, `2`, `3i64`, `True`) or, when `tensor` is set, a
/// tensor constant from the metadata table (`meta[relay.Constant][i]`).
class Constant : public Expr {
public:
  Constant(DType dtype, Loc l) : Expr(ExprKind::Constant, std::move(l)), dtype(dtype) {}
  Constant(std::shared_ptr<const TensorData> t, Loc l)
      : Expr(ExprKind::Constant, std::move(l)), dtype(t->dtype), tensor(std::move(t)) {}
  DType dtype;
  double floatValue = 0; // float dtypes
  int64_t intValue = 0;  // integer dtypes and bool
  std::shared_ptr<const TensorData> tensor;
  bool isTensor() const { return tensor != nullptr; }
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::Constant; }
};

class Call : public Expr {
public:
  Call(ExprRef callee, llvm::SmallVector<ExprRef, 2> args, Attrs attrs, Loc l)
      : Expr(ExprKind::Call, std::move(l)), callee(std::move(callee)), args(std::move(args)),
        attrs(std::move(attrs)) {}
  ExprRef callee;
  llvm::SmallVector<ExprRef, 2> args;
  Attrs attrs;

  /// The operator when the callee is one, else null.
  Op *getOp() const { return llvm::dyn_cast<Op>(callee.get()); }
  bool isOp(llvm::StringRef name) const {
    Op *op = getOp();
    return op && op->name == name;
  }
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::Call; }

protected:
  void dropChildren(NodeWorklist &dead) override;
};

class Tuple : public Expr {
public:
  Tuple(llvm::SmallVector<ExprRef, 2> fields, Loc l)
      : Expr(ExprKind::Tuple, std::move(l)), fields(std::move(fields)) {}
  llvm::SmallVector<ExprRef, 2> fields;
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::Tuple; }

protected:
  void dropChildren(NodeWorklist &dead) override;
};

/// `%t.i`
class TupleGetItem : public Expr {
public:
  TupleGetItem(ExprRef tuple, unsigned index, Loc l)
      : Expr(ExprKind::TupleGetItem, std::move(l)), tuple(std::move(tuple)), index(index) {}
  ExprRef tuple;
  unsigned index;
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::TupleGetItem; }

protected:
  void dropChildren(NodeWorklist &dead) override;
};

/// `let %x = value; body`
class Let : public Expr {
public:
  Let(Ref<Var> var, ExprRef value, ExprRef body, Loc l)
      : Expr(ExprKind::Let, std::move(l)), var(std::move(var)), value(std::move(value)),
        body(std::move(body)) {}
  Ref<Var> var;
  ExprRef value;
  ExprRef body;
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::Let; }

protected:
  void dropChildren(NodeWorklist &dead) override;
};

class If : public Expr {
public:
  If(ExprRef cond, ExprRef thenBranch, ExprRef elseBranch, Loc l)
      : Expr(ExprKind::If, std::move(l)), cond(std::move(cond)), thenBranch(std::move(thenBranch)),
        elseBranch(std::move(elseBranch)) {}
  ExprRef cond;
  ExprRef thenBranch;
  ExprRef elseBranch;
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::If; }

protected:
  void dropChildren(NodeWorklist &dead) override;
};

/// A `def` body or a `fn` literal.
class Function : public Expr {
public:
  Function(std::vector<Ref<Var>> params, ExprRef body, TypeRef retType, Loc l)
      : Expr(ExprKind::Function, std::move(l)), params(std::move(params)), body(std::move(body)),
        retType(std::move(retType)) {}
  std::vector<Ref<Var>> params;
  ExprRef body;
  TypeRef retType; // `-> T`, may be null
  Attrs attrs;     // `Primitive=1`, ...
  /// The result device (trailing `virtual_device=...`); kNoDevice if none.
  DeviceIndex resultDevice = kNoDevice;
  /// `free_var %x: T;` declarations at the start of the body.
  std::vector<Ref<Var>> freeVars;
  static bool classof(const Expr *e) { return e->getKind() == ExprKind::Function; }
  /// `Primitive=1` (or True): a fused group that runs as one kernel
  /// (fuse-ops); plan-devices does not look into its body.
  bool isPrimitive() const;

protected:
  void dropChildren(NodeWorklist &dead) override;
};

/// The operands of `e` in evaluation order: callee then arguments, tuple fields,
/// the projected tuple, a let's value then body, an if's condition then
/// branches, a function's body. Binding variables (params, let vars) are not
/// operands.
void getOperands(const Expr *e, llvm::SmallVectorImpl<Expr *> &out);

/// Operator names of the device annotations.
inline constexpr llvm::StringLiteral kOnDevice = "on_device";
inline constexpr llvm::StringLiteral kDeviceCopy = "device_copy";

} // namespace hx

#endif
