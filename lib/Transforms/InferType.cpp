//===- InferType.cpp - Infer and check the type of every expression -------===//
//
// Sets Expr::checkedType on every expression of every function, fills in a
// function's missing `-> T` and the parameter annotations it could infer, and
// reports each type error once, at the offending expression, with notes at
// the definitions involved:
//
//   %0 = add(%a, %b);
//     error: add: shapes (5, 7) and (6, 7) are not broadcastable
//     note: %b defined here with type Tensor[(6, 7), float32]
//
// Algorithm (one explicit stack of frames, no recursion on depth):
//
//  1. Definitions are inferred in module order, one at a time
//     (TypeInference::inferDef), so plan-devices can work on each def right
//     after typing it, while its nodes are in the cache. A global's type is its
//     annotated signature when every parameter and the result are annotated
//     (so later-defined and mutually recursive globals need no ordering);
//     otherwise the global is inferred first, at its first use, with the
//     argument types of that call as hints for unannotated parameters.
//     A recursive use of a global that is still being inferred and lacks a
//     full signature is an error.
//  2. Each composite node (call, tuple, projection, let, if, fn) is a frame
//     whose stage says which operands it has pushed. Operands are typed before
//     their user; a node shared by several users is typed once (the visit
//     state is a side table indexed by an ExprNumbering; stale checkedType
//     fields from earlier runs are overwritten). Functions keep their state
//     in a map instead: a def's root is looked up again from later defs,
//     after the caller of inferDef may have walked the defs typed so far and
//     so renumbered the Walk slot. Atomic nodes (variables,
//     globals, operators, constants) are shared by all their uses, so they
//     are resolved by the user, and their errors are located at that use.
//  3. Binders set their variables before the scope is pushed: parameters from
//     annotations or from the expected function type (the "hint"), a let
//     variable from its annotation (so a recursive closure can call itself)
//     or from its value.
//  4. Hints flow into function literals: a call types the arguments that
//     need no hint first, passes `fn (argument types)` to the callee (so
//     `(fn (%x) { ... })(%a)` works), then pushes the other arguments (an
//     unannotated `fn`, a global without a full signature, an if or tuple of
//     those) with the callee's parameter types as hints. Let annotations,
//     `-> T` annotations and tuple types pass hints inward.
//  4a. Unannotated parameters are unified with their first use (TVM's solver
//     with incomplete types, specialised to the hint order, so no type
//     variables are needed). A value that needs a hint and has none is not
//     typed where it is bound: its variable is *bound* (Bound) to it and is
//     pending until its first use, which pushes the value with the use's
//     hint — a call of the variable, the variable passed where a parameter
//     type is known, a projection of a bound tuple (which types only that
//     field). That covers `let %f = fn (%x) {..}; %f(%a)`, let-bound ifs and
//     tuples of literals, and graph-bound tuples (typed whole at the end of
//     the def). Likewise a parameter of a function typed from a call whose
//     argument waits (the `fn (argument types)` entry is null; Frame::site
//     is the call) is bound to that argument, so `@apply(fn (%y) {..}, %a)`
//     with `def @apply(%f, %x) { %f(%x) }` types the literal at `%f(%x)`;
//     bound variables chain (a let-bound closure passed on). Later uses are
//     checked against the fixed type; a mismatch notes the call that fixed
//     it (typedAtCall). A bound variable no use fixed is typed on its own at
//     the end of its scope (let or function), which reports the usual "add a
//     type annotation" at the literal's parameter.
//  5. Operator calls go to the registry's type relations (inferOpType); calls
//     of function values check argument count and types against the callee's
//     function type. `?` dims are compatible with any size; if branches join
//     to the common type, with `?` where static sizes could differ.
//  6. A failed node gets a null type; its users fail silently, so one mistake
//     gives one error.
//
// Guarantees: on success every expression except operator nodes (which are
// polymorphic and keep a null type) has a checked type, every GlobalVar has
// its function's type, and every function has its `-> T` and parameter
// annotations. The pass is idempotent: a second run gives the same types.
//
// Complexity: O(nodes + edges), plus the type relations. Scopes nest on the
// same explicit stack, so deep nesting of fn/if/let is bounded only by memory.
// Only comparisons of two types recurse, on the nesting of the types, which
// the parser bounds.
//
// Limitations: no polymorphism — a closure or a global with unannotated
// parameters is typed monomorphically from its first call (a later call at
// other types is an error). No general type variables: a type is fixed by
// the first use that supplies argument types, so a use that needs the
// closure's type before any call (returning it, storing it in a tuple that is
// passed on whole, an operator argument) is "add a type annotation", as is a
// recursive use of an unannotated closure inside itself; an if or tuple is
// deferred only when a direct operand needs a hint (deeper nesting is typed
// eagerly); a global with unannotated parameters is typed from its first call
// only if that call is typed before the def itself is (module order).
//
//===----------------------------------------------------------------------===//

