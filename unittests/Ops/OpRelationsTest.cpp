//===- OpRelationsTest.cpp - Operator type relations and verification -----===//
//
// Builds single operator calls directly (parameters annotated with the
// argument types) and checks inferOpType's result or its first error, plus
// verifyOpCall, getAttrOrDefault and the registry's lookups.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/Expr.h"
#include "hx/IR/Module.h"
#include "hx/IR/TargetKind.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Support/Diagnostics.h"
#include "gtest/gtest.h"

using namespace hx;

namespace {

constexpr int64_t Q = TensorType::kDynamic;

TypeRef f32(llvm::ArrayRef<int64_t> shape) { return makeTensorType(shape, DType::Float32); }
TypeRef tensor(llvm::ArrayRef<int64_t> shape, DType t) { return makeTensorType(shape, t); }
TypeRef tuple(std::vector<TypeRef> fields) { return make<TupleType>(std::move(fields)); }

AttrValue ints(std::initializer_list<int64_t> v) {
  std::vector<AttrValue> items;
  for (int64_t i : v)
    items.push_back(AttrValue::ofInt(i));
  return AttrValue::ofList(std::move(items));
}
AttrValue i(int64_t v) { return AttrValue::ofInt(v); }
AttrValue b(bool v) { return AttrValue::ofBool(v); }
AttrValue s(const char *v) { return AttrValue::ofString(v); }

class OpRelationsTest : public ::testing::Test {
protected:
  llvm::SourceMgr sm;
  DiagEngine diags{sm};
  std::vector<Diagnostic> got;
  Module m;

  void SetUp() override {
    diags.setHandler([this](const Diagnostic &d) { got.push_back(d); });
  }

  Ref<Call> makeCall(llvm::StringRef op, std::vector<TypeRef> argTypes,
                     std::vector<std::pair<std::string, AttrValue>> attrs) {
    llvm::SmallVector<ExprRef, 2> args;
    for (size_t k = 0; k < argTypes.size(); ++k)
      args.push_back(make<Var>("x" + std::to_string(k), argTypes[k], llvm::SMLoc()));
    Attrs as;
    for (auto &[name, value] : attrs)
      as.set(name, value);
    return make<Call>(ExprRef(m.getOp(op)), std::move(args), std::move(as), llvm::SMLoc());
  }

  /// The printed result type, or "error: <first message>".
  std::string infer(llvm::StringRef op, std::vector<TypeRef> argTypes,
                    std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
    got.clear();
    Ref<Call> call = makeCall(op, argTypes, std::move(attrs));
    std::vector<const Type *> raw;
    for (const TypeRef &t : argTypes)
      raw.push_back(t.get());
    TypeRef result = inferOpType(*call, raw, diags);
    if (!result) {
      EXPECT_FALSE(got.empty()) << "a failed relation must report an error";
      return got.empty() ? "error" : "error: " + got.front().message;
    }
    EXPECT_TRUE(got.empty()) << got.front().message;
    return typeToString(result.get());
  }
};

TEST_F(OpRelationsTest, Broadcasting) {
  EXPECT_EQ(infer("add", {f32({5, 1}), f32({7})}), "Tensor[(5, 7), float32]");
  EXPECT_EQ(infer("multiply", {f32({Q, 7}), f32({5, 7})}), "Tensor[(5, 7), float32]");
  EXPECT_EQ(infer("subtract", {f32({5, 7}), f32({})}), "Tensor[(5, 7), float32]");
  EXPECT_EQ(infer("add", {f32({5, 7}), f32({6, 7})}),
            "error: add: shapes (5, 7) and (6, 7) are not broadcastable");
  EXPECT_EQ(infer("add", {f32({5}), tensor({5}, DType::Int32)}),
            "error: add: dtypes float32 and int32 do not match");
  EXPECT_EQ(infer("maximum", {tensor({3}, DType::Int64), tensor({3}, DType::Int64)}),
            "Tensor[(3), int64]");
}

TEST_F(OpRelationsTest, BroadcastErrorNotesBothOperands) {
  infer("add", {f32({5, 7}), f32({6, 7})});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].notes.size(), 2u);
  EXPECT_EQ(got[0].notes[0].message, "%x0 defined here with type Tensor[(5, 7), float32]");
  EXPECT_EQ(got[0].notes[1].message, "%x1 defined here with type Tensor[(6, 7), float32]");
}

