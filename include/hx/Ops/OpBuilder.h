//===- OpBuilder.h - Building operator calls in code ------------*- C++ -*-===//
//
// What passes and importers build IR with, MLIR's OpBuilder in small: calls
// of registered operators (the module's one Op node per name, its registry
// definition resolved, so the printer and the verifier know the schema),
// tuples, projections and tensor constants, all at the builder's location --
// the source position and the framework node the new expressions come from
// (hx/Support/Loc.h). The attribute values are those hx text would hold, so
// what a builder makes prints and parses back to itself:
//
//   OpBuilder b(m, old->loc);
//   ExprRef y = b.call("nn.conv2d", {x, w}, {{"strides", attrs::ints({2, 2})},
//                                            {"channels", attrs::integer(64)}});
//
// The builder does not type what it builds (InferType does) and does not
// check arity or attributes (verifyOpCall does, as for text).
//
//===----------------------------------------------------------------------===//
#ifndef HX_OPS_OPBUILDER_H
#define HX_OPS_OPBUILDER_H

#include "hx/IR/Module.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <memory>

namespace hx {

class OpBuilder {
public:
  explicit OpBuilder(Module &m, Loc loc = {}) : m(m), loc(std::move(loc)) {}

  Module &getModule() const { return m; }
  /// Where the expressions built next are, and the node they come from.
  const Loc &getLoc() const { return loc; }
  void setLoc(Loc l) { loc = std::move(l); }

  /// The module's node for the registered operator `name` (asserted).
  Op *op(llvm::StringRef name) const;
  /// `name(args..., attrs...)`.
  Ref<Call> call(llvm::StringRef name, llvm::ArrayRef<ExprRef> args, Attrs attrs = {}) const;
  /// `(fields...)`
  Ref<Tuple> tuple(llvm::ArrayRef<ExprRef> fields) const;
  /// `tuple.index`
  Ref<TupleGetItem> getItem(ExprRef tuple, unsigned index) const;
  /// `meta[relay.Constant][i]`: the printer numbers the table.
  Ref<Constant> constant(std::shared_ptr<const TensorData> value) const;

private:
  Module &m;
  Loc loc;
};

/// Attribute values as the parser reads them from text (the writing side of
/// hx/Ops/AttrReader.h).
namespace attrs {
/// `3`, or `3i64` beyond int32 (hx text reads a bare integer as int32).
AttrValue integer(int64_t v);
/// `[1, 2, 3]`, each as `integer` writes it.
AttrValue ints(llvm::ArrayRef<int64_t> v);
/// `0.5f`: a float32.
AttrValue real(double v);
/// `True`, `False`
AttrValue boolean(bool b);
/// `"NCHW"`
AttrValue str(llvm::StringRef s);
} // namespace attrs

} // namespace hx

#endif
