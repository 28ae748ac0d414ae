//===- Interpreter.cpp - Evaluate a typed module over the IR --------------===//
//
// A small abstract machine over the expression DAG. It never recurses on the
// IR: a chain of a million nested calls or lets runs in constant C++ stack.
//
// Values are tensors, tuples of values, or closures (a Function plus the
// activation it was created in; a global function is a closure with no
// activation). Values are immutable and shared (shared_ptr<const Value>), so
// a tuple, a memo entry and an operand can hold the same tensor.
//
// State:
//  - a task stack: each task is (expression, activation, stage); a composite
//    expression is a task whose stage says which operands it has asked for,
//    exactly like InferType's frames;
//  - a value stack: operands are pushed by the tasks that evaluate them and
//    consumed by their user's next stage;
//  - activations: one per function call, holding the values of its
//    variables and of every expression evaluated in it (the memo). A node
//    shared by several users (a graph binding `%0 = ...` used twice) is
//    found in the memo and evaluated once per activation. Lookups continue
//    in the activation the closure was created in, so a closure sees its
//    captured variables and reuses what its creator already computed.
//
// Evaluation, per expression kind (stage by stage):
//   Var        the innermost binding in the activation chain; an unbound
//              variable (a free_var) is an error
//   GlobalVar  a closure over the def
//   Constant   a rank-0 tensor, or the tensor constant's value
//   Call       0: push the callee (unless an operator) and the arguments
//              1: an operator: interpretOp on the tensors (a tuple argument
//                 is flattened into its fields; on_device and device_copy
//                 pass any value through); a closure: a new activation with
//                 the parameters bound, its body pushed
//              2: (closure calls) the body's value is the call's value
//   Let        0: push the value; 1: bind the variable, push the body;
//              2: done
//   If         0: push the condition; 1: push the branch it selects (a
//              one-element bool or integer tensor, nonzero is true);
//              2: done
//   Tuple, TupleGetItem, Function (a closure capturing the activation)
// Every finished composite expression is stored in its activation's memo.
//
// Limits: function calls nest at most kMaxCallDepth deep (an error, not a
// crash, for runaway recursion). Activations captured by closures live until
// the end of the run (their memo included); the evaluator breaks the
// closure/activation reference cycles when it is destroyed. Every value
// computed in an activation stays in its memo until the call returns: peak
// memory is the sum of the intermediate results of the live calls.
//
//===----------------------------------------------------------------------===//

#include "hx/Interpreter/Interpreter.h"
#include "OpImpl.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include <memory>

using namespace llvm;

namespace hx {

namespace {

/// Deepest nesting of function calls (recursion included).
constexpr unsigned kMaxCallDepth = 10000;

struct Activation;

struct Value {
  enum class Kind { Tensor, Tuple, Closure };
  Kind kind = Kind::Tensor;
  HostTensor tensor;
  std::vector<std::shared_ptr<const Value>> fields;
  const Function *fn = nullptr;
  /// The activation a closure was created in; null for a global function.
  std::shared_ptr<Activation> env;
  /// The def a closure belongs to (for messages).
  StringRef defName;
};
using ValuePtr = std::shared_ptr<const Value>;

/// One call of a function: its variables and memoized expressions.
struct Activation : std::enable_shared_from_this<Activation> {
  Activation(std::shared_ptr<Activation> parent, StringRef defName)
      : parent(std::move(parent)), defName(defName) {}
  /// Where a closure was created: variables not bound here are looked up
  /// there.
  std::shared_ptr<Activation> parent;
  StringRef defName;
  DenseMap<const Expr *, ValuePtr> values;
  bool captured = false;

  const ValuePtr *lookup(const Expr *e) const {
    for (const Activation *a = this; a; a = a->parent.get()) {
      auto it = a->values.find(e);
      if (it != a->values.end())
        return &it->second;
    }
    return nullptr;
  }
};

struct Task {
  const Expr *expr;
  Activation *act;
  unsigned stage = 0;
  /// The value stack's height before the operands were pushed.
  size_t base = 0;
  /// A closure call's activation, owned while its body runs.
  std::shared_ptr<Activation> callee;
};

ValuePtr tensorValue(HostTensor t) {
  auto v = std::make_shared<Value>();
  v->tensor = std::move(t);
  return v;
}

class Evaluator {
public:
  explicit Evaluator(const Module &m) : m(m) {}
  Evaluator(const Evaluator &) = delete;
  Evaluator &operator=(const Evaluator &) = delete;
  ~Evaluator() {
    // Closures stored in the activations they capture form cycles.
    for (auto &a : captured)
      a->values.clear();
  }

