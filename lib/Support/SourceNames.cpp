//===- SourceNames.cpp - The framework node a line of text came from ------===//
//
// The comment is the first `// ` after the call on its line whose text reads
// `<word>:<word>`: names may hold `//` themselves (ONNX names are often
// paths), so everything after the op type is the name.
//
//===----------------------------------------------------------------------===//
#include "hx/Support/SourceNames.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/SourceMgr.h"

using namespace hx;
using namespace llvm;

static bool isWordChar(char c) { return isAlnum(c) || c == '_' || c == '.' || c == '-'; }

std::optional<SourceNode> hx::sourceNodeAt(const SourceMgr &sm, SMLoc loc) {
  if (!loc.isValid())
    return std::nullopt;
  unsigned id = sm.FindBufferContainingLoc(loc);
  if (!id)
    return std::nullopt;
  StringRef buf = sm.getMemoryBuffer(id)->getBuffer();
  size_t at = loc.getPointer() - buf.data();
  size_t eol = buf.find('\n', at);
  StringRef rest = buf.slice(at, eol == StringRef::npos ? buf.size() : eol);
  for (size_t pos = rest.find("// "); pos != StringRef::npos; pos = rest.find("// ", pos + 1)) {
    StringRef tail = rest.substr(pos + 3);
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
    return SourceNode{framework, opType, name.rtrim("\r")};
  }
  return std::nullopt;
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

std::string hx::sourceNodeComment(StringRef framework, StringRef opType, StringRef name) {
  std::string s = "// " + printableName(framework) + ":" + printableName(opType);
  if (!name.empty())
    s += " " + printableName(name);
  return s;
}
