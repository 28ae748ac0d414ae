//===- TypeInferenceTest.cpp - infer-type one def at a time ---------------===//
#include "hx/IR/Walk.h"
#include "hx/Parser/Parser.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace hx;
using llvm::isa;

namespace {

// @g has no annotations: it is typed at its first use, from @main.
const char *kModule = R"(#[version = "0.0.5"]
def @main(%a: Tensor[(5, 7), float32], %b: Tensor[(5, 7), float32]) {
  %0 = @g(%a, %b);
  @h(%0)
}
def @g(%x, %y) {
  %0 = add(%x, %y);
  on_device(%0, virtual_device=meta[VirtualDevice][1])
}
def @h(%z: Tensor[(5, 7), float32]) -> Tensor[(5, 7), float32] {
  %0 = @g(%z, %z);
  negative(%0)
}
#[metadata]
{"VirtualDevice": [{"device_type": "cpu", "target": "llvm"}, {"device_type": "cuda", "target": "cuda"}]}
)";

struct Parsed {
  llvm::SourceMgr sm;
  DiagEngine diags{sm};
  std::unique_ptr<Module> m;
  explicit Parsed(const char *text) {
    unsigned id =
        sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t.ir"), llvm::SMLoc());
    m = parseModule(id, diags);
  }
};

/// Every node's checked type, in post-order, def by def.
std::vector<std::string> typesOf(Module &m) {
  std::vector<std::string> out;
  for (Module::Def &d : m.defs) {
    out.push_back("@" + d.global->name + ": " + typeToString(d.global->checkedType.get()));
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (!isa<Op>(e))
        out.push_back(typeToString(e->checkedType.get()));
    });
  }
  return out;
}

/// One text parsed twice: `whole` typed at once by inferTypes, `split` for
/// the test to type def by def.
struct WholeAndSplit {
  Parsed whole, split;
  explicit WholeAndSplit(const char *text) : whole(text), split(text) {}
  bool typedWhole() { return whole.m && split.m && inferTypes(*whole.m, whole.diags); }
};

TEST(TypeInferenceTest, DefByDefWithWalksBetweenGivesInferTypesResult) {
  WholeAndSplit ws(kModule);
  ASSERT_TRUE(ws.typedWhole());
  Module &split = *ws.split.m;
  TypeInference types(split, ws.split.diags);
  for (Module::Def &d : split.defs) {
    types.inferDef(d);
    // Walks between the defs renumber the Walk slot of the typed ones.
    walkPostOrder(d.fn.get(), [](Expr *) {});
  }
  EXPECT_FALSE(types.hadError());
  ASSERT_TRUE(types.finish());
  EXPECT_EQ(typesOf(split), typesOf(*ws.whole.m));
}

TEST(TypeInferenceTest, ATypedDefIsNotTypedAgainAfterItsRootIsReplaced) {
  Parsed p(kModule);
  ASSERT_TRUE(p.m);
  Module::Def &main = p.m->defs[0], &g = p.m->defs[1], &h = p.m->defs[2];
  TypeInference types(*p.m, p.diags);
  types.inferDef(main); // types @g first, at the call
  ASSERT_TRUE(g.fn->checkedType);
  // Another numbering of the Walk slot (a walk of the caller) forgets @g's
  // visit states.
  walkPostOrder(g.fn.get(), [](Expr *e) { e->slot(ExprSlot::Walk) = 0; });

  // A rewrite replaces @g's root with a copy of the same type; a marker on
  // its body shows whether @g is typed again.
  Ref<Function> before = g.fn;
  g.fn = make<Function>(before->params, before->body, before->retType, before->loc);
  g.fn->checkedType = before->checkedType;
  types.replacedRoot(before.get(), g.fn.get());
  TypeRef marker = makeTensorType({1}, DType::Float32);
  g.fn->body->checkedType = marker;

  types.inferDef(g);
  types.inferDef(h); // calls @g again
  ASSERT_TRUE(types.finish());
  EXPECT_EQ(g.fn->body->checkedType.get(), marker.get());
  EXPECT_EQ(typeToString(g.global->checkedType.get()),
            "fn (Tensor[(5, 7), float32], Tensor[(5, 7), float32]) -> Tensor[(5, 7), float32]");
}

