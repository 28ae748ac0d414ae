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
//  4. Hints flow into function literals: a call whose argument is an
//     unannotated `fn` types the callee first and passes its parameter types
//     on; any other call types its arguments first and passes
//     `fn (argument types)` to the callee, so `(fn (%x) { ... })(%a)` works.
//     Let annotations, `-> T` annotations and tuple types pass hints inward.
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
// Limitations (TODO): no polymorphism or unification with type variables — an
// unannotated parameter of a let-bound closure (`let %f = fn (%x) {...};
// %f(%a)`) is not inferred from later calls; annotate it. A global with
// unannotated parameters is typed monomorphically from its first call.
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
    TypeRef hint; // the type the context expects, if known
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

  void pushOperand(Expr *e, TypeRef hint = nullptr);
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
  while (!stack.empty())
    step();
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

void TypeInferencer::pushOperand(Expr *e, TypeRef hint) {
  switch (e->getKind()) {
  case ExprKind::Var:
  case ExprKind::Op:
  case ExprKind::Constant:
    return;
  case ExprKind::GlobalVar: {
    Function *fn = m.lookup(cast<GlobalVar>(e)->name);
    if (fn && !isVisited(fn) && !annotatedSignature(fn))
      stack.push_back({fn, 0, std::move(hint)});
    return;
  }
  default:
    if (!isVisited(e))
      stack.push_back({e, 0, std::move(hint)});
  }
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
  kCalleeTyped, // callee first: now push the arguments with hints
  kArgsTyped,   // arguments first: now push the callee with a hint
  kFuncCallReady,
  kOpCallReady,
};

void TypeInferencer::visitCall(size_t idx) {
  auto *call = cast<Call>(stack[idx].e);
  switch (stack[idx].stage) {
  case kCallStart: {
    bool calleeFirst = false;
    if (!call->getOp())
      for (const ExprRef &a : call->args)
        calleeFirst |= !isVisited(a.get()) && hasUnannotatedParam(a.get());
    stack[idx].stage = call->getOp() ? kOpCallReady : calleeFirst ? kCalleeTyped : kArgsTyped;
    if (calleeFirst) {
      pushOperand(call->callee.get());
      return;
    }
    for (size_t i = call->args.size(); i > 0; --i)
      pushOperand(call->args[i - 1].get());
    return;
  }
  case kCalleeTyped: {
    stack[idx].stage = kFuncCallReady;
    const auto *ft = dyn_cast_or_null<FuncType>(peekType(call->callee.get()));
    for (size_t i = call->args.size(); i > 0; --i) {
      TypeRef hint;
      if (ft && i - 1 < ft->params.size())
        hint = ft->params[i - 1];
      pushOperand(call->args[i - 1].get(), hint);
    }
    return;
  }
  case kArgsTyped: {
    stack[idx].stage = kFuncCallReady;
    std::vector<TypeRef> params;
    for (const ExprRef &a : call->args)
      params.push_back(TypeRef(const_cast<Type *>(peekType(a.get()))));
    pushOperand(call->callee.get(), make<FuncType>(std::move(params), TypeRef()));
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
      if (p->annotation) {
        finish(p, p->annotation);
      } else if (hint) {
        // A null hint entry means the argument failed: fail silently.
        p->annotation = hint->params[i];
        finish(p, hint->params[i]);
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

  stack.pop_back();
  SMLoc bodyLoc = useSite(fn->body.get(), fn->loc);
  const Type *bodyTy = operandType(fn->body.get(), bodyLoc);
  std::vector<TypeRef> params;
  bool ok = bodyTy != nullptr;
  for (const Ref<Var> &p : fn->params) {
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
    pushOperand(let->body.get(), stack[idx].hint);
    return;
  }
  default:
    stack.pop_back();
    finish(let, TypeRef(const_cast<Type *>(
                    operandType(let->body.get(), useSite(let->body.get(), let->loc)))));
  }
}

void TypeInferencer::visitIf(size_t idx) {
  auto *ifExpr = cast<If>(stack[idx].e);
  if (stack[idx].stage == 0) {
    stack[idx].stage = 1;
    TypeRef hint = stack[idx].hint;
    pushOperand(ifExpr->elseBranch.get(), hint);
    pushOperand(ifExpr->thenBranch.get(), hint);
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
    pushOperand(proj->tuple.get());
    return;
  }
  stack.pop_back();
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
