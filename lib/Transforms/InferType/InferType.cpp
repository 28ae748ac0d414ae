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
//     annotations, from the expected function type (the "hint") or, with
//     neither, a fresh type variable (4a); a let variable from its annotation
//     (so a recursive closure can call itself) or from its value.
//  4. Hints flow into function literals: a call types the arguments that
//     need no hint first, passes `fn (argument types)` to the callee (so
//     `(fn (%x) { ... })(%a)` works), then pushes the other arguments (an
//     unannotated `fn`, a global without a full signature, an if or tuple of
//     those) with the callee's parameter types as hints. Let annotations,
//     `-> T` annotations and tuple types pass hints inward. A hint gives
//     concrete types where it can, so most modules need no type variable.
//  4a. Where no hint reaches a parameter, unification (TypeSolver.cpp, after
//     TVM's type solver): the parameter's type is a type variable (an
//     IncompleteType), solved by unification with the types at its uses and
//     at the calls of its function. A call of a callee whose type is a
//     variable makes it `fn (argument types) -> new variable`; a call of a
//     function type unifies each argument with its parameter; a let
//     annotation, a `-> T`, an if's condition (bool) and its two branches
//     unify too. An operator call whose operand types still hold unsolved
//     variables (a projection of an operand not known to be a tuple) is
//     deferred: its type is a fresh variable until they are solved, then its
//     relation runs (a worklist until no progress). The device annotations
//     are identity-typed and pass variables through.
//     So `let %f = fn (%g) { fn (%a) { %g(%a) } }; %f(%h)(%y)` types %g, %a
//     and %h's parameter from %y, through %g. A solution never changes: a
//     later call at other types is an error there, with a note at the call
//     that solved the variable (or, for a literal typed from a hint, the call
//     that gave the hint: typedAtCall). At the end of each def every
//     variable is solved or reported: an unannotated parameter whose type is
//     still unknown is "cannot infer the type of parameter %x; add a type
//     annotation", at the parameter, and every type is replaced by its
//     solution, so no variable outlives the def.
//  5. Operator calls go to the registry's type relations (inferOpType); calls
//     of function values check argument count and types against the callee's
//     function type. `?` dims are compatible with any size; if branches join
//     to the common type, with `?` where their sizes differ (branches with
//     unsolved variables unify instead).
//  6. A failed node gets a null type, and the type variables of the types
//     involved are poisoned (they resolve to null and report nothing); its
//     users fail silently, so one mistake gives one error.
//
// Guarantees: on success every expression except operator nodes (which are
// polymorphic and keep a null type) has a checked type, every GlobalVar has
// its function's type, and every function has its `-> T` and parameter
// annotations; no type holds a type variable once inferDef returns. The pass
// is idempotent: a second run gives the same types.
//
// Complexity: O(nodes + edges), plus the type relations; a deferred node is
// retried at most once per type variable of its operands (TypeSolver.cpp).
// Scopes nest on the same explicit stack, so deep nesting of fn/if/let is
// bounded only by memory. Only operations on two types (comparison,
// unification, resolution) recurse, on the nesting of the types, not on
// the expressions; a chain of tuples each holding the last (`%2 = (%1,)`)
// nests its type as deep as the chain, as it does for the type printer.
//
// Limitations: no polymorphism, as TVM without explicit type parameters — a
// closure or a global with unannotated parameters has one type (a later call
// at other types is an error). A let variable used inside its own value (a
// recursive unannotated closure) needs an annotation. A global with
// unannotated parameters is typed from its first call only if that call is
// typed before the def itself is (module order); otherwise its parameters are
// inferred from its body alone. Types are final at the end of each def:
// nothing in a later def can solve a variable of an earlier one.
//
//===----------------------------------------------------------------------===//

#include "TypeInferencer.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Pass/Pass.h"
#include "hx/Transforms/Passes.h"

using namespace llvm;

namespace hx {
namespace infer {

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

/// The branches' join (hx/IR/Type.h's joinTypes), where function types need
/// only be compatible (unannotated parameters).
TypeRef join(const Type *a, const Type *b) {
  if (isa_and_nonnull<FuncType>(a))
    return compatible(a, b) ? TypeRef(const_cast<Type *>(a)) : nullptr;
  return joinTypes(a, b);
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

void TypeInferencer::inferDef(const Module::Def &def) {
  if (isVisited(def.fn.get()))
    return;
  stack.push_back({def.fn.get(), 0, nullptr});
  while (!stack.empty())
    step();
  finishDef();
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
  case ExprKind::Var:
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
  if (const auto *gv = dyn_cast<GlobalVar>(e)) {
    Function *fn = m.lookup(gv->name);
    return fn ? fn : e;
  }
  return e;
}

/// Whether `e`, as a whole, is best typed from a hint: an untyped function
/// literal with an unannotated parameter, or a global that lacks a full
/// signature and is not typed yet. (Without one its parameters get type
/// variables.)
bool TypeInferencer::needsHintShallow(Expr *e) {
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
    // A type variable given to a parameter of `fn` while it is inferred is
    // no annotation (and must not outlive the def).
    if (!p->annotation || hasVars(p->annotation.get()))
      return nullptr;
    params.push_back(p->annotation);
  }
  TypeRef sig = make<FuncType>(std::move(params), fn->retType);
  signatures[fn] = sig;
  return sig.get();
}

const Type *TypeInferencer::globalType(GlobalVar *gv, const Loc &useLoc) {
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

const Type *TypeInferencer::operandType(Expr *e, const Loc &useLoc) {
  switch (e->getKind()) {
  case ExprKind::Var: {
    auto *v = cast<Var>(e);
    if (isDone(v))
      return v->checkedType.get();
    if (v->annotation) {
      finish(v, v->annotation);
      return v->checkedType.get();
    }
    // A let variable used inside its own value (a recursive closure).
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
    visitCall(idx);
    break;
  case ExprKind::Function:
    visitFunction(idx);
    break;
  case ExprKind::Let:
    visitLet(idx);
    break;
  case ExprKind::If:
    visitIf(idx);
    break;
  case ExprKind::Tuple:
    visitTuple(idx);
    break;
  case ExprKind::TupleGetItem:
    visitTupleGetItem(idx);
    break;
  default:
    llvm_unreachable("atomic expressions are never pushed");
  }
  // Deferred nodes that this step's unifications unblocked.
  if (!ready.empty())
    solve();
}

} // namespace infer

namespace {

class InferTypePass : public Pass {
public:
  StringRef getArgument() const override { return "infer-type"; }
  StringRef getDescription() const override {
    return "Infer and check the type of every expression";
  }
  bool run(Module &m, PassContext &ctx) override { return inferTypes(m, ctx.diags); }
};

} // namespace

using infer::TypeInferencer;

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