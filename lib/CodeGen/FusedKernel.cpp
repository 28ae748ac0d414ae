//===- FusedKernel.cpp - One kernel for a fused group ---------------------===//
//
// A call of a `Primitive=1` function (a group of fuse-ops) is one kernel:
// its buffers are the function's parameters then its result, and every
// value inside lives in registers. The body is a DAG of operator calls over
// the parameters and scalar literals, of one of two kinds:
//
//  - Elementwise and broadcast operators only: one strided nest over the
//    result's shape (LoopNest.h). Each operator's element is evaluated at
//    the point's projection onto its own shape (NumPy broadcasting, aligned
//    on the right), so every parameter read is one strided operand of the
//    nest, loaded once per point however many operators read it:
//
//      fn (%p0, %p1, %p2: Tensor[(8)]) { nn.relu(add(multiply(%p0, %p1), %p2)) }
//        => parallel over rows { for j: out[i,j] = max(p0[i,j]*p1[i,j] + p2[j], 0) }
//
//  - One anchor (nn.conv2d, nn.dense, nn.batch_matmul, a pool, a
//    reduction) reading parameters only, and an elementwise epilogue of the
//    anchor's shape: the anchor's own kernel runs with its result buffer
//    given an epilogue (KernelBuilder::Epilogue), so each sum goes through
//    the epilogue's operators on its way to memory. Where the anchor's
//    store gives the element's coordinates (storeResult), the epilogue's
//    parameter offsets are linear in them; else they come from the flat
//    offset.
//
// The operators' element functions are the ones their own kernels use
// (elementwiseValue, Ops/Elementwise.cpp), and a float16 value is rounded to
// half after each operator as a store would, so a fused kernel computes
// exactly what the unfused calls did, in the same dtypes.
//
//===----------------------------------------------------------------------===//

#include "LoopNest.h"
#include "Ops/OpKernels.h"
#include "hx/IR/Printer.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/OpRegistry.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <map>
#include <optional>

using namespace llvm;

