//===- Reducer.cpp - The search for a smaller interesting module ----------===//
//
// The reducer keeps one module, the smallest interesting one so far, as its
// canonical text, and improves it with delta passes (DeltaPasses.h):
//
//  1. The input is parsed, verified and typed (a located error otherwise);
//     constants read from `.npy` files are inlined, so that every candidate
//     is a self-contained file. The test must accept the input file and its
//     canonical print (else an error says which it rejects).
//  2. A round runs every pass once, in the order of deltaPasses(): defs,
//     annotations, bindings, operands, tuples, params, attributes, shapes,
//     metadata. Rounds repeat until one changes nothing; a pass can enable
//     another (a removed binding leaves a parameter unused).
//  3. A pass is run ddmin-style over its n sites, as llvm-reduce's delta
//     passes are: chunks of size k = n, then ceil(k / 2), ..., 1. For each
//     chunk [i, i + k) a candidate is built from the current module with
//     those sites reduced; when the test accepts it, it becomes the current
//     module, the sites are counted again and the next chunk starts at the
//     same i (the sites after the chunk have moved down); otherwise the
//     search moves on to i + k. A region of m sites the test needs is found
//     with O(m log n) tests, not the n^2 of one site at a time.
//  4. A candidate is the current text parsed and typed afresh, changed by the
//     pass, printed, then parsed, verified and typed again: if that fails,
//     or it prints as the current text (nothing changed), it is dropped
//     without running the test. Candidates the test rejected are remembered
//     by a hash of their text and not tested twice.
//
// Everything is in program order and every site selection is a range of an
// order that depends only on the module, so the same input and a test that
// answers the same give the same output. Every accepted candidate is
// strictly smaller (fewer nodes, parameters, annotations, attributes,
// metadata entries or smaller extents), so the search ends.
//
//===----------------------------------------------------------------------===//
#include "DeltaPasses.h"
#include "TestRunner.h"
#include "hx/IR/Printer.h"
#include "hx/IR/Verifier.h"
#include "hx/IR/Walk.h"
#include "hx/Reduce/Reduce.h"
#include "hx/Support/Files.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <optional>
#include <set>

using namespace hx;
using namespace hx::reduce;
using namespace llvm;

ArrayRef<DeltaPass> reduce::deltaPasses() {
  static constexpr DeltaPass passes[] = {
      {"defs", removeDefs},           {"annotations", dropAnnotations},
      {"bindings", removeBindings},   {"operands", operandsToParams},
      {"tuples", flattenTuples},      {"params", removeParams},
      {"attributes", dropAttributes}, {"shapes", shrinkShapes},
      {"metadata", dropMetadata},
  };
  return passes;
}

namespace {

/// Inference writes the types it infers into missing annotations; a
/// candidate must print the annotations that were written, so they are put
/// back after it.
class SavedAnnotations {
public:
  explicit SavedAnnotations(Module &m) {
    forEachFunction(m, [&](Function &f) {
      rets.push_back({&f, f.retType});
      for (const Ref<Var> &v : f.params)
        vars.push_back({v.get(), v->annotation});
      for (const Ref<Var> &v : f.freeVars)
        vars.push_back({v.get(), v->annotation});
    });
    for (Module::Def &d : m.defs)
      walkPostOrder(d.fn.get(), [&](Expr *e) {
        if (auto *l = dyn_cast<Let>(e))
          vars.push_back({l->var.get(), l->var->annotation});
      });
  }
  void restore() {
    for (auto &[f, t] : rets)
      f->retType = t;
    for (auto &[v, t] : vars)
      v->annotation = t;
  }

private:
  std::vector<std::pair<Function *, TypeRef>> rets;
  std::vector<std::pair<Var *, TypeRef>> vars;
};

/// A module parsed from text, with the source its locations point into.
struct Loaded {
  SourceMgr sm;
  std::unique_ptr<Module> module;
};

/// Parses, verifies and types `text`, silently; null if any step fails.
std::unique_ptr<Loaded> load(StringRef text, const ParserOptions &opts) {
  auto l = std::make_unique<Loaded>();
  unsigned id =
      l->sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "candidate.ir"), SMLoc());
  DiagEngine diags(l->sm);
  diags.setHandler([](const Diagnostic &) {});
  l->module = parseModule(id, diags, opts);
  if (!l->module || !verifyModule(*l->module, diags))
    return nullptr;
  SavedAnnotations saved(*l->module);
  bool typed = inferTypes(*l->module, diags);
  saved.restore();
  if (!typed || diags.hadError())
    return nullptr;
  return l;
}