TEST_F(OpRelationsTest, ComparisonsAndWhere) {
  EXPECT_EQ(infer("less", {f32({4, 1}), f32({3})}), "Tensor[(4, 3), bool]");
  EXPECT_EQ(infer("equal", {tensor({}, DType::Int32), tensor({}, DType::Int32)}), "bool");
  EXPECT_EQ(infer("where", {tensor({4, 1}, DType::Bool), f32({3}), f32({1})}),
            "Tensor[(4, 3), float32]");
  EXPECT_EQ(infer("where", {tensor({4}, DType::Bool), f32({3}), f32({3})}),
            "error: where: condition shape (4) is not broadcastable with (3)");
}

TEST_F(OpRelationsTest, UnsupportedDTypes) {
  EXPECT_EQ(infer("exp", {tensor({3}, DType::Int32)}),
            "error: exp: unsupported dtype int32 (supported: float16, float32, float64)");
  EXPECT_EQ(
      infer("nn.conv1d", {tensor({1, 2, 3}, DType::Float64), tensor({2, 2, 1}, DType::Float64)}),
      "error: nn.conv1d: unsupported dtype float64 (supported: float16, float32)");
  // The elementwise, reduction, transform and cast families take every
  // integer dtype and float64.
  EXPECT_EQ(infer("exp", {tensor({3}, DType::Float64)}), "Tensor[(3), float64]");
  EXPECT_EQ(infer("add", {tensor({3}, DType::UInt8), tensor({3}, DType::UInt8)}),
            "Tensor[(3), uint8]");
  EXPECT_EQ(infer("cast", {f32({3})}, {{"dtype", s("float64")}}), "Tensor[(3), float64]");
  EXPECT_EQ(infer("sum", {tensor({3}, DType::Int8)}), "int8");
  EXPECT_EQ(infer("cast", {f32({3})}, {{"dtype", s("int64")}}), "Tensor[(3), int64]");
}

TEST_F(OpRelationsTest, Float16GoesWhereFloat32Does) {
  auto f16 = [](llvm::ArrayRef<int64_t> s) { return tensor(s, DType::Float16); };
  EXPECT_EQ(infer("add", {f16({2}), f16({2})}), "Tensor[(2), float16]");
  EXPECT_EQ(infer("exp", {f16({2, 3})}), "Tensor[(2, 3), float16]");
  EXPECT_EQ(infer("cast", {f32({3})}, {{"dtype", s("float16")}}), "Tensor[(3), float16]");
  EXPECT_EQ(infer("add", {f16({2}), f32({2})}),
            "error: add: dtypes float16 and float32 do not match");
}

TEST_F(OpRelationsTest, Unary) {
  EXPECT_EQ(infer("nn.relu", {f32({Q, 3})}), "Tensor[(?, 3), float32]");
  EXPECT_EQ(infer("clip", {f32({2})}, {{"a_min", i(0)}, {"a_max", AttrValue::ofFloat(6)}}),
            "Tensor[(2), float32]");
  EXPECT_EQ(infer("add", {tuple({f32({2})}), f32({2})}),
            "error: add: operand 0 must be a tensor, got (Tensor[(2), float32],)");
}

