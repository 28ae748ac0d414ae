//===- Generator.cpp - hx-smith: the module, its functions and values -----===//
//
// generateModule draws the module's shape from the seed, then writes it:
//
//  1. The device table: a cpu and a virtual device of the target-kind table's
//     first kind that is not the host (cuda) in random order, and
//     a random default device (`relay.fallback_device_type`) or none; the
//     probabilities of this module's annotations (some modules have none,
//     some annotate most calls).
//  2. 1 to `functions` defs: helpers @f1, @f2, ... first, each calling the
//     ones before it, then @main, which calls every helper at least once.
//     The calls are shared among them.
//  3. Each def's body is a sequence of bindings (`%N = ...;`, or `let`s):
//     one operator call at a time from a random recipe, a tuple of earlier
//     values and its projections, or a call of an earlier def. A call may
//     be wrapped in an `on_device` (normal, fixed or free; an operator the
//     other kind lacks most often to it), followed by an explicit
//     `device_copy`, and parameters may carry a device.
//  4. The result is the tuple of every value nothing used (or that value
//     alone), so everything computed is observable.
//  5. The metadata: the device table, the PassConfig and the constants.
//
// A helper's parameters are exact and within [-1, 1] (integers [-9, 9]), as
// its guards assume: callers pass only such values.
//
//===----------------------------------------------------------------------===//
#include "Generator.h"
#include "hx/IR/Expr.h"
#include "hx/IR/TargetKind.h"
#include "hx/Ops/OpRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cmath>
#include <cstring>

using namespace llvm;