std::string print(const Module &m) {
  std::string s;
  raw_string_ostream os(s);
  printModule(os, m);
  return s;
}

size_t countBindings(Module &m) {
  size_t n = 0;
  for (Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      if (!e->isAtomic())
        ++n;
    });
  return n - m.defs.size(); // not the def roots
}

/// Constants read from `.npy` files keep their values but lose the path,
/// which is relative to the input's directory, not the candidate's.
void inlineNpyConstants(Module &m) {
  for (Module::Def &d : m.defs)
    walkPostOrder(d.fn.get(), [&](Expr *e) {
      auto *c = dyn_cast<Constant>(e);
      if (!c || !c->isTensor() || c->tensor->npyPath.empty())
        return;
      auto t = std::make_shared<TensorData>(*c->tensor);
      t->npyPath.clear();
      c->tensor = std::move(t);
    });
}

class Reducer {
public:
  Reducer(const ReduceOptions &opts, TestRunner &runner, ReduceStats &stats, std::string text)
      : opts(opts), runner(runner), stats(stats), current(std::move(text)) {}

  /// Runs rounds until one changes nothing; false after a test failed to run.
  bool run() {
    bool changed = true;
    while (changed && error.empty()) {
      changed = false;
      ++stats.rounds;
      for (const DeltaPass &p : deltaPasses())
        if (error.empty())
          changed |= runPass(p);
    }
    if (!error.empty())
      errs() << "hx-reduce: error: " << error << "\n";
    return error.empty();
  }

  const std::string &result() const { return current; }

  /// Runs the test on `text` (or recalls that it rejected it before).
  bool interesting(const std::string &text) {
    std::pair<uint64_t, size_t> key{xxh3_64bits(text), text.size()};
    if (rejected.count(key)) {
      ++stats.repeated;
      return false;
    }
    ++stats.testRuns;
    TestRunner::Outcome o = runner.testText(text, error);
    if (o == TestRunner::Outcome::Interesting)
      return true;
    if (o == TestRunner::Outcome::TimedOut)
      ++stats.timeouts;
    rejected.insert(key);
    return false;
  }

private:
  size_t countSites(const DeltaPass &p) {
    std::unique_ptr<Loaded> l = load(current, opts.parser);
    if (!l)
      return 0;
    SiteSelection none = SiteSelection::none();
    p.run(*l->module, none);
    return none.count();
  }

  struct Candidate {
    std::string text;
    size_t bindings;
  };

  /// The current module with sites [begin, end) of `p` reduced, if it is
  /// well-formed and differs from the current one.
  std::optional<Candidate> build(const DeltaPass &p, size_t begin, size_t end) {
    std::unique_ptr<Loaded> l = load(current, opts.parser);
    if (!l)
      return std::nullopt;
    SiteSelection sel(begin, end);
    p.run(*l->module, sel);
    std::string text = print(*l->module);
    if (text == current)
      return std::nullopt;
    std::unique_ptr<Loaded> check = load(text, opts.parser);
    if (!check) {
      ++stats.illFormed;
      return std::nullopt;
    }
    return Candidate{std::move(text), countBindings(*check->module)};
  }