#include "hx/IR/ExprNumbering.h"
#include "hx/IR/Module.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Pass/Pass.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"

using namespace llvm;

namespace hx {
namespace {

constexpr int64_t kDyn = TensorType::kDynamic;

/// Whether a value of type `a` may be used where `b` is expected: equal
/// structure, with a `?` dim on either side matching any size.
bool compatible(const Type *a, const Type *b) {
  if (!a || !b || a->getKind() != b->getKind())
    return false;
  if (const auto *ta = dyn_cast<TensorType>(a)) {
    const auto *tb = cast<TensorType>(b);
    if (ta->dtype != tb->dtype || ta->rank() != tb->rank())
      return false;
    for (size_t i = 0; i < ta->rank(); ++i)
      if (ta->shape[i] != tb->shape[i] && ta->shape[i] != kDyn && tb->shape[i] != kDyn)
        return false;
    return true;
  }
  if (const auto *ta = dyn_cast<TupleType>(a)) {
    const auto *tb = cast<TupleType>(b);
    if (ta->fields.size() != tb->fields.size())
      return false;
    for (size_t i = 0; i < ta->fields.size(); ++i)
      if (!compatible(ta->fields[i].get(), tb->fields[i].get()))
        return false;
    return true;
  }
  const auto *fa = cast<FuncType>(a), *fb = cast<FuncType>(b);
  if (fa->params.size() != fb->params.size())
    return false;
  for (size_t i = 0; i < fa->params.size(); ++i)
    if (!compatible(fa->params[i].get(), fb->params[i].get()))
      return false;
  return compatible(fa->ret.get(), fb->ret.get());
}

/// The type of a value that is either `a` or `b` (if branches): `a` where the
/// two agree, `?` where one of them is `?`. Null when incompatible.
TypeRef join(const Type *a, const Type *b) {
  if (!compatible(a, b))
    return nullptr;
  if (typeEqual(a, b))
    return TypeRef(const_cast<Type *>(a));
  if (const auto *ta = dyn_cast<TensorType>(a)) {
    const auto *tb = cast<TensorType>(b);
    SmallVector<int64_t, 4> shape(ta->shape);
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] != tb->shape[i])
        shape[i] = kDyn;
    return makeTensorType(shape, ta->dtype);
  }
  if (const auto *ta = dyn_cast<TupleType>(a)) {
    const auto *tb = cast<TupleType>(b);
    std::vector<TypeRef> fields;
    for (size_t i = 0; i < ta->fields.size(); ++i)
      fields.push_back(join(ta->fields[i].get(), tb->fields[i].get()));
    return make<TupleType>(std::move(fields));
  }
  return TypeRef(const_cast<Type *>(a)); // compatible function types
}

bool isBoolScalar(const Type *t) {
  const auto *tt = dyn_cast_or_null<TensorType>(t);
  return tt && tt->rank() == 0 && tt->dtype == DType::Bool;
}