namespace hx::smith {

//===----------------------------------------------------------------------===//
// Gen: values
//===----------------------------------------------------------------------===//

Gen::Gen(const SmithOptions &opts) : rng(opts.seed), opts(opts) {}

DType Gen::dtypeOf(DTypeSet set) {
  // float32 most often; the others now and then.
  static const std::pair<DType, unsigned> weights[] = {{DType::Float32, 10},
                                                       {DType::Int32, 3},
                                                       {DType::Int64, 1},
                                                       {DType::Float16, 1},
                                                       {DType::Bool, 1}};
  unsigned total = 0;
  for (auto [dt, w] : weights)
    if (dtypeSetContains(set, dt))
      total += w;
  if (total == 0)
    return DType::Float32;
  uint64_t r = rng.below(total);
  for (auto [dt, w] : weights) {
    if (!dtypeSetContains(set, dt))
      continue;
    if (r < w)
      return dt;
    r -= w;
  }
  return DType::Float32;
}

Shape Gen::shapeOf(unsigned minRank, unsigned maxRank, int64_t maxDim) {
  unsigned rank = unsigned(rng.range(minRank, maxRank));
  Shape s;
  for (unsigned i = 0; i < rank; ++i)
    s.push_back(rng.range(1, maxDim));
  // Keep tensors small: at most 240 elements.
  while (TensorTy{DType::Float32, s}.numel() > 240)
    for (int64_t &d : s)
      d = std::max<int64_t>(1, d / 2);
  return s;
}

Shape Gen::broadcastPartner(const Shape &s) {
  size_t drop = rng.below(s.size() + 1);
  Shape out(s.begin() + drop, s.end());
  for (int64_t &d : out)
    if (rng.chance(1, 3))
      d = 1;
  return out;
}

/// The kind of the device table's other entry: the target-kind table's first
/// that is not the host.
static const TargetKindInfo &otherKind() { return *firstNonHostKind(); }

static bool inRange(const Val &v, DType dt) {
  if (dt == DType::Bool)
    return true;
  return isFloat(dt) ? v.lo >= -1 && v.hi <= 1 : v.lo >= -9 && v.hi <= 9;
}

Val Gen::literal(DType dt, double v) {
  Val l;
  l.ref = formatNumber(v, dt);
  l.ty = {dt, {}};
  l.lo = l.hi = v;
  l.literal = true;
  return l;
}

void Gen::use(const Val &v) {
  for (Val &w : cur->vals)
    if (w.ref == v.ref)
      ++w.uses;
}

std::string Gen::constantData(const TensorTy &t, bool positive, double &lo, double &hi) {
  std::string bytes;
  lo = INFINITY;
  hi = -INFINITY;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v;
    if (t.dtype == DType::Bool)
      v = double(rng.below(2));
    else if (isFloat(t.dtype))
      v = positive ? 0.5 + double(rng.below(9)) / 8 : double(rng.range(-8, 8)) / 8;
    else
      v = positive ? double(rng.range(1, 9))
                   : double(rng.range(1, 9) * (rng.chance(1, 2) ? 1 : -1));
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    switch (t.dtype) {
    case DType::Bool:
      appendLE(bytes, uint64_t(v != 0), 1);
      break;
    case DType::Int32:
      appendLE(bytes, uint64_t(int64_t(v)), 4);
      break;
    case DType::Int64:
      appendLE(bytes, uint64_t(int64_t(v)), 8);
      break;
    case DType::Float16:
      appendLE(bytes, halfBits(v), 2);
      break;
    default: {
      float f = float(v);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      appendLE(bytes, b, 4);
    }
    }
  }
  if (t.numel() == 0)
    lo = hi = 0;
  std::string shape;
  for (size_t i = 0; i < t.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(t.shape[i]);
  return "{\"dtype\": \"" + dtypeName(t.dtype).str() + "\", \"shape\": [" + shape +
         "], \"data\": \"" + base64(bytes) + "\"}";
}

Val Gen::fresh(const TensorTy &t, bool positive, bool plain) {
  Val v;
  v.ty = t;
  v.order = order++;
  if (opts.constants && t.numel() <= 64 && rng.chance(1, 4)) {
    v.ref = "meta[relay.Constant][" + std::to_string(constants.size()) + "]";
    constants.push_back(constantData(t, positive, v.lo, v.hi));
    cur->vals.push_back(v);
    return v;
  }
  Function::Param p;
  p.name = "p" + std::to_string(cur->params.size());
  p.ty = t;
  if (!plain && rng.below(100) < pParamDevice)
    p.device = int(rng.below(2));
  cur->params.push_back(p);
  v.ref = "%" + p.name;
  v.pinned = p.device >= 0;
  if (t.dtype == DType::Bool)
    v.lo = 0, v.hi = 1;
  else if (!isFloat(t.dtype))
    v.lo = -9, v.hi = 9;
  // An annotation directly around a parameter with a device would contradict it.
  if (!plain && !v.pinned && rng.below(100) < pOnDevice / 4)
    annotate(v);
  cur->vals.push_back(v);
  return positive ? this->positive(v) : v;
}

Val Gen::intConstant(const TensorTy &t, int64_t lo, int64_t hi) {
  Val v;
  v.ty = t;
  v.lo = double(lo);
  v.hi = double(hi);
  v.order = order++;
  if (!opts.constants) {
    Function::Param p;
    p.name = "p" + std::to_string(cur->params.size());
    p.ty = t;
    cur->params.push_back(p);
    Val param = v;
    param.ref = "%" + p.name;
    param.lo = -9, param.hi = 9;
    cur->vals.push_back(param);
    use(param);
    return emit("clip",
                "clip(" + param.ref + ", a_min=" + std::to_string(lo) +
                    ", a_max=" + std::to_string(hi) + ")",
                t, double(lo), double(hi), true);
  }
  std::string bytes;
  for (int64_t i = 0; i < t.numel(); ++i)
    appendLE(bytes, uint64_t(rng.range(lo, hi)), t.dtype == DType::Int64 ? 8 : 4);
  std::string shape;
  for (size_t i = 0; i < t.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(t.shape[i]);
  v.ref = "meta[relay.Constant][" + std::to_string(constants.size()) + "]";
  constants.push_back("{\"dtype\": \"" + dtypeName(t.dtype).str() + "\", \"shape\": [" + shape +
                      "], \"data\": \"" + base64(bytes) + "\"}");
  cur->vals.push_back(v);
  return v;
}

Val Gen::input(const Want &w) {
  auto ok = [&](const Val &v) {
    if (v.isTuple || v.literal || !dtypeSetContains(w.dtypes, v.ty.dtype))
      return false;
    if (v.ty.shape.size() < w.minRank || v.ty.shape.size() > w.maxRank)
      return false;
    if (w.exact && !v.exact)
      return false;
    return !w.fits || w.fits(v.ty);
  };
  // Unused values first, recent ones first among them; sometimes any.
  std::vector<unsigned> cands;
  for (unsigned i = 0; i < cur->vals.size(); ++i)
    if (ok(cur->vals[i]))
      cands.push_back(i);
  if (!cands.empty() && !rng.chance(1, 6)) {
    std::vector<unsigned> unused;
    for (unsigned i : cands)
      if (cur->vals[i].uses == 0)
        unused.push_back(i);
    const std::vector<unsigned> &from = !unused.empty() && rng.chance(3, 4) ? unused : cands;
    // Bias to the most recent: the larger of two draws.
    unsigned a = unsigned(rng.below(from.size())), b = unsigned(rng.below(from.size()));
    return cur->vals[from[std::max(a, b)]];
  }
  TensorTy t;
  t.dtype = dtypeOf(w.dtypes);
  for (int tries = 0; tries < 20; ++tries) {
    t.shape = w.shape ? w.shape() : shapeOf(w.minRank, w.maxRank);
    if (!w.fits || w.fits(t))
      break;
  }
  return fresh(t);
}

void Gen::bind(const std::string &expr, Val &v, StringRef op, bool allowLet) {
  if (!op.empty())
    ++used[op.str()];
  // Pinned values (on_devices, global call results) are let-bound too: one
  // used by an operator or a tuple on another device is copied, as it is
  // graph-bound (test/Smith/let-pinned-operand.ir).
  if (allowLet && rng.below(100) < pLet) {
    v.ref = "%l" + std::to_string(cur->nextLet++);
    cur->lines.push_back("let " + v.ref + " = " + expr + ";");
  } else {
    v.ref = "%" + std::to_string(cur->nextBinding++);
    cur->lines.push_back(v.ref + " = " + expr + ";");
  }
  v.order = order++;
}

void Gen::annotate(Val &v) {
  // Operators the other kind lacks: ask for it most often.
  int device = int(rng.below(2));
  std::string kind;
  switch (rng.below(10)) {
  case 0:
  case 1:
  case 2:
    kind = ", constrain_result=True";
    break;
  case 3:
  case 4:
    kind = ", constrain_body=False";
    break;
  default:
    break;
  }
  Val a = v;
  // Normal and fixed annotations place the value; a free one does not.
  a.pinned = kind.find("constrain_body") == std::string::npos;
  bind("on_device(" + v.ref + ", virtual_device=meta[VirtualDevice][" + std::to_string(device) +
           "]" + kind + ")",
       a, kOnDevice);
  // The value itself stays in scope half the time: then it may be demanded
  // on another device too.
  if (rng.chance(1, 2))
    cur->vals.push_back(v);
  v = a;
}

Val Gen::emit(StringRef op, const std::string &expr, const TensorTy &ty, double lo, double hi,
              bool exact) {
  Val v;
  v.ty = ty;
  v.lo = lo;
  v.hi = hi;
  v.exact = exact || !isFloat(ty.dtype);
  bind(expr, v, op, /*allowLet=*/true);
  // A global call's result is fixed by the callee's signature: an
  // annotation directly around it could contradict it.
  if (op.empty()) {
    v.pinned = true;
    cur->vals.push_back(v);
    return v;
  }
  bool annotated = false;
  const OpDef *def = lookupOp(op);
  bool otherLacks = def && !otherKind().supports(*def);
  if (rng.below(100) < pOnDevice * (otherLacks ? 3 : 1)) {
    annotated = true;
    if (otherLacks) {
      // To the other kind, which lacks it: the cpu fallback.
      Val a = v;
      bind("on_device(" + v.ref + ", virtual_device=meta[VirtualDevice][" +
               std::to_string(otherIndex) + "]" +
               (rng.chance(1, 2) ? ", constrain_result=True" : "") + ")",
           a, kOnDevice);
      a.pinned = true;
      v = a;
    } else {
      annotate(v);
    }
  }
  // An explicit copy of an operator's result, which is not pinned, so its
  // source may be either device; the copy is pinned by a fixed on_device to
  // its destination (consumers elsewhere then copy it again, where a bare
  // copy's result would contradict them).
  if (!annotated && rng.below(100) < pCopy) {
    int src = int(rng.below(2));
    Val c = v;
    bind("device_copy(" + v.ref + ", src_virtual_device=meta[VirtualDevice][" +
             std::to_string(src) + "], dst_virtual_device=meta[VirtualDevice][" +
             std::to_string(1 - src) + "])",
         c, kDeviceCopy);
    Val f = c;
    bind("on_device(" + c.ref + ", virtual_device=meta[VirtualDevice][" + std::to_string(1 - src) +
             "], constrain_result=True)",
         f, kOnDevice);
    f.pinned = true;
    v = f;
  }
  cur->vals.push_back(v);
  return v;
}

Val Gen::emitTuple(StringRef op, const std::string &expr, const std::vector<TensorTy> &fields,
                   double lo, double hi, bool exact) {
  Val v;
  v.isTuple = true;
  v.fields = fields;
  v.lo = lo;
  v.hi = hi;
  v.exact = exact;
  bind(expr, v, op, /*allowLet=*/!op.empty() || expr[0] == '(');
  cur->vals.push_back(v);
  return v;
}

Val Gen::project(const Val &tuple, unsigned i) {
  use(tuple);
  Val p;
  p.ty = tuple.fields[i];
  p.lo = tuple.lo;
  p.hi = tuple.hi;
  p.exact = tuple.exact || !isFloat(p.ty.dtype);
  p.pinned = tuple.pinned;
  bind(tuple.ref + "." + std::to_string(i), p, "", /*allowLet=*/!tuple.pinned);
  cur->vals.push_back(p);
  return p;
}

Val Gen::castTo(Val v, DType dt) {
  if (v.ty.dtype == dt)
    return v;
  use(v);
  double lo = v.lo, hi = v.hi;
  if (dt == DType::Bool)
    lo = 0, hi = 1;
  else if (!isFloat(dt))
    lo = std::trunc(lo), hi = std::trunc(hi);
  return emit("cast", "cast(" + v.ref + ", dtype=\"" + dtypeName(dt).str() + "\")",
              {dt, v.ty.shape}, lo, hi, v.exact);
}

Val Gen::positive(Val v, double min) {
  if (v.lo >= min)
    return v;
  use(v);
  DType dt = v.ty.dtype;
  double m = std::max(std::fabs(v.lo), std::fabs(v.hi));
  Val a = emit("abs", "abs(" + v.ref + ")", v.ty, 0, m, v.exact);
  use(a);
  Val one = literal(dt, isFloat(dt) ? 0.5 + min : std::ceil(min));
  return emit("add", "add(" + a.ref + ", " + one.ref + ")", v.ty, one.lo, m + one.lo, false);
}

Val Gen::tame(Val v, double bound) {
  if (v.lo >= -bound && v.hi <= bound)
    return v;
  use(v);
  DType dt = v.ty.dtype;
  return emit("clip",
              "clip(" + v.ref + ", a_min=" + formatNumber(-bound, DType::Float32) +
                  ", a_max=" + formatNumber(bound, DType::Float32) + ")",
              v.ty, std::max(v.lo, -bound), std::min(v.hi, bound), v.exact || !isFloat(dt));
}

static std::string shapeList(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

Val Gen::adapt(Val v, const TensorTy &t) {
  if (v.isTuple || v.literal || v.ty.numel() < t.numel() ||
      (isFloat(v.ty.dtype) && !isFloat(t.dtype) && !v.exact))
    return fresh(t);
  Val w = castTo(v, t.dtype);
  if (w.ty.shape == t.shape)
    return w;
  if (w.ty.numel() > t.numel()) {
    use(w);
    Val flat = emit("reshape", "reshape(" + w.ref + ", newshape=[-1])", {t.dtype, {w.ty.numel()}},
                    w.lo, w.hi, w.exact);
    use(flat);
    w = emit("strided_slice",
             "strided_slice(" + flat.ref + ", begin=[0], end=[" + std::to_string(t.numel()) + "])",
             {t.dtype, {t.numel()}}, w.lo, w.hi, w.exact);
    if (w.ty.shape == t.shape)
      return w;
  }
  use(w);
  return emit("reshape", "reshape(" + w.ref + ", newshape=" + shapeList(t.shape) + ")", t, w.lo,
              w.hi, w.exact);
}

//===----------------------------------------------------------------------===//
// Functions and the module
//===----------------------------------------------------------------------===//

/// The operators recipes may be drawn for: the registry's, or opts.ops.
static std::vector<const OpDef *> candidateOps(const SmithOptions &opts) {
  std::vector<const OpDef *> out;
  for (const OpDef &d : allOps()) {
    if (d.name == kOnDevice || d.name == kDeviceCopy)
      continue; // written by the annotations
    if (!opts.ops.empty() && !llvm::is_contained(opts.ops, d.name.str()))
      continue;
    out.push_back(&d);
  }
  return out;
}

void Gen::callGlobal(const Function &callee) {
  std::string args;
  for (const Function::Param &p : callee.params) {
    // A value of exactly the parameter's type, exact and in the range the
    // callee's guards assume; else one adapted, else a fresh one.
    const Val *match = nullptr;
    std::vector<const Val *> same, adaptable;
    for (const Val &v : cur->vals) {
      if (v.isTuple || v.literal || v.pinned || !v.exact || !inRange(v, p.ty.dtype) ||
          !inRange(v, v.ty.dtype))
        continue;
      if (v.ty == p.ty)
        same.push_back(&v);
      else if (v.ty.numel() >= p.ty.numel())
        adaptable.push_back(&v);
    }
    Val arg;
    if (!same.empty() && rng.chance(4, 5))
      match = same[rng.below(same.size())];
    if (match)
      arg = *match;
    else if (!adaptable.empty() && rng.chance(1, 2))
      arg = adapt(Val(*adaptable[rng.below(adaptable.size())]), p.ty);
    else
      arg = fresh(p.ty, false, /*plain=*/true);
    // A pinned argument would contradict the callee's signature.
    if (arg.pinned)
      arg = fresh(p.ty, false, /*plain=*/true);
    use(arg);
    args += (args.empty() ? "" : ", ") + arg.ref;
  }
  std::string expr = "@" + callee.name + "(" + args + ")";
  if (callee.resultIsTuple)
    emitTuple("", expr, callee.resultFields, callee.resultLo, callee.resultHi, false);
  else
    emit("", expr, callee.resultFields[0], callee.resultLo, callee.resultHi, false);
}

void Gen::genFunction(Function &f, unsigned calls, bool isMain) {
  cur = &f;
  std::vector<const OpDef *> ops = candidateOps(opts);
  unsigned helpers = unsigned(&f - fns.data());
  std::vector<bool> called(helpers, false);
  for (unsigned i = 0; i < calls; ++i) {
    uint64_t what = rng.below(100);
    if (helpers && what < 10) {
      unsigned h = unsigned(rng.below(helpers));
      called[h] = true;
      callGlobal(fns[h]);
      continue;
    }
    if (what < 16) {
      // A tuple of two or three values, and a projection of it.
      std::vector<Val> fields;
      for (const Val &v : f.vals)
        if (!v.isTuple && !v.literal && v.uses == 0)
          fields.push_back(v);
      if (fields.size() >= 2) {
        size_t n = std::min<size_t>(fields.size(), 2 + rng.below(2));
        std::vector<Val> chosen(fields.end() - n, fields.end());
        std::string expr = "(";
        std::vector<TensorTy> tys;
        double lo = INFINITY, hi = -INFINITY;
        bool exact = true;
        for (size_t k = 0; k < n; ++k) {
          use(chosen[k]);
          expr += (k ? ", " : "") + chosen[k].ref;
          tys.push_back(chosen[k].ty);
          lo = std::min(lo, chosen[k].lo);
          hi = std::max(hi, chosen[k].hi);
          exact = exact && chosen[k].exact;
        }
        Val t = emitTuple("", expr + ")", tys, lo, hi, exact);
        if (rng.below(100) < pOnDevice)
          annotate(t), f.vals.push_back(t);
        if (rng.chance(2, 3))
          project(t, unsigned(rng.below(n)));
        continue;
      }
    }
    for (int tries = 0; tries < 8; ++tries) {
      const OpDef *d = ops[rng.below(ops.size())];
      Recipe r = findRecipe(d->name);
      // A value-dependent shape only in @main (the stages of a run split
      // @main's body, not a callee's).
      if (r && (isMain || !d->valueDependentShape) && r(*this, *d))
        break;
    }
  }
  if (isMain)
    for (unsigned h = 0; h < helpers; ++h)
      if (!called[h])
        callGlobal(fns[h]);
  finishFunction(f);
}

void Gen::finishFunction(Function &f) {
  cur = &f;
  std::vector<Val> outs;
  for (const Val &v : f.vals)
    if (v.uses == 0 && !v.literal &&
        !llvm::any_of(outs, [&](const Val &o) { return o.ref == v.ref; }))
      outs.push_back(v);
  // Tuples are projected (helpers return tensors or a flat tuple).
  std::vector<Val> flat;
  for (const Val &v : outs) {
    if (!v.isTuple) {
      flat.push_back(v);
      continue;
    }
    for (unsigned i = 0; i < v.fields.size(); ++i)
      flat.push_back(project(v, i));
  }
  if (flat.empty()) {
    if (f.params.empty())
      fresh({DType::Float32, shapeOf(1, 3)});
    const Function::Param &p = f.params[0];
    Val v;
    v.ref = "%" + p.name;
    v.ty = p.ty;
    flat.push_back(v);
  }
  f.resultIsTuple = flat.size() > 1;
  f.resultLo = INFINITY;
  f.resultHi = -INFINITY;
  std::string result = f.resultIsTuple ? "(" : "";
  for (size_t i = 0; i < flat.size(); ++i) {
    f.resultFields.push_back(flat[i].ty);
    f.resultLo = std::min(f.resultLo, flat[i].lo);
    f.resultHi = std::max(f.resultHi, flat[i].hi);
    result += (i ? ", " : "") + flat[i].ref;
  }
  f.lines.push_back(result + (f.resultIsTuple ? ")" : ""));
  // A pinned value as the whole body fixes the result's device itself.
  if (rng.below(100) < pParamDevice && (f.resultIsTuple || !flat[0].pinned))
    f.resultDevice = int(rng.below(2));
}

std::string Gen::print() const {
  std::string s = "#[version = \"0.0.5\"]\n";
  for (const Function &f : fns) {
    s += "def @" + f.name + "(";
    for (size_t i = 0; i < f.params.size(); ++i) {
      const Function::Param &p = f.params[i];
      s += (i ? ", %" : "%") + p.name;
      if (p.device >= 0)
        s += " {virtual_device=meta[VirtualDevice][" + std::to_string(p.device) + "]}";
      s += ": " + p.ty.str();
    }
    if (f.resultDevice >= 0)
      s += std::string(f.params.empty() ? "" : ", ") + "virtual_device=meta[VirtualDevice][" +
           std::to_string(f.resultDevice) + "]";
    s += ")";
    if (f.name != "main") {
      s += " -> ";
      if (f.resultIsTuple) {
        s += "(";
        for (size_t i = 0; i < f.resultFields.size(); ++i)
          s += (i ? ", " : "") + f.resultFields[i].str();
        s += ")";
      } else {
        s += f.resultFields[0].str();
      }
    }
    s += " {\n";
    for (const std::string &l : f.lines)
      s += "  " + l + "\n";
    s += "}\n";
  }
  return s;
}

SmithModule Gen::run() {
  // This module's character.
  static const unsigned onDevice[] = {0, 10, 25, 50};
  if (opts.annotations) {
    pOnDevice = onDevice[rng.below(4)];
    pCopy = rng.chance(1, 3) ? 4 : 0;
    pParamDevice = rng.chance(1, 2) ? 20 : 0;
  }
  pLet = rng.chance(1, 2) ? 15 : 0;
  otherIndex = int(rng.below(2));
  std::string fallback;
  switch (rng.below(3)) {
  case 0:
    fallback = "cpu";
    break;
  case 1:
    fallback = deviceTypeName(otherKind().deviceType).str();
    break;
  default:
    break;
  }

  unsigned nfns = 1 + unsigned(rng.below(std::max(1u, opts.functions)));
  fns.resize(nfns);
  for (unsigned i = 0; i + 1 < nfns; ++i)
    fns[i].name = "f" + std::to_string(i + 1);
  fns.back().name = "main";
  // Helpers get up to a third of the calls between them.
  unsigned helperCalls = nfns > 1 ? opts.calls / 3 / (nfns - 1) : 0;
  for (unsigned i = 0; i < nfns; ++i)
    genFunction(fns[i],
                i + 1 < nfns ? std::max(1u, helperCalls) : opts.calls - helperCalls * (nfns - 1),
                i + 1 == nfns);

  std::string text = print();
  text += "#[metadata]\n{\n  \"VirtualDevice\": [\n";
  auto entry = [](const TargetKindInfo &k) {
    return "{\"device_type\": \"" + deviceTypeName(k.deviceType).str() +
           "\", \"virtual_device_id\": 0, \"target\": \"" + k.name.str() + "\"}";
  };
  std::string cpu = entry(*defaultKindFor(DeviceType::CPU)), other = entry(otherKind());
  text += "    " + (otherIndex == 0 ? other : cpu) + ",\n    " + (otherIndex == 0 ? cpu : other) +
          "\n  ]";
  if (!fallback.empty())
    text += ",\n  \"PassConfig\": {\"relay.fallback_device_type\": \"" + fallback + "\"}";
  if (!constants.empty()) {
    text += ",\n  \"relay.Constant\": [\n";
    for (size_t i = 0; i < constants.size(); ++i)
      text += "    " + constants[i] + (i + 1 < constants.size() ? ",\n" : "\n");
    text += "  ]";
  }
  text += "\n}\n";

  SmithModule m;
  m.text = std::move(text);
  for (const auto &[op, n] : used)
    m.opsUsed.push_back(op);
  return m;
}

} // namespace hx::smith

namespace hx {

bool validateSmithOps(ArrayRef<std::string> ops, std::string &error) {
  for (const std::string &op : ops) {
    if (!lookupOp(op)) {
      error = "unknown operator '" + op + "'";
      StringRef hint = suggestOpName(op);
      if (!hint.empty())
        error += "; did you mean '" + hint.str() + "'?";
      return false;
    }
  }
  return true;
}

bool hasSmithRecipe(StringRef op) { return smith::findRecipe(op) != nullptr; }

SmithModule generateModule(const SmithOptions &opts) {
  smith::Gen g(opts);
  return g.run();
}

} // namespace hx
