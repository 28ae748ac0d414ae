//===- InterpreterTest.cpp - Whole modules and interpretOp ----------------===//
//
// Modules go through the parser and InferType first (runModule). The
// language features: let, tuples and projections, if both ways, global
// functions, closures, higher-order calls, shared nodes, deep chains,
// recursion limits, free variables. Then interpretOp on hand-built calls:
// every registry operator has an implementation, and hostile calls give
// errors, not crashes.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"
#include "SeedProgram.h"
#include "TestUtil.h"
#include "hx/Ops/OpRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace hx;
using namespace hx::test;
using llvm::Expected;

namespace {

const char *kHeader = "#[version = \"0.0.5\"]\n";

HostTensor scalar(double v) { return f32({}, {v}); }

TEST(InterpreterTest, Let) {
  EXPECT_TRUE(tensorIs(runOne("%a: float32", "let %x = add(%a, %a); multiply(%x, %x)", {scalar(3)}),
                       DType::Float32, {}, {36}));
}

TEST(InterpreterTest, TupleAndProjection) {
  EXPECT_TRUE(tensorIs(runOne("%a: float32", "%0 = (%a, negative(%a)); %0.1", {scalar(3)}),
                       DType::Float32, {}, {-3}));
  // A nested tuple result is flattened depth first.
  Expected<std::vector<HostTensor>> r =
      runModule(mainModule("%a: float32", "(%a, (negative(%a), add(%a, %a)), 7)"), {scalar(3)});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  ASSERT_EQ(r->size(), 4u);
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {}, {3}));
  EXPECT_TRUE(tensorIs((*r)[1], DType::Float32, {}, {-3}));
  EXPECT_TRUE(tensorIs((*r)[2], DType::Float32, {}, {6}));
  EXPECT_TRUE(tensorIs((*r)[3], DType::Int32, {}, {7}));
}

TEST(InterpreterTest, IfBothWays) {
  std::string p = "%c: bool, %a: float32";
  std::string body = "if (%c) { add(%a, 1f) } else { subtract(%a, 1f) }";
  EXPECT_TRUE(tensorIs(runOne(p, body, {makeTensor(DType::Bool, {}, {1}), scalar(10)}),
                       DType::Float32, {}, {11}));
  EXPECT_TRUE(tensorIs(runOne(p, body, {makeTensor(DType::Bool, {}, {0}), scalar(10)}),
                       DType::Float32, {}, {9}));
  // A computed condition.
  EXPECT_TRUE(tensorIs(
      runOne("%a: float32", "if (less(%a, 0f)) { negative(%a) } else { %a }", {scalar(-4)}),
      DType::Float32, {}, {4}));
}

TEST(InterpreterTest, GlobalFunctionCalledTwice) {
  std::string text = std::string(kHeader) + "def @sq(%x: float32) -> float32 { multiply(%x, %x) }\n"
                                            "def @main(%a: float32) { %0 = @sq(%a); @sq(%0) }\n";
  Expected<std::vector<HostTensor>> r = runModule(text, {scalar(3)});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {}, {81}));
}

TEST(InterpreterTest, Closures) {
  // A let-bound closure capturing %a, called twice with different arguments.
  EXPECT_TRUE(tensorIs(runOne("%a: float32",
                              "let %f = fn (%x: float32) { add(%x, %a) }; "
                              "let %b = %f(%a); %f(%b)",
                              {scalar(2)}),
                       DType::Float32, {}, {6}));
  // Closures returned by a global keep their own captured %k.
  std::string text = std::string(kHeader) + "def @adder(%k: float32) -> fn (float32) -> float32 {\n"
                                            "  fn (%x: float32) -> float32 { add(%x, %k) }\n"
                                            "}\n"
                                            "def @main(%a: float32, %b: float32) {\n"
                                            "  let %g1 = @adder(%a); let %g2 = @adder(%b);\n"
                                            "  (%g1(1f), %g2(1f), %g1(2f))\n"
                                            "}\n";
  Expected<std::vector<HostTensor>> r = runModule(text, {scalar(10), scalar(20)});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {}, {11}));
  EXPECT_TRUE(tensorIs((*r)[1], DType::Float32, {}, {21}));
  EXPECT_TRUE(tensorIs((*r)[2], DType::Float32, {}, {12}));
}