TEST_F(OpRelationsTest, Dense) {
  EXPECT_EQ(infer("nn.dense", {f32({4, 8}), f32({16, 8})}), "Tensor[(4, 16), float32]");
  EXPECT_EQ(infer("nn.dense", {f32({2, 3, 8}), f32({16, 8})}, {{"units", i(16)}}),
            "Tensor[(2, 3, 16), float32]");
  EXPECT_EQ(infer("nn.dense", {f32({Q, 8}), f32({16, Q})}), "Tensor[(?, 16), float32]");
  EXPECT_EQ(infer("nn.dense", {f32({4, 8}), f32({16, 7})}),
            "error: nn.dense: reduction dimensions differ: data (4, 8) has 8, "
            "weight (16, 7) has 7");
  EXPECT_EQ(infer("nn.dense", {f32({4, 8}), f32({16, 8})}, {{"units", i(10)}}),
            "error: nn.dense: units=10 does not match the weight's 16 output rows");
}

TEST_F(OpRelationsTest, BatchMatmul) {
  // TVM's default transpose_b=True: y is [B, N, K].
  EXPECT_EQ(infer("nn.batch_matmul", {f32({2, 3, 4}), f32({2, 5, 4})}),
            "Tensor[(2, 3, 5), float32]");
  EXPECT_EQ(infer("nn.batch_matmul", {f32({2, 3, 4}), f32({1, 4, 5})}, {{"transpose_b", b(false)}}),
            "Tensor[(2, 3, 5), float32]");
  EXPECT_EQ(infer("nn.batch_matmul", {f32({2, 4, 3}), f32({2, 5, 4})}, {{"transpose_a", b(true)}}),
            "Tensor[(2, 3, 5), float32]");
  EXPECT_EQ(infer("nn.batch_matmul", {f32({2, 3, 4}), f32({3, 5, 4})}),
            "error: nn.batch_matmul: batch dimensions 2 and 3 differ");
}

TEST_F(OpRelationsTest, BiasAddAndSoftmax) {
  EXPECT_EQ(infer("nn.bias_add", {f32({1, 16, 8, 8}), f32({16})}),
            "Tensor[(1, 16, 8, 8), float32]");
  EXPECT_EQ(infer("nn.bias_add", {f32({4, 10}), f32({10})}, {{"axis", i(-1)}}),
            "Tensor[(4, 10), float32]");
  EXPECT_EQ(infer("nn.softmax", {f32({4, 10})}, {{"axis", i(2)}}),
            "error: nn.softmax: axis 2 is out of range for rank 2 (expected -2 "
            "to 1)");
}

TEST_F(OpRelationsTest, Conv2dOutputShape) {
  EXPECT_EQ(
      infer("nn.conv2d", {f32({1, 3, 32, 32}), f32({16, 3, 3, 3})}, {{"padding", ints({1, 1})}}),
      "Tensor[(1, 16, 32, 32), float32]");
  EXPECT_EQ(infer("nn.conv2d", {f32({1, 3, 32, 32}), f32({16, 3, 3, 3})},
                  {{"strides", ints({2, 2})}, {"padding", ints({1})}}),
            "Tensor[(1, 16, 16, 16), float32]");
  EXPECT_EQ(infer("nn.conv2d", {f32({1, 3, 32, 32}), f32({16, 3, 3, 3})}),
            "Tensor[(1, 16, 30, 30), float32]");
  // 4-value padding (top, left, bottom, right) and dilation.
  EXPECT_EQ(infer("nn.conv2d", {f32({1, 3, 10, 10}), f32({8, 3, 3, 3})},
                  {{"padding", ints({1, 0, 2, 0})}, {"dilation", ints({2, 2})}}),
            "Tensor[(1, 8, 9, 6), float32]");
  // Grouped (depthwise) convolution.
  EXPECT_EQ(infer("nn.conv2d", {f32({1, 8, 8, 8}), f32({8, 1, 3, 3})},
                  {{"groups", i(8)}, {"padding", ints({1, 1})}}),
            "Tensor[(1, 8, 8, 8), float32]");
  EXPECT_EQ(infer("nn.conv2d", {f32({1, 8, 8, 3}), f32({3, 3, 3, 4})},
                  {{"data_layout", s("NHWC")}, {"kernel_layout", s("HWIO")}}),
            "Tensor[(1, 6, 6, 4), float32]");
  EXPECT_EQ(infer("nn.conv2d", {f32({Q, 3, Q, 32}), f32({16, 3, 3, 3})}),
            "Tensor[(?, 16, ?, 30), float32]");
  EXPECT_EQ(infer("nn.conv2d", {f32({1, 4, 32, 32}), f32({16, 3, 3, 3})}),
            "error: nn.conv2d: weight (16, 3, 3, 3) has 3 input channels per "
            "group, but data (1, 4, 32, 32) has 4 channels in groups=1");
  EXPECT_EQ(
      infer("nn.conv2d", {f32({1, 3, 32, 32}), f32({16, 3, 3, 3})}, {{"padding", ints({1, 1, 1})}}),
      "error: nn.conv2d: padding must have 1, 2 or 4 values, got 3");
}

