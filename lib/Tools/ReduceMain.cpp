//===- ReduceMain.cpp - The logic of hx-reduce ----------------------------===//
//
// Reads the flags into a ReduceOptions, runs reduceModule and writes the
// result to -o only when the reduction succeeded, so an error leaves no
// output file. Prints the sizes before and after and the number of test runs
// to stderr. Exits 0, or 1 on a user error (bad flags, an input that does
// not parse or type-check, a missing test, a test that rejects the input).
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/ReduceMain.h"
#include "hx/Reduce/Reduce.h"
#include "hx/Tools/OptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace hx;
using namespace llvm;

int hx::reduceMain(int argc, char **argv) {
  cl::OptionCategory cat("hx-reduce options");
  cl::opt<std::string> input(cl::Positional, cl::desc("<input .ir file>"), cl::Required,
                             cl::cat(cat));
  cl::opt<std::string> output("o", cl::desc("Output file (default: stdout)"),
                              cl::value_desc("file"), cl::init("-"), cl::cat(cat));
  cl::opt<std::string> test("test",
                            cl::desc("The interestingness test: a program that gets a candidate "
                                     "file as its last argument and exits 0 if it is interesting"),
                            cl::value_desc("program"), cl::Required, cl::cat(cat));
  cl::list<std::string> testArgs("test-arg",
                                 cl::desc("An argument of the test, before the candidate file "
                                          "(repeatable)"),
                                 cl::value_desc("arg"), cl::cat(cat));
  cl::opt<unsigned> timeout("timeout",
                            cl::desc("Seconds a test run may take; a slower candidate is "
                                     "uninteresting (default 30)"),
                            cl::value_desc("seconds"), cl::init(30), cl::cat(cat));
  cl::opt<bool> verbose("verbose", cl::desc("Report every accepted reduction on stderr"),
                        cl::cat(cat));
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(argc, argv,
                              "hx test-case reducer: shrinks a module while a test accepts it\n");
  if (timeout == 0) {
    errs() << "hx-reduce: error: --timeout must be at least 1 second\n";
    return kExitUserError;
  }

  ReduceOptions opts;
  opts.testProgram = test;
  opts.testArgs.assign(testArgs.begin(), testArgs.end());
  opts.timeoutSeconds = timeout;
  opts.log = verbose ? &errs() : nullptr;
  std::string result;
  ReduceStats stats;
  if (!reduceModule(opts, input, result, stats))
    return kExitUserError;

  std::error_code ec;
  ToolOutputFile file(output, ec, sys::fs::OF_None);
  if (ec) {
    errs() << "hx-reduce: error: cannot write '" << output << "': " << ec.message() << "\n";
    return kExitUserError;
  }
  file.os() << result;
  file.keep();
  errs() << "hx-reduce: bindings " << stats.bindingsBefore << " -> " << stats.bindingsAfter
         << ", defs " << stats.defsBefore << " -> " << stats.defsAfter << "\n"
         << "hx-reduce: " << stats.testRuns << " test runs (" << stats.timeouts << " timed out), "
         << stats.illFormed << " ill-formed candidates and " << stats.repeated
         << " repeated ones skipped, " << stats.rounds << " rounds\n";
  return kExitSuccess;
}
