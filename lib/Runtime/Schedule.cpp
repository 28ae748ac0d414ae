//===- Schedule.cpp - From a planned module to a flat schedule ------------===//
//
// Evaluates @main symbolically, emitting a step for every value it computes:
//
//   def @main(%a {cpu}, %b {cpu}, virtual_device=cuda) {
//     %0 = add(%a, %b);
//     %1 = on_device(%0, cpu, constrain_result=True);
//     %2 = device_copy(%1, cpu, cuda);
//     exp(%2)
//   }
//
//   =>  step 0: kernel add [a, b] -> t0    (cpu)
//       step 1: copy t0 -> t1              (cpu -> cuda)
//       step 2: kernel exp [t1] -> out0    (cuda)
//
//  1. Devices come from the planned module's contract (hx/IR/DeviceAware.h):
//     a kernel runs where its call lives; a copy's result lives on its
//     destination.
//  2. Values are trees of buffers (tuples are not stored, only their
//     fields); on_device is transparent; device_copy copies each field.
//  3. reshape, squeeze and expand_dims of a contiguous buffer are aliases:
//     the result is the same memory, and the step does nothing at run time.
//     A concatenate whose parts are consecutive slices of its result (every
//     dim before the axis is 1, as a channel concat at batch 1) has no step
//     either: each part is a view of its slice (Impl::views), so the steps
//     that make the parts write into the result.
//  4. Calls of functions known at compile time (globals, fn literals,
//     let-bound fns, also through tuples and projections of them) are
//     inlined: their parameters are bound to the argument values and the
//     body is evaluated in a frame of its own. A recursive call, or a call of
//     a function value that is not known at compile time (a parameter, the
//     result of an if), is a located "not supported by the executor" error.
//  5. `if`: an If step jumps to the else branch when the condition is false;
//     each branch copies its result into the if's result buffers and the
//     then branch ends with a Jump over the else branch. A branch is a frame
//     of its own, so a node first evaluated inside one branch is evaluated
//     again in the other.
//  6. The result's buffers become outputs, outside the reused memory (a
//     stage of a run, hx/Run/Stages.h, asks for given nodes instead of the
//     result: ExecutableOptions::roots); a
//     result that is a parameter, a constant, an alias or repeated is copied
//     into an output buffer of its own.
//
// The evaluation is an explicit stack machine (no recursion on the IR's
// depth); each node is evaluated once per frame (memoized, looking up the
// frames that lexically enclose it).
//
//===----------------------------------------------------------------------===//
#include "ExecutableImpl.h"
#include "hx/IR/DeviceAware.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/OpCost.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <deque>

using namespace hx;
using namespace llvm;

namespace {

struct Frame;

/// A symbolic value: a tensor buffer, a tuple of values, or a function
/// known at compile time with the frame it was defined in.
struct Value {
  enum class Kind : uint8_t { Tensor, Tuple, Function } kind = Kind::Tensor;
  unsigned buffer = 0;
  std::vector<Value> fields;
  const Function *fn = nullptr;
  Frame *env = nullptr;

  static Value tensor(unsigned b) {
    Value v;
    v.buffer = b;
    return v;
  }
  void flatten(SmallVectorImpl<unsigned> &out) const {
    SmallVector<const Value *, 8> work{this};
    // Depth first, fields in order.
    while (!work.empty()) {
      const Value *v = work.pop_back_val();
      if (v->kind == Kind::Tensor)
        out.push_back(v->buffer);
      for (auto it = v->fields.rbegin(); it != v->fields.rend(); ++it)
        work.push_back(&*it);
    }
  }
};

struct Frame {
  Frame *parent = nullptr;
  DenseMap<const Expr *, Value> memo;
  const Value *lookup(const Expr *e) const {
    for (const Frame *f = this; f; f = f->parent)
      if (auto it = f->memo.find(e); it != f->memo.end())
        return &it->second;
    return nullptr;
  }
};

class ScheduleBuilder {
public:
  ScheduleBuilder(Module &m, Executable::Impl &x, DiagEngine &diags) : m(m), x(x), diags(diags) {}

