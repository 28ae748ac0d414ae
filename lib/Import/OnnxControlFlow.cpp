//===- OnnxControlFlow.cpp - Converters of ONNX control flow --------------===//
//
// If: its branches are subgraphs without inputs that read the enclosing
// graphs' values by name. A condition known at import time (a constant or a
// folded shape computation) imports the taken branch
// only, inline, as if its nodes stood in the graph: the branch not taken is
// never read, so it may hold what hx cannot import. Otherwise both branches
// are imported and become hx's `if`, whose branches are the expressions of
// their outputs (a tuple for several, projected after the `if`). An
// expression only a branch uses is evaluated only when that branch runs
// (the executor's conditional steps, docs/execution.md); both branches must
// give one type, as in Relay.
//
// Loop: unrolled at import, as TVM's frontend unrolls what it can: the trip
// count must be known at import time (at most kMaxUnroll), and the
// condition must be known after every iteration (absent, a constant, or
// folded from what is known); a condition that turns false ends the loop
// there. Each iteration imports the body once more, its inputs bound to the
// iteration number, the condition and the carried values, and its names
// forgotten after (Importer::importSubgraph); the scan outputs of the
// iterations are stacked along a new first axis. A Loop of no iteration
// with scan outputs is imported as a while loop (below): its body, imported
// once, gives their shapes, and the run gives them empty.
//
// A Loop whose count or condition only the run knows (a while loop) becomes
// a recursive global, as Relay writes loops, which the executor runs as a
// loop (docs/execution.md):
//
//   def @loop0(%iter: int64, %max: int64, %cond: bool, %state0: T0, ...,
//              %capture0: C0, ...) -> (T0, ...) {
//     if (logical_and(less(%iter, %max), %cond)) {
//       <the body, once>;
//       @loop0(add(%iter, 1i64), %max, <its condition>, <its carried values>,
//              %capture0, ...)
//     } else {
//       (%state0, ...)
//     }
//   }
//
// called with 0, the trip count (no %max without one), the condition (true
// without one) and the initial values. The values of the enclosing graphs
// the body reads by name are parameters too (%capture*), passed through
// unchanged; those known at import stay constants. The carried values and
// the captured ones need shapes known at import, the same on every
// iteration. A scan output, whose length only the run knows, is an
// accumulator after the captures, as TVM's frontend builds one:
//
//   %scan0: Tensor[(?, d...), T], empty (0, d...) at the call,
//   concatenate((%scan0, expand_dims(<the iteration's slice>, axis=0)))
//
// returned after the carried values (the executor builds the loop for each
// length it reaches, hx/Run/Stages.h).
//
// Scan: unrolled at import as well, one iteration per element of the scan
// inputs' axis (their common length, known at import time, at most
// kMaxUnroll): the body gets the state values and each scan input's slice
// at the iteration (`take` at the index, from the end for a reverse
// direction), and the scan outputs of the iterations are stacked along
// their scan_output_axes (in reverse order for a reverse direction).
//
// Subgraphs nest (an If in a branch, a Loop or Scan in a body), each
// nesting a recursion of the importer, so checkBeforeOnnx bounds the
// nesting (kMaxSubgraphDepth).
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include "llvm/ADT/StringSet.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

