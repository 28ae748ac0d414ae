//===- PassManager.cpp - Running passes with instrumentation -------------===//
#include "hx/IR/Printer.h"
#include "hx/IR/Verifier.h"
#include "hx/Pass/Pass.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>

using namespace hx;
using namespace llvm;

void PassRegistry::add(StringRef argument, StringRef description,
                       std::function<std::unique_ptr<Pass>()> create) {
  infos.push_back({argument.str(), description.str(), std::move(create)});
}

const PassInfo *PassRegistry::lookup(StringRef argument) const {
  for (const PassInfo &i : infos)
    if (i.argument == argument)
      return &i;
  return nullptr;
}

size_t TimingReport::begin(StringRef name) {
  entries.push_back({name.str(), 0.0, openDepth++});
  return entries.size() - 1;
}

void TimingReport::end(size_t handle, double seconds) {
  entries[handle].seconds = seconds;
  --openDepth;
}

size_t TimingReport::addStep(StringRef name) {
  entries.push_back({name.str(), 0.0, openDepth});
  return entries.size() - 1;
}

void TimingReport::print(raw_ostream &os) const {
  double total = 0;
  for (const Entry &e : entries)
    if (e.depth == 0)
      total += e.seconds;
  os << "===" << std::string(73, '-') << "===\n"
     << "                      ... Pass execution timing report ...\n"
     << "===" << std::string(73, '-') << "===\n"
     << format("  Total Execution Time: %.4f seconds\n\n", total)
     << "   ----Wall Time----  ----Name----\n";
  for (const Entry &e : entries) {
    os << format("   %8.4f (%5.1f%%)  ", e.seconds, total > 0 ? 100.0 * e.seconds / total : 0.0);
    if (e.depth)
      os.indent(2 * e.depth) << "- ";
    os << e.name << "\n";
  }
  os << format("   %8.4f (100.0%%)  Total\n", total);
}

TimeScope::TimeScope(TimingReport *report, StringRef name) : report(report) {
  if (report) {
    handle = report->begin(name);
    start = std::chrono::steady_clock::now();
  }
}

TimeScope::~TimeScope() {
  if (report)
    report->end(handle,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

bool PassManager::run(Module &m, PassContext &ctx, bool *internalError) {
  raw_ostream &dbg = opts.debugOut ? *opts.debugOut : errs();
  for (auto &p : passes) {
    bool passOk;
    {
      TimeScope t(opts.timing, p->getArgument());
      passOk = p->run(m, ctx);
    }
    if (!passOk)
      return false;
    if (opts.verifyEach) {
      bool verified;
      {
        TimeScope t(opts.timing, "(verify)");
        verified = verifyModule(m, ctx.diags);
      }
      if (!verified) {
        ctx.diags.error(SMLoc(), "internal error: the module does not verify after pass '" +
                                     p->getArgument() + "'");
        if (internalError)
          *internalError = true;
        return false;
      }
    }
    if (opts.printIRAfterAll) {
      dbg << "// -----// IR Dump After " << p->getArgument() << " //----- //\n";
      printModule(dbg, m);
      dbg << "\n";
    }
  }
  return true;
}

bool hx::parsePassPipeline(StringRef text, const PassRegistry &registry, PassManager &pm,
                           DiagEngine &diags) {
  SourceMgr &sm = diags.getSourceMgr();
  unsigned id = sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "<pipeline>"), SMLoc());
  StringRef buf = sm.getMemoryBuffer(id)->getBuffer();
  size_t pos = 0;
  while (pos <= buf.size()) {
    size_t comma = buf.find(',', pos);
    if (comma == StringRef::npos)
      comma = buf.size();
    StringRef raw = buf.slice(pos, comma);
    StringRef name = raw.trim();
    const char *at = buf.data() + pos + (raw.size() - raw.ltrim().size());
    SMLoc loc = SMLoc::getFromPointer(at);
    if (name.empty()) {
      if (!(buf.trim().empty() && pos == 0)) {
        diags.error(loc, "expected a pass name in the pipeline");
        return false;
      }
    } else if (const PassInfo *info = registry.lookup(name)) {
      pm.addPass(info->create());
    } else {
      diags.error(loc, "unknown pass '" + name + "' (hx-opt --help lists the passes)")
          .range(SMRange(loc, SMLoc::getFromPointer(at + name.size())));
      return false;
    }
    pos = comma + 1;
  }
  return true;
}