  /// One pass, ddmin-style; whether it changed the module.
  bool runPass(const DeltaPass &p) {
    size_t n = countSites(p);
    bool changed = false;
    for (size_t k = n; n && k;) {
      for (size_t i = 0; i < n && error.empty();) {
        size_t end = std::min(i + k, n);
        std::optional<Candidate> c = build(p, i, end);
        if (c && interesting(c->text)) {
          if (opts.log)
            *opts.log << "hx-reduce: " << p.name << ": sites " << i << ".." << end - 1 << " of "
                      << n << " reduced, " << c->bindings << " bindings\n";
          current = std::move(c->text);
          changed = true;
          n = countSites(p);
        } else {
          i += k;
        }
      }
      if (k == 1 || !error.empty())
        break;
      k = std::min((k + 1) / 2, n);
    }
    return changed;
  }

  const ReduceOptions &opts;
  TestRunner &runner;
  ReduceStats &stats;
  std::string current;
  std::set<std::pair<uint64_t, size_t>> rejected;
  std::string error;
};

} // namespace

bool hx::reduceModule(const ReduceOptions &opts, StringRef inputPath, std::string &result,
                      ReduceStats &stats) {
  Expected<std::unique_ptr<MemoryBuffer>> fileOrErr = readUserFile(inputPath);
  if (!fileOrErr) {
    errs() << "hx-reduce: error: cannot open '" << inputPath
           << "': " << toString(fileOrErr.takeError()) << "\n";
    return false;
  }
  SourceMgr sm;
  unsigned id = sm.AddNewSourceBuffer(std::move(*fileOrErr), SMLoc());
  DiagEngine diags(sm);
  std::unique_ptr<Module> m = parseModule(id, diags, opts.parser);
  if (!m || !verifyModule(*m, diags))
    return false;
  inlineNpyConstants(*m);
  std::string text = print(*m);
  stats.defsBefore = m->defs.size();
  {
    SavedAnnotations saved(*m);
    if (!inferTypes(*m, diags)) {
      errs() << "hx-reduce: error: '" << inputPath
             << "' does not type-check: every candidate hx-reduce tests type-checks, so the "
                "input must\n";
      return false;
    }
  }
  stats.bindingsBefore = countBindings(*m);

  std::string error;
  std::unique_ptr<TestRunner> runner =
      TestRunner::create(opts.testProgram, opts.testArgs, opts.timeoutSeconds, error);
  if (!runner) {
    errs() << "hx-reduce: error: " << error << "\n";
    return false;
  }
  auto rejects = [&](TestRunner::Outcome o, const Twine &what) {
    if (!error.empty()) {
      errs() << "hx-reduce: error: " << error << "\n";
      return true;
    }
    if (o == TestRunner::Outcome::Interesting)
      return false;
    errs() << "hx-reduce: error: " << what << " is not interesting: the test '" << opts.testProgram
           << "' "
           << (o == TestRunner::Outcome::TimedOut
                   ? "ran past the timeout of " + std::to_string(opts.timeoutSeconds) + " s"
                   : std::string("exits non-zero"))
           << " on it\n";
    return true;
  };
  SmallString<256> absInput(inputPath);
  sys::fs::make_absolute(absInput);
  ++stats.testRuns;
  if (rejects(runner->testFile(absInput, error), "'" + inputPath + "'"))
    return false;
  Reducer reducer(opts, *runner, stats, std::move(text));
  if (rejects(reducer.interesting(reducer.result()) ? TestRunner::Outcome::Interesting
                                                    : TestRunner::Outcome::Uninteresting,
              "the canonical form of '" + inputPath + "' (as hx-opt prints it)"))
    return false;
  if (!reducer.run())
    return false;
  result = reducer.result();
  std::unique_ptr<Loaded> last = load(result, opts.parser);
  stats.bindingsAfter = last ? countBindings(*last->module) : 0;
  stats.defsAfter = last ? last->module->defs.size() : 0;
  return true;
}