TEST_F(OpRelationsTest, Pooling) {
  EXPECT_EQ(infer("nn.max_pool2d", {f32({1, 3, 32, 32})},
                  {{"pool_size", ints({2, 2})}, {"strides", ints({2, 2})}}),
            "Tensor[(1, 3, 16, 16), float32]");
  EXPECT_EQ(infer("nn.max_pool2d", {f32({1, 3, 5, 5})},
                  {{"pool_size", ints({2, 2})}, {"strides", ints({2, 2})}}),
            "Tensor[(1, 3, 2, 2), float32]");
  EXPECT_EQ(infer("nn.max_pool2d", {f32({1, 3, 5, 5})},
                  {{"pool_size", ints({2, 2})}, {"strides", ints({2, 2})}, {"ceil_mode", b(true)}}),
            "Tensor[(1, 3, 3, 3), float32]");
  EXPECT_EQ(infer("nn.global_avg_pool2d", {f32({2, 64, 7, 7})}), "Tensor[(2, 64, 1, 1), float32]");
}

TEST_F(OpRelationsTest, Reductions) {
  EXPECT_EQ(infer("sum", {f32({2, 3, 4})}), "float32");
  EXPECT_EQ(infer("sum", {f32({2, 3, 4})}, {{"axis", i(1)}}), "Tensor[(2, 4), float32]");
  EXPECT_EQ(infer("mean", {f32({2, 3, 4})}, {{"axis", ints({1})}, {"keepdims", b(true)}}),
            "Tensor[(2, 1, 4), float32]");
  EXPECT_EQ(infer("max", {f32({2, 3, 4})}, {{"axis", ints({1})}, {"exclude", b(true)}}),
            "Tensor[(3), float32]");
  EXPECT_EQ(infer("min", {f32({2, 3, 4})}, {{"axis", ints({0, -1})}, {"keepdims", b(true)}}),
            "Tensor[(1, 3, 1), float32]");
  EXPECT_EQ(infer("sum", {f32({2, 3, 4})}, {{"axis", ints({})}}), "Tensor[(2, 3, 4), float32]");
  EXPECT_EQ(infer("sum", {f32({2, 3})}, {{"axis", ints({2})}}),
            "error: sum: axis 2 is out of range for rank 2 (expected -2 to 1)");
  EXPECT_EQ(infer("sum", {f32({2, 3})}, {{"axis", ints({1, -1})}}),
            "error: sum: axis 1 is listed twice");
}