bool hasUnannotatedParam(const Expr *e) {
  const auto *fn = dyn_cast<Function>(e);
  if (!fn)
    return false;
  for (const Ref<Var> &p : fn->params)
    if (!p->annotation)
      return true;
  return false;
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

void TypeInferencer::inferDef(const Module::Def &def) {
  if (!isVisited(def.fn.get()))
    stack.push_back({def.fn.get(), 0, nullptr});
  for (;;) {
    while (!stack.empty())
      step();
    if (deferredTuples.empty())
      return;
    // Tuples whose function fields were typed by calls of projections: type
    // them whole now (a field never called is the usual error).
    std::vector<Expr *> tuples;
    tuples.swap(deferredTuples);
    for (size_t i = tuples.size(); i > 0; --i)
      pushOperand(tuples[i - 1]);
  }
}

void TypeInferencer::replacedRoot(const Function *old, const Function *now) {
  auto it = functionStates.find(old);
  if (it == functionStates.end())
    return;
  State st = it->second;
  functionStates.erase(it); // `old` may be freed and its address reused
  functionStates[now] = st;
}

void TypeInferencer::setGlobalTypes() {
  for (const Module::Def &def : m.defs)
    def.global->checkedType = isDone(def.fn.get()) ? def.fn->checkedType : nullptr;
}

bool TypeInferencer::pushOperand(Expr *e, TypeRef hint, Call *site) {
  Expr *target = nullptr;
  switch (e->getKind()) {
  case ExprKind::Var: {
    Expr *r = resolveBound(e);
    if (r == e || isa<Var>(r))
      return false; // a typed or annotated variable, or a failed chain
    return pushOperand(r, std::move(hint), site);
  }
  case ExprKind::Op:
  case ExprKind::Constant:
    return false;
  case ExprKind::GlobalVar: {
    Function *fn = m.lookup(cast<GlobalVar>(e)->name);
    if (fn && !isVisited(fn) && !annotatedSignature(fn))
      target = fn;
    break;
  }
  default:
    if (!isVisited(e))
      target = e;
  }
  if (!target)
    return false;
  if (site && hint)
    typedAtCall.try_emplace(target, site->loc);
  stack.push_back({target, 0, std::move(hint), site});
  return true;
}

const Expr *TypeInferencer::calleeRoot(Expr *e) const {
  for (;;) {
    if (const auto *v = dyn_cast<Var>(e)) {
      auto it = bound.find(v);
      if (it == bound.end())
        return e;
      e = it->second.value;
    } else if (const auto *gv = dyn_cast<GlobalVar>(e)) {
      Function *fn = m.lookup(gv->name);
      return fn ? fn : e;
    } else {
      return e;
    }
  }
}

/// Whether `e`, as a whole, can only be typed from a hint: an untyped
/// function literal with an unannotated parameter, a global that lacks a full
/// signature and is not typed yet, or a pending variable.
bool TypeInferencer::needsHintShallow(Expr *e) {
  e = resolveBound(e);
  if (isVisited(e))
    return false;
  if (isa<Function>(e))
    return hasUnannotatedParam(e);
  if (const auto *gv = dyn_cast<GlobalVar>(e)) {
    Function *fn = m.lookup(gv->name);
    return fn && !isVisited(fn) && !annotatedSignature(fn);
  }
  return false;
}

/// needsHintShallow, or an untyped if or tuple with such an operand (one
/// level: deeper nesting is typed eagerly, as before).
bool TypeInferencer::needsHint(Expr *e) {
  e = resolveBound(e);
  if (needsHintShallow(e))
    return true;
  if (isVisited(e))
    return false;
  if (auto *ifExpr = dyn_cast<If>(e))
    return needsHintShallow(ifExpr->thenBranch.get()) || needsHintShallow(ifExpr->elseBranch.get());
  if (auto *tuple = dyn_cast<Tuple>(e))
    for (const ExprRef &f : tuple->fields)
      if (needsHintShallow(f.get()))
        return true;
  return false;
}

const Type *TypeInferencer::annotatedSignature(Function *fn) {
  auto [it, inserted] = signatures.try_emplace(fn, nullptr);
  if (!inserted)
    return it->second.get();
  if (!fn->retType)
    return nullptr;
  std::vector<TypeRef> params;
  for (const Ref<Var> &p : fn->params) {
    if (!p->annotation)
      return nullptr;
    params.push_back(p->annotation);
  }
  TypeRef sig = make<FuncType>(std::move(params), fn->retType);
  signatures[fn] = sig;
  return sig.get();
}

const Type *TypeInferencer::globalType(GlobalVar *gv, SMLoc useLoc) {
  Function *fn = m.lookup(gv->name);
  if (!fn) {
    diags.error(useLoc, "@" + gv->name + " is not defined");
    return nullptr;
  }
  if (isDone(fn))
    return fn->checkedType.get();
  if (const Type *sig = annotatedSignature(fn))
    return sig;
  if (isVisited(fn))
    diags
        .error(useLoc, "recursive use of @" + gv->name +
                           " needs a type annotation on each of its "
                           "parameters and its result")
        .note(fn->loc, "@" + gv->name + " defined here");
  return nullptr;
}

const Type *TypeInferencer::operandType(Expr *e, SMLoc useLoc) {
  switch (e->getKind()) {
  case ExprKind::Var: {
    auto *v = cast<Var>(e);
    if (isDone(v))
      return v->checkedType.get();
    if (isPending(v)) {
      Expr *r = resolveBound(v);
      const Type *t = nullptr;
      bool known = isa<Var>(r) || isa<GlobalVar>(r) || isDone(r);
      if (known) {
        t = operandType(r, useLoc); // r is no pending variable: no recursion
      } else {
        // Its value is being typed: a recursive use.
        diags
            .error(useLoc,
                   "cannot infer the type of %" + v->name + " here; annotate its definition")
            .note(v->loc, "%" + v->name + " defined here");
      }
      // Fix the type of every variable of the chain.
      for (Expr *x = v; isPending(x);) {
        auto *xv = cast<Var>(x);
        const Bound &b = bound.find(xv)->second;
        x = b.value;
        if (b.isParam && !xv->annotation && t)
          xv->annotation = TypeRef(const_cast<Type *>(t));
        finish(xv, TypeRef(const_cast<Type *>(t)));
      }
      return t;
    }
    if (v->annotation) {
      finish(v, v->annotation);
      return v->checkedType.get();
    }
    diags.error(useLoc, "cannot infer the type of %" + v->name + " here; annotate its definition")
        .note(v->loc, "%" + v->name + " defined here");
    finish(v, nullptr);
    return nullptr;
  }
  case ExprKind::GlobalVar:
    return globalType(cast<GlobalVar>(e), useLoc);
  case ExprKind::Op:
    diags.error(useLoc, "operator '" + cast<Op>(e)->name +
                            "' used as a value; operators can only be called");
    return nullptr;
  case ExprKind::Constant:
    if (!isDone(e)) {
      auto *c = cast<Constant>(e);
      finish(e, makeTensorType(c->isTensor() ? ArrayRef<int64_t>(c->tensor->shape)
                                             : ArrayRef<int64_t>(),
                               c->dtype));
    }
    return e->checkedType.get();
  default:
    return typeOf(e);
  }
}

const Type *TypeInferencer::peekType(Expr *e) {
  switch (e->getKind()) {
  case ExprKind::Var:
    if (isPending(e)) {
      Expr *r = resolveBound(e);
      return peekType(r);
    }
    return isDone(e) ? e->checkedType.get() : cast<Var>(e)->annotation.get();
  case ExprKind::GlobalVar: {
    Function *fn = m.lookup(cast<GlobalVar>(e)->name);
    if (!fn)
      return nullptr;
    return isDone(fn) ? fn->checkedType.get() : annotatedSignature(fn);
  }
  case ExprKind::Op:
    return nullptr;
  case ExprKind::Constant:
    return operandType(e, e->loc);
  default:
    return typeOf(e);
  }
}

/// Where to report a problem with `e`, an operand of the node at `userLoc`:
/// variables and globals are shared by all their uses, so their own location
/// is their definition, not this use.
static SMLoc useSite(const Expr *e, SMLoc userLoc) {
  return isa<Var, GlobalVar, Op>(e) ? userLoc : e->loc;
}

void TypeInferencer::noteDef(InFlightDiagnostic &d, const Expr *e, const Twine &what,
                             const Type *t) {
  std::string ty = typeToString(t);
  if (const auto *v = dyn_cast<Var>(e))
    d.note(v->loc, "%" + v->name + " defined here with type " + ty);
  else if (const auto *gv = dyn_cast<GlobalVar>(e))
    d.note(m.lookup(gv->name) ? m.lookup(gv->name)->loc : gv->loc,
           "@" + gv->name + " defined here with type " + ty);
  else
    d.note(e->loc, what + " defined here with type " + ty);
}

void TypeInferencer::step() {
  size_t idx = stack.size() - 1;
  Expr *e = stack[idx].e;
  if (stack[idx].stage == 0) {
    if (isVisited(e)) { // pushed twice before it was typed
      stack.pop_back();
      return;
    }
    setState(e, State::Visiting);
  }
  switch (e->getKind()) {
  case ExprKind::Call:
    return visitCall(idx);
  case ExprKind::Function:
    return visitFunction(idx);
  case ExprKind::Let:
    return visitLet(idx);
  case ExprKind::If:
    return visitIf(idx);
  case ExprKind::Tuple:
    return visitTuple(idx);
  case ExprKind::TupleGetItem:
    return visitTupleGetItem(idx);
  default:
    llvm_unreachable("atomic expressions are never pushed");
  }
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

enum CallStage : unsigned {
  kCallStart,
  kArgsTyped,   // arguments that need no hint: now push the callee with a hint
  kCalleeTyped, // now push the other arguments with the callee's parameters
  kFuncCallReady,
  kOpCallReady,
};

void TypeInferencer::visitCall(size_t idx) {
  auto *call = cast<Call>(stack[idx].e);
  switch (stack[idx].stage) {
  case kCallStart: {
    bool isOp = call->getOp() != nullptr;
    stack[idx].stage = isOp ? kOpCallReady : kArgsTyped;
    // An argument that can only be typed from a hint (an unannotated
    // literal, a pending closure) waits for the callee's parameter types.
    for (size_t i = call->args.size(); i > 0; --i)
      if (isOp || !needsHint(call->args[i - 1].get()))
        pushOperand(call->args[i - 1].get());
    return;
  }
  case kArgsTyped: {
    stack[idx].stage = kCalleeTyped;
    // `fn (argument types)`; a waiting argument's entry is null and the
    // callee's parameter is bound to the argument itself (Frame::site).
    std::vector<TypeRef> params;
    for (const ExprRef &a : call->args)
      params.push_back(TypeRef(const_cast<Type *>(peekType(a.get()))));
    pushOperand(call->callee.get(), make<FuncType>(std::move(params), TypeRef()), call);
    return;
  }
  case kCalleeTyped: {
    stack[idx].stage = kFuncCallReady;
    const auto *ft = dyn_cast_or_null<FuncType>(peekType(call->callee.get()));
    for (size_t i = call->args.size(); i > 0; --i) {
      TypeRef hint;
      if (ft && i - 1 < ft->params.size())
        hint = ft->params[i - 1];
      if (pushOperand(call->args[i - 1].get(), hint) && hint)
        typedAtCall.try_emplace(stack.back().e, call->loc);
    }
    return;
  }
  case kFuncCallReady:
    stack.pop_back();
    return finishFuncCall(call);
  case kOpCallReady:
    stack.pop_back();
    return finishOpCall(call);
  }
}

void TypeInferencer::finishOpCall(Call *call) {
  SmallVector<const Type *, 4> argTypes;
  bool ok = true;
  for (const ExprRef &a : call->args) {
    argTypes.push_back(operandType(a.get(), call->loc));
    ok &= argTypes.back() != nullptr;
  }
  finish(call, ok ? inferOpType(*call, argTypes, diags) : nullptr);
}

void TypeInferencer::finishFuncCall(Call *call) {
  Expr *callee = call->callee.get();
  const Type *calleeTy = operandType(callee, call->loc);
  SmallVector<const Type *, 4> argTypes;
  bool ok = calleeTy != nullptr;
  for (const ExprRef &a : call->args) {
    argTypes.push_back(operandType(a.get(), call->loc));
    ok &= argTypes.back() != nullptr;
  }
  if (!ok)
    return finish(call, nullptr);

  std::string name = "function";
  if (const auto *gv = dyn_cast<GlobalVar>(callee))
    name = "@" + gv->name;
  else if (const auto *v = dyn_cast<Var>(callee))
    name = "%" + v->name;

  const auto *ft = dyn_cast<FuncType>(calleeTy);
  if (!ft) {
    InFlightDiagnostic d = diags.error(call->loc, "cannot call " + name + " of non-function type " +
                                                      typeToString(calleeTy));
    noteDef(d, callee, "callee", calleeTy);
    return finish(call, nullptr);
  }
  if (ft->params.size() != argTypes.size()) {
    InFlightDiagnostic d =
        diags.error(call->loc, name + " expects " + Twine(ft->params.size()) +
                                   (ft->params.size() == 1 ? " argument" : " arguments") +
                                   ", got " + Twine(argTypes.size()));
    noteDef(d, callee, "callee", calleeTy);
    return finish(call, nullptr);
  }
  for (size_t i = 0; i < argTypes.size(); ++i) {
    if (compatible(argTypes[i], ft->params[i].get()))
      continue;
    InFlightDiagnostic d = diags.error(
        call->loc, name + ": argument " + Twine(i) + " has type " + typeToString(argTypes[i]) +
                       " but the parameter has type " + typeToString(ft->params[i].get()));
    noteDef(d, call->args[i].get(), "argument " + Twine(i), argTypes[i]);
    if (const auto *gv = dyn_cast<GlobalVar>(callee))
      if (Function *fn = m.lookup(gv->name))
        if (i < fn->params.size())
          d.note(fn->params[i]->loc,
                 "parameter %" + fn->params[i]->name + " of " + name + " declared here");
    // A type fixed by an earlier use: hx is monomorphic, as TVM without
    // explicit type parameters.
    auto it = typedAtCall.find(calleeRoot(callee));
    if (it != typedAtCall.end() && it->second != call->loc)
      d.note(it->second, "the parameter types of " + name + " were inferred from this call");
    return finish(call, nullptr);
  }
  finish(call, ft->ret);
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

void TypeInferencer::visitFunction(size_t idx) {
  auto *fn = cast<Function>(stack[idx].e);
  if (stack[idx].stage == 0) {
    const auto *hint = dyn_cast_or_null<FuncType>(stack[idx].hint.get());
    if (hint && hint->params.size() != fn->params.size())
      hint = nullptr;
    for (size_t i = 0; i < fn->params.size(); ++i) {
      Var *p = fn->params[i].get();
      Call *site = stack[idx].site;
      if (p->annotation) {
        finish(p, p->annotation);
      } else if (hint && hint->params[i]) {
        p->annotation = hint->params[i];
        finish(p, hint->params[i]);
      } else if (site && i < site->args.size() && needsHint(site->args[i].get())) {
        // The argument waits for this parameter's type: the parameter takes
        // the type of the argument, which its first use fixes.
        bound[p] = {site->args[i].get(), /*isParam=*/true};
      } else if (hint) {
        // A null hint entry means the argument failed: fail silently.
        finish(p, nullptr);
      } else {
        diags.error(p->loc,
                    "cannot infer the type of parameter %" + p->name + "; add a type annotation");
        finish(p, nullptr);
      }
    }
    for (const Ref<Var> &v : fn->freeVars)
      if (v->annotation)
        finish(v.get(), v->annotation);
    stack[idx].stage = 1;
    TypeRef bodyHint = fn->retType ? fn->retType : hint ? hint->ret : nullptr;
    pushOperand(fn->body.get(), bodyHint);
    return;
  }
  if (stack[idx].stage == 1) {
    // A parameter bound to its argument but never used in a way that fixes
    // its type: type the argument on its own (an error if it needs a hint).
    stack[idx].stage = 2;
    for (size_t i = fn->params.size(); i > 0; --i)
      pushOperand(fn->params[i - 1].get());
    return;
  }

  stack.pop_back();
  SMLoc bodyLoc = useSite(fn->body.get(), fn->loc);
  const Type *bodyTy = operandType(fn->body.get(), bodyLoc);
  std::vector<TypeRef> params;
  bool ok = bodyTy != nullptr;
  for (const Ref<Var> &p : fn->params) {
    if (isPending(p.get()))
      operandType(p.get(), p->loc);
    params.push_back(p->checkedType);
    ok &= typeOf(p.get()) != nullptr;
  }
  if (!ok)
    return finish(fn, nullptr);
  if (fn->retType && !compatible(bodyTy, fn->retType.get())) {
    InFlightDiagnostic d = diags.error(
        bodyLoc, "the function body has type " + typeToString(bodyTy) +
                     " but the function is annotated to return " + typeToString(fn->retType.get()));
    if (fn->retType->loc.isValid())
      d.note(fn->retType->loc, "result type annotated here");
    return finish(fn, nullptr);
  }
  if (!fn->retType)
    fn->retType = TypeRef(const_cast<Type *>(bodyTy));
  finish(fn, make<FuncType>(std::move(params), fn->retType));
}

void TypeInferencer::visitLet(size_t idx) {
  auto *let = cast<Let>(stack[idx].e);
  Var *var = let->var.get();
  switch (stack[idx].stage) {
  case 0:
    stack[idx].stage = 1;
    if (var->annotation && !isDone(var))
      finish(var, var->annotation);
    if (!var->annotation && needsHint(let->value.get())) {
      // A closure (or an if or tuple of closures) with unannotated
      // parameters: typed at the first use of %var that supplies types.
      bound[var] = {let->value.get(), /*isParam=*/false};
      stack[idx].stage = 2;
      pushOperand(let->body.get(), stack[idx].hint, stack[idx].site);
      return;
    }
    pushOperand(let->value.get(), var->annotation);
    return;
  case 1: {
    stack[idx].stage = 2;
    const Type *valueTy = operandType(let->value.get(), let->loc);
    if (var->annotation) {
      if (valueTy && !compatible(valueTy, var->annotation.get())) {
        InFlightDiagnostic d =
            diags.error(let->loc, "%" + var->name + " is annotated with type " +
                                      typeToString(var->annotation.get()) +
                                      " but is bound to a value of type " + typeToString(valueTy));
        noteDef(d, let->value.get(), "the value", valueTy);
        finish(var, nullptr);
      }
    } else {
      finish(var, TypeRef(const_cast<Type *>(valueTy)));
    }
    pushOperand(let->body.get(), stack[idx].hint, stack[idx].site);
    return;
  }
  case 2:
    stack[idx].stage = 3;
    // Never used in a way that fixes its type: type the value on its own.
    if (isPending(var) && pushOperand(var))
      return;
    [[fallthrough]];
  default:
    stack.pop_back();
    if (isPending(var))
      operandType(var, let->loc);
    finish(let, TypeRef(const_cast<Type *>(
                    operandType(let->body.get(), useSite(let->body.get(), let->loc)))));
  }
}

void TypeInferencer::visitIf(size_t idx) {
  auto *ifExpr = cast<If>(stack[idx].e);
  if (stack[idx].stage == 0) {
    stack[idx].stage = 1;
    TypeRef hint = stack[idx].hint;
    pushOperand(ifExpr->elseBranch.get(), hint, stack[idx].site);
    pushOperand(ifExpr->thenBranch.get(), hint, stack[idx].site);
    pushOperand(ifExpr->cond.get());
    return;
  }
  stack.pop_back();
  const Type *condTy = operandType(ifExpr->cond.get(), ifExpr->loc);
  const Type *thenTy = operandType(ifExpr->thenBranch.get(), ifExpr->loc);
  const Type *elseTy = operandType(ifExpr->elseBranch.get(), ifExpr->loc);
  bool ok = condTy && thenTy && elseTy;
  if (condTy && !isBoolScalar(condTy)) {
    InFlightDiagnostic d =
        diags.error(useSite(ifExpr->cond.get(), ifExpr->loc),
                    "the condition of an if must be a bool scalar, got " + typeToString(condTy));
    noteDef(d, ifExpr->cond.get(), "the condition", condTy);
    ok = false;
  }
  if (!ok)
    return finish(ifExpr, nullptr);
  TypeRef result = join(thenTy, elseTy);
  if (!result) {
    InFlightDiagnostic d =
        diags.error(ifExpr->loc, "the branches of an if have different types " +
                                     typeToString(thenTy) + " and " + typeToString(elseTy));
    noteDef(d, ifExpr->thenBranch.get(), "the then branch", thenTy);
    noteDef(d, ifExpr->elseBranch.get(), "the else branch", elseTy);
  }
  finish(ifExpr, std::move(result));
}

//===----------------------------------------------------------------------===//
// Tuples
//===----------------------------------------------------------------------===//

void TypeInferencer::visitTuple(size_t idx) {
  auto *tuple = cast<Tuple>(stack[idx].e);
  if (stack[idx].stage == 0) {
    stack[idx].stage = 1;
    const auto *hint = dyn_cast_or_null<TupleType>(stack[idx].hint.get());
    if (hint && hint->fields.size() != tuple->fields.size())
      hint = nullptr;
    for (size_t i = tuple->fields.size(); i > 0; --i)
      pushOperand(tuple->fields[i - 1].get(), hint ? hint->fields[i - 1] : nullptr);
    return;
  }
  stack.pop_back();
  std::vector<TypeRef> fields;
  bool ok = true;
  for (const ExprRef &f : tuple->fields) {
    fields.push_back(TypeRef(const_cast<Type *>(operandType(f.get(), tuple->loc))));
    ok &= fields.back() != nullptr;
  }
  finish(tuple, ok ? make<TupleType>(std::move(fields)) : nullptr);
}

void TypeInferencer::visitTupleGetItem(size_t idx) {
  auto *proj = cast<TupleGetItem>(stack[idx].e);
  if (stack[idx].stage == 0) {
    stack[idx].stage = 1;
    auto *lit = dyn_cast<Tuple>(resolveBound(proj->tuple.get()));
    if (lit && proj->index < lit->fields.size() && needsHint(lit)) {
      // A tuple holding a closure that waits for a call: this projection
      // types its own field (with the hint), the tuple is typed whole later
      // (by its pending variable's let, or at the end of the def).
      stack[idx].stage = 2;
      if (lit == proj->tuple.get())
        deferredTuples.push_back(lit);
      pushOperand(lit->fields[proj->index].get(), stack[idx].hint, stack[idx].site);
      return;
    }
    pushOperand(proj->tuple.get());
    return;
  }
  unsigned stage = stack[idx].stage;
  stack.pop_back();
  if (stage == 2) {
    auto *lit = cast<Tuple>(resolveBound(proj->tuple.get()));
    Expr *field = lit->fields[proj->index].get();
    return finish(proj, TypeRef(const_cast<Type *>(operandType(field, useSite(field, proj->loc)))));
  }
  const Type *t = operandType(proj->tuple.get(), proj->loc);
  if (!t)
    return finish(proj, nullptr);
  const auto *tt = dyn_cast<TupleType>(t);
  if (!tt || proj->index >= tt->fields.size()) {
    InFlightDiagnostic d =
        tt ? diags.error(proj->loc, "projection ." + Twine(proj->index) +
                                        " is out of range for a tuple of " +
                                        Twine(tt->fields.size()) + " fields")
           : diags.error(proj->loc, "projection ." + Twine(proj->index) +
                                        " of a non-tuple value of type " + typeToString(t));
    noteDef(d, proj->tuple.get(), "the tuple", t);
    return finish(proj, nullptr);
  }
  finish(proj, tt->fields[proj->index]);
}

class InferTypePass : public Pass {
public:
  StringRef getArgument() const override { return "infer-type"; }
  StringRef getDescription() const override {
    return "Infer and check the type of every expression";
  }
  bool run(Module &m, PassContext &ctx) override { return inferTypes(m, ctx.diags); }
};

} // namespace

struct TypeInference::Impl {
  Impl(Module &m, DiagEngine &diags)
      : inferencer(m, diags), diags(diags), errorsBefore(diags.getNumErrors()) {}
  TypeInferencer inferencer;
  DiagEngine &diags;
  unsigned errorsBefore;
};

TypeInference::TypeInference(Module &m, DiagEngine &diags)
    : impl(std::make_unique<Impl>(m, diags)) {}
TypeInference::~TypeInference() = default;

void TypeInference::inferDef(const Module::Def &d) { impl->inferencer.inferDef(d); }

void TypeInference::replacedRoot(const Function *old, const Function *now) {
  impl->inferencer.replacedRoot(old, now);
}

bool TypeInference::hadError() const { return impl->diags.getNumErrors() != impl->errorsBefore; }

bool TypeInference::finish() {
  impl->inferencer.setGlobalTypes();
  return !hadError();
}

bool inferTypes(Module &m, DiagEngine &diags) {
  TypeInference types(m, diags);
  for (const Module::Def &d : m.defs)
    types.inferDef(d);
  return types.finish();
}

std::unique_ptr<Pass> createInferTypePass() { return std::make_unique<InferTypePass>(); }

} // namespace hx
