//===- VerifierTest.cpp - Every message of the IR verifier ----------------===//
//
// The parser never builds IR the verifier rejects (it reports the same
// mistakes itself, as located user errors), so no input reaches these
// messages: only a pass that breaks the IR does, and then the pass manager
// reports an internal error (hx-opt exits 2). Each test parses a valid
// module, breaks it the way a faulty pass could, and checks the verifier's
// message and where it points. The last one checks the pass manager's
// verify-each turns a failure into an internal error.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/Verifier.h"
#include "hx/Parser/Parser.h"
#include "hx/Pass/Pass.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace hx;
using llvm::cast;

namespace {

/// A parsed module and the diagnostics the verifier reports on it.
class VerifierTest : public ::testing::Test {
protected:
  /// Parses `text` (which must be valid) into `m`.
  void parse(llvm::StringRef text) {
    id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "in.ir"), {});
    diags.setHandler([this](const Diagnostic &d) { got.push_back(d); });
    m = parseModule(id, diags, {});
    ASSERT_TRUE(m);
    ASSERT_TRUE(got.empty()) << got.front().message;
    ASSERT_TRUE(verifyModule(*m, diags));
  }

  /// Verifies `m`, which must fail with exactly one error; returns
  /// "line:col: message".
  std::string verifyError() {
    got.clear();
    EXPECT_FALSE(verifyModule(*m, diags));
    if (got.size() != 1)
      return "expected one error, got " + std::to_string(got.size());
    const Diagnostic &d = got.front();
    EXPECT_EQ(d.severity, Severity::Error);
    if (!d.loc.isValid())
      return "?:?: " + d.message;
    auto [line, col] = sm.getLineAndColumn(d.loc, id);
    return std::to_string(line) + ":" + std::to_string(col) + ": " + d.message;
  }

  Function &main() { return *m->lookup("main"); }
  Call &mainBodyCall() { return *cast<Call>(main().body.get()); }

  llvm::SourceMgr sm;
  DiagEngine diags{sm};
  unsigned id = 0;
  std::vector<Diagnostic> got;
  std::unique_ptr<Module> m;
};

const char *kTable = "#[metadata]\n"
                     "{\"VirtualDevice\": [{\"device_type\": \"cpu\"}]}\n";

TEST_F(VerifierTest, ParameterDeviceOutsideTheTable) {
  parse(std::string("#[version = \"0.0.5\"]\n"
                    "def @main(%x: Tensor[(2), float32]) {\n"
                    "  negative(%x)\n"
                    "}\n") +
        kTable);
  main().params[0]->device = 3;
  EXPECT_EQ(verifyError(), "2:11: parameter '%x' refers to meta[VirtualDevice][3], which is not "
                           "in the device table");
}

TEST_F(VerifierTest, ResultDeviceOutsideTheTable) {
  parse(std::string("#[version = \"0.0.5\"]\n"
                    "def @main(%x: Tensor[(2), float32]) {\n"
                    "  negative(%x)\n"
                    "}\n") +
        kTable);
  main().resultDevice = 1;
  EXPECT_EQ(verifyError(), "2:1: function result device refers to meta[VirtualDevice][1], which "
                           "is not in the device table");
}

TEST_F(VerifierTest, AttributeDeviceOutsideTheTable) {
  parse(std::string("#[version = \"0.0.5\"]\n"
                    "def @main(%x: Tensor[(2), float32]) {\n"
                    "  on_device(%x, virtual_device=meta[VirtualDevice][0])\n"
                    "}\n") +
        kTable);
  m->devices.clear();
  EXPECT_EQ(verifyError(), "3:32: attribute refers to meta[VirtualDevice][0], which is not in the "
                           "device table");
}

TEST_F(VerifierTest, MalformedType) {
  parse("#[version = \"0.0.5\"]\n"
        "def @main(%x: (Tensor[(2), float32],)) {\n"
        "  %x\n"
        "}\n");
  main().params[0]->annotation = make<TupleType>(std::vector<TypeRef>{nullptr});
  EXPECT_EQ(verifyError(), "2:11: malformed type");
}

