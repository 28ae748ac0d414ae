//===- DeviceDomainsTest.cpp - The device-domain union-find --------------===//
#include "DeviceDomains.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

TEST(DeviceDomainsTest, FreeDomainsTakeTheDeviceOfWhatTheyJoin) {
  DeviceDomains d;
  auto a = d.makeFree(), b = d.makeFree(), c = d.makeBound(1, {{}, "cuda"});
  EXPECT_FALSE(d.unify(a, b));
  EXPECT_EQ(d.device(a), kNoDevice);
  EXPECT_FALSE(d.unify(b, c));
  EXPECT_EQ(d.device(a), 1);
  EXPECT_EQ(d.find(a), d.find(c));
}

TEST(DeviceDomainsTest, ConflictNamesBothDevicesAndReasons) {
  DeviceDomains d;
  auto a = d.makeBound(0, {{}, "fixed to cpu"});
  auto b = d.makeBound(1, {{}, "fixed to cuda"});
  auto c = d.unify(a, b);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->a, 0);
  EXPECT_EQ(c->b, 1);
  EXPECT_EQ(c->reasonA->what, "fixed to cpu");
  EXPECT_EQ(c->reasonB->what, "fixed to cuda");
}

TEST(DeviceDomainsTest, FunctionDomainsUnifyComponentwise) {
  DeviceDomains d;
  auto p1 = d.makeFree(), r1 = d.makeFree();
  auto p2 = d.makeBound(0, {{}, "cpu"}), r2 = d.makeBound(1, {{}, "cuda"});
  auto f1 = d.makeFunction({p1, r1}), f2 = d.makeFunction({p2, r2});
  EXPECT_FALSE(d.unify(f1, f2));
  EXPECT_EQ(d.device(p1), 0);
  EXPECT_EQ(d.device(r1), 1);
  EXPECT_EQ(d.device(d.firstOrder(f1)), 1);
}

TEST(DeviceDomainsTest, ArityMismatchIsAConflict) {
  DeviceDomains d;
  auto f1 = d.makeFunction({d.makeFree(), d.makeFree()});
  auto f2 = d.makeFunction({d.makeFree()});
  EXPECT_TRUE(d.unify(f1, f2));
}

TEST(DeviceDomainsTest, CollapseBindsEveryComponent) {
  DeviceDomains d;
  auto p = d.makeFree(), r = d.makeFree();
  auto f = d.makeFunction({p, r});
  auto fo = d.makeBound(1, {{}, "cuda"});
  EXPECT_FALSE(d.collapse(f, fo));
  EXPECT_EQ(d.device(p), 1);
  EXPECT_EQ(d.device(r), 1);
}

TEST(DeviceDomainsTest, BindingAFirstOrderClassAddsNoDomain) {
  DeviceDomains d;
  auto a = d.makeFree(), b = d.makeFree();
  EXPECT_FALSE(d.unify(a, b));
  size_t before = d.size();
  EXPECT_FALSE(d.bind(a, 1, {{}, "placed on cuda"}));
  EXPECT_FALSE(d.bind(b, 1, {{}, "again on cuda"})); // same device: no conflict
  EXPECT_EQ(d.size(), before);
  EXPECT_EQ(d.device(b), 1);
  EXPECT_EQ(d.reason(b)->what, "placed on cuda"); // the first reason stays
  auto c = d.bind(b, 0, {{}, "fixed to cpu"});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->a, 1);
  EXPECT_EQ(c->b, 0);
  EXPECT_EQ(c->reasonA->what, "placed on cuda");
  EXPECT_EQ(c->reasonB->what, "fixed to cpu");
  EXPECT_EQ(d.device(a), 1); // a conflict binds nothing
}

TEST(DeviceDomainsTest, BindingAFunctionClassBindsEveryComponent) {
  DeviceDomains d;
  auto p = d.makeFree(), r = d.makeFree();
  auto f = d.makeFunction({p, r});
  EXPECT_FALSE(d.bind(f, 0, {{}, "cpu"}));
  EXPECT_EQ(d.device(p), 0);
  EXPECT_EQ(d.device(r), 0);
}

TEST(DeviceDomainsTest, AFreeClassOfTwoTagsSharesBoth) {
  DeviceDomains d;
  d.setTag(0);
  auto a = d.makeFree(), a2 = d.makeFree();
  d.setTag(1);
  auto b = d.makeFree();
  d.setTag(2);
  auto c = d.makeFree();
  EXPECT_FALSE(d.unify(a, a2)); // one tag: shares nothing
  EXPECT_FALSE(d.sharesFreeClass(0));
  EXPECT_FALSE(d.unify(a, b));
  EXPECT_TRUE(d.sharesFreeClass(0));
  EXPECT_TRUE(d.sharesFreeClass(1));
  EXPECT_FALSE(d.sharesFreeClass(2));
  EXPECT_FALSE(d.unify(c, b)); // joins the mixed class
  EXPECT_TRUE(d.sharesFreeClass(2));
  // Once the class is bound, what the others do cannot move it.
  EXPECT_FALSE(d.bind(a, 1, {{}, "cuda"}));
  EXPECT_FALSE(d.sharesFreeClass(0));
  EXPECT_FALSE(d.sharesFreeClass(1));
  EXPECT_FALSE(d.sharesFreeClass(2));
}

TEST(DeviceDomainsTest, JoiningABoundClassSharesNothing) {
  DeviceDomains d;
  d.setTag(0);
  auto a = d.makeFree();
  d.setTag(1);
  auto b = d.makeBound(0, {{}, "cpu"});
  EXPECT_FALSE(d.unify(a, b));
  EXPECT_FALSE(d.sharesFreeClass(0));
  EXPECT_FALSE(d.sharesFreeClass(1));
  d.markShared(1);
  EXPECT_TRUE(d.sharesFreeClass(1));
  EXPECT_TRUE(d.sharesFreeClass(70000)); // past the tags: always
}

TEST(DeviceDomainsTest, FunctionShapesShareThroughTheirComponents) {
  DeviceDomains d;
  d.setTag(0);
  auto p = d.makeFree(), r = d.makeBound(1, {{}, "cuda"});
  auto f = d.makeFunction({p, r});
  d.setTag(1);
  auto q = d.makeFree(), s = d.makeFree();
  auto g = d.makeFunction({q, s});
  EXPECT_FALSE(d.unify(f, g));
  EXPECT_TRUE(d.sharesFreeClass(0)); // p and q: free
  EXPECT_FALSE(d.bind(q, 0, {{}, "cpu"}));
  EXPECT_FALSE(d.sharesFreeClass(0)); // r and s: bound from the start
  EXPECT_FALSE(d.sharesFreeClass(1));
  // A free first-order class that joins a function shape stays shared.
  d.setTag(2);
  auto x = d.makeFree();
  d.setTag(3);
  auto h = d.makeFunction({d.makeFree(), d.makeFree()});
  EXPECT_FALSE(d.unify(x, h));
  EXPECT_TRUE(d.sharesFreeClass(2));
}

TEST(DeviceDomainsTest, LongChainsStayShallow) {
  DeviceDomains d;
  std::vector<DeviceDomains::Id> ids;
  for (int i = 0; i < 1000000; ++i)
    ids.push_back(d.makeFree());
  for (int i = 1; i < 1000000; ++i)
    ASSERT_FALSE(d.unify(ids[i - 1], ids[i]));
  EXPECT_FALSE(d.bind(ids.back(), 0, {{}, "cpu"}));
  EXPECT_EQ(d.device(ids.front()), 0);
}

} // namespace
