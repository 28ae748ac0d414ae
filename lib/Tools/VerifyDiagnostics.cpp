//===- VerifyDiagnostics.cpp - expected-error annotations ----------------===//
//
// As mlir-opt --verify-diagnostics: every diagnostic (notes included) must be
// announced by an annotation on the line it points at, and every annotation
// must be matched by a diagnostic whose message contains its text.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/OptMain.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace hx;
using namespace llvm;

namespace {
struct Expectation {
  Severity severity;
  unsigned line;
  std::string text;
  SMLoc loc;
  bool matched = false;
};

StringRef severityName(Severity s) {
  switch (s) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  case Severity::Remark:
    return "remark";
  }
  return "error";
}
} // namespace

bool hx::verifyExpectedDiagnostics(unsigned bufferId, const std::vector<Diagnostic> &got,
                                   SourceMgr &sm) {
  StringRef buf = sm.getMemoryBuffer(bufferId)->getBuffer();
  Regex re("expected-(error|warning|note|remark) *(@([+-][0-9]+|above|below))? *\\{\\{(.*)\\}\\}");
  std::vector<Expectation> expected;
  bool ok = true;
  unsigned lineNo = 0;
  for (StringRef rest = buf; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    ++lineNo;
    SmallVector<StringRef, 5> m;
    if (line.contains("expected-") && re.match(line, &m)) {
      Severity s = m[1] == "error"     ? Severity::Error
                   : m[1] == "warning" ? Severity::Warning
                   : m[1] == "note"    ? Severity::Note
                                       : Severity::Remark;
      int target = lineNo;
      if (m[3] == "above")
        target = lineNo - 1;
      else if (m[3] == "below")
        target = lineNo + 1;
      else if (!m[3].empty()) {
        int off = 0;
        m[3].drop_front(m[3][0] == '+').getAsInteger(10, off);
        target = lineNo + off;
      }
      StringRef text = m[4];
      // `{{a}} {{b}}` is not supported: take the text up to the first `}}`.
      text = text.substr(0, text.find("}}"));
      expected.push_back(
          {s, static_cast<unsigned>(target), text.str(), SMLoc::getFromPointer(m[0].data())});
    }
    rest = tail;
    if (tail.data() == line.data() + line.size())
      break;
  }

  auto check = [&](const Diagnostic &d) {
    unsigned line = 0;
    if (d.loc.isValid() && sm.FindBufferContainingLoc(d.loc) == bufferId)
      line = sm.getLineAndColumn(d.loc, bufferId).first;
    for (Expectation &e : expected) {
      if (e.matched || e.severity != d.severity || e.line != line)
        continue;
      if (StringRef(d.message).contains(e.text)) {
        e.matched = true;
        return;
      }
    }
    ok = false;
    std::string msg = ("unexpected " + severityName(d.severity) + ": " + d.message).str();
    if (line)
      sm.PrintMessage(errs(), d.loc, SourceMgr::DK_Error, msg, d.ranges);
    else
      errs() << "hx-opt: error: " << msg << "\n";
  };
  for (const Diagnostic &d : got) {
    check(d);
    for (const Diagnostic &n : d.notes)
      check(n);
  }
  for (const Expectation &e : expected) {
    if (e.matched)
      continue;
    ok = false;
    sm.PrintMessage(errs(), e.loc, SourceMgr::DK_Error,
                    "expected " + severityName(e.severity) + " \"" + e.text +
                        "\" was not produced");
  }
  return ok;
}
