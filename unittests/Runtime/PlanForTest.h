//===- PlanForTest.h - A module parsed and planned, for runtime tests -----===//
#ifndef HX_UNITTESTS_RUNTIME_PLANFORTEST_H
#define HX_UNITTESTS_RUNTIME_PLANFORTEST_H

#include "hx/Parser/Parser.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"
#include <memory>
#include <string>

namespace hx::test {

struct Planned {
  llvm::SourceMgr sm;
  std::unique_ptr<DiagEngine> diags;
  std::unique_ptr<Module> m;
};

/// Parses `text` and runs plan-devices; a failure is a test failure.
inline std::unique_ptr<Planned> plan(const std::string &text) {
  auto p = std::make_unique<Planned>();
  unsigned id = p->sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t.ir"), {});
  p->diags = std::make_unique<DiagEngine>(p->sm);
  p->m = parseModule(id, *p->diags, {});
  PassContext ctx{*p->diags};
  EXPECT_TRUE(p->m && createPlanDevicesPass()->run(*p->m, ctx));
  return p;
}

} // namespace hx::test

#endif