  Expected<ValuePtr> run(const Function &fn, StringRef name, std::vector<ValuePtr> args);

private:
  Error step();
  Error stepCall(Task &t, const Call &call);
  Error finishOpCall(Task &t, const Call &call);
  Error enterClosure(Task &t, const Call &call);
  Error error(const Activation *act, const Twine &msg) const {
    return createStringError(inconvertibleErrorCode(), ("@" + act->defName + ": " + msg).str());
  }
  Expected<ValuePtr> globalClosure(const Activation *act, const GlobalVar &g);
  /// Stores the value on top of the value stack as `e`'s and ends the task.
  void finish(const Expr *e, Activation *act) {
    act->values[e] = values.back();
    tasks.pop_back();
  }
  void push(const Expr *e, Activation *act) { tasks.push_back(Task{e, act, 0, 0, nullptr}); }

  const Module &m;
  std::vector<Task> tasks;
  std::vector<ValuePtr> values;
  std::vector<std::shared_ptr<Activation>> captured;
  StringMap<ValuePtr> globals;
  unsigned callDepth = 0;
};

} // namespace

Expected<ValuePtr> Evaluator::globalClosure(const Activation *act, const GlobalVar &g) {
  auto it = globals.find(g.name);
  if (it != globals.end())
    return it->second;
  const Module::Def *def = m.lookupDef(g.name);
  if (!def || !def->fn)
    return error(act, "unknown global function @" + g.name);
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::Closure;
  v->fn = def->fn.get();
  v->defName = def->global->name;
  globals[g.name] = v;
  return ValuePtr(v);
}

Expected<ValuePtr> Evaluator::run(const Function &fn, StringRef name, std::vector<ValuePtr> args) {
  auto root = std::make_shared<Activation>(nullptr, name);
  for (size_t i = 0; i < fn.params.size(); ++i)
    root->values[fn.params[i].get()] = std::move(args[i]);
  push(fn.body.get(), root.get());
  while (!tasks.empty())
    if (Error e = step())
      return e;
  if (values.size() != 1)
    return error(root.get(), "internal error: the value stack is unbalanced");
  return values.back();
}

Error Evaluator::step() {
  Task &t = tasks.back();
  const Expr *e = t.expr;
  Activation *act = t.act;
  if (t.stage == 0 && !e->isAtomic()) {
    if (const ValuePtr *v = act->lookup(e)) {
      values.push_back(*v);
      tasks.pop_back();
      return Error::success();
    }
  }

  switch (e->getKind()) {
  case ExprKind::Var: {
    const ValuePtr *v = act->lookup(e);
    if (!v) {
      const auto *var = cast<Var>(e);
      for (const Module::Def &d : m.defs)
        for (const Ref<Var> &fv : d.fn->freeVars)
          if (fv.get() == var)
            return error(act, "free variable %" + var->name + " has no value");
      return error(act, "variable %" + var->name + " is not bound");
    }
    values.push_back(*v);
    tasks.pop_back();
    return Error::success();
  }
  case ExprKind::GlobalVar: {
    Expected<ValuePtr> v = globalClosure(act, *cast<GlobalVar>(e));
    if (!v)
      return v.takeError();
    values.push_back(std::move(*v));
    tasks.pop_back();
    return Error::success();
  }
  case ExprKind::Op:
    return error(act, "operator '" + cast<Op>(e)->name +
                          "' is used as a value (only calls of operators are supported)");
  case ExprKind::Constant: {
    const auto *c = cast<Constant>(e);
    if (c->isTensor()) {
      HostTensor t(c->dtype, c->tensor->shape);
      std::copy(c->tensor->bytes.begin(), c->tensor->bytes.end(), t.as<uint8_t>());
      values.push_back(tensorValue(std::move(t)));
      tasks.pop_back();
      return Error::success();
    }
    HostTensor scalar(c->dtype, {});
    if (isFloat(c->dtype))
      scalar.setDouble(0, c->floatValue);
    else
      interp::setInt64(scalar, 0, c->intValue);
    values.push_back(tensorValue(std::move(scalar)));
    tasks.pop_back();
    return Error::success();
  }
  case ExprKind::Call:
    return stepCall(t, *cast<Call>(e));
  case ExprKind::Let: {
    const auto *let = cast<Let>(e);
    if (t.stage == 0) {
      t.stage = 1;
      push(let->value.get(), act);
    } else if (t.stage == 1) {
      act->values[let->var.get()] = values.back();
      values.pop_back();
      t.stage = 2;
      push(let->body.get(), act);
    } else {
      finish(e, act);
    }
    return Error::success();
  }
  case ExprKind::If: {
    const auto *ife = cast<If>(e);
    if (t.stage == 0) {
      t.stage = 1;
      push(ife->cond.get(), act);
      return Error::success();
    }
    if (t.stage == 2) {
      finish(e, act);
      return Error::success();
    }
    const Value &c = *values.back();
    if (c.kind != Value::Kind::Tensor || c.tensor.numElements() != 1 ||
        !interp::isIntegral(c.tensor.dtype()))
      return error(act, "the condition of an if must be a bool or integer scalar, got " +
                            (c.kind == Value::Kind::Tensor ? c.tensor.typeString()
                                                           : std::string("a non-tensor value")));
    bool truth = interp::getInt64(c.tensor, 0) != 0;
    values.pop_back();
    t.stage = 2;
    push(truth ? ife->thenBranch.get() : ife->elseBranch.get(), act);
    return Error::success();
  }
  case ExprKind::Tuple: {
    const auto *tuple = cast<Tuple>(e);
    if (t.stage == 0) {
      t.stage = 1;
      t.base = values.size();
      for (auto it = tuple->fields.rbegin(); it != tuple->fields.rend(); ++it)
        push(it->get(), act);
      return Error::success();
    }
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::Tuple;
    v->fields.assign(values.begin() + t.base, values.end());
    values.resize(t.base);
    values.push_back(std::move(v));
    finish(e, act);
    return Error::success();
  }
  case ExprKind::TupleGetItem: {
    const auto *get = cast<TupleGetItem>(e);
    if (t.stage == 0) {
      t.stage = 1;
      push(get->tuple.get(), act);
      return Error::success();
    }
    const Value &tv = *values.back();
    if (tv.kind != Value::Kind::Tuple)
      return error(act, "projection ." + Twine(get->index) + " of a value that is not a tuple");
    if (get->index >= tv.fields.size())
      return error(act, "projection ." + Twine(get->index) + " of a tuple of " +
                            Twine(tv.fields.size()) + " fields");
    values.back() = ValuePtr(tv.fields[get->index]);
    finish(e, act);
    return Error::success();
  }
  case ExprKind::Function: {
    std::shared_ptr<Activation> env = act->shared_from_this();
    if (!act->captured) {
      act->captured = true;
      captured.push_back(env);
    }
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::Closure;
    v->fn = cast<Function>(e);
    v->env = std::move(env);
    v->defName = act->defName;
    values.push_back(std::move(v));
    finish(e, act);
    return Error::success();
  }
  }
  return error(act, "unknown expression kind");
}

Error Evaluator::stepCall(Task &t, const Call &call) {
  Activation *act = t.act;
  bool isOp = call.getOp() != nullptr;
  switch (t.stage) {
  case 0: {
    t.stage = 1;
    t.base = values.size();
    for (auto it = call.args.rbegin(); it != call.args.rend(); ++it)
      push(it->get(), act);
    if (!isOp)
      push(call.callee.get(), act); // evaluated first
    return Error::success();
  }
  case 1:
    return isOp ? finishOpCall(t, call) : enterClosure(t, call);
  default:
    --callDepth;
    t.callee.reset();
    finish(&call, act);
    return Error::success();
  }
}

Error Evaluator::finishOpCall(Task &t, const Call &call) {
  Activation *act = t.act;
  const Op &op = *call.getOp();
  ArrayRef<ValuePtr> operands = ArrayRef(values).drop_front(t.base);
  if (op.name == kOnDevice || op.name == kDeviceCopy) {
    if (operands.size() != 1)
      return error(act, op.name + ": expected 1 argument, got " + Twine(operands.size()));
    ValuePtr v = operands[0];
    values.resize(t.base);
    values.push_back(std::move(v));
    finish(&call, act);
    return Error::success();
  }

  // Tensors, a tuple argument flattened into its fields.
  SmallVector<const HostTensor *, 4> tensors;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Value &v = *operands[i];
    if (v.kind == Value::Kind::Tensor) {
      tensors.push_back(&v.tensor);
      continue;
    }
    if (v.kind == Value::Kind::Closure)
      return error(act, op.name + ": argument " + Twine(i) + " is a function, not a tensor");
    for (const ValuePtr &f : v.fields) {
      if (f->kind != Value::Kind::Tensor)
        return error(act, op.name + ": argument " + Twine(i) +
                              " is a tuple with a field that is not a tensor");
      tensors.push_back(&f->tensor);
    }
  }
  Expected<std::vector<HostTensor>> results = interpretOp(call, tensors);
  if (!results)
    return error(act, toString(results.takeError()));
  ValuePtr result;
  if (interp::returnsTuple(call)) {
    auto tuple = std::make_shared<Value>();
    tuple->kind = Value::Kind::Tuple;
    for (HostTensor &r : *results)
      tuple->fields.push_back(tensorValue(std::move(r)));
    result = std::move(tuple);
  } else if (results->size() == 1) {
    result = tensorValue(std::move(results->front()));
  } else {
    return error(act, op.name + ": produced " + Twine(results->size()) +
                          " results for a call whose type is not a tuple");
  }
  values.resize(t.base);
  values.push_back(std::move(result));
  finish(&call, act);
  return Error::success();
}

