//===- NumberingTest.cpp - ExprNumbering, walks, rewrites, type uniquing ---===//
#include "hx/IR/ExprNumbering.h"
#include "hx/IR/Module.h"
#include "hx/IR/Rewrite.h"
#include "hx/IR/Walk.h"
#include "gtest/gtest.h"

using namespace hx;
using llvm::SMLoc;

namespace {

ExprRef call(Module &m, llvm::StringRef op, llvm::SmallVector<ExprRef, 2> args) {
  return make<Call>(ExprRef(m.getOp(op)), std::move(args), Attrs(), SMLoc());
}

TEST(NumberingTest, DenseNumbersInInsertionOrder) {
  auto a = make<Var>("a", nullptr, SMLoc()), b = make<Var>("b", nullptr, SMLoc());
  ExprNumbering n(ExprSlot::Walk);
  EXPECT_EQ(n.lookup(a.get()), ExprNumbering::kNone);
  EXPECT_EQ(n.insert(a.get()), std::make_pair(0u, true));
  EXPECT_EQ(n.insert(b.get()), std::make_pair(1u, true));
  EXPECT_EQ(n.insert(a.get()), std::make_pair(0u, false));
  EXPECT_EQ(n[1], b.get());
  EXPECT_EQ(n.size(), 2u);
}

// Another numbering on the same slot makes a node "not numbered" here, never
// another node's number; the other slot is independent.
TEST(NumberingTest, OverwrittenSlotReadsAsAbsent) {
  auto a = make<Var>("a", nullptr, SMLoc()), b = make<Var>("b", nullptr, SMLoc());
  ExprNumbering first(ExprSlot::Walk), analysis(ExprSlot::Analysis);
  first.insert(a.get());
  first.insert(b.get());
  analysis.insert(b.get());
  ExprNumbering second(ExprSlot::Walk);
  second.insert(b.get()); // b's Walk slot now says 1 (second's number 0)
  EXPECT_EQ(first.lookup(b.get()), ExprNumbering::kNone);
  EXPECT_EQ(first.lookup(a.get()), 0u);
  EXPECT_EQ(second.lookup(b.get()), 0u);
  EXPECT_EQ(analysis.lookup(b.get()), 0u);
}

TEST(NumberingTest, PostOrderVisitsEachNodeOnceOperandsFirst) {
  Module m;
  auto a = make<Var>("a", nullptr, SMLoc());
  ExprRef c1 = call(m, "negative", {a});
  ExprRef c2 = call(m, "add", {c1, c1});
  std::vector<Expr *> order = postOrder(c2.get());
  ASSERT_EQ(order.size(), 5u); // negative, %a, c1, add, c2: shared c1 once
  auto pos = [&](Expr *e) { return std::find(order.begin(), order.end(), e) - order.begin(); };
  for (Expr *e : order) {
    llvm::SmallVector<Expr *, 4> ops;
    getOperands(e, ops);
    for (Expr *o : ops)
      EXPECT_LT(pos(o), pos(e));
  }
  EXPECT_EQ(order.back(), c2.get());
}

// A rewrite whose callback walks the same nodes (overwriting their Walk
// numbers) still sees every operand's replacement.
TEST(NumberingTest, RewriteSurvivesNestedWalks) {
  Module m;
  auto a = make<Var>("a", nullptr, SMLoc());
  ExprRef cur = a;
  for (int i = 0; i < 50; ++i)
    cur = call(m, "add", {cur, cur});
  size_t calls = 0;
  ExprRef r = rewritePostOrder(cur.get(), [&](Expr *old, llvm::ArrayRef<ExprRef> ops) -> ExprRef {
    walkPostOrder(cur.get(), [](Expr *) {});
    if (auto *c = llvm::dyn_cast<Call>(old)) {
      ++calls;
      EXPECT_TRUE(ops[1] && ops[2]);
      return call(m, "multiply", {ops[1], ops[2]});
    }
    return old;
  });
  EXPECT_EQ(calls, 50u);
  size_t multiplies = 0;
  walkPostOrder(r.get(), [&](Expr *e) {
    auto *c = llvm::dyn_cast<Call>(e);
    multiplies += c && c->isOp("multiply");
    EXPECT_FALSE(c && c->isOp("add"));
  });
  EXPECT_EQ(multiplies, 50u);
}

// rewriteInOrder over a walked order: replaceOperands changes a node with a
// single owner in place (its user keeps pointing at it) and copies a shared
// one.
TEST(NumberingTest, RewriteInOrderChangesSingleOwnersInPlace) {
  Module m;
  auto a = make<Var>("a", nullptr, SMLoc()), b = make<Var>("b", nullptr, SMLoc());
  ExprRef top = call(m, "negative", {call(m, "negative", {a})});
  std::vector<Expr *> order = postOrder(top.get());
  ExprRef same = rewriteInOrder(
      order, [](Expr *old, llvm::ArrayRef<ExprRef> ops) { return replaceOperands(old, ops); });
  EXPECT_EQ(same.get(), top.get());
  Expr *inner = llvm::cast<Call>(top.get())->args[0].get();
  EXPECT_EQ(llvm::cast<Call>(inner)->args[0].get(), a.get());
  ExprRef r = rewriteInOrder(order, [&](Expr *old, llvm::ArrayRef<ExprRef> ops) -> ExprRef {
    if (old == inner)
      return replaceOperands(old, {ops[0], b});
    return replaceOperands(old, ops);
  });
  EXPECT_EQ(r.get(), top.get());
  EXPECT_EQ(llvm::cast<Call>(inner)->args[0].get(), b.get());
  // Held twice (by `top` and by `keep`): copied, the original untouched.
  ExprRef keep = inner;
  ExprRef copy = replaceOperands(inner, {ExprRef(m.getOp("negative")), a});
  EXPECT_NE(copy.get(), inner);
  EXPECT_EQ(llvm::cast<Call>(inner)->args[0].get(), b.get());
  EXPECT_EQ(llvm::cast<Call>(copy.get())->args[0].get(), a.get());
}

TEST(TypeUniquerTest, ComputedTypesAreSharedAnnotationsKept) {
  TypeUniquer u;
  TypeRef t1 = u.unique(makeTensorType({2, 3}, DType::Float32));
  TypeRef t2 = u.unique(makeTensorType({2, 3}, DType::Float32));
  TypeRef t3 = u.unique(makeTensorType({3, 2}, DType::Float32));
  TypeRef t4 = u.unique(makeTensorType({2, 3}, DType::Int32));
  EXPECT_EQ(t1.get(), t2.get());
  EXPECT_NE(t1.get(), t3.get());
  EXPECT_NE(t1.get(), t4.get());
  TypeRef tup1 = u.unique(make<TupleType>(std::vector<TypeRef>{t1, t3}));
  TypeRef tup2 =
      u.unique(make<TupleType>(std::vector<TypeRef>{makeTensorType({2, 3}, DType::Float32), t3}));
  EXPECT_EQ(tup1.get(), tup2.get());
  EXPECT_EQ(hashType(t1.get()), hashType(makeTensorType({2, 3}, DType::Float32).get()));
  // An annotation keeps its own object: diagnostics point at its location.
  TypeRef annotated = makeTensorType({2, 3}, DType::Float32);
  annotated->loc = SMLoc::getFromPointer("x");
  EXPECT_EQ(u.unique(annotated).get(), annotated.get());
}

} // namespace
