//===- NodeTest.cpp - Reference counting and iterative release -----------===//
#include "hx/IR/Expr.h"
#include "hx/IR/Module.h"
#include "hx/IR/Walk.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

// A chain of a million calls is released without recursion.
TEST(NodeTest, ReleasingALongChainDoesNotRecurse) {
  Module m;
  Op *add = m.getOp("add");
  auto x = make<Var>("x", nullptr, llvm::SMLoc());
  ExprRef cur = x;
  for (int i = 0; i < 1000000; ++i)
    cur = make<Call>(ExprRef(add), llvm::SmallVector<ExprRef, 2>{cur, cur}, Attrs(), llvm::SMLoc());
  size_t visited = 0;
  walkPostOrder(cur.get(), [&](Expr *) { ++visited; });
  EXPECT_EQ(visited, 1000000u + 2u); // calls, %x, the op
  cur = nullptr;                     // must not overflow the stack
  EXPECT_EQ(x->useCount(), 1u);
}

TEST(NodeTest, SharedNodesSurviveUntilLastUse) {
  auto v = make<Var>("v", nullptr, llvm::SMLoc());
  auto t = make<Tuple>(llvm::SmallVector<ExprRef, 2>{v, v}, llvm::SMLoc());
  EXPECT_EQ(v->useCount(), 3u);
  t = nullptr;
  EXPECT_EQ(v->useCount(), 1u);
}

TEST(NodeTest, WalkIsPostOrder) {
  Module m;
  auto a = make<Var>("a", nullptr, llvm::SMLoc());
  ExprRef c1 = make<Call>(ExprRef(m.getOp("negative")), llvm::SmallVector<ExprRef, 2>{a}, Attrs(),
                          llvm::SMLoc());
  ExprRef c2 = make<Call>(ExprRef(m.getOp("add")), llvm::SmallVector<ExprRef, 2>{c1, a}, Attrs(),
                          llvm::SMLoc());
  std::vector<Expr *> order;
  walkPostOrder(c2.get(), [&](Expr *e) { order.push_back(e); });
  auto pos = [&](Expr *e) { return std::find(order.begin(), order.end(), e) - order.begin(); };
  EXPECT_LT(pos(a.get()), pos(c1.get()));
  EXPECT_LT(pos(c1.get()), pos(c2.get()));
  EXPECT_EQ(order.back(), c2.get());
}

} // namespace
