//===- CommonFlags.cpp - Command-line flags hx-opt and hx-run share -------===//
//
// Pass options become flags by asking one probe instance of each registered
// pass for its declared options; a name two passes declare becomes one flag.
// Values are validated when read, by a fresh instance of a pass that declares
// the option, so `--default-device=tpu` fails before any input is read even
// when no pass in the pipeline would have used it.
//
// A list option's flag may be repeated; its values are joined with ','. An
// option named like a pass (`place`) is one flag for both: with a value
// (`--place=Softmax=cpu`) it sets the option, alone (`-place`) it runs the
// pass at that point of the pipeline. Such a flag's value is optional to
// llvm::cl, which then never takes the next word as its value; so
// `joinSpacedValues` turns `--place Softmax=cpu` into `--place=Softmax=cpu`
// first (the next word is a value when it has a '=' and no leading '-').
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/CommonFlags.h"
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Pass.h" // llvm::TimePassesIsEnabled
#include "llvm/Support/raw_ostream.h"
#include <list>

using namespace hx;
using namespace llvm;

namespace {
struct PassOptionFlag {
  std::string name;
  std::string description;
  const hx::PassInfo *declaredBy;
  /// The flag's value name (`<cpu|cuda|N>`): kept here, since cl::opt holds
  /// only a StringRef and the probe pass that declared it is gone.
  std::string valueName;
  /// The pass of the same name, whose `-<name>` flag this one also is.
  const hx::PassInfo *alsoPass = nullptr;
  /// A true|false option.
  bool isFlag = false;
  /// One of the two: a single value, or every occurrence (a list option, or
  /// one that is also a pass's flag).
  std::unique_ptr<cl::opt<std::string>> flag;
  std::unique_ptr<cl::list<std::string>> list;
};
} // namespace

/// The table's first device type that is not the host's ("cuda"), for the
/// help's example.
static std::string exampleDevice() {
  const TargetKindInfo *k = firstNonHostKind();
  return deviceTypeName(k ? k->deviceType : DeviceType::CPU).str();
}

struct CommonFlags::Impl {
  Impl(const PassRegistry &registry, cl::OptionCategory &cat, bool pipelineFlags)
      : registry(registry),
        input(cl::Positional, cl::desc("<input .ir file>"), cl::init("-"), cl::cat(cat)),
        passFlags(cl::desc("Passes to run, in command-line order:"), cl::cat(cat)),
        passesDesc("A pipeline of passes with options, e.g. "
                   "--passes='infer-type,plan-devices{default-device=" +
                   exampleDevice() + "}'"),
        passes("passes", cl::desc(passesDesc), cl::value_desc("a,b{opt=v},..."), cl::cat(cat)),
        verifyEach("verify-each", cl::desc("Verify the IR after every pass (default on)"),
                   cl::init(true), cl::cat(cat)),
        printAfterAll("print-ir-after-all", cl::desc("Print the IR to stderr after every pass"),
                      cl::cat(cat)),
        virtualDevices("virtual-devices",
                       cl::desc("The virtual-device table as JSON (wins over the file's "
                                "#[metadata])"),
                       cl::value_desc("json"), cl::cat(cat)),
        maxNestingDesc("Deepest bracket nesting accepted (default 256, at most " +
                       std::to_string(kMaxNestingLimit) + ")"),
        maxNesting("max-nesting", cl::desc(maxNestingDesc), cl::init(256), cl::cat(cat)) {
    // libLLVM already defines -time-passes (llvm::TimePassesIsEnabled): reuse it.
    if (cl::Option *tp = cl::getRegisteredOptions().lookup("time-passes")) {
      tp->addCategory(cat);
      tp->setHiddenFlag(cl::NotHidden);
      tp->setDescription("Report the time of parsing, verifying, every pass and printing");
    }
    for (const hx::PassInfo &info : registry.entries()) {
      if (info.testOnly)
        continue;
      std::unique_ptr<Pass> probe = info.create();
      for (const PassOption &o : probe->getOptions()) {
        if (llvm::any_of(optionFlags, [&](const PassOptionFlag &f) { return f.name == o.name; }))
          continue;
        // Without pipeline flags (hx-run) the pass is not a flag: the option
        // alone is.
        const hx::PassInfo *pass = pipelineFlags ? registry.lookup(o.name) : nullptr;
        if (pass && pass->testOnly)
          pass = nullptr;
        std::string desc = info.argument + ": " + o.description;
        if (pass)
          desc += "; alone, runs the " + pass->argument + " pass";
        PassOptionFlag f{o.name, desc, &info, o.valueName, pass, o.isFlag(), nullptr, nullptr};
        optionFlags.push_back(std::move(f));
        PassOptionFlag &stored = optionFlags.back();
        cl::Option *opt;
        if (o.isList || pass) {
          stored.list = std::make_unique<cl::list<std::string>>(
              StringRef(stored.name), cl::desc(stored.description), cl::cat(cat));
          opt = stored.list.get();
        } else {
          stored.flag = std::make_unique<cl::opt<std::string>>(
              StringRef(stored.name), cl::desc(stored.description), cl::cat(cat));
          opt = stored.flag.get();
        }
        if (o.isFlag()) {
          opt->setValueExpectedFlag(cl::ValueOptional);
          opt->setValueStr("true|false");
        } else {
          if (pass)
            opt->setValueExpectedFlag(cl::ValueOptional);
          opt->setValueStr(stored.valueName);
        }
      }
    }
    // Every registered pass is a `-<argument>` flag, unless an option's flag
    // has its name (and then is the pass's flag too, with pipeline flags).
    for (const hx::PassInfo &p : registry.entries())
      if (!p.testOnly &&
          !llvm::any_of(optionFlags, [&](const PassOptionFlag &f) { return f.name == p.argument; }))
        passFlags.getParser().addLiteralOption(p.argument, &p, p.description);
    if (!pipelineFlags) {
      passFlags.setHiddenFlag(cl::ReallyHidden);
      passes.setHiddenFlag(cl::ReallyHidden);
    }
  }