Error ifNode(NodeCtx &ctx) {
  TRY(cond, ctx.required(0));
  const onnx::GraphProto *branches[] = {ctx.getGraph("then_branch"), ctx.getGraph("else_branch")};
  if (!branches[0] || !branches[1])
    return ctx.error("then_branch and else_branch are required");
  size_t outputs = size_t(ctx.node.output_size());
  for (const onnx::GraphProto *g : branches)
    if (size_t(g->output_size()) != outputs)
      return ctx.error("branch '" + g->name() + "' has " + Twine(g->output_size()) +
                       " outputs; the node has " + Twine(outputs));
  if (cond->dtype != DType::Bool)
    return ctx.error("the condition must be a bool tensor, not " + dtypeName(cond->dtype));
  if (cond->dims && elementCount(*cond->dims) != 1)
    return ctx.error("the condition must have one element, got shape " + listText(*cond->dims));

  // Known at import time: a constant or a folded value (a graph input
  // stays a parameter, its branch chosen at run time).
  if (const HostTensor *known = cond->constant.get()) {
    if (known->numElements() != 1)
      return ctx.error("the condition must have one element");
    TRY(outs, ctx.imp.importSubgraph(*branches[known->getDouble(0) != 0 ? 0 : 1]));
    for (size_t i = 0; i < outputs; ++i)
      ctx.alias(i, outs[i]);
    return Error::success();
  }

  std::vector<OnnxValue> outs[2];
  for (int b = 0; b < 2; ++b) {
    TRY(o, ctx.imp.importSubgraph(*branches[b]));
    outs[b] = std::move(o);
  }
  // Exporters write an empty result of another rank in the branch that
  // finds nothing (torchvision's `torch.empty((0,))` beside boxes of
  // (n, 4)): an empty constant takes the other branch's rank, its `?` dims
  // (or its first) 0.
  for (size_t i = 0; i < outputs; ++i)
    for (int b = 0; b < 2; ++b) {
      OnnxValue &v = outs[b][i], &other = outs[1 - b][i];
      if (!v.constant || v.constant->numElements() != 0 || !v.dims || !other.dims ||
          v.dims->size() == other.dims->size() || other.dims->empty())
        continue;
      Dims d = *other.dims;
      if (llvm::none_of(d, [](int64_t x) { return x <= 0; }))
        d[0] = 0;
      for (int64_t &x : d)
        x = std::max<int64_t>(x, 0);
      v.expr = ctx.constant(HostTensor(v.constant->dtype(), d));
      v.constant = nullptr;
      v.dims = d;
    }
  ExprRef results[2];
  for (int b = 0; b < 2; ++b) {
    SmallVector<ExprRef, 4> fields;
    for (OnnxValue &v : outs[b])
      fields.push_back(ctx.use(v));
    results[b] = fields.size() == 1 ? fields[0] : ctx.tuple(fields);
  }
  ExprRef c = ctx.use(*cond);
  if (rankOf(*cond) != 0)
    c = reshapeTo(ctx, c, {});
  ExprRef r = ctx.ifExpr(c, results[0], results[1]);
  if (outputs == 1) {
    ctx.setOutput(0, r);
    return Error::success();
  }
  for (size_t i = 0; i < outputs; ++i)
    ctx.setOutput(i, ctx.getItem(r, unsigned(i)));
  return Error::success();
}

/// The most iterations a Loop is unrolled to, and the most nodes every
/// unrolled Loop of a model may import together (nested Loops multiply).
constexpr int64_t kMaxUnroll = 256;
constexpr int64_t kMaxUnrolledNodes = int64_t(1) << 16;

/// A scalar known at import time, as a value.
OnnxValue scalarValue(HostTensor t) {
  OnnxValue v;
  v.dtype = t.dtype();
  v.dims = Dims{};
  v.constant = std::make_shared<const HostTensor>(std::move(t));
  return v;
}

/// The names a graph's nodes (and its subgraphs') read that none of them,
/// nor an input or initializer, defines: what it reads of the graphs
/// around it. Sorted.
std::vector<std::string> namesRead(const onnx::GraphProto &g) {
  StringSet<> reads, defined;
  SmallVector<const onnx::GraphProto *, 4> work{&g};
  while (!work.empty()) {
    const onnx::GraphProto *cur = work.pop_back_val();
    for (const onnx::ValueInfoProto &i : cur->input())
      defined.insert(i.name());
    for (const onnx::TensorProto &t : cur->initializer())
      defined.insert(t.name());
    for (const onnx::NodeProto &n : cur->node()) {
      for (const std::string &i : n.input())
        if (!i.empty())
          reads.insert(i);
      for (const std::string &o : n.output())
        defined.insert(o);
      for (const onnx::AttributeProto &a : n.attribute()) {
        if (a.has_g())
          work.push_back(&a.g());
        for (const onnx::GraphProto &sub : a.graphs())
          work.push_back(&sub);
      }
    }
    for (const onnx::ValueInfoProto &o : cur->output())
      reads.insert(o.name());
  }
  std::vector<std::string> names;
  for (const auto &r : reads)
    if (!defined.count(r.getKey()))
      names.push_back(r.getKey().str());
  llvm::sort(names);
  return names;
}