Error Evaluator::enterClosure(Task &t, const Call &call) {
  Activation *act = t.act;
  ValuePtr callee = values[t.base];
  if (callee->kind != Value::Kind::Closure)
    return error(act, "the callee of a call is not a function");
  const Function &fn = *callee->fn;
  size_t numArgs = values.size() - t.base - 1;
  if (numArgs != fn.params.size())
    return error(act, "a function of " + Twine(fn.params.size()) + " parameters called with " +
                          Twine(numArgs) + " arguments");
  if (callDepth >= kMaxCallDepth)
    return error(act, "function calls nest deeper than " + Twine(kMaxCallDepth) +
                          " (unbounded recursion?)");
  auto frame = std::make_shared<Activation>(callee->env, callee->defName);
  for (size_t i = 0; i < numArgs; ++i)
    frame->values[fn.params[i].get()] = values[t.base + 1 + i];
  values.resize(t.base);
  ++callDepth;
  t.stage = 2;
  t.callee = frame;
  push(fn.body.get(), frame.get()); // invalidates `t`
  return Error::success();
}

/// Checks an input against a parameter's type (`?` dims match any size).
static std::optional<std::string> checkInput(const Var &param, const HostTensor &input) {
  const Type *type = param.checkedType ? param.checkedType.get() : param.annotation.get();
  if (!type)
    return std::nullopt;
  const auto *tt = dyn_cast<TensorType>(type);
  if (!tt)
    return "parameter %" + param.name + " has type " + typeToString(type) +
           ", which an input tensor cannot provide";
  bool ok = tt->dtype == input.dtype() && tt->rank() == input.rank();
  for (size_t d = 0; ok && d < tt->rank(); ++d)
    ok = tt->shape[d] == TensorType::kDynamic || tt->shape[d] == input.shape()[d];
  if (ok)
    return std::nullopt;
  return "input for %" + param.name + " has type " + input.typeString() + ", expected " +
         typeToString(type);
}