  const PassRegistry &registry;
  cl::opt<std::string> input;
  cl::list<const hx::PassInfo *> passFlags;
  std::string passesDesc; // cl::desc keeps a StringRef
  cl::list<std::string> passes;
  cl::opt<bool> verifyEach;
  cl::opt<bool> printAfterAll;
  cl::opt<std::string> virtualDevices;
  std::string maxNestingDesc; // cl::desc keeps a StringRef
  cl::opt<unsigned> maxNesting;
  /// A deque-like list: cl options keep pointers to the names.
  std::list<PassOptionFlag> optionFlags;
  /// The joined words `joinSpacedValues` hands out.
  std::list<std::string> joined;
  std::vector<char *> args;
};

CommonFlags::CommonFlags(const PassRegistry &registry, cl::OptionCategory &category,
                         bool pipelineFlags)
    : impl(std::make_unique<Impl>(registry, category, pipelineFlags)) {}

CommonFlags::~CommonFlags() = default;

char **CommonFlags::joinSpacedValues(int &argc, char **argv) {
  Impl &f = *impl;
  f.args.assign(argv, argv + argc);
  for (size_t i = 1; i + 1 < f.args.size(); ++i) {
    StringRef word = f.args[i], next = f.args[i + 1];
    if (!word.starts_with("-") || word.contains('=') || next.starts_with("-") ||
        !next.contains('='))
      continue;
    StringRef name = word.drop_while([](char c) { return c == '-'; });
    if (!llvm::any_of(f.optionFlags, [&](const PassOptionFlag &o) {
          return o.name == name && o.alsoPass && !o.isFlag;
        }))
      continue;
    f.joined.push_back((word + "=" + next).str());
    f.args[i] = f.joined.back().data();
    f.args.erase(f.args.begin() + i + 1);
  }
  argc = static_cast<int>(f.args.size());
  f.args.push_back(nullptr);
  return f.args.data();
}

bool CommonFlags::read(StringRef tool, CommonConfig &out) const {
  const Impl &f = *impl;
  if (f.maxNesting > kMaxNestingLimit) {
    errs() << tool << ": error: --max-nesting=" << f.maxNesting << " is more than "
           << kMaxNestingLimit << ", the deepest nesting hx can parse\n";
    return false;
  }
  out.inputFile = f.input;
  if (f.virtualDevices.getNumOccurrences())
    out.parser.virtualDevices = f.virtualDevices;
  out.parser.maxNesting = f.maxNesting;
  out.verifyEach = f.verifyEach;
  out.printIRAfterAll = f.printAfterAll;
  out.timePasses = TimePassesIsEnabled;
  // hx prints its own report; LLVM's code generators must not print theirs.
  TimePassesIsEnabled = false;

  // Interleave `-<pass>` flags and `--passes=` text in command-line order.
  std::vector<std::pair<unsigned, PipelineItem>> items;
  for (unsigned i = 0; i < f.passFlags.size(); ++i)
    items.push_back({f.passFlags.getPosition(i), {f.passFlags[i], ""}});
  for (unsigned i = 0; i < f.passes.size(); ++i)
    items.push_back({f.passes.getPosition(i), {nullptr, f.passes[i]}});

  out.passOptions.clear();
  for (const PassOptionFlag &o : f.optionFlags) {
    std::string value;
    if (o.flag) {
      if (!o.flag->getNumOccurrences())
        continue;
      value = *o.flag;
    } else {
      bool any = false;
      for (unsigned i = 0; i < o.list->size(); ++i) {
        const std::string &v = (*o.list)[i];
        if (o.alsoPass && v.empty()) {
          items.push_back({o.list->getPosition(i), {o.alsoPass, ""}});
          continue;
        }
        value += (any ? "," : "") + v;
        any = true;
      }
      if (!any)
        continue;
    }
    std::string error;
    if (!o.declaredBy->create()->setOption(o.name, value, error)) {
      errs() << tool << ": error: --" << o.name << ": " << error << "\n";
      return false;
    }
    out.passOptions.push_back({o.name, value});
  }

  llvm::stable_sort(items, [](auto &a, auto &b) { return a.first < b.first; });
  out.pipeline.clear();
  for (auto &[pos, item] : items)
    out.pipeline.push_back(item);
  return true;
}

bool hx::buildPipeline(const CommonConfig &config, const PassRegistry &registry, PassManager &pm,
                       DiagEngine &diags) {
  // Once an explicit `-place` has applied the --place rules, a later pass
  // that also reads them (plan-devices) does not apply them, and warn, again.
  PassOptionDefaults afterPlace = config.passOptions;
  llvm::erase_if(afterPlace, [](const auto &kv) { return kv.first == "place"; });
  const PassOptionDefaults *options = &config.passOptions;
  for (const PipelineItem &item : config.pipeline) {
    if (item.pass) {
      std::unique_ptr<Pass> p = createPassWithDefaults(*item.pass, *options, diags);
      if (!p)
        return false;
      pm.addPass(std::move(p));
      if (item.pass->argument == "place")
        options = &afterPlace;
    } else if (!parsePassPipeline(item.text, registry, pm, diags, *options)) {
      return false;
    }
  }
  return true;
}