TEST(InterpreterTest, HigherOrderCalls) {
  std::string text = std::string(kHeader) +
                     "def @apply(%h: fn (float32) -> float32, %v: float32) -> float32 { %h(%v) }\n"
                     "def @neg(%x: float32) -> float32 { negative(%x) }\n"
                     "def @main(%a: float32) {\n"
                     "  let %f = fn (%x: float32) -> float32 { multiply(%x, %a) };\n"
                     "  let %b = @apply(%f, %a);\n"
                     "  let %c = @apply(fn (%y: float32) -> float32 { add(%y, 1f) }, %b);\n"
                     "  @apply(@neg, %c)\n"
                     "}\n";
  Expected<std::vector<HostTensor>> r = runModule(text, {scalar(3)});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {}, {-10}));
}

TEST(InterpreterTest, SharedNodesAreEvaluatedOnce) {
  // Each node is used twice: without memoization this is 2^60 evaluations.
  std::string body = "%0 = add(%a, %a);";
  for (int i = 1; i < 60; ++i)
    body += " %" + std::to_string(i) + " = add(%" + std::to_string(i - 1) + ", %" +
            std::to_string(i - 1) + ");";
  body += " %59";
  EXPECT_TRUE(tensorIs(runOne("%a: float32", body, {scalar(1)}), DType::Float32, {},
                       {std::ldexp(1.0, 60)}));
}

TEST(InterpreterTest, HundredThousandNestedAdds) {
  const int n = 100000;
  std::string body = "%0 = add(%a, %a);";
  for (int i = 1; i < n; ++i)
    body += " %" + std::to_string(i) + " = add(%" + std::to_string(i - 1) + ", %a);";
  body += " %" + std::to_string(n - 1);
  EXPECT_TRUE(tensorIs(runOne("%a: int32", body, {i32({}, {1})}), DType::Int32, {}, {n + 1}));
}

TEST(InterpreterTest, HundredThousandNestedLets) {
  const int n = 100000;
  std::string body = "let %v0 = add(%a, %a);";
  for (int i = 1; i < n; ++i)
    body += " let %v" + std::to_string(i) + " = add(%v" + std::to_string(i - 1) + ", %a);";
  body += " %v" + std::to_string(n - 1);
  EXPECT_TRUE(
      tensorIs(runOne("%a: int64", body, {makeInt64({}, {2})}), DType::Int64, {}, {2.0 * (n + 1)}));
}

TEST(InterpreterTest, RecursionAndItsLimit) {
  std::string text = std::string(kHeader) +
                     "def @down(%n: int32) -> int32 {\n"
                     "  if (greater(%n, 0)) { @down(subtract(%n, 1)) } else { %n }\n"
                     "}\n"
                     "def @main(%n: int32) { @down(%n) }\n";
  Expected<std::vector<HostTensor>> r = runModule(text, {i32({}, {5000})});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  EXPECT_TRUE(tensorIs((*r)[0], DType::Int32, {}, {0}));
  std::string msg = errorOf(runModule(text, {i32({}, {20000})}));
  EXPECT_NE(msg.find("function calls nest deeper than 10000"), std::string::npos) << msg;
}

TEST(InterpreterTest, AnnotationsAreTheIdentity) {
  HostTensor a = f32({5, 7}, std::vector<double>(35, 5));
  HostTensor b = f32({5, 7}, std::vector<double>(35, 1));
  HostTensor c = f32({5, 7}, std::vector<double>(35, 2));
  Expected<std::vector<HostTensor>> r = runModule(kSeedProgram, {a.clone(), b.clone(), c.clone()});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  // (a + b) - (b + c) = 3 everywhere.
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {5, 7}, std::vector<double>(35, 3)));
}

