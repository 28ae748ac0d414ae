//===- Stages.cpp - Runs of modules with value-dependent shapes -----------===//
//
// See hx/Run/Stages.h for the model. Here:
//
//  1. Classify (one post-order pass over @main's body, no recursion): a node
//     is computable when its type is static and so is every node it reads
//     (a call's callee and arguments, an if's condition and both branches, a
//     function literal's body), except an if that chooses a function: the
//     call of it is built once the stage before has decided. @main's root
//     computable: one stage.
//  2. Plan a stage (a worklist from the root over the nodes that are not
//     computable, never into an if's branches):
//       - a call of an operator whose arguments are all computable is a
//         frontier call: its arguments are the stage's results;
//       - an if whose condition is computable is a frontier if: the
//         condition is a result;
//       - any other computable operand of a node that is not (a tuple
//         field, an argument beside a dynamic one) is live: a result that
//         the next stage takes as a parameter. Parameters, constants and
//         function literals stay as they are.
//     A call of a function chosen by an if waits for the if (its arguments
//     are live); a call of a known function whose result has a
//     value-dependent shape, or a let of such a value, is a located "not
//     supported by the executor" error.
//  3. Run a stage's executable (ExecutableOptions::roots); evaluate each
//     frontier call with interpretOp, read each frontier condition; the
//     key of the next stage is the frontier results' types and the branches
//     taken.
//  4. Build the next stage (once per key): @main's body rewritten bottom up,
//     live nodes and frontier calls replaced by new parameters (a tuple of
//     them for a tuple value), each frontier if by its taken branch; the
//     new parameters carry the devices their values were computed on, so
//     the planned contract holds without planning again; then the owner's
//     prepare (infer-type, fuse-ops) and step 1 on the new module.
//
//===----------------------------------------------------------------------===//
#include "hx/Run/Stages.h"
#include "hx/IR/DeviceAware.h"
#include "hx/IR/OpDef.h"
#include "hx/IR/Rewrite.h"
#include "hx/IR/Walk.h"
#include "hx/Interpreter/Interpreter.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include <map>

using namespace llvm;

