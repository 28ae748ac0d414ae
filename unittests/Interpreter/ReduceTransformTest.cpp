//===- ReduceTransformTest.cpp - Reductions and shape-changing operators --===//
#include "TestUtil.h"

using namespace hx;
using namespace hx::test;

namespace {

const char *kF23 = "%a: Tensor[(2, 3), float32]";
HostTensor a23() { return f32({2, 3}, {1, 2, 3, 4, 5, 6}); }

/// 0..n-1 in `dtype`.
HostTensor iota(DType dtype, llvm::ArrayRef<int64_t> shape) {
  HostTensor t(dtype, shape);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, double(i));
  return t;
}

TEST(ReduceTest, SumAxes) {
  EXPECT_TRUE(tensorIs(runOne(kF23, "sum(%a)", {a23()}), DType::Float32, {}, {21}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "sum(%a, axis=[1])", {a23()}), DType::Float32, {2}, {6, 15}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "sum(%a, axis=-1)", {a23()}), DType::Float32, {2}, {6, 15}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "sum(%a, axis=[0], keepdims=True)", {a23()}), DType::Float32,
                       {1, 3}, {5, 7, 9}));
  // exclude: every axis but 1 is reduced.
  EXPECT_TRUE(tensorIs(runOne(kF23, "sum(%a, axis=[1], exclude=True)", {a23()}), DType::Float32,
                       {3}, {5, 7, 9}));
  // (2, 3, 4) holding 12i + 4j + k, summed over i and k: 60 + 32j.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 3, 4), int32]", "sum(%x, axis=[0, 2])",
                              {iota(DType::Int32, {2, 3, 4})}),
                       DType::Int32, {3}, {60, 92, 124}));
}

TEST(ReduceTest, Mean) {
  EXPECT_TRUE(tensorIs(runOne(kF23, "mean(%a, axis=[1])", {a23()}), DType::Float32, {2}, {2, 5}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "mean(%a)", {a23()}), DType::Float32, {}, {3.5}));
  // Integer means truncate toward zero: 3/2 = 1, 7/2 = 3, -3/2 = -1.
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(3, 2), int32]", "mean(%x, axis=1)", {i32({3, 2}, {1, 2, 3, 4, -1, -2})}),
      DType::Int32, {3}, {1, 3, -1}));
}

TEST(ReduceTest, MaxMin) {
  HostTensor v = f32({2, 3}, {3, -1, 2, -5, 7, 0});
  EXPECT_TRUE(
      tensorIs(runOne(kF23, "max(%a, axis=[1])", {v.clone()}), DType::Float32, {2}, {3, 7}));
  EXPECT_TRUE(
      tensorIs(runOne(kF23, "min(%a, axis=[1])", {v.clone()}), DType::Float32, {2}, {-1, -5}));
  EXPECT_TRUE(
      tensorIs(runOne(kF23, "max(%a, axis=[0])", {v.clone()}), DType::Float32, {3}, {3, 7, 2}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "min(%a)", {v.clone()}), DType::Float32, {}, {-5}));
  // int64 beyond 2^53 is compared exactly.
  Expected<HostTensor> r = runOne("%x: Tensor[(2), int64]", "max(%x)",
                                  {makeInt64({2}, {(int64_t(1) << 53) + 1, int64_t(1) << 53})});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  EXPECT_EQ(r->as<int64_t>()[0], (int64_t(1) << 53) + 1);
}

TEST(ReduceTest, Prod) {
  EXPECT_TRUE(tensorIs(runOne(kF23, "prod(%a, axis=[1])", {a23()}), DType::Float32, {2}, {6, 120}));
  // An empty product is 1.
  EXPECT_TRUE(tensorIs(
      runOne("%x: Tensor[(2, 0), int32]", "prod(%x, axis=[1])", {HostTensor(DType::Int32, {2, 0})}),
      DType::Int32, {2}, {1, 1}));
}

TEST(ReduceTest, ArgMaxArgMin) {
  HostTensor v = f32({2, 3}, {3, -1, 3, -5, 7, -5});
  EXPECT_TRUE(
      tensorIs(runOne(kF23, "argmax(%a, axis=[1])", {v.clone()}), DType::Int32, {2}, {0, 1}));
  // Ties: the first index, or the last with select_last_index.
  EXPECT_TRUE(tensorIs(runOne(kF23, "argmax(%a, axis=[1], select_last_index=True)", {v.clone()}),
                       DType::Int32, {2}, {2, 1}));
  EXPECT_TRUE(
      tensorIs(runOne(kF23, "argmin(%a, axis=[1])", {v.clone()}), DType::Int32, {2}, {1, 0}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "argmin(%a, axis=[1], select_last_index=True)", {v.clone()}),
                       DType::Int32, {2}, {1, 2}));
  // Several axes: the index is row-major over them; keepdims keeps them.
  EXPECT_TRUE(
      tensorIs(runOne(kF23, "argmax(%a, keepdims=True)", {v.clone()}), DType::Int32, {1, 1}, {4}));
  // A NaN is the maximum and the minimum.
  HostTensor n = f32({1, 3}, {1, NAN, 2});
  EXPECT_TRUE(tensorIs(runOne("%a: Tensor[(1, 3), float32]", "argmin(%a, axis=[1])", {n.clone()}),
                       DType::Int32, {1}, {1}));
}