TEST_F(OpRelationsTest, Transforms) {
  EXPECT_EQ(infer("reshape", {f32({2, 3, 4})}, {{"newshape", ints({0, -1})}}),
            "Tensor[(2, 12), float32]");
  EXPECT_EQ(infer("reshape", {f32({2, 3, 4})}, {{"newshape", ints({5, -1})}}),
            "error: reshape: cannot reshape (2, 3, 4) (24 elements) into [5, "
            "-1]: -1 cannot be inferred");
  EXPECT_EQ(infer("transpose", {f32({2, 3, 4})}), "Tensor[(4, 3, 2), float32]");
  EXPECT_EQ(infer("transpose", {f32({2, 3, 4})}, {{"axes", ints({0, 2, 1})}}),
            "Tensor[(2, 4, 3), float32]");
  EXPECT_EQ(infer("expand_dims", {f32({2, 3})}, {{"axis", i(1)}, {"num_newaxis", i(2)}}),
            "Tensor[(2, 1, 1, 3), float32]");
  EXPECT_EQ(infer("expand_dims", {f32({2, 3})}, {{"axis", i(-1)}}), "Tensor[(2, 3, 1), float32]");
  EXPECT_EQ(infer("squeeze", {f32({1, 3, 1})}), "Tensor[(3), float32]");
  EXPECT_EQ(infer("squeeze", {f32({1, 3, 1})}, {{"axis", ints({2})}}), "Tensor[(1, 3), float32]");
}

TEST_F(OpRelationsTest, Concatenate) {
  EXPECT_EQ(infer("concatenate", {tuple({f32({2, 3}), f32({4, 3})})}), "Tensor[(6, 3), float32]");
  EXPECT_EQ(
      infer("concatenate", {tuple({f32({2, 3}), f32({2, 5}), f32({2, 1})})}, {{"axis", i(-1)}}),
      "Tensor[(2, 9), float32]");
  EXPECT_EQ(infer("concatenate", {tuple({f32({Q, 3}), f32({4, 3})})}), "Tensor[(?, 3), float32]");
  EXPECT_EQ(infer("concatenate", {tuple({f32({2, 3}), f32({4, 4})})}),
            "error: concatenate: shapes (2, 3) and (4, 4) (fields 0 and 1) "
            "differ outside the concatenation axis 0");
  EXPECT_EQ(infer("concatenate", {f32({2, 3})}),
            "error: concatenate: operand 0 must be a tuple of tensors, got "
            "Tensor[(2, 3), float32]");
}

TEST_F(OpRelationsTest, Split) {
  EXPECT_EQ(infer("split", {f32({6, 4})}, {{"indices_or_sections", i(3)}}),
            "(Tensor[(2, 4), float32], Tensor[(2, 4), float32], Tensor[(2, 4), "
            "float32])");
  EXPECT_EQ(infer("split", {f32({6, 4})}, {{"indices_or_sections", ints({1, 4})}, {"axis", i(0)}}),
            "(Tensor[(1, 4), float32], Tensor[(3, 4), float32], Tensor[(2, 4), "
            "float32])");
  EXPECT_EQ(infer("split", {f32({6, 4})}, {{"indices_or_sections", i(2)}, {"axis", i(1)}}),
            "(Tensor[(6, 2), float32], Tensor[(6, 2), float32])");
  EXPECT_EQ(infer("split", {f32({6, 4})}, {{"indices_or_sections", i(4)}}),
            "error: split: axis 0 of size 6 cannot be split into 4 equal "
            "sections");
  EXPECT_EQ(infer("split", {f32({6, 4})}, {{"indices_or_sections", ints({4, 2})}}),
            "error: split: split indices [4, 2] must be strictly increasing, "
            "positive and less than the size 6 of axis 0");
}

// Absurd attribute values are errors, never overflow or huge allocations.
TEST_F(OpRelationsTest, HugeAttributeValues) {
  const int64_t big = int64_t(1) << 62;
  EXPECT_EQ(infer("nn.conv2d", {f32({1, 3, 32, 32}), f32({16, 3, 3, 3})},
                  {{"dilation", ints({big, big})}}),
            "error: nn.conv2d: the kernel window or the padding is too large");
  EXPECT_EQ(infer("nn.max_pool2d", {f32({1, 3, 32, 32})},
                  {{"padding", ints({big, big})}, {"pool_size", ints({2, 2})}}),
            "error: nn.max_pool2d: the pooling window or the padding is too "
            "large");
  EXPECT_EQ(infer("expand_dims", {f32({2})}, {{"axis", i(0)}, {"num_newaxis", i(big)}}),
            "error: expand_dims: num_newaxis=4611686018427387904 would exceed "
            "the maximum rank 64");
  EXPECT_EQ(infer("split", {f32({Q})}, {{"indices_or_sections", i(big)}}),
            "error: split: 4611686018427387904 sections are more than the "
            "maximum 65536");
  EXPECT_EQ(infer("reshape", {f32({2, 3})}, {{"newshape", ints({big, 8})}}),
            "error: reshape: newshape [4611686018427387904, 8] has too many "
            "elements");
  EXPECT_EQ(infer("reshape", {f32({Q, 3})}, {{"newshape", ints({big, 8, -1})}}),
            "error: reshape: newshape [4611686018427387904, 8, -1] has too "
            "many elements");
}