  bool run() {
    Function *main = m.lookup("main");
    if (!main) {
      diags.error(SMLoc(), "the module has no @main to run");
      return false;
    }
    if (!readPlannedDevices(m, diags, devices, "the executor"))
      return false;
    Frame &top = newFrame(nullptr);
    x.numParams = main->params.size();
    for (unsigned i = 0; i < main->params.size(); ++i) {
      Var *p = main->params[i].get();
      Value v;
      if (!makeValue(p->checkedType.get(), devices.varDevice(p), "%" + p->name, p->loc, v,
                     Buffer::Kind::Param, i))
        return false;
      vars[p] = v;
    }
    active.insert(main);
    Value result;
    if (x.opts.roots.empty()) {
      if (!evaluate(main->body.get(), top, result))
        return false;
    } else {
      // A stage: the given nodes, as the fields of one result.
      result.kind = Value::Kind::Tuple;
      for (const Expr *root : x.opts.roots)
        if (!evaluate(root, top, result.fields.emplace_back()))
          return false;
    }
    makeOutputs(result);
    return true;
  }

private:
  Frame &newFrame(Frame *parent) {
    frames.emplace_back();
    frames.back().parent = parent;
    return frames.back();
  }

  bool unsupported(const Expr *e, const Twine &what) {
    diags.error(e->loc, "not supported by the executor: " + what);
    return false;
  }

  /// " at 7:8", or "" without a location.
  std::string where(const Expr *e) const {
    if (!e->loc.isValid())
      return "";
    auto [line, col] = diags.getSourceMgr().getLineAndColumn(e->loc);
    return " at " + std::to_string(line) + ":" + std::to_string(col);
  }

  /// "add at 7:8", for labels and messages.
  std::string describe(const Expr *e) const {
    auto *c = dyn_cast<Call>(e);
    return (c && c->getOp() ? c->getOp()->name : std::string("value")) + where(e);
  }

  unsigned newBuffer(Buffer b) {
    x.buffers.push_back(std::move(b));
    return x.buffers.size() - 1;
  }

  /// Buffers for a value of type `t` on `device` (a tuple gets one per field).
  bool makeValue(const Type *t, DeviceIndex device, const std::string &name, SMLoc loc, Value &out,
                 Buffer::Kind kind, unsigned index = 0) {
    if (!t)
      return unsupported(nullptr, "an untyped value");
    if (auto *tt = dyn_cast<TupleType>(t)) {
      out.kind = Value::Kind::Tuple;
      out.fields.resize(tt->fields.size());
      for (size_t i = 0; i < tt->fields.size(); ++i)
        if (!makeValue(tt->fields[i].get(), device, name + "." + std::to_string(i), loc,
                       out.fields[i], kind, index))
          return false;
      return true;
    }
    auto *tensor = dyn_cast<TensorType>(t);
    if (!tensor) {
      diags.error(loc, "not supported by the executor: a function value as " + name);
      return false;
    }
    if (!tensor->isStatic()) {
      diags.error(loc, "not supported by the executor: the dynamic shape " + typeToString(t) +
                           " of " + name);
      return false;
    }
    // Every size and stride the kernels compute fits in int64 below this.
    std::optional<int64_t> elements = tensor->numElements();
    if (!elements || uint64_t(*elements) > kMaxBufferBytes / dtypeBytes(tensor->dtype)) {
      diags.error(loc, "not supported by the executor: " + name + " of type " + typeToString(t) +
                           " is larger than the 2^48 bytes a buffer may hold");
      return false;
    }
    Buffer b;
    b.kind = kind;
    b.device = device == kNoDevice ? 0 : device;
    b.dtype = tensor->dtype;
    b.shape.assign(tensor->shape.begin(), tensor->shape.end());
    b.bytes = uint64_t(*elements) * dtypeBytes(tensor->dtype);
    b.index = index;
    b.name = name;
    out = Value::tensor(newBuffer(std::move(b)));
    return true;
  }

  unsigned addStep(Step s) {
    x.steps.push_back(std::move(s));
    return x.steps.size() - 1;
  }

  /// Copies every tensor of `from` into the buffers of `to` (same shape).
  void copyInto(const Value &from, const Value &to, const std::string &label) {
    SmallVector<unsigned, 8> src, dst;
    from.flatten(src);
    to.flatten(dst);
    for (size_t i = 0; i < src.size() && i < dst.size(); ++i) {
      Step s;
      s.kind = Step::Kind::Copy;
      s.device = x.buffers[dst[i]].device;
      s.buffers = {src[i], dst[i]};
      s.numInputs = 1;
      s.label = label;
      addStep(std::move(s));
    }
  }

