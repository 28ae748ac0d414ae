//===- TransformTest.cpp - reshape, transpose, concatenate, split, ... ----===//

#include "KernelTestUtil.h"
#include "gtest/gtest.h"

using namespace hx;
using namespace hx::test;

namespace {

const DType kAllDTypes[] = {DType::Float32, DType::Int32, DType::Int64, DType::Bool};

/// Runs a one-operand call on iota-like values and returns its results.
std::vector<Buffer> runOn(const std::string &expr, const Shape &shape, DType t, Buffer &in) {
  auto compiler = makeCompiler();
  std::string err;
  auto tc = TypedCall::parse("%a: " + tensorType(shape, t), expr, &err);
  EXPECT_TRUE(tc) << err;
  if (!tc || !compiler)
    return {};
  in = Buffer(t, shape);
  for (int64_t i = 0; i < in.size(); ++i)
    in.setInt(i, t == DType::Bool ? i % 3 == 0 : i * 7 - 11);
  return runKernel(*compiler, tc->call(), {&in});
}

std::vector<double> valuesOf(const Buffer &b) {
  std::vector<double> v;
  for (int64_t i = 0; i < b.size(); ++i)
    v.push_back(b.get(i));
  return v;
}

TEST(TransformTest, CopyKernelsKeepTheElementOrder) {
  for (DType t : kAllDTypes) {
    Buffer in;
    for (const char *expr : {"reshape(%a, newshape=[0, -1])", "reshape(%a, newshape=[24])",
                             "expand_dims(%a, axis=1, num_newaxis=2)"}) {
      std::vector<Buffer> out = runOn(expr, {2, 3, 4}, t, in);
      ASSERT_EQ(out.size(), 1u) << expr;
      expectNear(out[0], valuesOf(in), 0, expr);
    }
    std::vector<Buffer> out = runOn("squeeze(%a)", {1, 17, 1}, t, in);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].shape(), Shape{17});
    expectNear(out[0], valuesOf(in), 0, "squeeze");
    out = runOn("squeeze(%a, axis=[0])", {1, 0, 1}, t, in);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].size(), 0);
  }
}

TEST(TransformTest, Transpose) {
  struct Case {
    Shape shape;
    std::string attrs;
    Shape axes;
  } cases[] = {{{2, 3, 4}, "", {2, 1, 0}},
               {{2, 3, 4}, ", axes=[0, 2, 1]", {0, 2, 1}},
               {{17, 33}, ", axes=[1, 0]", {1, 0}},
               {{2, 3, 4, 5}, ", axes=[-1, 0, 2, 1]", {3, 0, 2, 1}},
               {{5}, "", {0}},
               {{0, 3}, "", {1, 0}}};
  for (DType t : kAllDTypes) {
    for (const Case &c : cases) {
      Buffer in;
      std::vector<Buffer> out = runOn("transpose(%a" + c.attrs + ")", c.shape, t, in);
      ASSERT_EQ(out.size(), 1u);
      Shape os;
      for (int64_t a : c.axes)
        os.push_back(c.shape[size_t(a)]);
      ASSERT_EQ(out[0].shape(), os);
      std::vector<double> expected;
      for (int64_t i = 0; i < out[0].size(); ++i) {
        Shape oc = unflattenIndex(i, os), ic(c.shape.size());
        for (size_t d = 0; d < os.size(); ++d)
          ic[size_t(c.axes[d])] = oc[d];
        expected.push_back(in.get(flattenIndex(ic, c.shape)));
      }
      expectNear(out[0], expected, 0, "transpose" + c.attrs + " " + shapeToString(c.shape));
    }
  }
}

TEST(TransformTest, Concatenate) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  for (DType t : kAllDTypes) {
    for (int axis : {0, 1, -1}) {
      // Three fields that differ along `axis` only.
      int ax = axis < 0 ? axis + 2 : axis;
      Shape sizes{2, 1, 5};
      std::vector<Shape> shapes;
      for (int64_t s : sizes)
        shapes.push_back(ax == 0 ? Shape{s, 3} : Shape{3, s});
      std::string params;
      for (int i = 0; i < 3; ++i)
        params += (i ? ", %" : "%") + std::string(1, char('a' + i)) + ": " +
                  tensorType(shapes[size_t(i)], t);
      auto tc =
          TypedCall::parse(params, "concatenate((%a, %b, %c), axis=" + std::to_string(axis) + ")");
      ASSERT_TRUE(tc);
      std::vector<Buffer> ins;
      for (int i = 0; i < 3; ++i) {
        ins.emplace_back(t, shapes[size_t(i)]);
        for (int64_t j = 0; j < ins.back().size(); ++j)
          ins.back().setInt(j, t == DType::Bool ? (j + i) % 2 : 100 * i + j);
      }
      std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&ins[0], &ins[1], &ins[2]});
      ASSERT_EQ(out.size(), 1u);
      Shape os = ax == 0 ? Shape{8, 3} : Shape{3, 8};
      ASSERT_EQ(out[0].shape(), os);
      std::vector<double> expected;
      for (int64_t i = 0; i < 24; ++i) {
        Shape c = unflattenIndex(i, os);
        int64_t along = c[size_t(ax)];
        int field = 0;
        while (along >= sizes[size_t(field)])
          along -= sizes[size_t(field++)];
        c[size_t(ax)] = along;
        expected.push_back(ins[size_t(field)].get(flattenIndex(c, shapes[size_t(field)])));
      }
      expectNear(out[0], expected, 0, "concatenate axis " + std::to_string(axis));
    }
  }
}

TEST(TransformTest, Split) {
  struct Case {
    Shape shape;
    std::string attrs;
    int axis;
    Shape starts; // start of each piece along axis
  } cases[] = {{{6, 4}, "indices_or_sections=3", 0, {0, 2, 4}},
               {{6, 5}, "indices_or_sections=[1, 4], axis=1", 1, {0, 1, 4}},
               {{2, 17, 3}, "indices_or_sections=[5], axis=-2", 1, {0, 5}},
               {{4}, "indices_or_sections=1", 0, {0}}};
  for (DType t : kAllDTypes) {
    for (const Case &c : cases) {
      Buffer in;
      std::vector<Buffer> out = runOn("split(%a, " + c.attrs + ")", c.shape, t, in);
      ASSERT_EQ(out.size(), c.starts.size()) << c.attrs;
      for (size_t p = 0; p < out.size(); ++p) {
        std::vector<double> expected;
        for (int64_t i = 0; i < out[p].size(); ++i) {
          Shape pc = unflattenIndex(i, out[p].shape());
          pc[size_t(c.axis)] += c.starts[p];
          expected.push_back(in.get(flattenIndex(pc, c.shape)));
        }
        expectNear(out[p], expected, 0, "split " + c.attrs + " piece " + std::to_string(p));
      }
    }
  }
}

} // namespace