TEST(ReduceTest, Cumsum) {
  EXPECT_TRUE(tensorIs(runOne(kF23, "cumsum(%a, axis=1)", {a23()}), DType::Float32, {2, 3},
                       {1, 3, 6, 4, 9, 15}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "cumsum(%a, axis=0, exclusive=True)", {a23()}), DType::Float32,
                       {2, 3}, {0, 0, 0, 1, 2, 3}));
  // Without an axis: the flattened data; dtype is the result's.
  EXPECT_TRUE(tensorIs(runOne(kF23, "cumsum(%a, dtype=\"int64\")", {a23()}), DType::Int64, {6},
                       {1, 3, 6, 10, 15, 21}));
}

TEST(ReduceTest, EmptyAxes) {
  // sum over an empty axis is 0; max has no identity.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 0), float32]", "sum(%x, axis=[1])",
                              {HostTensor(DType::Float32, {2, 0})}),
                       DType::Float32, {2}, {0, 0}));
  std::string msg = errorOf(runOne("%x: Tensor[(2, 0), float32]", "max(%x, axis=[1])",
                                   {HostTensor(DType::Float32, {2, 0})}));
  EXPECT_NE(msg.find("max: cannot reduce over an empty axis"), std::string::npos) << msg;
}

TEST(TransformTest, Gather) {
  // Along axis 1: out[i][j] = a[i][idx[i][j]]; -1 counts from the end, 7
  // clamps to 2.
  EXPECT_TRUE(tensorIs(runOne("%a: Tensor[(2, 3), float32], %i: Tensor[(2, 2), int64]",
                              "gather(%a, %i, axis=1)", {a23(), makeInt64({2, 2}, {2, 0, -1, 7})}),
                       DType::Float32, {2, 2}, {3, 1, 6, 6}));
  // Along axis 0, indices smaller than the data in the other dim.
  EXPECT_TRUE(tensorIs(runOne("%a: Tensor[(2, 3), float32], %i: Tensor[(3, 2), int64]",
                              "gather(%a, %i)", {a23(), makeInt64({3, 2}, {1, 0, 0, 1, 1, 1})}),
                       DType::Float32, {3, 2}, {4, 2, 1, 5, 4, 5}));
}

TEST(TransformTest, GatherNd) {
  // Tuples (1, 2) and (0, -1) of a [2, 3]: elements 6 and 3.
  EXPECT_TRUE(tensorIs(runOne("%a: Tensor[(2, 3), float32], %i: Tensor[(2, 2), int64]",
                              "gather_nd(%a, %i)", {a23(), makeInt64({2, 2}, {1, 0, 2, -1})}),
                       DType::Float32, {2}, {6, 3}));
  // One index: rows; with batch_dims=1, an element of each row.
  EXPECT_TRUE(tensorIs(runOne("%a: Tensor[(2, 3), float32], %i: Tensor[(1, 1), int64]",
                              "gather_nd(%a, %i)", {a23(), makeInt64({1, 1}, {1})}),
                       DType::Float32, {1, 3}, {4, 5, 6}));
  EXPECT_TRUE(
      tensorIs(runOne("%a: Tensor[(2, 3), float32], %i: Tensor[(1, 2), int64]",
                      "gather_nd(%a, %i, batch_dims=1)", {a23(), makeInt64({1, 2}, {2, 0})}),
               DType::Float32, {2}, {3, 4}));
}