TEST(InterpreterTest, FreeVariableIsAnError) {
  std::string msg =
      errorOf(runOne("%a: float32", "free_var %z: float32;\n  add(%a, %z)", {scalar(1)}));
  EXPECT_NE(msg.find("free variable %z has no value"), std::string::npos) << msg;
}

TEST(InterpreterTest, InputAndEntryErrors) {
  std::string text = mainModule("%a: Tensor[(2, 3), float32]", "negative(%a)");
  std::string msg = errorOf(runModule(text, {}));
  EXPECT_NE(msg.find("@main: expected 1 inputs, got 0"), std::string::npos) << msg;
  msg = errorOf(runModule(text, {f32({3, 2}, {1, 2, 3, 4, 5, 6})}));
  EXPECT_NE(msg.find("input for %a has type Tensor[(3, 2), float32], expected Tensor[(2, 3), "
                     "float32]"),
            std::string::npos)
      << msg;
  msg = errorOf(runModule(text, {i32({2, 3}, {1, 2, 3, 4, 5, 6})}));
  EXPECT_NE(msg.find("Tensor[(2, 3), int32]"), std::string::npos) << msg;
  Module empty;
  msg = errorOf(interpret(empty, {}, "main"));
  EXPECT_EQ(msg, "no function @main in the module");
}

TEST(InterpreterTest, DynamicParameterDimsAcceptAnySize) {
  EXPECT_TRUE(tensorIs(
      runOne("%a: Tensor[(?, 2), float32]", "sum(%a, axis=[0])", {f32({3, 2}, {1, 2, 3, 4, 5, 6})}),
      DType::Float32, {2}, {9, 12}));
}

TEST(InterpreterTest, AFunctionResultIsAnError) {
  std::string msg =
      errorOf(runModule(mainModule("%a: float32", "fn (%x: float32) { %x }"), {scalar(1)}));
  EXPECT_NE(msg.find("the result contains a function"), std::string::npos) << msg;
}

//===----------------------------------------------------------------------===//
// interpretOp
//===----------------------------------------------------------------------===//

TEST(InterpretOpTest, EveryRegistryOperatorIsImplemented) {
  for (const OpDef &def : allOps())
    EXPECT_NE(interp::lookupOpImpl(def.name), nullptr) << def.name.str();
}

/// A call of `name` on `numArgs` variables, untyped.
Ref<Call> makeCall(Module &m, llvm::StringRef name, unsigned numArgs, Attrs attrs = {}) {
  llvm::SmallVector<ExprRef, 2> args;
  for (unsigned i = 0; i < numArgs; ++i)
    args.push_back(make<Var>(llvm::formatv("x{0}", i).str(), nullptr, llvm::SMLoc()));
  Op *op = m.getOp(name);
  op->def = lookupOp(name);
  return make<Call>(ExprRef(op), std::move(args), std::move(attrs), llvm::SMLoc());
}

TEST(InterpretOpTest, UntypedCallsWork) {
  Module m;
  HostTensor a = f32({2}, {1, 2}), b = f32({1}, {10});
  Expected<std::vector<HostTensor>> r = interpretOp(*makeCall(m, "add", 2), {&a, &b});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  EXPECT_TRUE(tensorIs((*r)[0], DType::Float32, {2}, {11, 12}));

  Attrs attrs;
  attrs.set("indices_or_sections", AttrValue::ofInt(2));
  r = interpretOp(*makeCall(m, "split", 1, attrs), {&a});
  ASSERT_TRUE(bool(r)) << toString(r.takeError());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_TRUE(tensorIs((*r)[1], DType::Float32, {1}, {2}));
}

