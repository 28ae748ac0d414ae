//===- OpBuilder.cpp - Building operator calls in code --------------------===//
#include "hx/Ops/OpBuilder.h"
#include "hx/Ops/OpRegistry.h"
#include <cassert>

using namespace hx;
using namespace llvm;

Op *OpBuilder::op(StringRef name) const {
  Op *o = m.getOp(name);
  if (!o->def)
    o->def = lookupOp(name);
  assert(o->def && "OpBuilder: not a registered operator");
  return o;
}

Ref<Call> OpBuilder::call(StringRef name, ArrayRef<ExprRef> args, Attrs attrs) const {
  return make<Call>(ExprRef(op(name)), SmallVector<ExprRef, 2>(args.begin(), args.end()),
                    std::move(attrs), loc);
}

Ref<Tuple> OpBuilder::tuple(ArrayRef<ExprRef> fields) const {
  return make<Tuple>(SmallVector<ExprRef, 2>(fields.begin(), fields.end()), loc);
}

Ref<TupleGetItem> OpBuilder::getItem(ExprRef tuple, unsigned index) const {
  return make<TupleGetItem>(std::move(tuple), index, loc);
}

Ref<Constant> OpBuilder::constant(std::shared_ptr<const TensorData> value) const {
  return make<Constant>(std::move(value), loc);
}

AttrValue attrs::integer(int64_t v) {
  return AttrValue::ofInt(v, v < INT32_MIN || v > INT32_MAX ? DType::Int64 : DType::Int32);
}

AttrValue attrs::ints(ArrayRef<int64_t> v) {
  std::vector<AttrValue> items;
  items.reserve(v.size());
  for (int64_t x : v)
    items.push_back(integer(x));
  return AttrValue::ofList(std::move(items));
}

AttrValue attrs::real(double v) { return AttrValue::ofFloat(v, DType::Float32); }
AttrValue attrs::boolean(bool b) { return AttrValue::ofBool(b); }
AttrValue attrs::str(StringRef s) { return AttrValue::ofString(s.str()); }
