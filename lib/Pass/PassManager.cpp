//===- PassManager.cpp - Running passes with instrumentation -------------===//
#include "hx/IR/Printer.h"
#include "hx/IR/Verifier.h"
#include "hx/Pass/Pass.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>

using namespace hx;
using namespace llvm;

void PassRegistry::add(StringRef argument, StringRef description,
                       std::function<std::unique_ptr<Pass>()> create, bool testOnly) {
  infos.push_back({argument.str(), description.str(), std::move(create), testOnly});
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
      // Names the pass in a crash's stack dump. (Not PrettyStackTraceFormat:
      // LLVM 19's prints the string's terminating NUL.)
      std::string note = ("running pass '" + p->getArgument() + "'").str();
      PrettyStackTraceString crashNote(note.c_str());
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

std::optional<bool> hx::parseFlagValue(StringRef value) {
  if (value.empty() || value == "true" || value == "1")
    return true;
  if (value == "false" || value == "0")
    return false;
  return std::nullopt;
}

const PassOption *Pass::findOption(StringRef name) const {
  for (const PassOption &o : options)
    if (o.name == name)
      return &o;
  return nullptr;
}

bool Pass::setOption(StringRef name, StringRef value, std::string &error) {
  const PassOption *o = findOption(name);
  if (!o) {
    error = ("pass '" + getArgument() + "' has no option '" + name + "'").str();
    return false;
  }
  return o->set(value, error);
}

void Pass::addFlag(StringRef name, StringRef description, bool &storage) {
  options.push_back({name.str(), description.str(), "", [&storage](StringRef v, std::string &err) {
                       std::optional<bool> b = parseFlagValue(v);
                       if (!b) {
                         err = ("expected true or false, got '" + v + "'").str();
                         return false;
                       }
                       storage = *b;
                       return true;
                     }});
}

void Pass::addOption(StringRef name, StringRef valueName, StringRef description,
                     std::function<bool(StringRef, std::string &)> set) {
  options.push_back({name.str(), description.str(), valueName.str(), std::move(set)});
}

void Pass::addListOption(StringRef name, StringRef valueName, StringRef description,
                         std::function<bool(StringRef, std::string &)> set) {
  addOption(name, valueName, description, std::move(set));
  options.back().isList = true;
}

std::unique_ptr<Pass> hx::createPassWithDefaults(const PassInfo &info,
                                                 const PassOptionDefaults &defaults,
                                                 DiagEngine &diags) {
  std::unique_ptr<Pass> p = info.create();
  for (const auto &[name, value] : defaults) {
    if (!p->findOption(name))
      continue;
    std::string error;
    if (!p->setOption(name, value, error)) {
      diags.error(SMLoc(), "--" + name + ": " + error);
      return nullptr;
    }
  }
  return p;
}

namespace {
/// Reads pipeline text: `item (',' item)*`, item = `name ['{' option* '}']`,
/// option = `key['=' value]`, separated by spaces.
class PipelineParser {
public:
  PipelineParser(StringRef buf, const PassRegistry &registry, PassManager &pm, DiagEngine &diags,
                 const PassOptionDefaults &defaults)
      : buf(buf), registry(registry), pm(pm), diags(diags), defaults(defaults) {}

  bool parse() {
    skipSpace();
    if (pos == buf.size())
      return true; // an empty pipeline
    while (true) {
      if (!parseItem())
        return false;
      skipSpace();
      if (pos == buf.size())
        return true;
      if (buf[pos] != ',')
        return error(pos, 1, "expected ',' between passes");
      ++pos;
      skipSpace();
    }
  }

private:
  static bool isNameChar(char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; }

  void skipSpace() {
    while (pos < buf.size() && isSpace(buf[pos]))
      ++pos;
  }

  bool error(size_t at, size_t len, const Twine &msg) {
    SMLoc loc = SMLoc::getFromPointer(buf.data() + at);
    diags.error(loc, msg).range(
        SMRange(loc, SMLoc::getFromPointer(buf.data() + std::min(at + len, buf.size()))));
    return false;
  }

  StringRef readName() {
    size_t start = pos;
    while (pos < buf.size() && isNameChar(buf[pos]))
      ++pos;
    return buf.slice(start, pos);
  }

  bool parseItem() {
    size_t nameAt = pos;
    StringRef name = readName();
    if (name.empty())
      return error(pos, 1, "expected a pass name in the pipeline");
    const PassInfo *info = registry.lookup(name);
    if (!info)
      return error(nameAt, name.size(),
                   "unknown pass '" + name + "' (hx-opt --help lists the passes)");
    std::unique_ptr<Pass> p = createPassWithDefaults(*info, defaults, diags);
    if (!p)
      return false;
    skipSpace();
    if (pos < buf.size() && buf[pos] == '{') {
      ++pos;
      while (true) {
        skipSpace();
        if (pos == buf.size())
          return error(nameAt, name.size(), "missing '}' after the options of '" + name + "'");
        if (buf[pos] == '}') {
          ++pos;
          break;
        }
        size_t keyAt = pos;
        StringRef key = readName();
        if (key.empty())
          return error(pos, 1, "expected an option name");
        StringRef value;
        if (pos < buf.size() && buf[pos] == '=') {
          size_t start = ++pos;
          while (pos < buf.size() && !isSpace(buf[pos]) && buf[pos] != '}')
            ++pos;
          value = buf.slice(start, pos);
        }
        std::string err;
        if (!p->setOption(key, value, err)) {
          size_t len = pos - keyAt;
          if (!p->findOption(key))
            return error(keyAt, key.size(), err + optionList(*p));
          return error(keyAt, len, key + ": " + err);
        }
      }
    }
    pm.addPass(std::move(p));
    return true;
  }

  static std::string optionList(const Pass &p) {
    if (p.getOptions().empty())
      return " (it takes none)";
    std::string s = " (expected one of:";
    for (const PassOption &o : p.getOptions())
      s += " " + o.name;
    return s + ")";
  }

  StringRef buf;
  size_t pos = 0;
  const PassRegistry &registry;
  PassManager &pm;
  DiagEngine &diags;
  const PassOptionDefaults &defaults;
};
} // namespace

bool hx::parsePassPipeline(StringRef text, const PassRegistry &registry, PassManager &pm,
                           DiagEngine &diags, const PassOptionDefaults &defaults) {
  SourceMgr &sm = diags.getSourceMgr();
  unsigned id = sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "<pipeline>"), SMLoc());
  return PipelineParser(sm.getMemoryBuffer(id)->getBuffer(), registry, pm, diags, defaults).parse();
}
