//===- ShrinkShapes.cpp - Halving tensor dimensions consistently ----------===//
//
// The `shapes` pass. Its sites are the distinct extents greater than 1 that
// the module writes down, largest first: the dimensions of type annotations
// (parameters, let variables, `-> T`, free variables) and of tensor
// constants. A selected extent d becomes ceil(d / 2) everywhere at once, so
// that shapes which agree keep agreeing:
//
//   def @main(%x: Tensor[(8, 16), float32], %w: Tensor[(4, 16), float32]) {
//     nn.dense(%x, %w, units=4)
//   }
//   -- extent 16 -->   %x: Tensor[(8, 8), float32], %w: Tensor[(4, 8), float32]
//   -- extent 4  -->   %w: Tensor[(2, 8), float32], units=2
//
// Integer attributes that carry extents (newshape, units, channels, size,
// output_size) follow, element by element; other attributes (axes,
// strides, ...) do not. A constant keeps the leading block of its values.
// Every other type is re-inferred by the driver, which drops candidates that
// no longer type-check (a reshape whose sizes stop matching, say). Rounds
// repeat the pass, so an extent keeps halving down to 1 while the test
// stays interesting.
//
//===----------------------------------------------------------------------===//
#include "DeltaPasses.h"
#include "hx/IR/Walk.h"
#include "llvm/ADT/DenseSet.h"
#include <algorithm>
#include <functional>
#include <memory>

using namespace hx;
using namespace hx::reduce;
using namespace llvm;

namespace {

constexpr StringLiteral kExtentAttrs[] = {"newshape", "units", "channels", "size", "output_size"};

/// Every place the pass reads or writes, in module order.
struct Places {
  std::vector<TypeRef *> types;
  std::vector<Constant *> constants;
  std::vector<AttrValue *> attrs;
};

Places collectPlaces(Module &m) {
  Places p;
  auto addVar = [&](Var &v) {
    if (v.annotation)
      p.types.push_back(&v.annotation);
  };
  forEachFunction(m, [&](Function &f) {
    for (const Ref<Var> &v : f.params)
      addVar(*v);
    for (const Ref<Var> &v : f.freeVars)
      addVar(*v);
    if (f.retType)
      p.types.push_back(&f.retType);
  });
  for (Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (auto *l = dyn_cast<Let>(e))
        addVar(*l->var);
      else if (auto *c = dyn_cast<Constant>(e); c && c->isTensor())
        p.constants.push_back(c);
      else if (auto *c = dyn_cast<Call>(e))
        for (Attr &a : c->attrs.items)
          if (is_contained(kExtentAttrs, a.name))
            p.attrs.push_back(&a.value);
    });
  return p;
}

/// Calls `fn` on each tensor type inside `t` (tuple fields, function
/// parameters and results). Types nest no deeper than the parser's bracket
/// limit, so recursion here is bounded.
void forEachTensorType(const Type *t, function_ref<void(const TensorType &)> fn) {
  if (!t)
    return;
  if (auto *tt = dyn_cast<TensorType>(t))
    return fn(*tt);
  if (auto *tu = dyn_cast<TupleType>(t))
    for (const TypeRef &f : tu->fields)
      forEachTensorType(f.get(), fn);
  if (auto *ft = dyn_cast<FuncType>(t)) {
    for (const TypeRef &p : ft->params)
      forEachTensorType(p.get(), fn);
    forEachTensorType(ft->ret.get(), fn);
  }
}

int64_t halve(int64_t d) { return (d + 1) / 2; }

/// `t` with every extent in `sel` halved (a new type; types may be shared).
TypeRef shrinkType(const TypeRef &t, const DenseSet<int64_t> &sel) {
  if (auto *tt = dyn_cast<TensorType>(t.get())) {
    SmallVector<int64_t, 4> shape(tt->shape);
    bool changed = false;
    for (int64_t &d : shape)
      if (sel.contains(d)) {
        d = halve(d);
        changed = true;
      }
    if (!changed)
      return t;
    TypeRef r = make<TensorType>(std::move(shape), tt->dtype);
    r->loc = t->loc;
    return r;
  }
  if (auto *tu = dyn_cast<TupleType>(t.get())) {
    std::vector<TypeRef> fields;
    for (const TypeRef &f : tu->fields)
      fields.push_back(shrinkType(f, sel));
    TypeRef r = make<TupleType>(std::move(fields));
    r->loc = t->loc;
    return r;
  }
  if (auto *ft = dyn_cast<FuncType>(t.get())) {
    std::vector<TypeRef> params;
    for (const TypeRef &p : ft->params)
      params.push_back(shrinkType(p, sel));
    TypeRef r = make<FuncType>(std::move(params), shrinkType(ft->ret, sel));
    r->loc = t->loc;
    return r;
  }
  return t;
}

/// The leading block of `t` of the halved shape.
std::shared_ptr<const TensorData> shrinkTensor(const TensorData &t, const DenseSet<int64_t> &sel) {
  auto r = std::make_shared<TensorData>();
  r->dtype = t.dtype;
  r->shape = t.shape;
  bool changed = false;
  for (int64_t &d : r->shape)
    if (sel.contains(d)) {
      d = halve(d);
      changed = true;
    }
  if (!changed)
    return nullptr;
  size_t rank = t.shape.size();
  size_t elem = dtypeBytes(t.dtype);
  int64_t count = 1;
  for (int64_t d : r->shape)
    count *= d;
  r->bytes.resize(static_cast<size_t>(count) * elem);
  // Row-major strides of the source, then an odometer over the result.
  SmallVector<int64_t, 4> stride(rank, 1), index(rank, 0);
  for (size_t i = rank; i-- > 1;)
    stride[i - 1] = stride[i] * t.shape[i];
  for (int64_t k = 0; k < count; ++k) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i)
      src += index[i] * stride[i];
    std::copy_n(t.bytes.data() + src * elem, elem, r->bytes.data() + k * elem);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < r->shape[i])
        break;
      index[i] = 0;
    }
  }
  return r;
}

} // namespace

void reduce::shrinkShapes(Module &m, SiteSelection &sel) {
  Places places = collectPlaces(m);
  std::vector<int64_t> extents;
  auto addShape = [&](ArrayRef<int64_t> shape) {
    for (int64_t d : shape)
      if (d > 1)
        extents.push_back(d);
  };
  for (TypeRef *t : places.types)
    forEachTensorType(t->get(), [&](const TensorType &tt) { addShape(tt.shape); });
  for (Constant *c : places.constants)
    addShape(c->tensor->shape);
  llvm::sort(extents, std::greater<int64_t>());
  extents.erase(std::unique(extents.begin(), extents.end()), extents.end());

  DenseSet<int64_t> chosen;
  for (int64_t d : extents)
    if (sel.take())
      chosen.insert(d);
  if (chosen.empty())
    return;
  for (TypeRef *t : places.types)
    *t = shrinkType(*t, chosen);
  for (Constant *c : places.constants)
    if (auto t = shrinkTensor(*c->tensor, chosen))
      c->tensor = std::move(t);
  for (AttrValue *v : places.attrs) {
    SmallVector<AttrValue *, 8> stack{v};
    while (!stack.empty()) {
      AttrValue *x = stack.pop_back_val();
      if (x->kind == AttrValue::Kind::Int && chosen.contains(x->intValue))
        x->intValue = halve(x->intValue);
      for (AttrValue &y : x->list)
        stack.push_back(&y);
    }
  }
}