  /// Work items of the stack machine. `stage` counts the children done.
  struct Task {
    Task(const Expr *e, Frame *frame) : e(e), frame(frame) {}
    const Expr *e;
    Frame *frame;
    unsigned stage = 0;
    size_t base = 0; // the value stack's size when the task began
    Frame *inner = nullptr;
    unsigned ifStep = 0, jumpStep = 0;
    Value result;
  };

  bool evaluate(const Expr *root, Frame &frame, Value &out) {
    std::vector<Task> tasks;
    std::vector<Value> values;
    tasks.push_back({root, &frame});
    while (!tasks.empty()) {
      Task &t = tasks.back();
      if (t.stage == 0) {
        if (const Value *v = t.frame->lookup(t.e)) {
          values.push_back(*v);
          tasks.pop_back();
          continue;
        }
        t.base = values.size();
      }
      // The task may push children (invalidating `t`): copy what we need.
      Task cur = t;
      std::optional<Value> done;
      std::vector<Task> push;
      if (!step(cur, values, done, push))
        return false;
      if (done) {
        values.resize(cur.base);
        if (!isa<Var>(cur.e) && !isa<GlobalVar>(cur.e))
          cur.frame->memo[cur.e] = *done;
        values.push_back(std::move(*done));
        tasks.pop_back();
      } else {
        tasks.back() = cur;
        for (Task &p : push)
          tasks.push_back(std::move(p));
      }
    }
    out = values.back();
    return true;
  }

  /// Advances one task: either finishes it (`done`) or asks for children.
  bool step(Task &t, std::vector<Value> &values, std::optional<Value> &done,
            std::vector<Task> &push) {
    const Expr *e = t.e;
    auto child = [&](const Expr *c, Frame *f) { push.push_back({c, f}); };
    auto arg = [&](unsigned i) -> Value & { return values[t.base + i]; };
    switch (e->getKind()) {
    case ExprKind::Var: {
      auto it = vars.find(cast<Var>(e));
      if (it == vars.end())
        return unsupported(e, "the free variable %" + cast<Var>(e)->name);
      done = it->second;
      return true;
    }
    case ExprKind::GlobalVar: {
      Function *f = m.lookup(cast<GlobalVar>(e)->name);
      if (!f)
        return unsupported(e, "a global without a definition");
      Value v;
      v.kind = Value::Kind::Function;
      v.fn = f;
      done = v;
      return true;
    }
    case ExprKind::Op:
      return unsupported(e, "an operator used as a value");
    case ExprKind::Constant: {
      auto *c = cast<Constant>(e);
      DeviceIndex device = devices.deviceOf(c);
      if (c->isTensor())
        if (auto it = tensorConstants.find({c->tensor.get(), device});
            it != tensorConstants.end()) {
          done = it->second;
          return true;
        }
      Value v;
      if (!makeValue(c->checkedType.get(), device, "constant", c->loc, v, Buffer::Kind::Constant))
        return false;
      x.buffers[v.buffer].value = isFloat(c->dtype) ? c->floatValue : double(c->intValue);
      x.buffers[v.buffer].data = c->tensor;
      if (c->isTensor())
        tensorConstants.try_emplace({c->tensor.get(), device}, v);
      done = v;
      return true;
    }
    case ExprKind::Function: {
      Value v;
      v.kind = Value::Kind::Function;
      v.fn = cast<Function>(e);
      v.env = t.frame;
      done = v;
      return true;
    }
    case ExprKind::Tuple: {
      auto *tu = cast<Tuple>(e);
      if (t.stage++ == 0) {
        for (auto it = tu->fields.rbegin(); it != tu->fields.rend(); ++it)
          child(it->get(), t.frame);
        return true;
      }
      Value v;
      v.kind = Value::Kind::Tuple;
      for (size_t i = 0; i < tu->fields.size(); ++i)
        v.fields.push_back(arg(i));
      done = v;
      return true;
    }
    case ExprKind::TupleGetItem: {
      auto *p = cast<TupleGetItem>(e);
      if (t.stage++ == 0) {
        child(p->tuple.get(), t.frame);
        return true;
      }
      Value &tv = arg(0);
      if (tv.kind != Value::Kind::Tuple || p->index >= tv.fields.size())
        return unsupported(e, "a projection of a value that is not a tuple");
      done = tv.fields[p->index];
      return true;
    }
    case ExprKind::Let: {
      auto *l = cast<Let>(e);
      if (t.stage == 0) {
        t.stage = 1;
        child(l->value.get(), t.frame);
        return true;
      }
      if (t.stage == 1) {
        t.stage = 2;
        vars[l->var.get()] = arg(0);
        child(l->body.get(), t.frame);
        return true;
      }
      done = arg(1);
      return true;
    }
    case ExprKind::If:
      return stepIf(t, values, done, push);
    case ExprKind::Call:
      return stepCall(t, values, done, push);
    }
    return unsupported(e, "this expression");
  }