namespace hx {

namespace {
struct FusedOperand {
  enum Kind : uint8_t { Param, Node, Literal } kind = Param;
  unsigned index = 0; // the parameter or the node
  const Constant *literal = nullptr;
};
struct FusedNode {
  KernelSpec spec;
  SmallVector<FusedOperand, 3> operands;
};
} // namespace

struct FusedGroup {
  const Function *fn = nullptr;
  /// Operands before users; the root last.
  std::vector<FusedNode> nodes;
  int anchor = -1;
  /// The nodes the anchor's value depends on (a reduction's prologue).
  std::vector<bool> prologue;
};

bool isFusedCall(const Call &call) {
  auto *f = dyn_cast<Function>(call.callee.get());
  return f && f->isPrimitive();
}

static bool isElementwisePattern(const OpDef &d) {
  return d.pattern == OpPattern::Elementwise || d.pattern == OpPattern::Broadcast;
}

Expected<KernelSpec> describeFusedKernel(const Call &call) {
  const auto *f = cast<Function>(call.callee.get());
  auto bad = [&](const Twine &why) {
    return createStringError("a primitive function " + why + " cannot be one kernel");
  };
  auto group = std::make_shared<FusedGroup>();
  group->fn = f;
  KernelSpec spec;
  spec.call = &call;
  DenseMap<const Var *, unsigned> paramIndex;
  for (unsigned i = 0; i < f->params.size(); ++i) {
    const auto *t = dyn_cast_or_null<TensorType>(f->params[i]->checkedType.get());
    if (!t || !t->isStatic())
      return bad("with a parameter that is not a tensor of static shape");
    paramIndex[f->params[i].get()] = i;
    spec.inputs.push_back(t);
  }
  if (call.args.size() != f->params.size())
    return bad("called with the wrong number of arguments");
  DenseMap<const Call *, unsigned> nodeIndex;
  for (const Call *c : primitiveCalls(*f)) {
    Expected<KernelSpec> s = describeKernel(*c);
    if (!s)
      return s.takeError();
    if (s->outputs.size() != 1)
      return bad("with an operator of several results (" + s->opName() + ")");
    FusedNode node{std::move(*s), {}};
    for (const ExprRef &a : c->args) {
      FusedOperand o;
      if (auto *v = dyn_cast<Var>(a.get()); v && paramIndex.count(v)) {
        o.index = paramIndex[v];
      } else if (auto *ac = dyn_cast<Call>(a.get()); ac && nodeIndex.count(ac)) {
        o.kind = FusedOperand::Node;
        o.index = nodeIndex[ac];
      } else if (auto *k = dyn_cast<Constant>(a.get()); k && !k->isTensor()) {
        o.kind = FusedOperand::Literal;
        o.literal = k;
      } else {
        return bad("whose body is not operator calls over its parameters and literals");
      }
      node.operands.push_back(o);
    }
    if (!isElementwisePattern(*node.spec.def) || (c == f->body.get() && group->nodes.empty())) {
      if (group->anchor >= 0)
        return bad("with two anchors (" + group->nodes[group->anchor].spec.opName() + ", " +
                   node.spec.opName() + ")");
      // Only a reduction reads its operand through a prologue.
      bool reduction = node.spec.def->pattern == OpPattern::CommReduce;
      if (llvm::any_of(node.operands, [&](const FusedOperand &o) {
            return o.kind == FusedOperand::Literal || (o.kind == FusedOperand::Node && !reduction);
          }))
        return bad("whose anchor " + node.spec.opName() + " reads a fused value");
      group->anchor = int(group->nodes.size());
    }
    nodeIndex[c] = unsigned(group->nodes.size());
    group->nodes.push_back(std::move(node));
  }
  if (group->nodes.empty() ||
      nodeIndex.lookup(dyn_cast<Call>(f->body.get())) + 1 != group->nodes.size() ||
      !isa<Call>(f->body.get()))
    return bad("whose result is not an operator call");
  const KernelSpec &root = group->nodes.back().spec;
  spec.outputs.push_back(root.outputs[0]);
  group->prologue.assign(group->nodes.size(), false);
  if (group->anchor >= 0) {
    // The prologue: what the anchor reads, transitively (operands come
    // first, so one backward sweep finds it).
    std::vector<bool> &pro = group->prologue;
    for (const FusedOperand &o : group->nodes[group->anchor].operands)
      if (o.kind == FusedOperand::Node)
        pro[o.index] = true;
    for (unsigned n = unsigned(group->anchor); n-- > 0;)
      if (pro[n])
        for (const FusedOperand &o : group->nodes[n].operands)
          if (o.kind == FusedOperand::Node)
            pro[o.index] = true;
    const Shape &shape = group->nodes[group->anchor].spec.outputs[0]->shape;
    for (unsigned n = 0; n < group->nodes.size(); ++n) {
      if (pro[n] || int(n) == group->anchor)
        continue;
      if (group->nodes[n].spec.outputs[0]->shape != shape)
        return bad("with an epilogue of another shape than its anchor's");
      for (const FusedOperand &o : group->nodes[n].operands)
        if (o.kind == FusedOperand::Node && pro[o.index])
          return bad("whose epilogue reads its prologue");
    }
  }
  spec.fusedName = "fused";
  for (const FusedNode &n : group->nodes)
    if (spec.fusedName.size() < 64)
      spec.fusedName += "_" + n.spec.opName().str();
  spec.fused = std::move(group);
  return spec;
}

/// The strides with which node `n` reads its operand `i`, over n's dims.
static Shape operandStrides(const KernelSpec &n, unsigned i) {
  const TensorType *in = n.inputs[i], *out = n.outputs[0];
  if (n.opName() == "nn.bias_add" && i == 1) {
    // Along its axis; not at all where that dim is 1 (bias_add's result is
    // then broadcast in the group, and its point along the axis is 0).
    Shape s(out->rank(), 0);
    int64_t axis = n.getInt("axis");
    axis = axis < 0 ? axis + int64_t(out->rank()) : axis;
    s[axis] = out->shape[axis] == 1 ? 0 : 1;
    return s;
  }
  return broadcastStrides(in->shape, out->shape);
}

/// Strides over n's dims as strides over the root's (n's value at a root
/// point is its value at the point's projection, aligned on the right).
static Shape rootStrides(const Shape &strides, size_t rootRank) {
  Shape r(rootRank, 0);
  size_t lead = rootRank - strides.size();
  for (size_t d = lead; d < rootRank; ++d)
    r[d] = strides[d - lead];
  return r;
}

namespace {
/// The values of one point of part of a fused group: the nodes `members`
/// says, evaluated at a point of `shape` (each at the point's projection
/// onto its own shape); `anchor`, if it is among them, is given.
class PointEvaluator {
public:
  PointEvaluator(KernelBuilder &kb, const FusedGroup &g, std::vector<bool> members,
                 ArrayRef<int64_t> shape, unsigned result)
      : kb(kb), g(g), members(std::move(members)), result(result) {
    size_t rank = shape.size();
    for (unsigned k = 0; k < g.nodes.size(); ++k) {
      const FusedNode &n = g.nodes[k];
      SmallVector<int, 3> at;
      for (unsigned i = 0; i < n.operands.size(); ++i) {
        // The anchor reads its operands itself.
        if (!this->members[k] || n.operands[i].kind != FusedOperand::Param || int(k) == g.anchor) {
          at.push_back(-1);
          continue;
        }
        auto key =
            std::make_pair(n.operands[i].index, rootStrides(operandStrides(n.spec, i), rank));
        auto [it, fresh] = readIndex.try_emplace(key, unsigned(reads.size()));
        if (fresh)
          reads.push_back(key);
        at.push_back(int(it->second));
      }
      readOf.push_back(std::move(at));
    }
  }