namespace hx {

namespace {

bool isStaticType(const Type *t) {
  if (!t)
    return false;
  if (auto *tt = dyn_cast<TensorType>(t))
    return tt->isStatic();
  if (auto *tu = dyn_cast<TupleType>(t))
    return llvm::all_of(tu->fields, [](const TypeRef &f) { return isStaticType(f.get()); });
  return true;
}

/// The tensors of a value of type `t`, depth first.
unsigned leafCount(const Type *t) {
  if (auto *tu = dyn_cast_or_null<TupleType>(t)) {
    unsigned n = 0;
    for (const TypeRef &f : tu->fields)
      n += leafCount(f.get());
    return n;
  }
  return 1;
}

/// Step 1: which nodes of `body` are computable (a global is not when it
/// is in `dynamicGlobals`).
DenseSet<const Expr *> computableNodes(Expr *body, const StringSet<> &dynamicGlobals) {
  DenseSet<const Expr *> ok;
  SmallVector<Expr *, 8> ops;
  for (Expr *e : postOrder(body)) {
    bool c;
    switch (e->getKind()) {
    case ExprKind::Var: {
      auto *v = cast<Var>(e);
      c = isStaticType(v->checkedType ? v->checkedType.get() : v->annotation.get());
      break;
    }
    case ExprKind::Constant:
    case ExprKind::Op:
      c = true;
      break;
    case ExprKind::GlobalVar:
      c = !dynamicGlobals.count(cast<GlobalVar>(e)->name);
      break;
    case ExprKind::Function:
      c = ok.count(cast<Function>(e)->body.get());
      break;
    case ExprKind::If:
      // An if that chooses a function is decided before the call is built.
      ops.clear();
      getOperands(e, ops);
      c = isa_and_nonnull<TensorType, TupleType>(e->checkedType.get()) &&
          isStaticType(e->checkedType.get()) &&
          llvm::all_of(ops, [&](Expr *o) { return ok.count(o) != 0; });
      break;
    default:
      if (auto *call = dyn_cast<Call>(e);
          call && call->getOp() && call->getOp()->def && call->getOp()->def->valueDependentShape) {
        c = false; // the host evaluates it, between stages (shape_of's type is static)
        break;
      }
      ops.clear();
      getOperands(e, ops);
      c = isStaticType(e->checkedType.get()) &&
          llvm::all_of(ops, [&](Expr *o) { return ok.count(o) != 0; });
    }
    if (c)
      ok.insert(e);
  }
  return ok;
}

Error fail(const Twine &msg) { return createStringError(inconvertibleErrorCode(), msg); }

/// The global a call calls, or "".
StringRef calleeGlobal(const Call *c) {
  auto *g = dyn_cast<GlobalVar>(c->callee.get());
  return g ? StringRef(g->name) : StringRef();
}

/// Which globals each global's body names.
StringMap<StringSet<>> globalsNamed(const Module &m) {
  StringMap<StringSet<>> callees;
  for (const Module::Def &d : m.defs) {
    callees[d.global->name];
    for (Expr *e : postOrder(d.fn->body.get()))
      if (auto *g = dyn_cast<GlobalVar>(e))
        callees[d.global->name].insert(g->name);
  }
  return callees;
}

/// Whether global `to` is reached from the body of `from`.
bool reaches(const StringMap<StringSet<>> &callees, StringRef from, StringRef to) {
  StringSet<> seen;
  SmallVector<StringRef, 8> work{from};
  while (!work.empty()) {
    auto it = callees.find(work.pop_back_val());
    if (it == callees.end())
      continue;
    for (const auto &c : it->second) {
      if (c.getKey() == to)
        return true;
      if (seen.insert(c.getKey()).second)
        work.push_back(c.getKey());
    }
  }
  return false;
}

/// The globals that can call themselves (directly or through others).
StringSet<> recursiveGlobals(const Module &m) {
  StringMap<StringSet<>> callees = globalsNamed(m);
  StringSet<> recursive;
  for (const Module::Def &d : m.defs)
    if (reaches(callees, d.global->name, d.global->name))
      recursive.insert(d.global->name);
  return recursive;
}

/// Recursion runs as loops: a recursive global may call itself only as its
/// result (through ifs and lets), and no global of its cycle otherwise.
/// False after located errors.
bool checkRecursion(const Module &m, DiagEngine &diags) {
  StringMap<StringSet<>> callees = globalsNamed(m);
  bool ok = true;
  for (const Module::Def &d : m.defs) {
    StringRef self = d.global->name;
    if (!reaches(callees, self, self))
      continue;
    // The tail positions: the body, an if's branches, a let's body.
    DenseSet<const Expr *> tails;
    SmallVector<const Expr *, 8> work{d.fn->body.get()};
    while (!work.empty()) {
      const Expr *e = work.pop_back_val();
      tails.insert(e);
      if (auto *i = dyn_cast<If>(e))
        work.append({i->thenBranch.get(), i->elseBranch.get()});
      else if (auto *l = dyn_cast<Let>(e))
        work.push_back(l->body.get());
    }
    for (Expr *e : postOrder(d.fn->body.get())) {
      auto *c = dyn_cast<Call>(e);
      StringRef callee = c ? calleeGlobal(c) : StringRef();
      if (callee.empty() || !reaches(callees, callee, self))
        continue;
      if (callee == self && tails.count(c))
        continue;
      diags.error(c->loc, callee == self
                              ? "not supported by the executor: a recursive call that is not "
                                "its function's result (a call of itself as the result runs, "
                                "as a loop)"
                              : "not supported by the executor: a call of @" + callee.str() +
                                    ", which calls @" + self.str() +
                                    " back (only a function's calls of itself run)");
      ok = false;
    }
  }
  return ok;
}

/// The globals whose bodies are not computable (calling each other: until
/// nothing changes): the recursive ones, whose calls run as their own
/// stages, and those whose bodies hold value-dependent shapes.
StringSet<> dynamicGlobals(const Module &m, StringSet<> recursive) {
  StringSet<> dynamic = std::move(recursive);
  for (bool changed = true; changed;) {
    changed = false;
    for (const Module::Def &d : m.defs)
      if (d.global->name != "main" && !dynamic.count(d.global->name) &&
          !computableNodes(d.fn.get(), dynamic).count(d.fn.get())) {
        dynamic.insert(d.global->name);
        changed = true;
      }
  }
  return dynamic;
}

/// "int64, Tensor[(3, 4), float32]", for messages.
std::string typesOf(ArrayRef<HostTensor> values) {
  std::string s;
  for (const HostTensor &t : values)
    s += (s.empty() ? "" : ", ") + t.typeString();
  return s;
}

/// "nonzero at 3:8", for messages.
std::string describe(DiagEngine &diags, const Expr *e) {
  std::string what = "value";
  if (auto *c = dyn_cast<Call>(e); c && c->getOp())
    what = c->getOp()->name;
  else if (auto *c = dyn_cast<Call>(e); c && !calleeGlobal(c).empty())
    what = "the call of @" + calleeGlobal(c).str();
  else if (isa<If>(e))
    what = "if";
  if (!e->loc.isValid())
    return what;
  auto [line, col] = diags.getSourceMgr().getLineAndColumn(e->loc);
  return what + " at " + std::to_string(line) + ":" + std::to_string(col);
}

} // namespace

struct StagedRun::Stage {
  std::unique_ptr<Module> own; // null for the first stage (the owner's module)
  Module *mod = nullptr;
  std::unique_ptr<Executable> exe;
  bool final = false;
  // A stage that is not the last:
  std::vector<const Expr *> roots;   // the executable's results, in order
  std::vector<unsigned> firstOutput; // per root: its first tensor in the results
  DenseMap<const Expr *, unsigned> rootIndex;
  std::vector<const Expr *> live;  // roots the next stage takes as parameters
  std::vector<const Call *> calls; // frontier calls (operators, recursive globals)
  bool tail = false;               // the body is its one frontier call, of a global
  std::vector<const If *> ifs;     // frontier ifs
  std::map<std::string, std::unique_ptr<Stage>> next; // by frontier key
  // A stage after the first: its inputs, as indices into the stage before's
  // inputs, then its live values' tensors, then its frontier's results (the
  // values no later stage reads are dropped).
  std::vector<unsigned> takes;
};

StagedRun::StagedRun(DiagEngine &diags, StageHooks hooks, const ExecutableOptions &opts)
    : diags(diags), hooks(std::move(hooks)), opts(opts) {}
StagedRun::~StagedRun() = default;

bool StagedRun::needed(const Module &m) {
  Function *main = m.lookup("main");
  return main && !computableNodes(main->body.get(), dynamicGlobals(m, recursiveGlobals(m)))
                      .count(main->body.get());
}

Executable &StagedRun::first() { return *root->exe; }
size_t StagedRun::numStages() const { return count; }

/// Steps 1 and 2 for `st.mod`, then its executable. False after diagnostics.
static bool planStage(StagedRun::Stage &st, DiagEngine &diags, const StageHooks &hooks,
                      ExecutableOptions opts) {
  Function *main = st.mod->lookup("main");
  Expr *body = main->body.get();
  StringSet<> recursive = recursiveGlobals(*st.mod);
  DenseSet<const Expr *> ok = computableNodes(body, dynamicGlobals(*st.mod, recursive));
  st.final = ok.count(body);
  if (!st.final) {
    auto unsupported = [&](const Expr *e, const Twine &what) {
      diags.error(e->loc, "not supported by the executor: " + what);
      return false;
    };
    auto addRoot = [&](const Expr *e) {
      if (st.rootIndex.try_emplace(e, st.roots.size()).second)
        st.roots.push_back(e);
    };
    DenseSet<const Expr *> liveSet;
    auto operand = [&](Expr *e, SmallVectorImpl<Expr *> &work) {
      if (!ok.count(e)) {
        work.push_back(e);
        return;
      }
      if (isa<Var, Constant, Op, GlobalVar, Function>(e))
        return; // the next stage has it as it is
      addRoot(e);
      if (liveSet.insert(e).second)
        st.live.push_back(e);
    };
    SmallVector<Expr *, 16> work{body};
    DenseSet<const Expr *> seen;
    while (!work.empty()) {
      Expr *e = work.pop_back_val();
      if (!seen.insert(e).second)
        continue;
      if (auto *c = dyn_cast<Call>(e)) {
        // The host evaluates an operator's call (one with a value-dependent
        // result) and runs a recursive global's call as a run of its own (a
        // loop when it calls itself as its result), once the arguments are
        // known.
        auto *g = dyn_cast<GlobalVar>(c->callee.get());
        bool loop = g && recursive.count(g->name);
        if (g && !loop && !ok.count(g))
          return unsupported(c, "a call of @" + g->name +
                                    ", whose body has values of value-dependent shape (only "
                                    "@main's may have them)");
        if (!c->getOp() && !loop) {
          // A call waits for its arguments' stages, and a function chosen
          // by an if for the if's.
          bool calleeOk = ok.count(c->callee.get());
          if (calleeOk &&
              llvm::all_of(c->args, [&](const ExprRef &a) { return ok.count(a.get()); }))
            return unsupported(c, "a call of a function whose result has a value-dependent shape");
          if (!calleeOk)
            work.push_back(c->callee.get());
          for (const ExprRef &a : c->args)
            operand(a.get(), work);
          continue;
        }
        bool frontier = llvm::all_of(c->args, [&](const ExprRef &a) { return ok.count(a.get()); });
        if (frontier) {
          for (const ExprRef &a : c->args) {
            if (!isa<TensorType>(a->checkedType.get()))
              return unsupported(c, loop ? "a call of the recursive @" + g->name +
                                               " with an argument that is not a tensor"
                                         : Twine("a value-dependent shape computed from a tuple"));
            addRoot(a.get());
          }
          st.calls.push_back(c);
          continue;
        }
        for (const ExprRef &a : c->args)
          operand(a.get(), work);
      } else if (auto *i = dyn_cast<If>(e)) {
        if (ok.count(i->cond.get())) {
          addRoot(i->cond.get());
          st.ifs.push_back(i);
        } else {
          work.push_back(i->cond.get());
        }
      } else if (auto *t = dyn_cast<Tuple>(e)) {
        for (const ExprRef &f : t->fields)
          operand(f.get(), work);
      } else if (auto *g = dyn_cast<TupleGetItem>(e)) {
        operand(g->tuple.get(), work);
      } else {
        return unsupported(e, isa<Let>(e) ? Twine("a let of a value of value-dependent shape")
                                          : Twine("this value of value-dependent shape"));
      }
    }
    st.tail =
        st.calls.size() == 1 && st.ifs.empty() && st.calls[0] == body && !st.calls[0]->getOp();
    unsigned n = 0;
    for (const Expr *r : st.roots) {
      st.firstOutput.push_back(n);
      n += leafCount(r->checkedType.get());
    }
    opts.roots = st.roots;
  }
  st.exe = hooks.build(*st.mod, opts);
  return st.exe != nullptr;
}

/// @main's lets replaced by their values (a DAG shares a node where a let
/// shared a variable), so that every value is a node a stage can hand to
/// the next. False (a located error) for a let whose value reads its own
/// variable.
static bool inlineLets(Function &main, DiagEngine &diags) {
  DenseMap<const Var *, const Expr *> letValue;
  for (Expr *e : postOrder(main.body.get()))
    if (auto *l = dyn_cast<Let>(e))
      letValue[l->var.get()] = l->value.get();
  if (letValue.empty())
    return true;
  DenseMap<const Expr *, ExprRef> rewritten;
  const Expr *recursive = nullptr;
  ExprRef body = rewritePostOrder(main.body.get(), [&](Expr *old, ArrayRef<ExprRef> ops) {
    ExprRef out;
    if (auto *v = dyn_cast<Var>(old); v && letValue.count(v)) {
      auto it = rewritten.find(letValue.lookup(v));
      if (it == rewritten.end()) {
        recursive = old;
        out = ExprRef(old);
      } else {
        out = it->second;
      }
    } else if (isa<Let>(old)) {
      out = ops[1];
    } else {
      out = withOperands(old, ops);
    }
    rewritten[old] = out;
    return out;
  });
  if (recursive) {
    diags.error(recursive->loc, "not supported by the executor: a let whose value reads its own "
                                "variable, in a module with value-dependent shapes");
    return false;
  }
  main.body = body;
  return true;
}

std::unique_ptr<StagedRun> StagedRun::create(Module &m, DiagEngine &diags, StageHooks hooks,
                                             const ExecutableOptions &opts) {
  std::unique_ptr<StagedRun> run(new StagedRun(diags, std::move(hooks), opts));
  run->root = std::make_unique<Stage>();
  run->root->mod = &m;
  if (!checkRecursion(m, diags) || !inlineLets(*m.lookup("main"), diags) ||
      !planStage(*run->root, diags, run->hooks, opts))
    return nullptr;
  run->count = 1;
  return run;
}

namespace {

/// A module with `of`'s devices, metadata and functions, its @main `main`.
std::unique_ptr<Module> moduleWithMain(const Module &of, Ref<Function> main) {
  auto m = std::make_unique<Module>();
  m->devices = of.devices;
  m->fallbackDeviceType = of.fallbackDeviceType;
  m->passConfigExtra = of.passConfigExtra;
  m->extraMetadata = of.extraMetadata;
  for (const Module::Def &d : of.defs)
    m->addDef(d.global->name, d.global->name == "main" ? main : d.fn);
  return m;
}

/// Step 4: the module of the stage after `st`, given the frontier's
/// results and branches; `takes` gets which of the values offered to it
/// (see Stage::takes) its parameters are.
std::unique_ptr<Module> nextModule(const StagedRun::Stage &st, ArrayRef<HostTensor> results,
                                   ArrayRef<bool> taken, DiagEngine &diags,
                                   std::vector<unsigned> &takes) {
  PlannedDevices devices;
  if (!readPlannedDevices(*st.mod, diags, devices, "the executor"))
    return nullptr;
  Function *main = st.mod->lookup("main");
  std::vector<Ref<Var>> params = main->params;
  StringSet<> names;
  for (const Ref<Var> &p : params)
    names.insert(p->name);
  unsigned counter = 0;
  auto newParam = [&](TypeRef type, DeviceIndex device, const Loc &loc) {
    std::string name;
    do
      name = "stage" + std::to_string(counter++);
    while (names.count(name));
    names.insert(name);
    Ref<Var> v = make<Var>(name, std::move(type), loc);
    v->device = device;
    params.push_back(v);
    return v;
  };
  // A value of type `t` whose tensors are the next parameters (one per
  // leaf, each on the device `deviceOf(leaf)` gives; of the type
  // `leafType(leaf)` gives where it gives one).
  auto valueOf = [&](const Type *t, const Loc &loc, function_ref<DeviceIndex(unsigned)> deviceOf,
                     function_ref<TypeRef(unsigned)> leafType = nullptr) {
    unsigned leaf = 0;
    // Tuples of tuples: an explicit stack of (type, fields built so far).
    struct Level {
      const TupleType *type;
      SmallVector<ExprRef, 2> fields;
    };
    std::vector<Level> stack;
    ExprRef done;
    auto finish = [&](ExprRef e) {
      while (true) {
        if (stack.empty()) {
          done = e;
          return;
        }
        stack.back().fields.push_back(e);
        if (stack.back().fields.size() < stack.back().type->fields.size())
          return;
        e = make<Tuple>(std::move(stack.back().fields), loc);
        stack.pop_back();
      }
    };
    std::vector<const Type *> todo{t};
    while (!todo.empty()) {
      const Type *cur = todo.back();
      todo.pop_back();
      if (auto *tu = dyn_cast<TupleType>(cur)) {
        if (tu->fields.empty()) {
          finish(make<Tuple>(SmallVector<ExprRef, 2>{}, loc));
          continue;
        }
        stack.push_back({tu, {}});
        for (auto it = tu->fields.rbegin(); it != tu->fields.rend(); ++it)
          todo.push_back(it->get());
        continue;
      }
      TypeRef type = leafType ? leafType(leaf) : TypeRef(const_cast<Type *>(cur));
      finish(ExprRef(newParam(std::move(type), deviceOf(leaf), loc)));
      ++leaf;
    }
    return done;
  };

  DenseMap<const Expr *, ExprRef> replace;
  ArrayRef<Buffer> buffers = st.exe->buffers();
  ArrayRef<unsigned> outs = st.exe->outputBuffers();
  for (const Expr *e : st.live) {
    unsigned first = st.firstOutput[st.rootIndex.lookup(e)];
    replace[e] = valueOf(e->checkedType.get(), e->loc, [&](unsigned leaf) {
      return DeviceIndex(buffers[outs[first + leaf]].device);
    });
  }
  size_t r = 0;
  for (const Call *c : st.calls) {
    DeviceIndex d = devices.deviceOf(c);
    if (!c->getOp()) { // a recursive global's, of the types its run gave
      replace[c] = valueOf(
          c->checkedType.get(), c->loc, [&](unsigned) { return d; },
          [&](unsigned leaf) {
            return makeTensorType(results[r + leaf].shape(), results[r + leaf].dtype());
          });
      r += leafCount(c->checkedType.get());
      continue;
    }
    if (auto *tu = dyn_cast_or_null<TupleType>(c->checkedType.get())) {
      std::vector<TypeRef> fields;
      for (size_t k = 0; k < tu->fields.size(); ++k, ++r)
        fields.push_back(makeTensorType(results[r].shape(), results[r].dtype()));
      TypeRef t = make<TupleType>(std::move(fields));
      replace[c] = valueOf(t.get(), c->loc, [&](unsigned) { return d; });
    } else {
      TypeRef t = makeTensorType(results[r].shape(), results[r].dtype());
      ++r;
      replace[c] = valueOf(t.get(), c->loc, [&](unsigned) { return d; });
    }
  }
  DenseMap<const Expr *, bool> branch;
  for (size_t i = 0; i < st.ifs.size(); ++i)
    branch[st.ifs[i]] = taken[i];
  ExprRef body = rewritePostOrder(main->body.get(), [&](Expr *old, ArrayRef<ExprRef> ops) {
    if (auto it = replace.find(old); it != replace.end())
      return it->second;
    if (auto it = branch.find(old); it != branch.end())
      return ops[it->second ? 1 : 2];
    return withOperands(old, ops);
  });

  // Only the parameters the new body reads.
  DenseSet<const Expr *> read;
  for (Expr *e : postOrder(body.get()))
    if (isa<Var>(e))
      read.insert(e);
  std::vector<Ref<Var>> used;
  takes.clear();
  for (unsigned i = 0; i < params.size(); ++i)
    if (read.count(params[i].get())) {
      takes.push_back(i);
      used.push_back(params[i]);
    }
  auto fn = make<Function>(std::move(used), body, nullptr, main->loc);
  fn->attrs = main->attrs;
  fn->resultDevice = main->resultDevice;
  fn->freeVars = main->freeVars;
  return moduleWithMain(*st.mod, fn);
}

} // namespace

Expected<std::vector<HostTensor>> StagedRun::callGlobal(const Call &c,
                                                        ArrayRef<const HostTensor *> args,
                                                        InterruptCheck interrupted) {
  StringRef name = calleeGlobal(&c);
  if (name == self) // checkRecursion refuses these when the module is built
    return fail(describe(diags, &c) + ": a recursive call that is not its function's result (only "
                                      "a call of itself as the result, a loop, runs)");
  std::unique_ptr<StagedRun> &callee = callees[name.str()];
  if (!callee) {
    const Module *rootModule = root ? root->mod : ownModule.get();
    if (nesting + 1 >= kMaxNesting)
      return fail(describe(diags, &c) + ": recursive functions nested more than " +
                  Twine(kMaxNesting) + " deep");
    // A module whose @main is the global, its other functions as they are.
    const Function *fn = rootModule->lookup(name);
    auto main = make<Function>(fn->params, fn->body, fn->retType, fn->loc);
    main->attrs = fn->attrs;
    main->resultDevice = fn->resultDevice;
    std::unique_ptr<Module> m = moduleWithMain(*rootModule, main);
    bool byShapes = !llvm::all_of(fn->params, [](const Ref<Var> &p) {
      return isStaticType(p->checkedType ? p->checkedType.get() : p->annotation.get());
    });
    if (byShapes) { // its first stages are built for the arguments' shapes
      if (!checkRecursion(*m, diags))
        return fail("building the run of " + describe(diags, &c) + ": the errors reported above");
      callee.reset(new StagedRun(diags, hooks, opts));
      callee->byShapes = true;
    } else if (!hooks.prepare(*m) || !(callee = create(*m, diags, hooks, opts))) {
      return fail("building the run of " + describe(diags, &c) + ": the errors reported above");
    }
    callee->ownModule = std::move(m);
    callee->self = name.str();
    callee->nesting = nesting + 1;
  }
  std::vector<HostTensor> in;
  for (const HostTensor *a : args)
    in.push_back(a->clone());
  return callee->run(in, nullptr, interrupted);
}

StagedRun::Stage *StagedRun::rootFor(ArrayRef<HostTensor> inputs) {
  if (!byShapes)
    return root.get();
  std::string key;
  for (const HostTensor &t : inputs)
    key += t.typeString() + ";";
  std::unique_ptr<Stage> &st = shaped[key];
  if (st)
    return st.get();
  if (count >= kMaxStages) { // no stage is in use between iterations
    shaped.clear();
    count = 0;
    return rootFor(inputs);
  }
  // @main (the global) with parameters of the inputs' types, typed anew.
  Function *generic = ownModule->lookup("main");
  if (inputs.size() != generic->params.size()) {
    diags.error(generic->loc, "@" + self + " takes " + Twine(generic->params.size()) +
                                  " arguments, given " + Twine(inputs.size()));
    return nullptr;
  }
  DenseMap<const Expr *, ExprRef> replace;
  std::vector<Ref<Var>> params;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Var &p = *generic->params[i];
    Ref<Var> v = make<Var>(p.name, makeTensorType(inputs[i].shape(), inputs[i].dtype()), p.loc);
    v->device = p.device;
    replace[&p] = v;
    params.push_back(v);
  }
  ExprRef body = rewritePostOrder(generic->body.get(), [&](Expr *old, ArrayRef<ExprRef> ops) {
    if (auto it = replace.find(old); it != replace.end())
      return it->second;
    return withOperands(old, ops);
  });
  auto main = make<Function>(std::move(params), body, nullptr, generic->loc);
  main->attrs = generic->attrs;
  main->resultDevice = generic->resultDevice;
  auto s = std::make_unique<Stage>();
  s->own = moduleWithMain(*ownModule, main);
  s->mod = s->own.get();
  if (!hooks.prepare(*s->mod) || !inlineLets(*s->mod->lookup("main"), diags) ||
      !planStage(*s, diags, hooks, opts))
    return nullptr;
  st = std::move(s);
  ++count;
  return st.get();
}