TEST_F(OpRelationsTest, SortOps) {
  EXPECT_EQ(infer("argsort", {f32({4, 5})}), "Tensor[(4, 5), int32]");
  EXPECT_EQ(infer("argsort", {f32({4, 5})}, {{"dtype", s("int64")}}), "Tensor[(4, 5), int64]");
  EXPECT_EQ(infer("topk", {f32({4, 5})}, {{"k", i(2)}}),
            "(Tensor[(4, 2), float32], Tensor[(4, 2), int32])");
  EXPECT_EQ(infer("topk", {f32({4, 5})}, {{"k", i(3)}, {"axis", i(0)}, {"ret_type", s("values")}}),
            "Tensor[(3, 5), float32]");
  EXPECT_EQ(infer("topk", {f32({4, 5})}, {{"ret_type", s("all")}}),
            "error: topk: ret_type must be \"both\", \"values\" or "
            "\"indices\", got \"all\"");
}

TEST_F(OpRelationsTest, VerifyAttributes) {
  Ref<Call> c = makeCall("nn.dense", {f32({4, 8}), f32({16, 8})}, {{"unit", i(3)}});
  EXPECT_FALSE(verifyOpCall(*c, *lookupOp("nn.dense"), diags));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message, "nn.dense: unknown attribute 'unit'; accepted "
                            "attributes: units, out_dtype");

  got.clear();
  c = makeCall("nn.softmax", {f32({4})}, {{"axis", s("x")}});
  EXPECT_FALSE(verifyOpCall(*c, *lookupOp("nn.softmax"), diags));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message, "nn.softmax: attribute 'axis' must be an integer, got a string");

  got.clear();
  c = makeCall("reshape", {f32({4})}, {});
  EXPECT_FALSE(verifyOpCall(*c, *lookupOp("reshape"), diags));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message, "reshape: missing required attribute 'newshape' (a "
                            "list of integers)");

  got.clear();
  c = makeCall("add", {f32({4})}, {{"axis", i(0)}});
  EXPECT_FALSE(verifyOpCall(*c, *lookupOp("add"), diags));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].message, "add: expected 2 arguments, got 1");
  EXPECT_EQ(got[1].message, "add: unknown attribute 'axis' (add takes no attributes)");
}

TEST_F(OpRelationsTest, IntListListAttributes) {
  // nn.pad's pad_width: a list of integer lists; the relation wants pairs.
  auto pairs = [](std::vector<AttrValue> items) { return AttrValue::ofList(std::move(items)); };
  EXPECT_EQ(
      infer("nn.pad", {f32({2, 3}), f32({})}, {{"pad_width", pairs({ints({1, 0}), ints({2, 2})})}}),
      "Tensor[(3, 7), float32]");
  EXPECT_EQ(infer("nn.pad", {f32({}), tensor({}, DType::Int32)}, {{"pad_width", pairs({})}}),
            "float32");
  EXPECT_EQ(infer("nn.pad", {f32({2, 3}), f32({})}, {{"pad_width", ints({1, 2})}}),
            "error: nn.pad: attribute 'pad_width' must be a list of integer lists, got a list");
  EXPECT_EQ(infer("nn.pad", {f32({2}), f32({})}, {{"pad_width", pairs({ints({1})})}}),
            "error: nn.pad: pad_width entry 0 [1] is not a [before, after] pair");
  EXPECT_EQ(infer("nn.pad", {f32({2}), f32({})}, {{"pad_width", pairs({ints({0, -2})})}}),
            "error: nn.pad: pad_width entry 0 [0, -2] is negative");
  EXPECT_EQ(infer("nn.pad", {f32({2}), f32({})}, {{"pad_width", pairs({})}}),
            "error: nn.pad: pad_width lists 0 pairs for a tensor of rank 1 (one pair per dim)");
}