TEST(TransformTest, Reshape) {
  EXPECT_TRUE(tensorIs(runOne(kF23, "reshape(%a, newshape=[3, -1])", {a23()}), DType::Float32,
                       {3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "reshape(%a, newshape=[-1])", {a23()}), DType::Float32, {6},
                       {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(tensorIs(runOne("%b: Tensor[(2, 2), bool]", "reshape(%b, newshape=[0, 1, -1])",
                              {makeTensor(DType::Bool, {2, 2}, {1, 0, 0, 1})}),
                       DType::Bool, {2, 1, 2}, {1, 0, 0, 1}));
}

TEST(TransformTest, Transpose) {
  EXPECT_TRUE(
      tensorIs(runOne(kF23, "transpose(%a)", {a23()}), DType::Float32, {3, 2}, {1, 4, 2, 5, 3, 6}));
  // out[x, y, z] = in[y, z, x], in[i, j, k] = 4i + 2j + k.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 2, 2), int64]", "transpose(%x, axes=[2, 0, 1])",
                              {iota(DType::Int64, {2, 2, 2})}),
                       DType::Int64, {2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 3), int32]", "transpose(%x, axes=[-1, 0])",
                              {iota(DType::Int32, {2, 3})}),
                       DType::Int32, {3, 2}, {0, 3, 1, 4, 2, 5}));
}

TEST(TransformTest, ExpandDimsAndSqueeze) {
  EXPECT_TRUE(tensorIs(runOne(kF23, "expand_dims(%a, axis=1, num_newaxis=2)", {a23()}),
                       DType::Float32, {2, 1, 1, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(tensorIs(runOne(kF23, "expand_dims(%a, axis=-1)", {a23()}), DType::Float32, {2, 3, 1},
                       {1, 2, 3, 4, 5, 6}));
  std::string p = "%x: Tensor[(1, 3, 1), int32]";
  EXPECT_TRUE(tensorIs(runOne(p, "squeeze(%x)", {i32({1, 3, 1}, {7, 8, 9})}), DType::Int32, {3},
                       {7, 8, 9}));
  EXPECT_TRUE(tensorIs(runOne(p, "squeeze(%x, axis=[0])", {i32({1, 3, 1}, {7, 8, 9})}),
                       DType::Int32, {3, 1}, {7, 8, 9}));
}

TEST(TransformTest, StridedSlice) {
  // x[i, j] = 4i + j.
  std::string p = "%x: Tensor[(3, 4), int32]";
  auto x = [] { return iota(DType::Int32, {3, 4}); };
  auto slice = [&](const std::string &attrs) {
    return runOne(p, "strided_slice(%x, " + attrs + ")", {x()});
  };
  EXPECT_TRUE(tensorIs(slice("begin=[0, 1], end=[2, 3]"), DType::Int32, {2, 2}, {1, 2, 5, 6}));
  // Negative steps: rows 2, 1 and columns 3, 1.
  EXPECT_TRUE(tensorIs(slice("begin=[2, 3], end=[0, 0], strides=[-1, -2]"), DType::Int32, {2, 2},
                       {11, 9, 7, 5}));
  // -1 wraps to 2; -4 wraps to -1, the clamp below 0 of a backward walk: every row.
  EXPECT_TRUE(tensorIs(slice("begin=[-1], end=[-4], strides=[-1]"), DType::Int32, {3, 4},
                       {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}));
  // TVM completes a missing end of a negative step with 0, which is excluded.
  EXPECT_TRUE(tensorIs(slice("begin=[2], end=[], strides=[-1]"), DType::Int32, {2, 4},
                       {8, 9, 10, 11, 4, 5, 6, 7}));
  // Out-of-range indices clamp.
  EXPECT_TRUE(tensorIs(slice("begin=[-10, 1], end=[10, 100], strides=[2, 2]"), DType::Int32, {2, 2},
                       {1, 3, 9, 11}));
  // slice_mode="size": sizes, -1 to the end, strides ignored.
  EXPECT_TRUE(tensorIs(slice("begin=[1, 1], end=[-1, 2], strides=[5, 5], slice_mode=\"size\""),
                       DType::Int32, {2, 2}, {5, 6, 9, 10}));
  // axes: only the last dim, walked backwards by 2.
  EXPECT_TRUE(tensorIs(slice("begin=[3], end=[0], strides=[-2], axes=[-1]"), DType::Int32, {3, 2},
                       {3, 1, 7, 5, 11, 9}));
  EXPECT_TRUE(tensorIs(slice("begin=[3], end=[3]"), DType::Int32, {0, 4}, {}));
  std::string msg = errorOf(slice("begin=[2], end=[1]"));
  EXPECT_NE(msg.find("begin 2 and end 1 slice axis 0 of size 3 backwards"), std::string::npos)
      << msg;
}

TEST(TransformTest, Pad) {
  // x = [[1, 2, 3], [4, 5, 6]]; the pad value is operand 1.
  std::string p = "%x: Tensor[(2, 3), float32], %v: Tensor[(), float32]";
  auto pad = [&](const std::string &attrs, double value = 9) {
    return runOne(p, "nn.pad(%x, %v, " + attrs + ")", {a23(), f32({}, {value})});
  };
  EXPECT_TRUE(tensorIs(pad("pad_width=[[1, 0], [0, 2]]"), DType::Float32, {3, 5},
                       {9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 4, 5, 6, 9, 9}));
  // edge repeats the border element.
  EXPECT_TRUE(tensorIs(pad("pad_width=[[0, 1], [2, 1]], pad_mode=\"edge\""), DType::Float32, {3, 6},
                       {1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6, 4, 4, 4, 5, 6, 6}));
  // reflect mirrors around the border element, which is not repeated.
  EXPECT_TRUE(tensorIs(
      pad("pad_width=[[1, 1], [2, 2]], pad_mode=\"reflect\""), DType::Float32, {4, 7},
      {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1}));
  // The pad value is cast to the data's dtype (truncated toward zero).
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(2), int32], %v: Tensor[(), float32]",
                      "nn.pad(%x, %v, pad_width=[[1, 1]])", {i32({2}, {7, 8}), f32({}, {-2.75})}),
               DType::Int32, {4}, {-2, 7, 8, -2}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(1), bool]", "nn.pad(%x, 3, pad_width=[[2, 0]])",
                              {makeTensor(DType::Bool, {1}, {0})}),
                       DType::Bool, {3}, {1, 1, 0}));
  // Empty data: everything is the pad value.
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(0, 2), float32]", "nn.pad(%x, 0.5f, pad_width=[[1, 0], [0, 1]])",
                      {HostTensor(DType::Float32, {0, 2})}),
               DType::Float32, {1, 3}, {0.5, 0.5, 0.5}));
  std::string msg = errorOf(pad("pad_width=[[0, 0], [3, 0]], pad_mode=\"reflect\""));
  EXPECT_NE(msg.find("reflect padding needs pads below the size 3 of axis 1"), std::string::npos)
      << msg;
}