/// The nodes unrolling `g` would import: a Loop's body times its trip
/// count where that is known now (once where not), a Scan's body times its
/// length, an If's branches once each. Saturates at kMaxUnrolledNodes + 1.
int64_t unrolledCost(Importer &imp, const onnx::GraphProto &g) {
  // An explicit stack of (graph, multiplier).
  int64_t cost = 0, cap = kMaxUnrolledNodes + 1;
  SmallVector<std::pair<const onnx::GraphProto *, int64_t>, 8> work{{&g, 1}};
  while (!work.empty() && cost < cap) {
    auto [cur, mult] = work.pop_back_val();
    for (const onnx::NodeProto &n : cur->node()) {
      cost = std::min(cap, cost + mult);
      int64_t times = 1;
      if (n.op_type() == "Loop" && n.input_size() > 0)
        if (OnnxValue *trip = imp.lookup(n.input(0));
            trip && trip->constant && trip->constant->numElements() == 1)
          times = std::clamp<int64_t>(int64_t(trip->constant->getDouble(0)), 1, cap);
      for (const onnx::AttributeProto &a : n.attribute()) {
        if (a.has_g())
          work.push_back({&a.g(), std::min(cap, mult * times)});
        for (const onnx::GraphProto &sub : a.graphs())
          work.push_back({&sub, mult});
      }
    }
  }
  return cost;
}

/// A scalar of `v` (a one-element tensor reshaped to rank 0).
ExprRef scalarOf(NodeCtx &ctx, OnnxValue &v) {
  ExprRef e = ctx.use(v);
  return rankOf(v) == 0 ? e : reshapeTo(ctx, e, {});
}