TEST_F(OpRelationsTest, AttrDefaultsAndCanonicalForms) {
  Ref<Call> c = makeCall("sum", {f32({2, 3})}, {{"axis", i(1)}});
  AttrValue axis = getAttrOrDefault(*c, "axis");
  ASSERT_EQ(axis.kind, AttrValue::Kind::List);
  ASSERT_EQ(axis.list.size(), 1u);
  EXPECT_EQ(axis.list[0].intValue, 1);
  EXPECT_EQ(getAttrOrDefault(*c, "keepdims").kind, AttrValue::Kind::Bool);
  EXPECT_FALSE(getAttrOrDefault(*c, "keepdims").boolValue);

  c = makeCall("nn.batch_matmul", {f32({1, 2, 2}), f32({1, 2, 2})}, {});
  EXPECT_TRUE(getAttrOrDefault(*c, "transpose_b").boolValue);
  c = makeCall("topk", {f32({4})}, {});
  EXPECT_EQ(getAttrOrDefault(*c, "ret_type").str, "both");
  EXPECT_EQ(getAttrOrDefault(*c, "dtype").str, "int32");
  EXPECT_EQ(getAttrOrDefault(*c, "k").intValue, 1);
  c = makeCall("on_device", {f32({4})}, {});
  EXPECT_TRUE(getAttrOrDefault(*c, "constrain_body").boolValue);
  EXPECT_FALSE(getAttrOrDefault(*c, "constrain_result").boolValue);
}

TEST_F(OpRelationsTest, Registry) {
  ASSERT_NE(lookupOp("add"), nullptr);
  EXPECT_EQ(opName(*lookupOp("add")), "add");
  const TargetKindInfo &cpu = *lookupTargetKind("llvm"), &cuda = *lookupTargetKind("cuda");
  EXPECT_TRUE(cpu.supports(*lookupOp("add")) && cuda.supports(*lookupOp("add")));
  EXPECT_TRUE(cpu.supports(*lookupOp("argsort")) && !cuda.supports(*lookupOp("argsort")));
  EXPECT_TRUE(cpu.supports(*lookupOp("topk")) && !cuda.supports(*lookupOp("topk")));
  EXPECT_EQ(lookupOp("ad"), nullptr);
  EXPECT_EQ(suggestOpName("ad"), "add");
  EXPECT_EQ(suggestOpName("relu"), "nn.relu");
  EXPECT_EQ(suggestOpName("conv2d"), "nn.conv2d");
  EXPECT_EQ(suggestOpName("completely_unrelated"), "");
  for (const OpDef &d : allOps()) {
    EXPECT_NE(d.relation, nullptr) << d.name.str();
    EXPECT_FALSE(d.summary.empty()) << d.name.str();
    EXPECT_EQ(lookupOp(d.name), &d);
  }
}

TEST_F(OpRelationsTest, DeviceAnnotationsAreIdentity) {
  EXPECT_EQ(infer("on_device", {f32({5, 7})}, {{"virtual_device", AttrValue::ofDevice(0)}}),
            "Tensor[(5, 7), float32]");
  EXPECT_EQ(infer("device_copy", {tuple({f32({2})})},
                  {{"src_virtual_device", AttrValue::ofDevice(0)},
                   {"dst_virtual_device", AttrValue::ofDevice(1)}}),
            "(Tensor[(2), float32],)");
}

} // namespace
