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

} // namespace hx::infer
