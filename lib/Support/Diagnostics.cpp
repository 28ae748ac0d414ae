//===- Diagnostics.cpp - Rendering and dispatch of diagnostics -----------===//
#include "hx/Support/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

using namespace hx;
using namespace llvm;

InFlightDiagnostic::~InFlightDiagnostic() {
  if (engine)
    engine->emit(std::move(diag));
}

InFlightDiagnostic &InFlightDiagnostic::note(SMLoc loc, const Twine &msg) {
  Diagnostic n;
  n.severity = Severity::Note;
  n.loc = loc;
  n.message = msg.str();
  diag.notes.push_back(std::move(n));
  return *this;
}

InFlightDiagnostic &InFlightDiagnostic::range(SMRange r) {
  diag.ranges.push_back(r);
  return *this;
}

InFlightDiagnostic DiagEngine::report(Severity s, SMLoc loc, const Twine &msg) {
  Diagnostic d;
  d.severity = s;
  d.loc = loc;
  d.message = msg.str();
  return InFlightDiagnostic(this, std::move(d));
}

void DiagEngine::emit(Diagnostic d) {
  if (d.severity == Severity::Error)
    ++numErrors;
  if (handler) {
    handler(d);
    return;
  }
  print(out ? *out : errs(), d);
}

static SourceMgr::DiagKind toKind(Severity s) {
  switch (s) {
  case Severity::Error: return SourceMgr::DK_Error;
  case Severity::Warning: return SourceMgr::DK_Warning;
  case Severity::Note: return SourceMgr::DK_Note;
  case Severity::Remark: return SourceMgr::DK_Remark;
  }
  return SourceMgr::DK_Error;
}

void DiagEngine::print(raw_ostream &os, const Diagnostic &d) const {
  auto one = [&](const Diagnostic &x) {
    if (x.loc.isValid() && sm.FindBufferContainingLoc(x.loc)) {
      sm.PrintMessage(os, x.loc, toKind(x.severity), x.message, x.ranges);
      return;
    }
    // No source position (command line, internal): no caret.
    SMDiagnostic diag("hx", toKind(x.severity), x.message);
    diag.print(nullptr, os);
  };
  one(d);
  for (const Diagnostic &n : d.notes)
    one(n);
}
