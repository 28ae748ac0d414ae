//===- Reduce.h - Shrinking a module while a test stays true ----*- C++ -*-===//
//
// hx-reduce's engine. Given a module and an interestingness test (a program
// that gets a candidate file as its last argument and exits 0 when the
// candidate still shows the bug), it finds a smaller module the test still
// accepts: defs, bindings, parameters, annotations, attributes, tuple
// structure and metadata removed, sub-graphs cut into parameters, dimensions
// halved. Every candidate the test sees parses and type-checks. The design
// comment of lib/Reduce/Reducer.cpp describes the search.
//
//===----------------------------------------------------------------------===//
#ifndef HX_REDUCE_REDUCE_H
#define HX_REDUCE_REDUCE_H

#include "hx/Parser/Parser.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace hx {

struct ReduceOptions {
  /// The interestingness test and the arguments before the candidate file.
  std::string testProgram;
  std::vector<std::string> testArgs;
  /// A test that runs longer is killed and the candidate is uninteresting.
  unsigned timeoutSeconds = 30;
  ParserOptions parser;
  /// Where each accepted reduction is reported, when set.
  llvm::raw_ostream *log = nullptr;
};

struct ReduceStats {
  /// Calls, tuples, projections, lets, ifs and fn literals, over all defs.
  size_t bindingsBefore = 0, bindingsAfter = 0;
  size_t defsBefore = 0, defsAfter = 0;
  /// Runs of the test (the two checks of the input included), and of those
  /// the ones killed at the timeout.
  unsigned testRuns = 0, timeouts = 0;
  /// Candidates dropped without a run: not well-formed (parse, verify or
  /// infer-type failed), or equal to one the test already rejected.
  unsigned illFormed = 0, repeated = 0;
  /// Rounds over all passes (the last one changed nothing).
  unsigned rounds = 0;
};

/// Reduces the module in `inputPath`. On success `result` holds the
/// smallest interesting module found, in canonical form. On failure (the
/// input does not parse or type-check, the test is missing or rejects the
/// input) an error has been printed to stderr and false is returned.
bool reduceModule(const ReduceOptions &opts, llvm::StringRef inputPath, std::string &result,
                  ReduceStats &stats);

} // namespace hx

#endif
