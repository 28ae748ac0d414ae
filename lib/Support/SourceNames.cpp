//===- SourceNames.cpp - The framework node an expression came from -------===//
//
// The comment's grammar is the one hx-import-onnx has always written, so
// text imported before provenance became data reads back the same:
// `// <word>:<word>` with word characters [A-Za-z0-9_.-], then optionally a
// space and the name, to the end of the line (a trailing '\r' dropped).
//
//===----------------------------------------------------------------------===//
#include "hx/Support/SourceNames.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

using namespace hx;
using namespace llvm;

SourceNode::SourceNode(StringRef framework, StringRef opType, StringRef name)
    : frameworkLen(framework.size()), opTypeLen(opType.size()) {
  text.reserve(framework.size() + opType.size() + name.size() + 2);
  text += framework;
  text += ':';
  text += opType;
  if (!name.empty()) {
    text += ' ';
    text += name;
  }
}

std::string SourceNode::comment() const {
  std::string s = "// " + printableName(framework()) + ":" + printableName(opType());
  if (!name().empty())
    s += " " + printableName(name());
  return s;
}

static bool isWordChar(char c) { return isAlnum(c) || c == '_' || c == '.' || c == '-'; }

SourceNodeRef SourceNode::fromComment(StringRef comment) {
  comment = comment.rtrim("\r");
  for (size_t pos = comment.find("// "); pos != StringRef::npos;
       pos = comment.find("// ", pos + 1)) {
    StringRef tail = comment.substr(pos + 3);
    size_t colon = tail.find(':');
    if (colon == 0 || colon == StringRef::npos)
      continue;
    StringRef framework = tail.take_front(colon);
    if (!llvm::all_of(framework, isWordChar))
      continue;
    StringRef after = tail.substr(colon + 1);
    size_t space = after.find(' ');
    StringRef opType = after.take_front(space);
    if (opType.empty() || !llvm::all_of(opType, isWordChar))
      continue;
    StringRef name = space == StringRef::npos ? StringRef() : after.substr(space + 1);
    return makeIntrusiveRefCnt<SourceNode>(framework, opType, name);
  }
  return nullptr;
}

std::string hx::printableName(StringRef name) {
  // hx text is UTF-8 without control characters: keep a name that is
  // legal UTF-8 (control characters become spaces), else its ASCII.
  const auto *begin = reinterpret_cast<const UTF8 *>(name.data());
  bool utf8 = isLegalUTF8String(&begin, begin + name.size());
  std::string s;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    s += u < 0x20 || u == 0x7f ? ' ' : u >= 0x80 && !utf8 ? '?' : c;
  }
  return s;
}