/// A Loop whose iterations only the run knows, as a recursive global (see
/// the file comment).
Error whileLoop(NodeCtx &ctx, const onnx::GraphProto &body, size_t carried, size_t scans) {
  Importer &imp = ctx.imp;
  std::string name = "loop" + std::to_string(imp.whileLoops++);
  auto typeOf = [&](const OnnxValue &v, const Twine &what) -> Expected<TypeRef> {
    if (!v.isStatic())
      return ctx.error(what + " has a shape not known at import; a while loop's values need one");
    return makeTensorType(*v.dims, v.dtype);
  };
  std::vector<Ref<Var>> params;
  SmallVector<ExprRef, 8> args;
  auto param = [&](const std::string &pname, TypeRef t, ExprRef init) {
    params.push_back(make<Var>(pname, std::move(t), Loc()));
    args.push_back(std::move(init));
    return params.back();
  };
  auto value = [](const Ref<Var> &v, DType dt, Dims dims) {
    OnnxValue o;
    o.expr = v;
    o.dtype = dt;
    o.dims = std::move(dims);
    return o;
  };
  Ref<Var> iter = param("iter", makeTensorType({}, DType::Int64), ctx.scalar(DType::Int64, 0));
  Ref<Var> max;
  if (OnnxValue *trip = ctx.input(0)) {
    if (trip->dtype != DType::Int64 || (trip->dims && elementCount(*trip->dims) != 1))
      return ctx.error("the trip count must be one int64 value");
    max = param("max", makeTensorType({}, DType::Int64), scalarOf(ctx, *trip));
  }
  ExprRef cond0 = ctx.scalar(DType::Bool, 1);
  if (OnnxValue *c = ctx.input(1)) {
    if (c->dtype != DType::Bool || (c->dims && elementCount(*c->dims) != 1))
      return ctx.error("the condition must be one bool value");
    cond0 = scalarOf(ctx, *c);
  }
  Ref<Var> cond = param("cond", makeTensorType({}, DType::Bool), cond0);
  std::vector<OnnxValue> in{value(iter, DType::Int64, {}), value(cond, DType::Bool, {})};
  std::vector<TypeRef> stateTypes;
  SmallVector<ExprRef, 4> state;
  for (size_t i = 0; i < carried; ++i) {
    TRY(v, ctx.required(2 + i));
    TRY(t, typeOf(*v, "carried value '" + ctx.node.input(int(2 + i)) + "'"));
    Ref<Var> p = param("state" + std::to_string(i), t, ctx.use(*v));
    stateTypes.push_back(t);
    state.push_back(p);
    in.push_back(value(p, v->dtype, *v->dims));
  }
  // The enclosing graphs' values the body reads: parameters while it is
  // imported (constants stay as they are).
  std::vector<std::pair<std::string, OnnxValue>> shadowed;
  SmallVector<Ref<Var>, 4> captures;
  for (const std::string &n : namesRead(body)) {
    OnnxValue *v = imp.lookup(n);
    if (!v || v->constant)
      continue;
    TRY(t, typeOf(*v, "'" + n + "', which the body reads,"));
    Ref<Var> p = param("capture" + std::to_string(captures.size()), t, ctx.use(*v));
    captures.push_back(p);
    shadowed.emplace_back(n, *v);
    imp.define(n) = value(p, v->dtype, *v->dims);
  }
  Expected<std::vector<OnnxValue>> outs = imp.importSubgraph(body, in);
  for (auto &[n, v] : shadowed)
    imp.define(n) = v;
  if (!outs)
    return outs.takeError();
  OnnxValue &next = (*outs)[0];
  if (next.dtype != DType::Bool || (next.dims && elementCount(*next.dims) != 1))
    return ctx.error("the body's condition must be one bool value");
  SmallVector<ExprRef, 8> again{ctx.call("add", {iter, ctx.scalar(DType::Int64, 1)})};
  if (max)
    again.push_back(max);
  again.push_back(scalarOf(ctx, next));
  for (size_t i = 0; i < carried; ++i) {
    OnnxValue &o = (*outs)[1 + i];
    if (!o.dims || *o.dims != *in[2 + i].dims || o.dtype != in[2 + i].dtype)
      return ctx.error("the body's carried value " + Twine(i) + " ('" +
                       body.output(int(1 + i)).name() + "') must keep its type, " +
                       dtypeName(in[2 + i].dtype) + " " + listText(*in[2 + i].dims) +
                       ", from one iteration to the next");
    again.push_back(ctx.use(o));
  }
  again.append(captures.begin(), captures.end());
  // Scan outputs: accumulators of a `?` first dim, empty at first, each
  // iteration's slice concatenated at the end.
  for (size_t k = 0; k < scans; ++k) {
    OnnxValue &o = (*outs)[1 + carried + k];
    if (!o.isStatic())
      return ctx.error("the body's scan output " + Twine(k) + " ('" +
                       body.output(int(1 + carried + k)).name() +
                       "') has a shape not known at import; a while loop's values need one");
    Dims empty{0};
    empty.insert(empty.end(), o.dims->begin(), o.dims->end());
    Dims grown{TensorType::kDynamic};
    grown.insert(grown.end(), o.dims->begin(), o.dims->end());
    TypeRef t = makeTensorType(grown, o.dtype);
    Ref<Var> acc = param("scan" + std::to_string(k), t, ctx.constant(HostTensor(o.dtype, empty)));
    stateTypes.push_back(t);
    state.push_back(acc);
    ExprRef slice = ctx.call("expand_dims", {ctx.use(o)}, {{"axis", attrs::integer(0)}});
    again.push_back(
        ctx.call("concatenate", {ctx.tuple({acc, slice})}, {{"axis", attrs::integer(0)}}));
  }
  ExprRef go = cond;
  if (max)
    go = ctx.call("logical_and", {ctx.call("less", {iter, max}), cond});
  ExprRef fnBody = ctx.ifExpr(go, ctx.callGlobal(name, again), ctx.tuple(state));
  imp.module.addDef(name, make<Function>(std::move(params), fnBody,
                                         make<TupleType>(std::move(stateTypes)), Loc()));
  ExprRef r = ctx.callGlobal(name, args);
  for (size_t i = 0; i < carried + scans; ++i)
    ctx.setOutput(i, ctx.getItem(r, unsigned(i)));
  return Error::success();
}