  bool stepIf(Task &t, std::vector<Value> &values, std::optional<Value> &done,
              std::vector<Task> &push) {
    auto *i = cast<If>(t.e);
    auto arg = [&](unsigned k) -> Value & { return values[t.base + k]; };
    switch (t.stage) {
    case 0:
      t.stage = 1;
      push.push_back({i->cond.get(), t.frame});
      return true;
    case 1: {
      SmallVector<unsigned, 1> cond;
      arg(0).flatten(cond);
      if (cond.size() != 1 || x.buffers[cond[0]].shape.size() != 0)
        return unsupported(i->cond.get(), "a condition that is not a scalar tensor");
      if (!makeValue(i->checkedType.get(), devices.deviceOf(i), "the result of an if", i->loc,
                     t.result, Buffer::Kind::Intermediate))
        return false;
      Step s;
      s.kind = Step::Kind::If;
      s.device = x.buffers[cond[0]].device;
      s.buffers = {cond[0]};
      s.numInputs = 1;
      s.label = "if" + where(i);
      t.ifStep = addStep(std::move(s));
      t.stage = 2;
      t.inner = &newFrame(t.frame);
      push.push_back({i->thenBranch.get(), t.inner});
      return true;
    }
    case 2: {
      copyInto(arg(1), t.result, "if result");
      Step j;
      j.kind = Step::Kind::Jump;
      j.label = "end of then branch";
      t.jumpStep = addStep(std::move(j));
      x.steps[t.ifStep].target = x.steps.size();
      t.stage = 3;
      t.inner = &newFrame(t.frame);
      push.push_back({i->elseBranch.get(), t.inner});
      return true;
    }
    default:
      copyInto(arg(2), t.result, "if result");
      x.steps[t.jumpStep].target = x.steps.size();
      done = t.result;
      return true;
    }
  }

  /// reshape, squeeze and expand_dims of a contiguous buffer change only
  /// the shape.
  static bool isAlias(const Call &c) {
    return c.isOp("reshape") || c.isOp("squeeze") || c.isOp("expand_dims") ||
           c.isOp("nn.batch_flatten");
  }

