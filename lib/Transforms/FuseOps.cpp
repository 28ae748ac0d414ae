//===- FuseOps.cpp - Operator calls grouped into primitive functions -------===//
//
// `fuse-ops` (TVM's FuseOps) groups operator calls that can run as one
// kernel into `Primitive=1` functions, by each operator's fusion class
// (OpDef::pattern):
//
//  - elementwise and broadcast calls chain: a call joins the groups of its
//    operands, so relu(add(multiply(%x, %y), %z)) is one group;
//  - an out-elementwise-fusable call (nn.conv2d, nn.dense,
//    nn.batch_matmul, the pools) or a commutative reduction anchors a group
//    and takes an elementwise epilogue of its own result's shape (bias_add,
//    the add of a residual, relu, clip, a folded batch_norm's multiply and
//    add); a reduction also takes in the elementwise group that computes its
//    operand (a prologue: sum(exp(x)));
//  - everything else (injective and opaque operators, device annotations,
//    calls of functions) stays a call of its own.
//
// A call joins an operand's group where that operand's one user is the call,
// and a group whose root's users all lie in one other group joins it (GELU
// reads x three times): no value used outside a group is lost, and since
// every member but the root has all its users inside, no group can close a
// cycle. Groups
// never cross a device boundary: on_device and device_copy are never
// members, and in a planned module an edge between devices goes through one
// of them. Nothing inside a fn literal is looked at (an existing primitive
// function stays as it is), so a second run changes nothing. A group of one
// call is left as it was.
//
//   %0 = multiply(%x, %y);
//   %1 = add(%0, %z);
//   nn.relu(%1)
// becomes
//   %0 = fn (%p0: T, %p1: T, %p2: Tensor[(8), float32], Primitive=1) -> T {
//     %1 = multiply(%p0, %p1);
//     %2 = add(%1, %p2);
//     nn.relu(%2)
//   };
//   %0(%x, %y, %z)
//
// The parameters are the group's operands from outside in order of first
// use; scalar literals (`2f`) stay in the body, where a kernel can
// specialize on them, and so do rank-0 tensor constants of float32,
// float64, the signed integers and bool (ONNX's scalar initializers), as
// the literals of their value: `power(%x, 3f)` is then x*x*x. In a planned module (the defs have result devices)
// the new function and its parameters get the group's device, so that
// plan-devices leaves the fused module unchanged; it does not look into a
// primitive function's body. The pass needs types (infer-type first) and
// keeps them; it runs without recursion on the IR's depth.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/DeviceAware.h"
#include "hx/IR/Rewrite.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Pass/Pass.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/SourceMgr.h"
#include <algorithm>
#include <cstring>

using namespace hx;
using namespace llvm;