TEST_F(VerifierTest, NegativeDimension) {
  parse("#[version = \"0.0.5\"]\n"
        "def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {\n"
        "  %x\n"
        "}\n");
  main().retType = make<TensorType>(llvm::SmallVector<int64_t, 4>{2, -7}, DType::Float32);
  EXPECT_EQ(verifyError(), "2:1: negative dimension in type Tensor[(2, -7), float32]");
}

TEST_F(VerifierTest, VariableBoundTwice) {
  parse("#[version = \"0.0.5\"]\n"
        "def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float32]) {\n"
        "  add(%x, %y)\n"
        "}\n");
  Function &f = main();
  Ref<Var> x = f.params[0];
  f.params[1] = x;
  mainBodyCall().args[1] = x;
  EXPECT_EQ(verifyError(), "2:11: variable '%x' is bound more than once");
}

TEST_F(VerifierTest, FunctionWithoutBody) {
  parse("#[version = \"0.0.5\"]\n"
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  %x\n"
        "}\n");
  main().body = nullptr;
  EXPECT_EQ(verifyError(), "2:1: function '@main' has no body");
}

TEST_F(VerifierTest, UndefinedGlobal) {
  parse("#[version = \"0.0.5\"]\n"
        "def @f(%x: Tensor[(2), float32]) {\n"
        "  %x\n"
        "}\n"
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  @f(%x)\n"
        "}\n");
  Call &c = mainBodyCall();
  c.callee = make<GlobalVar>("g", c.loc);
  EXPECT_EQ(verifyError(), "6:3: call to undefined global '@g'");
}

TEST_F(VerifierTest, CallWithoutCallee) {
  parse("#[version = \"0.0.5\"]\n"
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  negative(%x)\n"
        "}\n");
  mainBodyCall().callee = nullptr;
  EXPECT_EQ(verifyError(), "3:3: call without a callee");
}

TEST_F(VerifierTest, CallWithMissingArgument) {
  parse("#[version = \"0.0.5\"]\n"
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  add(%x, %x)\n"
        "}\n");
  mainBodyCall().args[1] = nullptr;
  EXPECT_EQ(verifyError(), "3:3: call with a missing argument");
}

TEST_F(VerifierTest, UnboundVariable) {
  parse("#[version = \"0.0.5\"]\n"
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  negative(%x)\n"
        "}\n");
  Call &c = mainBodyCall();
  c.args[0] = make<Var>("z", nullptr, c.loc);
  EXPECT_EQ(verifyError(), "3:3: use of variable '%z' that is not bound in '@main'");
}

TEST_F(VerifierTest, OneErrorPerModule) {
  // Later errors are usually echoes of the first: only the first is reported.
  parse("#[version = \"0.0.5\"]\n"
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  add(%x, %x)\n"
        "}\n");
  main().params[0]->device = 4;
  mainBodyCall().args[1] = nullptr;
  EXPECT_EQ(verifyError(), "2:11: parameter '%x' refers to meta[VirtualDevice][4], which is not "
                           "in the device table");
}

/// A pass that breaks the IR: it drops an argument of @main's body call.
class BreakingPass : public Pass {
public:
  llvm::StringRef getArgument() const override { return "break-ir"; }
  llvm::StringRef getDescription() const override { return "drops an argument"; }
  bool run(Module &m, PassContext &) override {
    cast<Call>(m.lookup("main")->body.get())->args[0] = nullptr;
    return true;
  }
};

TEST_F(VerifierTest, PassThatBreaksTheIRIsAnInternalError) {
  parse("#[version = \"0.0.5\"]\n"
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  negative(%x)\n"
        "}\n");
  PassManager pm(PassManagerOptions{});
  pm.addPass(std::make_unique<BreakingPass>());
  PassContext ctx{diags};
  bool internal = false;
  got.clear();
  EXPECT_FALSE(pm.run(*m, ctx, &internal));
  EXPECT_TRUE(internal);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].message, "call with a missing argument");
  EXPECT_EQ(got[1].message, "internal error: the module does not verify after pass 'break-ir'");
}

} // namespace