  /// The distinct parameter reads: (parameter, strides over the point's
  /// shape).
  ArrayRef<std::pair<unsigned, Shape>> paramReads() const { return reads; }

  /// The result node's value at a point, given each read's loaded value
  /// and, where the anchor is a member, its value.
  Value *evaluate(ArrayRef<Value *> readValues, Value *anchorValue) {
    SmallVector<Value *, 16> values(g.nodes.size(), nullptr);
    for (unsigned n = 0; n <= result; ++n) {
      if (!members[n])
        continue;
      const FusedNode &node = g.nodes[n];
      if (int(n) == g.anchor) {
        values[n] = anchorValue;
        continue;
      }
      SmallVector<Value *, 3> x;
      for (unsigned i = 0; i < node.operands.size(); ++i) {
        const FusedOperand &o = node.operands[i];
        if (o.kind == FusedOperand::Node)
          x.push_back(values[o.index]);
        else if (o.kind == FusedOperand::Literal)
          x.push_back(isFloat(o.literal->dtype)
                          ? kb.constant(o.literal->dtype, o.literal->floatValue)
                          : kb.constantInt(o.literal->dtype, o.literal->intValue));
        else
          x.push_back(readValues[readOf[n][i]]);
      }
      values[n] = elementwiseValue(kb, node.spec, x);
      // float16 is computed in float32: round as the operator's own kernel
      // does when it stores, so that fused and unfused agree.
      DType ot = node.spec.outputs[0]->dtype;
      if (ot == DType::Float16 || ot == DType::BFloat16)
        values[n] = kb.cast(values[n], DType::Float32, ot);
    }
    return values[result];
  }

private:
  KernelBuilder &kb;
  const FusedGroup &g;
  std::vector<bool> members;
  unsigned result;
  std::map<std::pair<unsigned, Shape>, unsigned> readIndex;
  std::vector<std::pair<unsigned, Shape>> reads;
  std::vector<SmallVector<int, 3>> readOf;
};

/// Loads each of `reads` (a parameter, its strides over a point of
/// `shape`) at the point whose row-major offset is `offset` and whose
/// coordinates are `coords` where known (else derived from the offset once):
/// one element each, or with `lanes` > 1 the point's `lanes` consecutive
/// points along the last dim (a stride of 0 there splats one element; the
/// caller checks that every stride there is 0 or 1, and float32).
SmallVector<Value *, 8> loadReads(KernelBuilder &kb, const KernelSpec &spec,
                                  ArrayRef<std::pair<unsigned, Shape>> reads,
                                  ArrayRef<int64_t> shape, Value *offset, ArrayRef<Value *> coords,
                                  unsigned lanes = 1) {
  Shape contiguous = contiguousStrides(shape);
  SmallVector<Value *, 4> at(coords.begin(), coords.end());
  SmallVector<Value *, 8> loaded;
  for (const auto &[param, strides] : reads) {
    Value *off;
    if (ArrayRef<int64_t>(strides) == ArrayRef<int64_t>(contiguous)) {
      off = offset;
    } else {
      if (at.size() != shape.size())
        at = kb.unflatten(offset, shape);
      off = kb.linearOffset(at, strides);
    }
    DType t = spec.inputs[param]->dtype;
    Value *ptr = kb.buffer(spec.inputBuffer(param));
    if (lanes == 1)
      loaded.push_back(kb.load(t, ptr, off));
    else
      loaded.push_back(strides.back() == 0 ? kb.splat(kb.load(t, ptr, off), lanes)
                                           : kb.loadVector(t, ptr, off, lanes));
  }
  return loaded;
}
} // namespace

/// Whether an anchor's epilogue (`members`) can run on vectors of float32
/// along the result's innermost dim: float32 throughout, no operator with
/// bool or integer values, and every parameter read with a stride of 0 (one
/// value, splat) or 1 (consecutive values) along that dim.
static bool hasVectorForm(const KernelSpec &spec, const std::vector<bool> &members,
                          ArrayRef<std::pair<unsigned, Shape>> reads) {
  const FusedGroup &g = *spec.fused;
  if (spec.outputs[0]->dtype != DType::Float32 || spec.outputs[0]->rank() == 0)
    return false;
  for (unsigned n = 0; n < g.nodes.size(); ++n) {
    const KernelSpec &s = g.nodes[n].spec;
    if (!members[n])
      continue;
    if (s.outputs[0]->dtype != DType::Float32)
      return false;
    if (int(n) == g.anchor)
      continue;
    if (llvm::any_of(s.inputs, [](const TensorType *t) { return t->dtype != DType::Float32; }) ||
        s.opName() == "where" || s.opName() == "cast")
      return false;
  }
  return llvm::all_of(reads, [](const auto &r) { return r.second.back() <= 1; });
}

Error emitFusedKernel(KernelBuilder &kb, const KernelSpec &spec) {
  const FusedGroup &g = *spec.fused;
  for (unsigned n = 0; n < g.nodes.size(); ++n)
    if (int(n) != g.anchor)
      if (Error e = checkElementwiseValue(kb, g.nodes[n].spec))
        return e;
  const TensorType *out = spec.outputs[0];
  unsigned result = spec.outputBuffer(0);
  unsigned last = unsigned(g.nodes.size() - 1);

  if (g.anchor < 0) {
    for (const FusedNode &n : g.nodes)
      if (n.spec.outputs[0]->rank() > out->rank())
        return unsupported(kb, spec, "a member of higher rank than the result");
    PointEvaluator eval(kb, g, std::vector<bool>(g.nodes.size(), true), out->shape, last);
    ArrayRef<std::pair<unsigned, Shape>> reads = eval.paramReads();
    SmallVector<StridedOperand, 8> views{{contiguousStrides(out->shape), 0}};
    for (const auto &r : reads)
      views.push_back({r.second, 0});
    int64_t work = 4 * int64_t(g.nodes.size());
    emitStridedLoops(kb, out->shape, views, work, [&](ArrayRef<Value *> off) {
      SmallVector<Value *, 8> loaded;
      for (unsigned i = 0; i < reads.size(); ++i)
        loaded.push_back(kb.load(spec.inputs[reads[i].first]->dtype,
                                 kb.buffer(spec.inputBuffer(reads[i].first)), off[i + 1]));
      kb.store(out->dtype, kb.buffer(result), off[0], eval.evaluate(loaded, nullptr));
    });
    return Error::success();
  }

  // The anchor's kernel (alone, for a group of one call: the operator's own
  // kernel), its result going through the epilogue and an operand computed
  // by a prologue through that.
  const FusedNode &anchor = g.nodes[g.anchor];
  KernelSpec a = anchor.spec;
  a.resultBufferBase = result;
  std::optional<unsigned> fromPrologue; // the anchor's operand the prologue computes
  for (const FusedOperand &o : anchor.operands) {
    if (o.kind == FusedOperand::Node) {
      // Its loads go to the result buffer's pointer, which the anchor never
      // reads otherwise, and the prologue hook answers them.
      fromPrologue = o.index;
      a.operandBuffers.push_back(result);
      a.operandSources.push_back(nullptr);
      continue;
    }
    a.operandBuffers.push_back(spec.inputBuffer(o.index));
    a.operandSources.push_back(spec.call->args[o.index].get());
  }
  if (g.nodes.size() == 1)
    return emitKernel(kb, a);

  std::vector<bool> epiMembers(g.nodes.size());
  for (unsigned n = 0; n < g.nodes.size(); ++n)
    epiMembers[n] = !g.prologue[n];
  PointEvaluator eval(kb, g, epiMembers, out->shape, last);
  ArrayRef<std::pair<unsigned, Shape>> reads = eval.paramReads();
  KernelBuilder::Epilogue epi;
  epi.buffer = result;
  epi.storeType = out->dtype;
  for (unsigned n = 0; n < g.nodes.size(); ++n)
    epi.math |= epiMembers[n] && int(n) != g.anchor && elementwiseIsMath(g.nodes[n].spec);
  epi.apply = [&](Value *offset, ArrayRef<Value *> coords, Value *v) {
    return eval.evaluate(loadReads(kb, spec, reads, out->shape, offset, coords), v);
  };
  if (hasVectorForm(spec, epiMembers, reads)) {
    epi.applyVector = [&](Value *offset, ArrayRef<Value *> coords, Value *v) {
      unsigned lanes = cast<FixedVectorType>(v->getType())->getNumElements();
      SmallVector<Value *, 8> loaded =
          loadReads(kb, spec, reads, out->shape, offset, coords, lanes);
      kb.setConstantLanes(lanes);
      Value *r = eval.evaluate(loaded, v);
      kb.setConstantLanes(1);
      return r;
    };
    int64_t rank = int64_t(out->rank()), width = rank ? out->shape.back() : 1;
    epi.vectorSpansRows = rank >= 2 && llvm::all_of(reads, [&](const auto &r) {
                            ArrayRef<int64_t> s = r.second;
                            return (s[rank - 1] == 0 && s[rank - 2] == 0) ||
                                   (s[rank - 1] == 1 && s[rank - 2] == width);
                          });
  }
  std::optional<PointEvaluator> pro;
  if (fromPrologue) {
    const TensorType *in = g.nodes[*fromPrologue].spec.outputs[0];
    pro.emplace(kb, g, g.prologue, in->shape, *fromPrologue);
    KernelBuilder::Prologue p;
    p.buffer = result;
    p.apply = [&, in](Value *offset) {
      return pro->evaluate(loadReads(kb, spec, pro->paramReads(), in->shape, offset, {}), nullptr);
    };
    kb.setPrologue(std::move(p));
  }
  kb.setEpilogue(std::move(epi));
  Error e = emitKernel(kb, a);
  kb.setEpilogue({});
  kb.setPrologue({});
  if (e)
    return e;
  if (kb.epilogueStores() == 0 && numElements(out->shape) != 0)
    return unsupported(kb, spec,
                       "an anchor (" + a.opName() + ") that does not store through its result");
  return Error::success();
}

std::string fusedKernelSignature(const Call &call, bool withBuildTimeOperands) {
  std::string sig;
  raw_string_ostream os(sig);
  const auto *f = cast<Function>(call.callee.get());
  DenseMap<const Expr *, std::string> name;
  for (unsigned i = 0; i < f->params.size(); ++i)
    name[f->params[i].get()] = "%p" + std::to_string(i);
  os << "fused {";
  for (const Call *c : primitiveCalls(*f)) {
    std::string self = "%" + std::to_string(name.size());
    os << ' ' << self << " = " << kernelSignature(*c) << " of";
    for (unsigned i = 0; i < c->args.size(); ++i) {
      const Expr *a = c->args[i].get();
      if (auto *k = dyn_cast<Constant>(a); k && !k->isTensor()) {
        os << ' ' << dtypeName(k->dtype) << ':';
        if (isFloat(k->dtype))
          os << format("%.17g", k->floatValue);
        else
          os << k->intValue;
      } else
        os << ' ' << name.lookup(a);
      if (auto *v = dyn_cast<Var>(a); v && withBuildTimeOperands)
        for (unsigned p = 0; p < f->params.size(); ++p)
          if (f->params[p].get() == v)
            if (const TensorData *t = buildTimeOperand(*c, i, call.args[p].get()))
              os << " $" << format_hex(xxh3_64bits(t->bytes), 18) << ':' << t->bytes.size();
    }
    os << ';';
    name[c] = self;
  }
  os << " }";
  for (const ExprRef &a : call.args) {
    os << ' ';
    if (a->checkedType)
      printType(os, a->checkedType.get());
  }
  return sig;
}

} // namespace hx