TEST(TransformTest, LayoutTransform) {
  // x[n, c, h, w] = 4c + 2h + w over (1, 4, 2, 2).
  std::string p = "%x: Tensor[(1, 4, 2, 2), int32]";
  auto x = [] { return iota(DType::Int32, {1, 4, 2, 2}); };
  auto lt = [&](const std::string &dst) {
    return runOne(p, "layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"" + dst + "\")",
                  {x()});
  };
  // NHWC: out[n, h, w, c] = x[n, c, h, w].
  EXPECT_TRUE(tensorIs(lt("NHWC"), DType::Int32, {1, 2, 2, 4},
                       {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}));
  // NCHW2c: out[n, C, h, w, c] = x[n, 2C + c, h, w].
  EXPECT_TRUE(tensorIs(lt("NCHW2c"), DType::Int32, {1, 2, 2, 2, 2},
                       {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15}));
  // NHWC2c: the block after the permutation.
  EXPECT_TRUE(tensorIs(lt("NHWC2c"), DType::Int32, {1, 2, 2, 2, 2},
                       {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}));
  // Back from the blocked layout, and from one block size to another.
  std::string b = "%b: Tensor[(1, 2, 2, 2, 2), int32]";
  HostTensor blocked = i32({1, 2, 2, 2, 2}, {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15});
  EXPECT_TRUE(tensorIs(runOne(b,
                              "layout_transform(%b, src_layout=\"NCHW2c\", "
                              "dst_layout=\"NCHW\")",
                              {blocked.clone()}),
                       DType::Int32, {1, 4, 2, 2}, valuesOf(x())));
  EXPECT_TRUE(tensorIs(runOne(b,
                              "layout_transform(%b, src_layout=\"NCHW2c\", "
                              "dst_layout=\"NCHW4c\")",
                              {blocked.clone()}),
                       DType::Int32, {1, 1, 2, 2, 4},
                       {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}));
  std::string msg = errorOf(lt("NCHW3c"));
  EXPECT_NE(msg.find("the axis C of size 4 cannot be split into blocks of 3"), std::string::npos)
      << msg;
}

TEST(TransformTest, Concatenate) {
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 2), float32], %y: Tensor[(2, 1), float32]",
                              "concatenate((%x, %y), axis=1)",
                              {f32({2, 2}, {1, 2, 3, 4}), f32({2, 1}, {5, 6})}),
                       DType::Float32, {2, 3}, {1, 2, 5, 3, 4, 6}));
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2, 2), int32], %y: Tensor[(1, 2), int32]",
                              "concatenate((%x, %y, %x))",
                              {i32({2, 2}, {1, 2, 3, 4}), i32({1, 2}, {5, 6})}),
                       DType::Int32, {5, 2}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4}));
  // A let-bound tuple works too.
  EXPECT_TRUE(tensorIs(runOne("%x: Tensor[(2), bool]", "let %t = (%x, %x); concatenate(%t)",
                              {makeTensor(DType::Bool, {2}, {1, 0})}),
                       DType::Bool, {4}, {1, 0, 1, 0}));
}