TEST(InterpretOpTest, BadCallsAreErrors) {
  Module m;
  HostTensor a = f32({2}, {1, 2}), i = i32({2}, {1, 2});
  Op *unknown = m.getOp("no_such_op");
  Ref<Call> call =
      make<Call>(ExprRef(unknown), llvm::SmallVector<ExprRef, 2>{}, Attrs(), llvm::SMLoc());
  EXPECT_EQ(errorOf(interpretOp(*call, {})), "unknown operator 'no_such_op'");
  EXPECT_EQ(errorOf(interpretOp(*makeCall(m, "add", 2), {&a})), "add: expected 2 arguments, got 1");
  EXPECT_EQ(errorOf(interpretOp(*makeCall(m, "exp", 1), {&i})),
            "exp: unsupported dtype int32 of argument 0 (supported: float16, float32, float64)");
  EXPECT_EQ(errorOf(interpretOp(*makeCall(m, "add", 2), {&a, &i})),
            "add: dtypes float32 and int32 do not match");
  Attrs bad;
  bad.set("axis", AttrValue::ofString("x"));
  std::string msg = errorOf(interpretOp(*makeCall(m, "sum", 1, bad), {&a}));
  EXPECT_NE(msg.find("sum: attribute 'axis' must be"), std::string::npos) << msg;
  msg = errorOf(interpretOp(*makeCall(m, "cast", 1), {&a}));
  EXPECT_NE(msg.find("missing required attribute 'dtype'"), std::string::npos) << msg;
}

/// Every operator on every combination of a few shapes and dtypes, with
/// default attributes (and the required ones set): results or errors, never
/// a crash.
TEST(InterpretOpTest, HostileArgumentsNeverCrash) {
  Module m;
  std::vector<HostTensor> pool;
  for (DType dt : {DType::Float32, DType::Int32, DType::Bool})
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{}, {3}, {2, 3}, {0, 2}, {1, 2, 3, 4}, {2, 1, 5, 5}})
      pool.emplace_back(dt, shape);
  Attrs required;
  required.set("a_min", AttrValue::ofFloat(-1));
  required.set("a_max", AttrValue::ofFloat(1));
  required.set("dtype", AttrValue::ofString("int32"));
  required.set("newshape", AttrValue::ofInt(-1));
  required.set("axis", AttrValue::ofInt(1));
  required.set("indices_or_sections", AttrValue::ofInt(2));
  required.set("src_virtual_device", AttrValue::ofDevice(0));
  required.set("dst_virtual_device", AttrValue::ofDevice(0));
  required.set("begin", AttrValue::ofList({AttrValue::ofInt(1)}));
  required.set("end", AttrValue::ofList({AttrValue::ofInt(-1)}));
  required.set("pad_width",
               AttrValue::ofList({AttrValue::ofList({AttrValue::ofInt(1), AttrValue::ofInt(2)})}));
  required.set("src_layout", AttrValue::ofString("NC"));
  required.set("dst_layout", AttrValue::ofString("CN2n"));
  required.set("scale_h", AttrValue::ofFloat(2));
  required.set("scale_w", AttrValue::ofFloat(1.5));
  required.set("pooled_size", AttrValue::ofList({AttrValue::ofInt(2), AttrValue::ofInt(1)}));
  unsigned ok = 0, failed = 0;
  for (const OpDef &def : allOps()) {
    Attrs attrs;
    for (const AttrSpec &s : def.attrs) {
      if (!s.required)
        continue;
      const AttrValue *v = required.get(s.name);
      ASSERT_TRUE(v) << def.name.str() << ": no value for the required attribute " << s.name.str();
      attrs.set(s.name, *v);
    }
    Ref<Call> call = makeCall(m, def.name, def.numArgs, attrs);
    size_t n = def.numArgs;
    size_t combos = 1;
    for (size_t k = 0; k < n; ++k)
      combos *= pool.size();
    for (size_t c = 0; c < combos; ++c) {
      std::vector<const HostTensor *> args;
      for (size_t k = 0, rest = c; k < n; ++k, rest /= pool.size())
        args.push_back(&pool[rest % pool.size()]);
      Expected<std::vector<HostTensor>> r = interpretOp(*call, args);
      if (r)
        ++ok;
      else {
        ++failed;
        llvm::consumeError(r.takeError());
      }
    }
  }
  EXPECT_GT(ok, 1000u);
  EXPECT_GT(failed, 1000u);
}

} // namespace