namespace {

/// At most this many calls per group (TVM's limit is 256 too), which keeps
/// every kernel's code small.
constexpr size_t kMaxGroupSize = 256;

enum class Role : uint8_t { None, Elementwise, Anchor };

/// A rank-0 tensor constant as the scalar literal of its value (typed as
/// it), for the dtypes a literal holds exactly; null for anything else.
ExprRef scalarLiteralOf(const Expr *e) {
  auto *k = dyn_cast<Constant>(e);
  if (!k || !k->isTensor() || !k->tensor->shape.empty())
    return nullptr;
  const std::vector<uint8_t> &bytes = k->tensor->bytes;
  auto read = [&](auto v) {
    std::memcpy(&v, bytes.data(), sizeof(v));
    return v;
  };
  auto lit = make<Constant>(k->dtype, k->loc);
  switch (k->dtype) {
  case DType::Float32:
    lit->floatValue = read(float());
    break;
  case DType::Float64:
    lit->floatValue = read(double());
    break;
  case DType::Int32:
    lit->intValue = read(int32_t());
    break;
  case DType::Int64:
    lit->intValue = read(int64_t());
    break;
  case DType::Bool:
    lit->intValue = read(uint8_t()) != 0;
    break;
  default:
    return nullptr;
  }
  lit->checkedType = k->checkedType;
  return lit;
}

const TensorType *staticTensor(const Expr *e) {
  const auto *t = dyn_cast_or_null<TensorType>(e->checkedType.get());
  return t && t->isStatic() ? t : nullptr;
}

Role roleOf(const Call &c) {
  const Op *op = c.getOp();
  const OpDef *def = op ? (op->def ? op->def : lookupOp(op->name)) : nullptr;
  if (!def || c.isOp(kOnDevice) || c.isOp(kDeviceCopy) || !staticTensor(&c))
    return Role::None;
  for (const ExprRef &a : c.args) {
    auto *k = dyn_cast<Constant>(a.get());
    if (!staticTensor(a.get()) && !(k && !k->isTensor()))
      return Role::None;
  }
  switch (def->pattern) {
  case OpPattern::Elementwise:
  case OpPattern::Broadcast:
    return Role::Elementwise;
  case OpPattern::OutElementwiseFusable:
  case OpPattern::CommReduce:
    return Role::Anchor;
  default:
    return Role::None;
  }
}

struct Group {
  Call *root = nullptr;
  Call *anchor = nullptr; // null for a group of elementwise calls only
  SmallVector<Call *, 4> members;
  bool alive = true;
};

class FuseOpsPass : public Pass {
public:
  StringRef getArgument() const override { return "fuse-ops"; }
  StringRef getDescription() const override {
    return "Group operator calls into Primitive=1 functions, each run as one kernel";
  }
  bool run(Module &m, PassContext &ctx) override;

private:
  void fuseDef(Function &fn, const PlannedDevices *devices);
};

/// The top-level DAG of `root`: operands before users, fn literals as
/// leaves (their bodies are scopes of their own).
std::vector<Expr *> topLevelOrder(Expr *root, DenseMap<Expr *, unsigned> &index) {
  std::vector<Expr *> order;
  SmallVector<std::pair<Expr *, bool>, 64> stack{{root, false}};
  SmallVector<Expr *, 4> ops;
  while (!stack.empty()) {
    auto [e, expanded] = stack.pop_back_val();
    if (expanded) {
      if (!index.count(e)) {
        index[e] = unsigned(order.size());
        order.push_back(e);
      }
      continue;
    }
    if (index.count(e))
      continue;
    stack.push_back({e, true});
    if (isa<Function>(e))
      continue;
    ops.clear();
    getOperands(e, ops);
    for (auto it = ops.rbegin(); it != ops.rend(); ++it)
      if (!index.count(*it))
        stack.push_back({*it, false});
  }
  return order;
}

void FuseOpsPass::fuseDef(Function &fn, const PlannedDevices *devices) {
  DenseMap<Expr *, unsigned> index;
  std::vector<Expr *> order = topLevelOrder(fn.body.get(), index);

  // The one expression that uses each node (null: several, or the
  // function's result).
  DenseMap<Expr *, Expr *> user;
  SmallVector<Expr *, 4> ops;
  for (Expr *e : order) {
    if (isa<Function>(e))
      continue;
    ops.clear();
    getOperands(e, ops);
    for (Expr *o : ops) {
      auto [it, fresh] = user.try_emplace(o, e);
      if (!fresh && it->second != e)
        it->second = nullptr;
    }
  }
  user[fn.body.get()] = nullptr;

  std::vector<Group> groups;
  DenseMap<Call *, unsigned> groupOf;
  auto sameShape = [](const Expr *a, const Expr *b) {
    return staticTensor(a)->shape == staticTensor(b)->shape;
  };
  for (Expr *e : order) {
    auto *c = dyn_cast<Call>(e);
    Role role = c ? roleOf(*c) : Role::None;
    if (role == Role::None)
      continue;
    if (role == Role::Anchor) {
      // A reduction takes in the elementwise group that computes its
      // operand, when it is that group's one user (a prologue).
      auto *in = c->args.empty() ? nullptr : dyn_cast<Call>(c->args[0].get());
      auto it = in ? groupOf.find(in) : groupOf.end();
      const OpDef *def = c->getOp()->def ? c->getOp()->def : lookupOp(c->getOp()->name);
      if (def->pattern == OpPattern::CommReduce && it != groupOf.end() &&
          groups[it->second].root == in && !groups[it->second].anchor && user.lookup(in) == c &&
          groups[it->second].members.size() < kMaxGroupSize) {
        Group &g = groups[it->second];
        g.members.push_back(c);
        g.root = g.anchor = c;
        groupOf[c] = it->second;
        continue;
      }
      groupOf[c] = unsigned(groups.size());
      groups.push_back({c, c, {c}, true});
      continue;
    }
    // The groups whose root is an operand used by `c` alone.
    SmallVector<unsigned, 4> cands;
    for (unsigned i = 0; i < c->args.size(); ++i) {
      // bias_add reads its bias along an axis, not as the point's
      // projection: a bias computed in the group would be read wrongly.
      if (c->isOp("nn.bias_add") && i == 1)
        continue;
      auto *ac = dyn_cast<Call>(c->args[i].get());
      auto it = ac ? groupOf.find(ac) : groupOf.end();
      if (it == groupOf.end() || groups[it->second].root != ac || user.lookup(ac) != c)
        continue;
      if (!llvm::is_contained(cands, it->second))
        cands.push_back(it->second);
    }
    // One anchor per group: its epilogue keeps the anchor's shape.
    std::optional<unsigned> into;
    for (unsigned g : cands)
      if (groups[g].anchor && !into && sameShape(c, groups[g].anchor))
        into = g;
    size_t size = 1;
    SmallVector<unsigned, 4> merged;
    for (unsigned g : cands) {
      if (into && g == *into)
        continue;
      if (groups[g].anchor)
        continue;
      if (into && !llvm::all_of(groups[g].members,
                                [&](Call *x) { return sameShape(x, groups[*into].anchor); }))
        continue;
      merged.push_back(g);
    }
    if (!into && !merged.empty())
      into = merged[0];
    if (into) {
      size = groups[*into].members.size() + 1;
      for (unsigned g : merged)
        size += g == *into ? 0 : groups[g].members.size();
    }
    if (!into || size > kMaxGroupSize) {
      groupOf[c] = unsigned(groups.size());
      groups.push_back({c, nullptr, {c}, true});
      continue;
    }
    Group &g = groups[*into];
    for (unsigned o : merged) {
      if (o == *into)
        continue;
      for (Call *x : groups[o].members) {
        g.members.push_back(x);
        groupOf[x] = *into;
      }
      groups[o].alive = false;
      groups[o].members.clear();
    }
    g.members.push_back(c);
    g.root = c;
    groupOf[c] = *into;
  }

  // A group whose root has several users, all in one other group (GELU's
  // x, read by three calls of one chain), joins that group: every edge out
  // of it then ends inside, so no cycle can form. Consumers first, so that
  // a group joins where its users finally are.
  DenseMap<Expr *, SmallVector<Expr *, 2>> usersOf;
  for (Expr *e : order) {
    if (isa<Function>(e))
      continue;
    ops.clear();
    getOperands(e, ops);
    for (Expr *o : ops)
      if (!llvm::is_contained(usersOf[o], e))
        usersOf[o].push_back(e);
  }
  SmallVector<unsigned, 16> byRoot;
  for (unsigned g = 0; g < groups.size(); ++g)
    if (groups[g].alive)
      byRoot.push_back(g);
  llvm::sort(byRoot,
             [&](unsigned a, unsigned b) { return index[groups[a].root] > index[groups[b].root]; });
  for (unsigned gi : byRoot) {
    Group &g = groups[gi];
    if (!g.alive || g.root == fn.body.get())
      continue;
    std::optional<unsigned> into;
    bool ok = true;
    for (Expr *u : usersOf.lookup(g.root)) {
      auto *uc = dyn_cast<Call>(u);
      auto it = uc ? groupOf.find(uc) : groupOf.end();
      if (it == groupOf.end() || it->second == gi || (into && *into != it->second) ||
          groups[it->second].anchor == uc ||
          (uc->isOp("nn.bias_add") && uc->args.size() > 1 && uc->args[1].get() == g.root)) {
        ok = false;
        break;
      }
      into = it->second;
    }
    if (!ok || !into)
      continue;
    Group &h = groups[*into];
    if (g.anchor && h.anchor)
      continue;
    Call *anchor = g.anchor ? g.anchor : h.anchor;
    if (anchor && !llvm::all_of(g.anchor ? h.members : g.members,
                                [&](Call *x) { return sameShape(x, anchor); }))
      continue;
    if (g.members.size() + h.members.size() > kMaxGroupSize)
      continue;
    for (Call *x : g.members) {
      h.members.push_back(x);
      groupOf[x] = *into;
    }
    h.anchor = anchor;
    g.alive = false;
    g.members.clear();
  }

  // Build one primitive function per group of two or more calls.
  DenseMap<Expr *, Group *> groupAt; // root -> group
  for (Group &g : groups)
    if (g.alive && g.members.size() > 1) {
      llvm::sort(g.members, [&](Call *a, Call *b) { return index[a] < index[b]; });
      groupAt[g.root] = &g;
    }
  if (groupAt.empty())
    return;

  DenseMap<Expr *, ExprRef> rewritten;
  fn.body = rewritePostOrder(fn.body.get(), [&](Expr *old, ArrayRef<ExprRef> newOps) -> ExprRef {
    ExprRef now;
    auto it = groupAt.find(old);
    if (it == groupAt.end()) {
      now = withOperands(old, newOps);
    } else {
      Group &g = *it->second;
      DenseMap<Expr *, ExprRef> inside; // member or outside operand -> body value
      DenseMap<Call *, bool> member;
      for (Call *x : g.members)
        member[x] = true;
      std::vector<Ref<Var>> params;
      SmallVector<ExprRef, 4> args;
      DeviceIndex dev = devices ? devices->deviceOf(g.root) : kNoDevice;
      for (Call *x : g.members) {
        SmallVector<ExprRef, 2> xs;
        for (const ExprRef &a : x->args) {
          Expr *ae = a.get();
          if (auto *ac = dyn_cast<Call>(ae); ac && member.lookup(ac)) {
            xs.push_back(inside[ae]);
            continue;
          }
          if (auto *k = dyn_cast<Constant>(ae); k && !k->isTensor()) {
            xs.push_back(a);
            continue;
          }
          if (ExprRef lit = scalarLiteralOf(ae)) {
            xs.push_back(lit);
            continue;
          }
          auto [pit, fresh] = inside.try_emplace(ae);
          if (fresh) {
            auto p = make<Var>("p" + std::to_string(params.size()), ae->checkedType, x->loc);
            p->checkedType = ae->checkedType;
            p->device = dev;
            pit->second = p;
            params.push_back(p);
            auto rit = rewritten.find(ae);
            args.push_back(rit != rewritten.end() ? rit->second : a);
          }
          xs.push_back(pit->second);
        }
        auto clone = make<Call>(x->callee, std::move(xs), x->attrs, x->loc);
        clone->checkedType = x->checkedType;
        inside[x] = clone;
      }
      auto f = make<Function>(std::move(params), inside[g.root], g.root->checkedType, g.root->loc);
      f->attrs.set("Primitive", AttrValue::ofInt(1));
      f->resultDevice = dev;
      std::vector<TypeRef> paramTypes;
      for (const Ref<Var> &p : f->params)
        paramTypes.push_back(p->checkedType);
      f->checkedType = make<FuncType>(std::move(paramTypes), g.root->checkedType);
      auto call = make<Call>(f, std::move(args), Attrs(), g.root->loc);
      call->checkedType = g.root->checkedType;
      now = call;
    }
    rewritten[old] = now;
    return now;
  });
}

bool FuseOpsPass::run(Module &m, PassContext &) {
  // A planned module (every def has its result device) gets devices on
  // the new functions too; read them before anything changes.
  bool planned = !m.defs.empty() && llvm::all_of(m.defs, [](const Module::Def &d) {
    return d.fn->resultDevice != kNoDevice;
  });
  std::optional<PlannedDevices> devices;
  if (planned) {
    SourceMgr sm;
    DiagEngine quiet(sm);
    quiet.setHandler([](const Diagnostic &) {});
    devices.emplace();
    // A module that says it is planned but does not read as one is left
    // as it is: a function without its device would make it unplanned.
    if (!readPlannedDevices(m, quiet, *devices, "fuse-ops"))
      return true;
  }
  for (Module::Def &d : m.defs)
    fuseDef(*d.fn, devices ? &*devices : nullptr);
  return true;
}

} // namespace

std::unique_ptr<Pass> hx::createFuseOpsPass() { return std::make_unique<FuseOpsPass>(); }
