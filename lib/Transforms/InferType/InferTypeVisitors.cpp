//===- InferTypeVisitors.cpp - InferType's visitors of composite nodes ----===//
//
// One visitor per composite node kind (call, function, let, if, tuple,
// projection), each a small state machine over its frame's stage: it pushes
// the operands it needs typed, with their hints, and is resumed when they
// are done (see the algorithm at the top of InferType.cpp).
//
//===----------------------------------------------------------------------===//

#include "TypeInferencer.h"
#include "hx/Ops/OpRegistry.h"

using namespace llvm;

namespace hx::infer {

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
    // An argument best typed from a hint (an unannotated literal, a global
    // without a signature) waits for the callee's parameter types.
    for (size_t i = call->args.size(); i > 0; --i)
      if (isOp || !needsHint(call->args[i - 1].get()))
        pushOperand(call->args[i - 1].get());
    return;
  }
  case kArgsTyped: {
    stack[idx].stage = kCalleeTyped;
    // `fn (argument types)`; a waiting argument's entry is null, and the
    // callee's parameter gets a type variable (Frame::site).
    std::vector<TypeRef> params;
    for (const ExprRef &a : call->args)
      params.push_back(TypeRef(const_cast<Type *>(peekType(a.get()))));
    pushOperand(call->callee.get(), make<FuncType>(std::move(params), TypeRef()), call);
    return;
  }
  case kCalleeTyped: {
    stack[idx].stage = kFuncCallReady;
    const auto *ft = dyn_cast_or_null<FuncType>(prune(peekType(call->callee.get())));
    for (size_t i = call->args.size(); i > 0; --i) {
      TypeRef hint;
      if (ft && i - 1 < ft->params.size())
        hint = ft->params[i - 1];
      bool known = hint && !isa<IncompleteType>(prune(hint.get()));
      if (pushOperand(call->args[i - 1].get(), hint) && known)
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
  bool ok = true, vars = false;
  for (const ExprRef &a : call->args) {
    argTypes.push_back(operandType(a.get(), call->loc));
    ok &= argTypes.back() != nullptr;
    vars |= argTypes.back() && hasVars(argTypes.back());
  }
  if (!ok)
    return fail(call, argTypes);
  // The device annotations are identity-typed for any type
  // (lib/Ops/Annotation.cpp): their type is their operand's, type variables
  // and all, as TVM's IdentityRel assigns it.
  const Op *op = call->getOp();
  if (!vars || op->name == kOnDevice || op->name == kDeviceCopy)
    return finish(call, inferOpType(*call, argTypes, diags));
  // Type variables: the relation runs once they are solved (now, if they
  // already are).
  if (llvm::any_of(argTypes, [&](const Type *t) { return hasVars(resolve(t).get()); }))
    return finish(call, defer(call, argTypes));
  finish(call, relationOnResolved(*call, argTypes));
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
  SmallVector<const Type *, 5> involved(argTypes.begin(), argTypes.end());
  involved.push_back(calleeTy);
  if (!ok)
    return fail(call, involved);

  std::string name = "function";
  if (const auto *gv = dyn_cast<GlobalVar>(callee))
    name = "@" + gv->name;
  else if (const auto *v = dyn_cast<Var>(callee))
    name = "%" + v->name;

  // The call that solved the callee's type, if a variable stood for it.
  SMLoc calleeSite;
  const Type *pruned = prune(calleeTy, &calleeSite);
  if (isa<IncompleteType>(pruned)) {
    // A callee of unknown type (an unannotated parameter): it is a function
    // from the argument types to a new variable.
    std::vector<TypeRef> params;
    for (const Type *t : argTypes)
      params.push_back(TypeRef(const_cast<Type *>(t)));
    TypeRef ret = freshVar();
    TypeRef fnTy = make<FuncType>(std::move(params), ret);
    if (!unify(pruned, fnTy.get(), call->loc)) {
      // Only the occurs check fails here: `%x(%x)`.
      InFlightDiagnostic d = diags.error(call->loc, "cannot call " + name +
                                                        " here: its type would have to contain "
                                                        "itself");
      d.note(callee->loc, name + " defined here");
      return fail(call, involved);
    }
    return finish(call, ret);
  }

  const auto *ft = dyn_cast<FuncType>(pruned);
  if (!ft) {
    InFlightDiagnostic d = diags.error(call->loc, "cannot call " + name + " of non-function type " +
                                                      typeToString(resolve(pruned).get()));
    noteDef(d, callee, "callee", resolve(pruned).get());
    return fail(call, involved);
  }
  if (ft->params.size() != argTypes.size()) {
    TypeRef shown = resolve(ft);
    InFlightDiagnostic d =
        diags.error(call->loc, name + " expects " + Twine(ft->params.size()) +
                                   (ft->params.size() == 1 ? " argument" : " arguments") +
                                   ", got " + Twine(argTypes.size()));
    noteDef(d, callee, "callee", shown.get());
    return fail(call, involved);
  }
  for (size_t i = 0; i < argTypes.size(); ++i) {
    if (unify(argTypes[i], ft->params[i].get(), call->loc))
      continue;
    Conflict why = conflict;
    TypeRef argTy = resolve(argTypes[i]), paramTy = resolve(ft->params[i].get());
    InFlightDiagnostic d =
        why.occurs ? diags.error(call->loc, name + ": the type of argument " + Twine(i) +
                                                " would have to contain itself (" +
                                                typeToString(argTy.get()) + " passed for " +
                                                typeToString(paramTy.get()) + ")")
                   : diags.error(call->loc, name + ": argument " + Twine(i) + " has type " +
                                                typeToString(argTy.get()) +
                                                " but the parameter has type " +
                                                typeToString(paramTy.get()));
    noteDef(d, call->args[i].get(), "argument " + Twine(i), argTy.get());
    if (const auto *gv = dyn_cast<GlobalVar>(callee))
      if (Function *fn = m.lookup(gv->name))
        if (i < fn->params.size())
          d.note(fn->params[i]->loc,
                 "parameter %" + fn->params[i]->name + " of " + name + " declared here");
    // A type fixed by an earlier use: hx is monomorphic, as TVM without
    // explicit type parameters. Either the callee was typed from the hint
    // of an earlier call, or unification at an earlier call solved the type
    // variable behind the mismatch (in the callee's type, or the argument's).
    auto it = typedAtCall.find(calleeRoot(callee));
    if (it != typedAtCall.end() && it->second != call->loc) {
      d.note(it->second, "the parameter types of " + name + " were inferred from this call");
    } else {
      SMLoc site = why.site.isValid() ? why.site : calleeSite;
      bool param = why.site.isValid() ? why.expectedSide : true;
      if (site.isValid() && site != call->loc)
        d.note(site, param ? "the parameter types of " + name + " were inferred from this call"
                           : "the type of argument " + Twine(i) + " was inferred from this call");
    }
    return fail(call, involved);
  }
  finish(call, ft->ret);
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

void TypeInferencer::visitFunction(size_t idx) {
  auto *fn = cast<Function>(stack[idx].e);
  if (stack[idx].stage == 0) {
    const auto *hint = dyn_cast_or_null<FuncType>(prune(stack[idx].hint.get()));
    if (hint && hint->params.size() != fn->params.size())
      hint = nullptr;
    Call *site = stack[idx].site;
    for (size_t i = 0; i < fn->params.size(); ++i) {
      Var *p = fn->params[i].get();
      if (p->annotation) {
        finish(p, p->annotation);
      } else if (hint && hint->params[i]) {
        p->annotation = hint->params[i];
        finish(p, hint->params[i]);
      } else if (hint && !(site && i < site->args.size() && needsHint(site->args[i].get()))) {
        // A null hint entry whose argument does not wait for this
        // parameter's type: the argument failed. Fail silently.
        finish(p, nullptr);
      } else {
        // Nothing known yet: a type variable, solved by the uses of the
        // parameter and the calls of the function (finishDef reports it if
        // none does).
        p->annotation = freshVar();
        finish(p, p->annotation);
        freshParams.push_back(p);
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
  Loc bodyLoc = useSite(fn->body.get(), fn->loc);
  const Type *bodyTy = operandType(fn->body.get(), bodyLoc);
  std::vector<TypeRef> params;
  SmallVector<const Type *, 4> involved{bodyTy};
  bool ok = bodyTy != nullptr;
  for (const Ref<Var> &p : fn->params) {
    params.push_back(p->checkedType);
    involved.push_back(p->checkedType.get());
    ok &= typeOf(p.get()) != nullptr;
  }
  if (!ok)
    return fail(fn, involved);
  if (fn->retType && !unify(bodyTy, fn->retType.get())) {
    InFlightDiagnostic d =
        diags.error(bodyLoc, "the function body has type " + typeToString(resolve(bodyTy).get()) +
                                 " but the function is annotated to return " +
                                 typeToString(resolve(fn->retType.get()).get()));
    if (fn->retType->loc.isValid())
      d.note(fn->retType->loc, "result type annotated here");
    return fail(fn, involved);
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
    // A closure with unannotated parameters, not annotated here, gets type
    // variables, solved at its calls.
    pushOperand(let->value.get(), var->annotation);
    return;
  case 1: {
    stack[idx].stage = 2;
    const Type *valueTy = operandType(let->value.get(), let->loc);
    if (var->annotation) {
      if (valueTy && !unify(valueTy, var->annotation.get())) {
        TypeRef shown = resolve(valueTy);
        InFlightDiagnostic d = diags.error(let->loc, "%" + var->name + " is annotated with type " +
                                                         typeToString(var->annotation.get()) +
                                                         " but is bound to a value of type " +
                                                         typeToString(shown.get()));
        noteDef(d, let->value.get(), "the value", shown.get());
        fail(var, {valueTy});
      }
    } else {
      finish(var, TypeRef(const_cast<Type *>(valueTy)));
    }
    pushOperand(let->body.get(), stack[idx].hint, stack[idx].site);
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
    pushOperand(ifExpr->elseBranch.get(), hint, stack[idx].site);
    pushOperand(ifExpr->thenBranch.get(), hint, stack[idx].site);
    pushOperand(ifExpr->cond.get());
    return;
  }
  stack.pop_back();
  const Type *condTy = operandType(ifExpr->cond.get(), ifExpr->loc);
  const Type *thenTy = operandType(ifExpr->thenBranch.get(), ifExpr->loc);
  const Type *elseTy = operandType(ifExpr->elseBranch.get(), ifExpr->loc);
  SmallVector<const Type *, 3> involved{condTy, thenTy, elseTy};
  bool ok = condTy && thenTy && elseTy;
  if (condTy) {
    const Type *cond = prune(condTy);
    if (isa<IncompleteType>(cond)) {
      TypeRef boolTy = makeTensorType({}, DType::Bool);
      (void)unify(cond, boolTy.get()); // an unsolved variable: never fails
    } else if (!isBoolScalar(cond)) {
      InFlightDiagnostic d = diags.error(useSite(ifExpr->cond.get(), ifExpr->loc),
                                         "the condition of an if must be a bool scalar, got " +
                                             typeToString(resolve(cond).get()));
      noteDef(d, ifExpr->cond.get(), "the condition", resolve(cond).get());
      ok = false;
    }
  }
  if (!ok)
    return fail(ifExpr, involved);
  // Without variables the branches join (`?` where static sizes differ);
  // with some, they unify.
  TypeRef thenR = resolve(thenTy), elseR = resolve(elseTy);
  TypeRef result;
  if (!hasVars(thenR.get()) && !hasVars(elseR.get()))
    result = join(thenR.get(), elseR.get());
  else if (unify(thenTy, elseTy))
    result = TypeRef(const_cast<Type *>(thenTy));
  if (!result) {
    InFlightDiagnostic d = diags.error(ifExpr->loc, "the branches of an if have different types " +
                                                        typeToString(thenR.get()) + " and " +
                                                        typeToString(elseR.get()));
    noteDef(d, ifExpr->thenBranch.get(), "the then branch", thenR.get());
    noteDef(d, ifExpr->elseBranch.get(), "the else branch", elseR.get());
    return fail(ifExpr, involved);
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
    const auto *hint = dyn_cast_or_null<TupleType>(prune(stack[idx].hint.get()));
    if (hint && hint->fields.size() != tuple->fields.size())
      hint = nullptr;
    for (size_t i = tuple->fields.size(); i > 0; --i)
      pushOperand(tuple->fields[i - 1].get(), hint ? hint->fields[i - 1] : nullptr);
    return;
  }
  stack.pop_back();
  std::vector<TypeRef> fields;
  SmallVector<const Type *, 4> involved;
  bool ok = true;
  for (const ExprRef &f : tuple->fields) {
    fields.push_back(TypeRef(const_cast<Type *>(operandType(f.get(), tuple->loc))));
    involved.push_back(fields.back().get());
    ok &= fields.back() != nullptr;
  }
  if (!ok)
    return fail(tuple, involved);
  finish(tuple, make<TupleType>(std::move(fields)));
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
  if (isa<IncompleteType>(prune(t))) // a tuple not known yet
    return finish(proj, defer(proj, {t}));
  TypeRef field = projectType(proj, prune(t));
  if (!field)
    return fail(proj, {t});
  finish(proj, std::move(field));
}

TypeRef TypeInferencer::projectType(TupleGetItem *proj, const Type *t) {
  const auto *tt = dyn_cast<TupleType>(t);
  if (!tt || proj->index >= tt->fields.size()) {
    TypeRef shown = resolve(t);
    InFlightDiagnostic d = tt ? diags.error(proj->loc, "projection ." + Twine(proj->index) +
                                                           " is out of range for a tuple of " +
                                                           Twine(tt->fields.size()) + " fields")
                              : diags.error(proj->loc, "projection ." + Twine(proj->index) +
                                                           " of a non-tuple value of type " +
                                                           typeToString(shown.get()));
    noteDef(d, proj->tuple.get(), "the tuple", shown.get());
    return nullptr;
  }
  return tt->fields[proj->index];
}

} // namespace hx::infer
