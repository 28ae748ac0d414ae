//===- TypeInferencer.h - InferType's state machine -------------*- C++ -*-===//
//
// Private to lib/Transforms/InferType. The algorithm is described at the top
// of InferType.cpp; the driver (the stack of frames, operand lookup, hints)
// is defined there, the visitors of each composite node in
// InferTypeVisitors.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_TRANSFORMS_INFERTYPE_TYPEINFERENCER_H
#define HX_LIB_TRANSFORMS_INFERTYPE_TYPEINFERENCER_H

#include "hx/IR/ExprNumbering.h"
#include "hx/IR/Module.h"
#include "hx/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include <vector>

namespace hx::infer {

using llvm::cast;
using llvm::DenseMap;
using llvm::dyn_cast;
using llvm::SMLoc;
using llvm::Twine;

constexpr int64_t kDyn = TensorType::kDynamic;

/// Whether a value of type `a` may be used where `b` is expected: equal
/// structure, with a `?` dim on either side matching any size.
bool compatible(const Type *a, const Type *b);
/// The type of a value that is either `a` or `b` (if branches): `a` where the
/// two agree, `?` where one of them is `?`. Null when incompatible.
TypeRef join(const Type *a, const Type *b);
bool isBoolScalar(const Type *t);
bool hasUnannotatedParam(const Expr *e);

/// Where to report a problem with `e`, an operand of the node at `userLoc`:
/// variables and globals are shared by all their uses, so their own location
/// is their definition, not this use.
inline SMLoc useSite(const Expr *e, SMLoc userLoc) {
  return llvm::isa<Var, GlobalVar, Op>(e) ? userLoc : e->loc;
}

class TypeInferencer {
public:
  TypeInferencer(Module &m, DiagEngine &diags) : m(m), diags(diags) {}
  void inferDef(const Module::Def &def);
  void replacedRoot(const Function *old, const Function *now);
  void setGlobalTypes();

private:
  enum class State : uint8_t { Visiting, Done };
  struct Frame {
    Expr *e;
    unsigned stage;
    TypeRef hint;         // the type the context expects, if known
    Call *site = nullptr; // the call whose callee this is, if any
  };
  /// A variable whose type is fixed by its first use: a let variable bound
  /// to a value that needs a hint, or a parameter whose argument at the
  /// call that typed its function needs one.
  struct Bound {
    Expr *value;
    bool isParam;
  };

  Module &m;
  DiagEngine &diags;
  // The visit state of each node, by its number (Walk slot; this pass runs
  // no foreign code while it numbers).
  ExprNumbering visited{ExprSlot::Walk};
  std::vector<State> states;
  DenseMap<const Function *, State> functionStates;
  DenseMap<const Function *, TypeRef> signatures;
  std::vector<Frame> stack;
  TypeUniquer types;
  DenseMap<const Var *, Bound> bound;
  // Where a value typed from a call (through a hint) got its type: a later
  // call with other argument types notes it.
  DenseMap<const Expr *, SMLoc> typedAtCall;
  // Tuple literals some of whose projections were typed on their own (a
  // function field waits for a call): typed last, at the end of the def.
  std::vector<Expr *> deferredTuples;

  /// The visit state of `e`; null if it was not visited.
  const State *stateOf(const Expr *e) const {
    if (const auto *fn = dyn_cast<Function>(e)) {
      auto it = functionStates.find(fn);
      return it == functionStates.end() ? nullptr : &it->second;
    }
    uint32_t k = visited.lookup(e);
    return k == ExprNumbering::kNone ? nullptr : &states[k];
  }
  bool isDone(const Expr *e) const {
    const State *st = stateOf(e);
    return st && *st == State::Done;
  }
  bool isVisited(const Expr *e) const { return stateOf(e) != nullptr; }
  void setState(const Expr *e, State st) {
    if (const auto *fn = dyn_cast<Function>(e)) {
      functionStates[fn] = st;
      return;
    }
    auto [k, inserted] = visited.insert(e);
    if (inserted)
      states.push_back(st);
    else
      states[k] = st;
  }
  void finish(Expr *e, TypeRef t) {
    e->checkedType = types.unique(std::move(t));
    setState(e, State::Done);
  }
  /// The checked type of a node typed in this run, else null.
  const Type *typeOf(const Expr *e) const { return isDone(e) ? e->checkedType.get() : nullptr; }

  bool pushOperand(Expr *e, TypeRef hint = nullptr, Call *site = nullptr);
  bool isPending(const Expr *e) const {
    const auto *v = dyn_cast<Var>(e);
    return v && !isDone(v) && bound.count(v);
  }
  /// What a pending variable stands for: its bound value, through chains of
  /// pending variables; `e` itself otherwise.
  Expr *resolveBound(Expr *e) const {
    while (isPending(e))
      e = bound.find(cast<Var>(e))->second.value;
    return e;
  }
  /// The value a callee stands for, through bound variables (typed or not)
  /// and globals; for notes.
  const Expr *calleeRoot(Expr *e) const;
  bool needsHintShallow(Expr *e);
  bool needsHint(Expr *e);
  const Type *operandType(Expr *e, SMLoc useLoc);
  /// The type of `e` if already known, without diagnostics (for hints).
  const Type *peekType(Expr *e);
  const Type *globalType(GlobalVar *gv, SMLoc useLoc);
  const Type *annotatedSignature(Function *fn);
  void noteDef(InFlightDiagnostic &d, const Expr *e, const Twine &what, const Type *t);

  void step();
  void visitCall(size_t idx);
  void finishOpCall(Call *call);
  void finishFuncCall(Call *call);
  void visitFunction(size_t idx);
  void visitLet(size_t idx);
  void visitIf(size_t idx);
  void visitTuple(size_t idx);
  void visitTupleGetItem(size_t idx);
};

} // namespace hx::infer

#endif // HX_LIB_TRANSFORMS_INFERTYPE_TYPEINFERENCER_H