Error loop(NodeCtx &ctx) {
  const onnx::GraphProto *body = ctx.getGraph("body");
  if (!body)
    return ctx.error("the body is required");
  size_t carried = ctx.numInputs() > 2 ? ctx.numInputs() - 2 : 0;
  if (size_t(body->input_size()) != carried + 2 || size_t(body->output_size()) < carried + 1)
    return ctx.error("the body must take the iteration number, the condition and the " +
                     Twine(carried) + " carried values, and give the condition and them");
  size_t scans = size_t(body->output_size()) - carried - 1;
  if (size_t(ctx.node.output_size()) != carried + scans)
    return ctx.error("the node has " + Twine(ctx.node.output_size()) + " outputs; the body gives " +
                     Twine(carried + scans));
  // Unrolled when the count and the first condition are known at import
  // and the unrolled nodes stay within bounds; otherwise a while loop.
  // (A graph input given a value when the model is built counts as known.)
  TRY(count, ctx.knownIfAny(0));
  TRY(first, ctx.knownIfAny(1));
  if (!count || (ctx.input(1) && !first))
    return whileLoop(ctx, *body, carried, scans);
  if (count->numElements() != 1)
    return ctx.error("the trip count must be one value");
  int64_t m = int64_t(count->getDouble(0));
  if (m > kMaxUnroll ||
      ctx.imp.unrolledNodes + m * unrolledCost(ctx.imp, *body) > kMaxUnrolledNodes)
    return whileLoop(ctx, *body, carried, scans);
  bool go = !first || (first->numElements() == 1 && first->getDouble(0) != 0);
  std::vector<OnnxValue> state;
  for (size_t i = 0; i < carried; ++i) {
    TRY(v, ctx.required(2 + i));
    state.push_back(*v);
  }
  std::vector<SmallVector<ExprRef, 8>> stacked(scans);
  for (int64_t it = 0; it < m && go; ++it) {
    ctx.imp.unrolledNodes += body->node_size();
    if (ctx.imp.unrolledNodes > kMaxUnrolledNodes)
      return ctx.error("unrolling the Loops of this model imports more than " +
                       Twine(kMaxUnrolledNodes) + " nodes");
    HostTensor iter(DType::Int64, std::vector<int64_t>{});
    iter.setDouble(0, double(it));
    HostTensor cond(DType::Bool, std::vector<int64_t>{});
    cond.setDouble(0, 1);
    std::vector<OnnxValue> in{scalarValue(std::move(iter)), scalarValue(std::move(cond))};
    in.insert(in.end(), state.begin(), state.end());
    TRY(outs, ctx.imp.importSubgraph(*body, in));
    const HostTensor *next = outs[0].constant.get();
    if (!next || next->numElements() != 1) // known only at run time: a while loop
      return whileLoop(ctx, *body, carried, scans);
    go = next->getDouble(0) != 0;
    for (size_t i = 0; i < carried; ++i)
      state[i] = outs[1 + i];
    for (size_t k = 0; k < scans; ++k)
      stacked[k].push_back(ctx.use(outs[1 + carried + k]));
  }
  // No iteration: only the body knows its scan outputs' shapes, and the
  // while loop's empty accumulators give them.
  if (scans && stacked[0].empty())
    return whileLoop(ctx, *body, carried, scans);
  for (size_t i = 0; i < carried; ++i)
    ctx.alias(i, state[i]);
  for (size_t k = 0; k < scans; ++k)
    ctx.setOutput(carried + k, ctx.call("stack", {ctx.tuple(stacked[k])}));
  return Error::success();
}

/// Axis `a` of a rank-`rank` value (negative from the end), or an error.
Expected<int64_t> scanAxis(NodeCtx &ctx, int64_t a, int64_t rank, const Twine &what) {
  if (a < -rank || a >= rank)
    return ctx.error(what + " axis " + Twine(a) + " is out of range for rank " + Twine(rank));
  return a < 0 ? a + rank : a;
}

