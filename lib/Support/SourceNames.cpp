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
#include "llvm/Support/raw_ostream.h"
#include <new>

using namespace hx;
using namespace llvm;

SourceNodeRef SourceNode::create(StringRef framework, StringRef opType, StringRef name) {
  size_t size = framework.size() + opType.size() + name.size();
  void *mem = ::operator new(sizeof(SourceNode) + size);
  auto *n = new (mem)
      SourceNode(uint32_t(framework.size()), uint32_t(opType.size()), uint32_t(name.size()));
  char *out = reinterpret_cast<char *>(n + 1);
  llvm::copy(framework, out);
  llvm::copy(opType, out + framework.size());
  llvm::copy(name, out + framework.size() + opType.size());
  return SourceNodeRef(n);
}

void SourceNode::Release() const {
  if (--refs)
    return;
  this->~SourceNode();
  ::operator delete(const_cast<SourceNode *>(this));
}

/// printableName's text, without building it when the name is printable
/// ASCII already (the common case).
static void writePrintable(raw_ostream &os, StringRef s) {
  if (llvm::all_of(s, [](char c) { return c >= 0x20 && c < 0x7f; }))
    os << s;
  else
    os << printableName(s);
}

void SourceNode::printComment(raw_ostream &os) const {
  os << "// ";
  writePrintable(os, framework());
  os << ':';
  writePrintable(os, opType());
  if (!name().empty()) {
    os << ' ';
    writePrintable(os, name());
  }
}

std::string SourceNode::comment() const {
  std::string s;
  raw_string_ostream os(s);
  printComment(os);
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
    return create(framework, opType, name);
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
