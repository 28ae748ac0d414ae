//===- SortTest.cpp - argsort and topk ------------------------------------===//
//
// Against std::stable_sort of (value, index) per row: ties keep ascending
// indices in both directions; odd row lengths (1, 3, 17, 1000), rows along
// a non-last axis, index dtypes int32 and int64, every topk ret_type.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <numeric>

using namespace hx;
using namespace hx::test;

namespace {

/// The stable sorted order of row `r` (of `len` elements, stride `inner`,
/// starting at `base`).
std::vector<int64_t> sortedRow(const Buffer &in, int64_t base, int64_t len, int64_t inner,
                               bool ascending) {
  std::vector<int64_t> idx(static_cast<size_t>(len));
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    double va = in.get(base + a * inner), vb = in.get(base + b * inner);
    return ascending ? va < vb : va > vb;
  });
  return idx;
}

struct SortCase {
  Shape shape;
  int axis;
  bool ascending;
  int64_t k; // topk only; < 1 means all
};

/// Runs argsort or topk (ret_type both) and checks values and indices.
void checkSort(bool topk, DType t, DType indexType, const SortCase &c, double lo, double hi) {
  int ax = c.axis < 0 ? c.axis + int(c.shape.size()) : c.axis;
  std::string attrs = ", axis=" + std::to_string(c.axis) +
                      ", is_ascend=" + (c.ascending ? "True" : "False") + ", dtype=\"" +
                      dtypeName(indexType).str() + "\"";
  if (topk)
    attrs += ", k=" + std::to_string(c.k);
  std::string expr = std::string(topk ? "topk" : "argsort") + "(%a" + attrs + ")";
  std::string what = expr + " on " + tensorType(c.shape, t);
  std::string err;
  auto tc = TypedCall::parse("%a: " + tensorType(c.shape, t), expr, &err);
  ASSERT_TRUE(tc) << what << ": " << err;
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  Buffer in(t, c.shape);
  std::mt19937 rng(17);
  fillRandom(in, rng, lo, hi);
  std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&in});
  ASSERT_EQ(out.size(), topk ? 2u : 1u) << what;

  llvm::ArrayRef<int64_t> shape = c.shape;
  int64_t outer = numElementsOf(shape.take_front(size_t(ax)));
  int64_t len = shape[size_t(ax)];
  int64_t inner = numElementsOf(shape.drop_front(size_t(ax) + 1));
  int64_t kOut = topk && c.k >= 1 ? c.k : len;
  const Buffer &indices = out.back();
  ASSERT_EQ(indices.dtype(), indexType);
  std::vector<double> expIdx(size_t(outer * kOut * inner)), expVal(expIdx.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<int64_t> order = sortedRow(in, o * len * inner + i, len, inner, c.ascending);
      for (int64_t j = 0; j < kOut; ++j) {
        size_t pos = size_t(o * kOut * inner + j * inner + i);
        expIdx[pos] = double(order[size_t(j)]);
        expVal[pos] = in.get(o * len * inner + order[size_t(j)] * inner + i);
      }
    }
  expectNear(indices, expIdx, 0, what + " indices");
  if (topk)
    expectNear(out[0], expVal, 0, what + " values");
}

TEST(SortTest, Argsort) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64}) {
    for (const SortCase &c : {SortCase{{4, 17}, -1, true, 0}, SortCase{{4, 17}, 1, false, 0},
                              SortCase{{5, 3}, 0, true, 0}, SortCase{{3, 4, 5}, 1, false, 0},
                              SortCase{{1000}, 0, true, 0}, SortCase{{1000}, 0, false, 0},
                              SortCase{{2, 1}, -1, true, 0}, SortCase{{0, 3}, 1, true, 0}}) {
      checkSort(false, t, DType::Int32, c, -100, 100);
      // Few distinct values: many ties, which must keep their index order.
      checkSort(false, t, DType::Int64, c, -2, 2);
    }
  }
}

TEST(SortTest, TopkBoth) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64}) {
    for (const SortCase &c : {SortCase{{4, 17}, -1, false, 3}, SortCase{{4, 17}, -1, true, 1},
                              SortCase{{6, 5}, 0, false, 2}, SortCase{{3, 17}, 1, false, 0},
                              SortCase{{3, 17}, 1, false, 17}, SortCase{{1000}, 0, false, 10}}) {
      checkSort(true, t, DType::Int32, c, -100, 100);
      checkSort(true, t, DType::Int64, c, -2, 2);
    }
  }
}

TEST(SortTest, LongRowsUseHeapScratch) {
  // 2 * 10000 int64 indices exceed the stack scratch limit.
  checkSort(false, DType::Float32, DType::Int32, {{2, 10000}, 1, true, 0}, -1, 1);
}

TEST(SortTest, TopkSingleResults) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  auto values =
      TypedCall::parse("%a: Tensor[(2, 5), float32]", "topk(%a, k=2, ret_type=\"values\")");
  auto indices =
      TypedCall::parse("%a: Tensor[(2, 5), float32]", "topk(%a, k=2, ret_type=\"indices\")");
  ASSERT_TRUE(values && indices);
  Buffer in(DType::Float32, {2, 5});
  double v[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  for (int i = 0; i < 10; ++i)
    in.set(i, v[i]);
  std::vector<Buffer> vo = runKernel(*compiler, values->call(), {&in});
  std::vector<Buffer> io = runKernel(*compiler, indices->call(), {&in});
  ASSERT_EQ(vo.size(), 1u);
  ASSERT_EQ(io.size(), 1u);
  expectNear(vo[0], {5, 4, 9, 6}, 0, "topk values");
  expectNear(io[0], {4, 2, 0, 2}, 0, "topk indices");
}

TEST(SortTest, NaNSortsLast) {
  auto compiler = makeCompiler();
  ASSERT_TRUE(compiler);
  auto tc = TypedCall::parse("%a: Tensor[(5), float32]", "argsort(%a)");
  ASSERT_TRUE(tc);
  Buffer in(DType::Float32, {5});
  double v[] = {2, NAN, -1, NAN, 0};
  for (int i = 0; i < 5; ++i)
    in.set(i, v[i]);
  std::vector<Buffer> out = runKernel(*compiler, tc->call(), {&in});
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], {2, 4, 0, 1, 3}, 0, "argsort with NaN");
}

} // namespace