Expected<std::vector<HostTensor>> StagedRun::run(ArrayRef<HostTensor> inputs, RunProfile *profile,
                                                 InterruptCheck interrupted) {
  if (count >= kMaxStages && root) { // keep the first stage only
    root->next.clear();
    count = 1;
  }
  unsigned depth = 0;
  std::vector<HostTensor> carried; // the inputs of a stage after the first
  ArrayRef<HostTensor> in = inputs;
  bool firstPass = true;
  size_t iterations = 0;
  Stage *first = rootFor(in);
  if (!first)
    return fail("building the run of @" + self + ": the errors reported above");
  for (Stage *st = first;;) {
    Expected<std::vector<HostTensor>> out =
        st->exe->run(in, st == first && firstPass ? profile : nullptr, interrupted);
    if (!out || st->final)
      return out;
    auto result = [&](const Expr *e) -> HostTensor & {
      return (*out)[st->firstOutput[st->rootIndex.lookup(e)]];
    };
    // A run of a recursive global whose body ends in a call of itself: the
    // call's arguments are the next iteration's inputs.
    if (st->tail && !self.empty() && calleeGlobal(st->calls[0]) == self) {
      if (interrupted && interrupted())
        return make_error<InterruptedError>();
      if (++iterations >= kMaxIterations)
        return fail("@" + self + " called itself " + Twine(kMaxIterations) +
                    " times in one run (an endless loop?)");
      std::vector<HostTensor> next;
      DenseMap<const Expr *, size_t> taken; // an argument given twice is copied
      for (const ExprRef &a : st->calls[0]->args) {
        auto [it, fresh] = taken.try_emplace(a.get(), next.size());
        next.push_back(fresh ? std::move(result(a.get())) : next[it->second].clone());
      }
      carried = std::move(next);
      in = carried;
      if (!(st = first = rootFor(in)))
        return fail("building the run of @" + self + " for the arguments " + Twine(typesOf(in)) +
                    ": the errors reported above");
      depth = 0;
      firstPass = false;
      continue;
    }
    // The frontier, on the host.
    std::string key;
    std::vector<HostTensor> results;
    for (const Call *c : st->calls) {
      std::vector<const HostTensor *> args;
      for (const ExprRef &a : c->args)
        args.push_back(&result(a.get()));
      Expected<std::vector<HostTensor>> r =
          c->getOp() ? interpretOp(*c, args) : callGlobal(*c, args, interrupted);
      if (!r)
        return fail(describe(diags, c) + ": " + toString(r.takeError()));
      for (HostTensor &t : *r) {
        key += t.typeString() + ";";
        results.push_back(std::move(t));
      }
    }
    SmallVector<bool, 4> taken;
    for (const If *i : st->ifs) {
      const HostTensor &cond = result(i->cond.get());
      if (cond.numElements() != 1)
        return fail(describe(diags, i) + ": the condition has " + Twine(cond.numElements()) +
                    " elements");
      taken.push_back(cond.getDouble(0) != 0);
      key += taken.back() ? "then;" : "else;";
    }
    std::unique_ptr<Stage> &next = st->next[key];
    if (!next) {
      if (depth + 1 >= kMaxStages)
        return fail("a run of more than " + Twine(kMaxStages) + " stages");
      auto s = std::make_unique<Stage>();
      s->own = nextModule(*st, results, taken, diags, s->takes);
      if (!s->own || !hooks.prepare(*s->own))
        return fail("building the stage after " +
                    describe(diags, st->calls.empty() ? (const Expr *)st->ifs[0] : st->calls[0]) +
                    ": the errors reported above");
      s->mod = s->own.get();
      if (!planStage(*s, diags, hooks, opts))
        return fail("building a stage of the run: the errors reported above");
      next = std::move(s);
      ++count;
    }
    // The next stage's inputs, of these, the live values and the frontier's
    // results.
    std::vector<HostTensor *> offered;
    for (const HostTensor &t : in)
      offered.push_back(const_cast<HostTensor *>(&t));
    for (const Expr *e : st->live) {
      unsigned first = st->firstOutput[st->rootIndex.lookup(e)];
      for (unsigned k = 0, n = leafCount(e->checkedType.get()); k < n; ++k)
        offered.push_back(&(*out)[first + k]);
    }
    for (HostTensor &t : results)
      offered.push_back(&t);
    std::vector<HostTensor> nextIn;
    for (unsigned i : next->takes) {
      // The caller's inputs are copied (one may be taken twice); the rest moved.
      bool callers = st == first && i < in.size();
      nextIn.push_back(callers ? offered[i]->clone() : std::move(*offered[i]));
    }
    carried = std::move(nextIn);
    in = carried;
    st = next.get();
    ++depth;
  }
}

} // namespace hx