  bool stepCall(Task &t, std::vector<Value> &values, std::optional<Value> &done,
                std::vector<Task> &push) {
    auto *c = cast<Call>(t.e);
    auto arg = [&](unsigned k) -> Value & { return values[t.base + k]; };
    if (t.stage == 0) {
      t.stage = 1;
      for (auto it = c->args.rbegin(); it != c->args.rend(); ++it)
        push.push_back({it->get(), t.frame});
      if (!c->getOp())
        push.push_back({c->callee.get(), t.frame}); // evaluated first
      return true;
    }
    Op *op = c->getOp();
    if (!op)
      return stepFunctionCall(t, values, done, push);
    if (c->isOp(kOnDevice)) {
      done = arg(0);
      return true;
    }
    if (c->isOp(kDeviceCopy)) {
      Value to;
      if (!makeValue(c->checkedType.get(), devices.deviceOf(c), describe(c), c->loc, to,
                     Buffer::Kind::Intermediate))
        return false;
      copyInto(arg(0), to, describe(c));
      done = to;
      return true;
    }
    if (!op->def)
      return unsupported(c, "the unknown operator '" + op->name + "'");
    DeviceIndex device = devices.deviceOf(c);
    Value result;
    if (!makeValue(c->checkedType.get(), device, describe(c), c->loc, result,
                   Buffer::Kind::Intermediate))
      return false;
    Step s;
    s.device = device == kNoDevice ? 0 : device;
    s.label = describe(c);
    s.signature = operatorSignature(*c);
    SmallVector<unsigned, 8> ins, outs;
    for (unsigned i = 0; i < c->args.size(); ++i)
      arg(i).flatten(ins);
    result.flatten(outs);
    if (c->isOp("concatenate") && concatInPlace(*c, ins, outs)) {
      done = result;
      return true;
    }
    if (isAlias(*c) && ins.size() == 1 && outs.size() == 1) {
      Buffer &b = x.buffers[outs[0]];
      b.kind = Buffer::Kind::Alias;
      b.index = rootOf(ins[0]);
      s.kind = Step::Kind::Alias;
    } else {
      Backend *backend = x.backends[s.device];
      if (!backend || !backend->supports(*op->def))
        return unsupported(c, "the operator '" + op->name + "' has no kernel for " +
                                  x.devices[s.device]->name());
      Expected<unsigned> k = backend->addKernel(*c);
      if (!k) {
        diags.error(c->loc, toString(k.takeError()));
        return false;
      }
      s.kind = Step::Kind::Kernel;
      s.kernel = *k;
    }
    addStepOver(std::move(s), ins, outs);
    done = result;
    return true;
  }

  /// Makes the parts `ins` of a concatenate views of their slices of its
  /// result `outs[0]`, when they are consecutive slices of it (every dim
  /// before the axis is 1), each starts at an aligned offset, and each part
  /// is an intermediate of the result's device and dtype, or a reshape of
  /// one, that is no other concatenate's part (the view is then the
  /// reshaped buffer's). A part may be an earlier such concatenate's result.
  /// Returns false (a kernel copies them) otherwise.
  bool concatInPlace(const Call &c, ArrayRef<unsigned> ins, ArrayRef<unsigned> outs) {
    if (outs.size() != 1 || ins.empty())
      return false;
    const Buffer &whole = x.buffers[outs[0]];
    if (whole.kind != Buffer::Kind::Intermediate)
      return false;
    const AttrValue *a = c.attrs.get("axis");
    int64_t rank = whole.shape.size(),
            axis = a && a->kind == AttrValue::Kind::Int ? a->intValue : 0;
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank ||
        !llvm::all_of(ArrayRef(whole.shape).take_front(axis), [](int64_t d) { return d == 1; }))
      return false;
    uint64_t at = 0;
    SmallVector<unsigned, 8> parts;
    for (unsigned b : ins) {
      unsigned r = rootOf(b);
      const Buffer &p = x.buffers[r];
      if (p.kind != Buffer::Kind::Intermediate || p.device != whole.device ||
          p.dtype != whole.dtype || p.bytes != x.buffers[b].bytes || at % kBufferAlignment ||
          viewParts.count(r) || llvm::is_contained(parts, r))
        return false;
      parts.push_back(r);
      at += p.bytes;
    }
    if (at != whole.bytes)
      return false;
    at = 0;
    for (unsigned r : parts) {
      x.views.push_back({r, outs[0], at});
      viewParts.insert(r);
      inViews.insert(r);
      at += x.buffers[r].bytes;
    }
    inViews.insert(outs[0]);
    return true;
  }

  /// Adds `s` reading buffers `ins` and writing `outs`.
  void addStepOver(Step s, ArrayRef<unsigned> ins, ArrayRef<unsigned> outs) {
    s.buffers.append(ins.begin(), ins.end());
    s.numInputs = ins.size();
    s.buffers.append(outs.begin(), outs.end());
    addStep(std::move(s));
  }

  bool stepFunctionCall(Task &t, std::vector<Value> &values, std::optional<Value> &done,
                        std::vector<Task> &push) {
    auto *c = cast<Call>(t.e);
    auto arg = [&](unsigned k) -> Value & { return values[t.base + k]; };
    // values[base] is the callee, then the arguments.
    if (t.stage == 1) {
      Value &callee = arg(0);
      if (callee.kind != Value::Kind::Function)
        return unsupported(c, "a call of a function value not known at compile time");
      const Function *f = callee.fn;
      if (f->isPrimitive() && c->callee.get() == f && stepFusedCall(t, values, done))
        return true;
      if (active.count(f))
        return unsupported(c, "a recursive call");
      if (f->params.size() != c->args.size())
        return unsupported(c, "a call with the wrong number of arguments");
      for (size_t i = 0; i < f->params.size(); ++i)
        vars[f->params[i].get()] = arg(i + 1);
      active.insert(f);
      t.stage = 2;
      t.inner = &newFrame(callee.env);
      push.push_back({f->body.get(), t.inner});
      return true;
    }
    active.erase(arg(0).fn);
    done = arg(c->args.size() + 1);
    return true;
  }

