//===- TypeInferencer.h - InferType's state machine -------------*- C++ -*-===//
//
// Private to lib/Transforms/InferType. The algorithm is described at the top
// of InferType.cpp; the driver (the stack of frames, operand lookup, hints)
// is defined there, the visitors of each composite node in
// InferTypeVisitors.cpp, and the type variables, unification and deferred
// relations in TypeSolver.cpp.
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
inline Loc useSite(const Expr *e, const Loc &userLoc) {
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

  /// A type variable, by the id of its IncompleteType: a union-find node
  /// (TypeSolver.cpp). Only a root's fields other than `parent` count.
  struct TypeVar {
    uint32_t parent;
    TypeRef self;                  // the variable's IncompleteType
    TypeRef solution;              // what it stands for once known; never a variable
    TypeRef resolved;              // the solution with no variable left, once that is known
    SMLoc site;                    // the call whose unification gave the solution, if one did
    bool poisoned = false;         // part of a failed expression: resolves silently to null
    std::vector<uint32_t> waiting; // deferred nodes retried when it is solved
  };
  /// A node whose type waits for its operands' types to be known: an
  /// operator call (its type relation) or a projection of a tuple whose type
  /// is still a variable. Its type is `result`, a variable, until then.
  struct Deferred {
    Expr *e;
    llvm::SmallVector<TypeRef, 2> inputs;
    TypeRef result;
    bool done = false;
  };
  /// What a type holds beyond its structure: a variable with no solution
  /// (the first found) and whether a poisoned one.
  struct VarScan {
    const IncompleteType *unsolved = nullptr;
    bool poisoned = false;
  };
  /// The innermost solved variable behind a failed unification: the call
  /// that solved it, and whether it was on the second (the expected) side.
  struct Conflict {
    SMLoc site;
    bool expectedSide = false;
    bool occurs = false; // a variable would have had to contain itself
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
  // Where a value typed from a call (through a hint) got its type: a later
  // call with other argument types notes it.
  DenseMap<const Expr *, SMLoc> typedAtCall;

  // The solver's state, for the def being inferred (emptied by finishDef).
  std::vector<TypeVar> vars;
  std::vector<Deferred> deferred;
  std::vector<uint32_t> ready; // deferred nodes to retry
  bool solving = false;
  // Parameters typed by a fresh variable: one still unsolved at the end of
  // the def is "add a type annotation".
  std::vector<Var *> freshParams;
  // Nodes whose types (checkedType, a parameter's annotation, a function's
  // `-> T`) hold variables: resolved at the end of the def.
  std::vector<Expr *> open;
  Conflict conflict;

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
  /// Sets the checked type of `e`; one that holds variables is resolved at
  /// the end of the def.
  void finish(Expr *e, TypeRef t) {
    if (t && hasVars(t.get()))
      open.push_back(e);
    else
      t = types.unique(std::move(t));
    e->checkedType = std::move(t);
    setState(e, State::Done);
  }
  /// A failed node: null type, and the variables in the types involved are
  /// poisoned, so that they report nothing more (one mistake, one error).
  void fail(Expr *e, llvm::ArrayRef<const Type *> involved) {
    for (const Type *t : involved)
      poison(t);
    finish(e, nullptr);
  }
  /// The checked type of a node typed in this run, else null.
  const Type *typeOf(const Expr *e) const { return isDone(e) ? e->checkedType.get() : nullptr; }

  bool pushOperand(Expr *e, TypeRef hint = nullptr, Call *site = nullptr);
  /// The value a callee stands for, through globals; for notes.
  const Expr *calleeRoot(Expr *e) const;
  bool needsHintShallow(Expr *e);
  bool needsHint(Expr *e);
  const Type *operandType(Expr *e, const Loc &useLoc);
  /// The type of `e` if already known, without diagnostics (for hints).
  const Type *peekType(Expr *e);
  const Type *globalType(GlobalVar *gv, const Loc &useLoc);
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
  /// The type of projection `proj` of a value of type `t` (no variable at
  /// the top); null after reporting an error.
  TypeRef projectType(TupleGetItem *proj, const Type *t);

  // The solver (TypeSolver.cpp).
  TypeRef freshVar();
  uint32_t find(uint32_t id);
  /// `t` with solved variables at its top replaced by their solutions; sets
  /// `*site` to the call that solved the last one, if any.
  const Type *prune(const Type *t, SMLoc *site = nullptr);
  static bool hasVars(const Type *t);
  VarScan scanVars(const Type *t);
  /// `t` with every solved variable replaced by its solution; unsolved
  /// ones stay (for messages and type relations).
  TypeRef resolve(const Type *t);
  /// The operator's type relation on its operands' types resolved.
  TypeRef relationOnResolved(Call &call, llvm::ArrayRef<const Type *> operands);
  /// Unifies `a` with `b` (the expected type): false on a mismatch, with
  /// `conflict` set. `site`: the call to record as the origin of the
  /// solutions it finds. Deferred nodes it unblocks run at the next solve().
  bool unify(const Type *a, const Type *b, SMLoc site = SMLoc());
  bool unifyRec(const Type *a, const Type *b, SMLoc site);
  bool bindVar(uint32_t root, const Type *t, SMLoc site);
  bool occurs(uint32_t root, const Type *t);
  void wake(uint32_t root);
  void poison(const Type *t);
  /// Makes `e`'s type a fresh variable, solved once `inputs` are known.
  TypeRef defer(Expr *e, llvm::ArrayRef<const Type *> inputs);
  /// Retries the deferred nodes whose inputs were solved, until none is left
  /// (a worklist, as TVM's type solver).
  void solve();
  void retry(uint32_t i);
  /// The end of a def: every unsolved parameter is an error, every open
  /// type is resolved, and the solver is emptied.
  void finishDef();
  TypeRef finalType(const Type *t);
};

} // namespace hx::infer

#endif // HX_LIB_TRANSFORMS_INFERTYPE_TYPEINFERENCER_H