TEST(TransformTest, Stack) {
  std::string p = "%x: Tensor[(2, 2), int32], %y: Tensor[(2, 2), int32]";
  auto x = [] { return i32({2, 2}, {1, 2, 3, 4}); };
  auto y = [] { return i32({2, 2}, {5, 6, 7, 8}); };
  // axis 0: the fields one after the other.
  EXPECT_TRUE(tensorIs(runOne(p, "stack((%x, %y))", {x(), y()}), DType::Int32, {2, 2, 2},
                       {1, 2, 3, 4, 5, 6, 7, 8}));
  // axis 1: out[i, k, j] = field_k[i, j].
  EXPECT_TRUE(tensorIs(runOne(p, "stack((%x, %y), axis=1)", {x(), y()}), DType::Int32, {2, 2, 2},
                       {1, 2, 5, 6, 3, 4, 7, 8}));
  // axis -1 (the new last dim): out[i, j, k] = field_k[i, j].
  EXPECT_TRUE(tensorIs(runOne(p, "stack((%x, %y, %x), axis=-1)", {x(), y()}), DType::Int32,
                       {2, 2, 3}, {1, 5, 1, 2, 6, 2, 3, 7, 3, 4, 8, 4}));
  // Scalars become a vector; a zero-size field gives a zero-size result.
  EXPECT_TRUE(tensorIs(runOne("%s: Tensor[(), float32]", "stack((%s, %s))", {f32({}, {2.5})}),
                       DType::Float32, {2}, {2.5, 2.5}));
  EXPECT_TRUE(tensorIs(runOne("%e: Tensor[(0, 2), bool]", "stack((%e, %e), axis=2)",
                              {HostTensor(DType::Bool, {0, 2})}),
                       DType::Bool, {0, 2, 2}, {}));
}

TEST(TransformTest, Split) {
  Expected<std::vector<HostTensor>> r =
      runModule(mainModule("%x: Tensor[(6), float32]", "split(%x, indices_or_sections=3)"),
                {f32({6}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {2}, {1, 2}));
  EXPECT_TRUE(tensorIs((*r)[1], DType::Float32, {2}, {3, 4}));
  EXPECT_TRUE(tensorIs((*r)[2], DType::Float32, {2}, {5, 6}));

  // Indices along axis 1 of (2, 4) holding 0..7.
  r = runModule(mainModule("%x: Tensor[(2, 4), int64]", "split(%x, indices_or_sections=[1, 3], "
                                                        "axis=1)"),
                {iota(DType::Int64, {2, 4})});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_TRUE(tensorIs((*r)[0], DType::Int64, {2, 1}, {0, 4}));
  EXPECT_TRUE(tensorIs((*r)[1], DType::Int64, {2, 2}, {1, 2, 5, 6}));
  EXPECT_TRUE(tensorIs((*r)[2], DType::Int64, {2, 1}, {3, 7}));

  // A projection of the result.
  EXPECT_TRUE(
      tensorIs(runOne("%x: Tensor[(4), int32]", "%0 = split(%x, indices_or_sections=2); %0.1",
                      {i32({4}, {1, 2, 3, 4})}),
               DType::Int32, {2}, {3, 4}));
}

TEST(TransformTest, Take) {
  std::string p = "%a: Tensor[(2, 3), float32], %i: Tensor[(2), int32]";
  auto a = [] { return f32({2, 3}, {1, 2, 3, 4, 5, 6}); };
  // Along axis 1, clipped: -1 -> 0, 7 -> 2.
  EXPECT_TRUE(tensorIs(runOne(p, "take(%a, %i, axis=1)", {a(), i32({2}, {-1, 7})}), DType::Float32,
                       {2, 2}, {1, 3, 4, 6}));
  // Wrapped: -1 -> 2, 7 -> 1.
  EXPECT_TRUE(tensorIs(runOne(p, "take(%a, %i, axis=1, mode=\"wrap\")", {a(), i32({2}, {-1, 7})}),
                       DType::Float32, {2, 2}, {3, 2, 6, 5}));
  // No axis: the flattened data.
  EXPECT_TRUE(
      tensorIs(runOne(p, "take(%a, %i)", {a(), i32({2}, {4, 0})}), DType::Float32, {2}, {5, 1}));
}

} // namespace