  /// A call of a primitive function literal (a fuse-ops group) is one
  /// kernel where the device's backend compiles it; else (an operator the
  /// backend lacks, a body it cannot run as one kernel) the call is
  /// inlined, one step per operator, as if it had not been fused.
  bool stepFusedCall(Task &t, std::vector<Value> &values, std::optional<Value> &done) {
    auto *c = cast<Call>(t.e);
    const auto *f = cast<Function>(c->callee.get());
    DeviceIndex device = devices.deviceOf(c);
    unsigned d = device == kNoDevice ? 0 : device;
    Backend *backend = d < x.backends.size() ? x.backends[d] : nullptr;
    if (!backend)
      return false;
    std::vector<const Call *> members = primitiveCalls(*f);
    std::string label = "fused(";
    for (const Call *m : members) {
      const Op *op = m->getOp();
      if (!op->def || !backend->supports(*op->def))
        return false;
      label += (label.size() > 6 ? "+" : "") + op->name;
    }
    label += ")";
    if (members.size() == 1)
      label = members[0]->getOp()->name;
    Expected<unsigned> k = backend->addKernel(*c);
    if (!k) {
      consumeError(k.takeError());
      return false;
    }
    Value result;
    if (!makeValue(c->checkedType.get(), device, label + where(c), c->loc, result,
                   Buffer::Kind::Intermediate))
      return false;
    Step s;
    s.device = d;
    s.label = label + where(c);
    s.signature = operatorSignature(*c);
    s.kind = Step::Kind::Kernel;
    s.kernel = *k;
    SmallVector<unsigned, 8> ins, outs;
    for (unsigned i = 0; i < c->args.size(); ++i)
      values[t.base + 1 + i].flatten(ins);
    result.flatten(outs);
    addStepOver(std::move(s), ins, outs);
    done = result;
    return true;
  }

  unsigned rootOf(unsigned b) const {
    while (x.buffers[b].kind == Buffer::Kind::Alias)
      b = x.buffers[b].index;
    return b;
  }

  void makeOutputs(const Value &result) {
    SmallVector<unsigned, 8> outs;
    result.flatten(outs);
    DenseSet<unsigned> seen;
    for (unsigned b : outs) {
      Buffer &buf = x.buffers[b];
      // A view or a view's whole lives in the arena: copied out.
      if (buf.kind == Buffer::Kind::Intermediate && !inViews.count(b) && seen.insert(b).second) {
        buf.kind = Buffer::Kind::Output;
        x.outputs.push_back(b);
        continue;
      }
      Buffer copy = buf;
      copy.kind = Buffer::Kind::Output;
      copy.name = "output " + std::to_string(x.outputs.size());
      unsigned nb = newBuffer(std::move(copy));
      Step s;
      s.kind = Step::Kind::Copy;
      s.device = x.buffers[nb].device;
      s.buffers = {b, nb};
      s.numInputs = 1;
      s.label = "output copy";
      addStep(std::move(s));
      x.outputs.push_back(nb);
    }
  }

  Module &m;
  Executable::Impl &x;
  DiagEngine &diags;
  PlannedDevices devices;
  std::deque<Frame> frames;
  DenseMap<const Var *, Value> vars;
  /// One buffer per tensor constant and device.
  DenseMap<std::pair<const TensorData *, DeviceIndex>, Value> tensorConstants;
  DenseSet<const Function *> active;
  /// The buffers of Impl::views: the parts, and the parts and wholes.
  DenseSet<unsigned> viewParts, inViews;
};

} // namespace

bool hx::buildSchedule(Module &m, Executable::Impl &impl, DiagEngine &diags) {
  return ScheduleBuilder(m, impl, diags).run();
}