Error scan(NodeCtx &ctx) {
  const onnx::GraphProto *body = ctx.getGraph("body");
  if (!body)
    return ctx.error("the body is required");
  int64_t m = ctx.getInt("num_scan_inputs", -1);
  int64_t inputs = int64_t(ctx.numInputs());
  if (m < 1 || m > inputs)
    return ctx.error("num_scan_inputs must be in [1, " + Twine(inputs) + "], got " + Twine(m));
  size_t n = size_t(inputs - m); // state values
  if (size_t(body->input_size()) != n + size_t(m) || size_t(body->output_size()) < n)
    return ctx.error("the body must take the " + Twine(n) + " state values and " + Twine(m) +
                     " scan slices, and give the state values first");
  size_t k = size_t(body->output_size()) - n; // scan outputs
  if (size_t(ctx.node.output_size()) != n + k)
    return ctx.error("the node has " + Twine(ctx.node.output_size()) + " outputs; the body gives " +
                     Twine(n + k));
  auto list = [&](StringRef name, size_t count) -> Expected<std::vector<int64_t>> {
    std::vector<int64_t> v = ctx.getInts(name).value_or(std::vector<int64_t>(count, 0));
    if (v.size() != count)
      return ctx.error(name + " has " + Twine(v.size()) + " values for " + Twine(count));
    return v;
  };
  TRY(inAxes, list("scan_input_axes", size_t(m)));
  TRY(inDirs, list("scan_input_directions", size_t(m)));
  TRY(outAxes, list("scan_output_axes", k));
  TRY(outDirs, list("scan_output_directions", k));
  std::vector<OnnxValue> state;
  for (size_t i = 0; i < n; ++i) {
    TRY(v, ctx.required(i));
    state.push_back(*v);
  }
  // The scan inputs, their axes and the common length.
  int64_t len = -1;
  std::vector<int64_t> axes;
  for (size_t j = 0; j < size_t(m); ++j) {
    TRY(x, ctx.required(n + j));
    if (!x->isStatic())
      return ctx.error("scan input " + Twine(j) + " has a shape only the run knows");
    TRY(axis, scanAxis(ctx, inAxes[j], int64_t(x->dims->size()), "scan input " + Twine(j)));
    int64_t l = (*x->dims)[size_t(axis)];
    if (len >= 0 && l != len)
      return ctx.error("the scan inputs differ in length: " + Twine(len) + " and " + Twine(l));
    len = l;
    axes.push_back(axis);
  }
  if (len > kMaxUnroll)
    return ctx.error("a scan of " + Twine(len) + " iterations is beyond the " + Twine(kMaxUnroll) +
                     " hx unrolls");
  std::vector<SmallVector<ExprRef, 8>> stacked(k);
  std::vector<std::optional<Dims>> outDims(k);
  for (int64_t it = 0; it < len; ++it) {
    ctx.imp.unrolledNodes += body->node_size();
    if (ctx.imp.unrolledNodes > kMaxUnrolledNodes)
      return ctx.error("unrolling the Loops and Scans of this model imports more than " +
                       Twine(kMaxUnrolledNodes) + " nodes");
    std::vector<OnnxValue> in = state;
    for (size_t j = 0; j < size_t(m); ++j) {
      const OnnxValue &x = *ctx.input(n + j);
      int64_t at = inDirs[j] ? len - 1 - it : it;
      OnnxValue slice;
      slice.dtype = x.dtype;
      Dims dims = *x.dims;
      dims.erase(dims.begin() + axes[j]);
      slice.dims = dims;
      slice.expr =
          ctx.call("take", {ctx.use(n + j), ctx.constant(intTensor({at}, DType::Int64, Dims{}))},
                   {{"axis", attrs::integer(axes[j])}});
      in.push_back(std::move(slice));
    }
    TRY(outs, ctx.imp.importSubgraph(*body, in));
    for (size_t i = 0; i < n; ++i)
      state[i] = outs[i];
    for (size_t o = 0; o < k; ++o) {
      stacked[o].push_back(ctx.use(outs[n + o]));
      outDims[o] = outs[n + o].dims;
    }
  }
  for (size_t i = 0; i < n; ++i)
    ctx.alias(i, state[i]);
  for (size_t o = 0; o < k; ++o) {
    if (stacked[o].empty())
      return ctx.error("a Scan of no iteration has scan outputs of unknown shape");
    if (!outDims[o])
      return ctx.error("scan output " + Twine(o) + " has no known rank");
    if (outDirs[o])
      std::reverse(stacked[o].begin(), stacked[o].end());
    int64_t rank = 1 + int64_t(outDims[o]->size());
    TRY(axis, scanAxis(ctx, outAxes[o], rank, "scan output " + Twine(o)));
    ctx.setOutput(n + o,
                  ctx.call("stack", {ctx.tuple(stacked[o])}, {{"axis", attrs::integer(axis)}}));
  }
  return Error::success();
}

} // namespace

void onnximport::addControlFlowConverters(ConverterTable &t) {
  // Opset 13 let the branches' outputs differ in shape; 16 added optionals
  // and sequences (hx has tensors only: both refused by type).
  t.add("If", {11, 21}, ifNode);
  // Loop 11 on (13 and 16 widened the types to sequences and optionals,
  // which hx refuses by type).
  t.add("Loop", {11, 21}, loop);
  // Scan 9 on (8 had a batch axis and sequence lengths; 11 allowed negative
  // axes; 16, 19 and 21 widened the types).
  t.add("Scan", {9, 21}, scan);
}