// Unannotated closures solved by unification, and @k typed from @main's call
// with a hint that holds type variables.
const char *kUnified = R"(#[version = "0.0.5"]
def @main(%a: Tensor[(5, 7), float32]) {
  let %f = fn (%g) { fn (%x) { %g(%x) } };
  let %h = fn (%y) { negative(%y) };
  %0 = %f(%h);
  @k(%0, %a)
}
def @k(%u, %v) { %u(%v) }
)";

bool hasIncomplete(const Type *t) {
  if (!t)
    return false;
  if (isa<IncompleteType>(t))
    return true;
  if (const auto *tt = llvm::dyn_cast<TupleType>(t)) {
    for (const TypeRef &f : tt->fields)
      if (hasIncomplete(f.get()))
        return true;
    return false;
  }
  if (const auto *ft = llvm::dyn_cast<FuncType>(t)) {
    for (const TypeRef &p : ft->params)
      if (hasIncomplete(p.get()))
        return true;
    return hasIncomplete(ft->ret.get());
  }
  return false;
}

TEST(TypeInferenceTest, TypeVariablesAreSolvedByTheEndOfEachDef) {
  WholeAndSplit ws(kUnified);
  ASSERT_TRUE(ws.typedWhole());
  Module &split = *ws.split.m;
  TypeInference types(split, ws.split.diags);
  types.inferDef(split.defs[0]); // types @k too, at the call
  // Right after the def, as plan-devices walks it: no type variable is left
  // in it or in @k, and every node and parameter is typed (globals get their
  // types in finish()).
  for (Module::Def &d : split.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (isa<Op, GlobalVar>(e))
        return;
      EXPECT_TRUE(e->checkedType);
      EXPECT_FALSE(hasIncomplete(e->checkedType.get())) << typeToString(e->checkedType.get());
      if (const auto *fn = llvm::dyn_cast<Function>(e)) {
        EXPECT_TRUE(fn->retType);
        for (const Ref<Var> &p : fn->params) {
          EXPECT_TRUE(p->annotation) << p->name;
          EXPECT_FALSE(hasIncomplete(p->annotation.get())) << p->name;
        }
      }
    });
  types.inferDef(split.defs[1]);
  ASSERT_TRUE(types.finish());
  EXPECT_EQ(typesOf(split), typesOf(*ws.whole.m));
  EXPECT_EQ(typeToString(split.defs[1].global->checkedType.get()),
            "fn (fn (Tensor[(5, 7), float32]) -> Tensor[(5, 7), float32], Tensor[(5, 7), "
            "float32]) -> Tensor[(5, 7), float32]");
}

TEST(TypeInferenceTest, AnUnsolvedParameterIsReportedWithItsDef) {
  Parsed p(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(5, 7), float32]) {
  let %f = fn (%x) { negative(%x) };
  %a
}
def @ok(%b: Tensor[(5, 7), float32]) { negative(%b) }
)");
  ASSERT_TRUE(p.m);
  std::vector<std::string> messages;
  p.diags.setHandler([&](const Diagnostic &d) { messages.push_back(d.message); });
  TypeInference types(*p.m, p.diags);
  types.inferDef(p.m->defs[0]);
  // Reported by inferDef, not later: plan-devices skips a def with errors.
  EXPECT_TRUE(types.hadError());
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "cannot infer the type of parameter %x; add a type annotation");
  types.inferDef(p.m->defs[1]);
  EXPECT_FALSE(types.finish());
  EXPECT_EQ(messages.size(), 1u);
  EXPECT_TRUE(p.m->defs[1].fn->checkedType);
}

TEST(TypeInferenceTest, ErrorsAreCountedFromConstruction) {
  Parsed p(R"(#[version = "0.0.5"]
def @ok(%a: Tensor[(5, 7), float32]) { negative(%a) }
def @bad(%a: Tensor[(5, 7), float32], %b: Tensor[(6, 7), float32]) { add(%a, %b) }
)");
  ASSERT_TRUE(p.m);
  std::vector<std::string> messages;
  p.diags.setHandler([&](const Diagnostic &d) { messages.push_back(d.message); });
  TypeInference types(*p.m, p.diags);
  types.inferDef(p.m->defs[0]);
  EXPECT_FALSE(types.hadError());
  types.inferDef(p.m->defs[1]);
  EXPECT_TRUE(types.hadError());
  EXPECT_FALSE(types.finish());
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "add: shapes (5, 7) and (6, 7) are not broadcastable");
}

} // namespace