Expected<std::vector<HostTensor>> interpret(const Module &m, ArrayRef<HostTensor> inputs,
                                            StringRef entry) {
  auto fail = [&](const Twine &msg) {
    return createStringError(inconvertibleErrorCode(), ("@" + entry + ": " + msg).str());
  };
  const Function *fn = m.lookup(entry);
  if (!fn)
    return createStringError(inconvertibleErrorCode(),
                             ("no function @" + entry + " in the module").str());
  if (inputs.size() != fn->params.size())
    return fail("expected " + Twine(fn->params.size()) + " inputs, got " + Twine(inputs.size()));
  std::vector<ValuePtr> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (std::optional<std::string> msg = checkInput(*fn->params[i], inputs[i]))
      return fail("input " + Twine(i) + ": " + *msg);
    args.push_back(tensorValue(inputs[i].clone()));
  }

  std::vector<HostTensor> out;
  {
    Evaluator ev(m);
    Expected<ValuePtr> result = ev.run(*fn, entry, std::move(args));
    if (!result)
      return result.takeError();
    // Flatten depth first, without recursion.
    std::vector<const Value *> work{result->get()};
    while (!work.empty()) {
      const Value *v = work.back();
      work.pop_back();
      if (v->kind == Value::Kind::Closure)
        return fail("the result contains a function, which has no tensor value");
      if (v->kind == Value::Kind::Tensor) {
        out.push_back(v->tensor.clone());
        continue;
      }
      for (auto it = v->fields.rbegin(); it != v->fields.rend(); ++it)
        work.push_back(it->get());
    }
  }
  return out;
}

} // namespace hx
