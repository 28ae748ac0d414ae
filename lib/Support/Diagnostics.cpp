//===- Diagnostics.cpp - Rendering and dispatch of diagnostics -----------===//
#include "hx/Support/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstdio>
#include <optional>

using namespace hx;
using namespace llvm;

InFlightDiagnostic::~InFlightDiagnostic() {
  if (engine)
    engine->emit(std::move(diag));
}

InFlightDiagnostic &InFlightDiagnostic::note(Loc loc, const Twine &msg) {
  Diagnostic n;
  n.severity = Severity::Note;
  n.loc = std::move(loc);
  n.message = msg.str();
  diag.notes.push_back(std::move(n));
  return *this;
}

InFlightDiagnostic &InFlightDiagnostic::range(SMRange r) {
  diag.ranges.push_back(r);
  return *this;
}

InFlightDiagnostic DiagEngine::report(Severity s, Loc loc, const Twine &msg) {
  Diagnostic d;
  d.severity = s;
  d.loc = std::move(loc);
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
  case Severity::Error:
    return SourceMgr::DK_Error;
  case Severity::Warning:
    return SourceMgr::DK_Warning;
  case Severity::Note:
    return SourceMgr::DK_Note;
  case Severity::Remark:
    return SourceMgr::DK_Remark;
  }
  return SourceMgr::DK_Error;
}

// llvm::SMDiagnostic prints no caret under a line that holds anything but
// printable ASCII (its columns would be wrong), and echoes a line of any
// length. Invalid UTF-8, control bytes and binary garbage are ordinary bad
// input, so such a line is shown escaped instead, as clang does -- `<U+00E9>`
// for a character, `<FF>` for a byte that is not UTF-8 -- and a long line is
// cut to a window around the caret. Returns the diagnostic to print with its
// caret and ranges moved into the shown line (the `file:line:col:` prefix
// must still give the input's column: see print), or nullopt when `d`'s line
// prints as it is.
static std::optional<SMDiagnostic> escapeSourceLine(const SMDiagnostic &d) {
  constexpr size_t kMaxWidth = 160;
  StringRef line = d.getLineContents();
  auto printable = [](unsigned char c) { return c == '\t' || (c >= 0x20 && c < 0x7f); };
  if (d.getColumnNo() < 0 || (line.size() <= kMaxWidth && all_of(line, printable)))
    return std::nullopt;

  // The escaped line, and for each byte offset its column in it.
  std::string text;
  std::vector<unsigned> col(line.size() + 1);
  char hex[16];
  for (size_t i = 0; i < line.size();) {
    unsigned char c = line[i];
    unsigned n = 1;
    col[i] = text.size();
    if (printable(c)) {
      text += c;
    } else if (c >= 0x80 && (n = getNumBytesForUTF8(c)) > 1 && i + n <= line.size() &&
               isLegalUTF8Sequence(reinterpret_cast<const UTF8 *>(line.data() + i),
                                   reinterpret_cast<const UTF8 *>(line.data() + i + n))) {
      UTF32 cp = 0;
      const UTF8 *src = reinterpret_cast<const UTF8 *>(line.data() + i);
      UTF32 *dst = &cp;
      ConvertUTF8toUTF32(&src, src + n, &dst, dst + 1, strictConversion);
      std::snprintf(hex, sizeof hex, "<U+%04X>", unsigned(cp));
      text += hex;
    } else {
      n = 1;
      std::snprintf(hex, sizeof hex, "<%02X>", unsigned(c));
      text += hex;
    }
    for (unsigned k = 1; k < n; ++k)
      col[i + k] = col[i];
    i += n;
  }
  col[line.size()] = text.size();

  auto at = [&](unsigned byteCol) { return col[std::min<size_t>(byteCol, line.size())]; };
  unsigned caret = at(d.getColumnNo());
  size_t begin = 0, end = text.size();
  if (text.size() > kMaxWidth) {
    begin = caret > kMaxWidth / 2 ? caret - kMaxWidth / 2 : 0;
    end = std::min(text.size(), begin + kMaxWidth);
  }
  std::string shown =
      (begin ? "..." : "") + text.substr(begin, end - begin) + (end < text.size() ? "..." : "");
  auto move = [&](size_t c) -> unsigned {
    return std::clamp(c, begin, end) - begin + (begin ? 3 : 0);
  };
  std::vector<std::pair<unsigned, unsigned>> ranges;
  for (auto [from, to] : d.getRanges())
    ranges.emplace_back(move(at(from)), move(at(to)));
  return SMDiagnostic(*d.getSourceMgr(), d.getLoc(), d.getFilename(), d.getLineNo(), move(caret),
                      d.getKind(), d.getMessage(), shown, ranges);
}

void DiagEngine::print(raw_ostream &os, const Diagnostic &d) const {
  auto one = [&](const Diagnostic &x) {
    if (x.loc.isValid() && sm.FindBufferContainingLoc(x.loc)) {
      SMDiagnostic diag = sm.GetMessage(x.loc, toKind(x.severity), x.message, x.ranges);
      std::optional<SMDiagnostic> shown = escapeSourceLine(diag);
      if (!shown) {
        diag.print(nullptr, os);
        return;
      }
      {
        WithColor bold(os, raw_ostream::SAVEDCOLOR, /*Bold=*/true);
        os << diag.getFilename() << ':' << diag.getLineNo() << ':' << diag.getColumnNo() + 1
           << ": ";
      }
      shown->print(nullptr, os, /*ShowColors=*/true, /*ShowKindLabel=*/true,
                   /*ShowLocation=*/false);
      return;
    }
    // No source position (command line, internal): no caret.
    SMDiagnostic diag(program, toKind(x.severity), x.message);
    diag.print(nullptr, os);
  };
  one(d);
  // An expression an importer built names its framework node
  // (hx/Support/SourceNames.h): say which, since a long line is cut.
  if (const SourceNode *node = d.loc.getNode(); node && !node->name().empty()) {
    unsigned id = d.loc.isValid() ? sm.FindBufferContainingLoc(d.loc) : 0;
    SMDiagnostic note(id ? sm.getMemoryBuffer(id)->getBufferIdentifier() : StringRef(program),
                      SourceMgr::DK_Note,
                      ("in " + node->framework() + " node '" + printableName(node->name()) + "' (" +
                       node->opType() + ")")
                          .str());
    note.print(nullptr, os);
  }
  for (const Diagnostic &n : d.notes)
    one(n);
}
