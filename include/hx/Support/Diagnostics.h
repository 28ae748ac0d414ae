//===- Diagnostics.h - Located errors, warnings and notes -------*- C++ -*-===//
//
// One engine for every user-facing message. Diagnostics are rendered by
// llvm::SourceMgr as `file:line:col: error: message`, the source line and a
// caret, followed by their notes. A handler can capture them instead (used by
// --verify-diagnostics). A diagnostic located at an expression that came
// from a framework node (its Loc holds the node) is followed by
// `note: in onnx node '/conv/Conv' (Conv)`.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_DIAGNOSTICS_H
#define HX_SUPPORT_DIAGNOSTICS_H

#include "hx/Support/Loc.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include <functional>
#include <string>
#include <vector>

namespace hx {

enum class Severity { Error, Warning, Note, Remark };

struct Diagnostic {
  Severity severity = Severity::Error;
  Loc loc;
  std::string message;
  std::vector<llvm::SMRange> ranges;
  std::vector<Diagnostic> notes;
};

class DiagEngine;

/// A diagnostic under construction; it is emitted when it goes out of scope.
class InFlightDiagnostic {
public:
  InFlightDiagnostic(DiagEngine *engine, Diagnostic d) : engine(engine), diag(std::move(d)) {}
  InFlightDiagnostic(InFlightDiagnostic &&o) noexcept : engine(o.engine), diag(std::move(o.diag)) {
    o.engine = nullptr;
  }
  InFlightDiagnostic(const InFlightDiagnostic &) = delete;
  ~InFlightDiagnostic();

  InFlightDiagnostic &note(Loc loc, const llvm::Twine &msg);
  InFlightDiagnostic &range(llvm::SMRange r);
  /// Lets `return diags.error(...)` convert to a failure result.
  operator bool() const { return false; }

private:
  DiagEngine *engine;
  Diagnostic diag;
};

class DiagEngine {
public:
  using Handler = std::function<void(const Diagnostic &)>;

  explicit DiagEngine(llvm::SourceMgr &sm) : sm(sm) {}

  InFlightDiagnostic error(Loc loc, const llvm::Twine &msg) {
    return report(Severity::Error, std::move(loc), msg);
  }
  InFlightDiagnostic warning(Loc loc, const llvm::Twine &msg) {
    return report(Severity::Warning, std::move(loc), msg);
  }
  InFlightDiagnostic remark(Loc loc, const llvm::Twine &msg) {
    return report(Severity::Remark, std::move(loc), msg);
  }
  InFlightDiagnostic report(Severity s, Loc loc, const llvm::Twine &msg);

  void emit(Diagnostic d);

  /// Replaces printing: every diagnostic goes to `h` instead.
  void setHandler(Handler h) { handler = std::move(h); }
  /// Where diagnostics are printed when there is no handler (default: stderr).
  void setOutput(llvm::raw_ostream *os) { out = os; }
  /// The name an unlocated diagnostic starts with ("hx-run: error: ...";
  /// default "hx").
  void setProgramName(llvm::StringRef name) { program = name.str(); }

  unsigned getNumErrors() const { return numErrors; }
  bool hadError() const { return numErrors != 0; }
  llvm::SourceMgr &getSourceMgr() { return sm; }

  /// Renders one diagnostic and its notes to `os`.
  void print(llvm::raw_ostream &os, const Diagnostic &d) const;

private:
  llvm::SourceMgr &sm;
  Handler handler;
  llvm::raw_ostream *out = nullptr;
  std::string program = "hx";
  unsigned numErrors = 0;
};

} // namespace hx

#endif
