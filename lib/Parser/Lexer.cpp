//===- Lexer.cpp - The hand-written lexer ---------------------------------===//
//
// Produces the token types of grammar/HxLexer.g4 (checked against the
// generated ANTLR lexer by unittests/Parser/LexerTest.cpp). Two modes, as in
// the grammar: the IR, and the JSON of the `#[metadata]` section, which runs
// to the end of the file.
//
//===----------------------------------------------------------------------===//
#include "Lexer.h"
#include "HxLexer.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"

using namespace hx;
using namespace llvm;

std::string HxToken::getText() const {
  if (type == EOF)
    return "<EOF>";
  return std::string(base + start, len);
}

namespace {

class Lexer {
public:
  Lexer(StringRef buf, DiagEngine &diags, const LexerOptions &opts, std::vector<HxToken> &toks,
        std::vector<NodeComment> *nodeComments)
      : buf(buf), cur(buf.begin()), end(buf.end()), lineStart(buf.begin()), diags(diags),
        opts(opts), toks(toks), nodeComments(nodeComments) {}

  bool run();

private:
  bool lexIR();
  bool lexJSON();
  void push(size_t type, const char *start);
  bool error(const char *at, const Twine &msg) {
    diags.error(SMLoc::getFromPointer(at), msg);
    return false;
  }
  bool skipSpaceAndComments();
  void noteNodeComment(const char *start);
  bool lexString(const char *start);
  bool lexNumber(const char *start, bool json);
  bool checkUTF8(const char *at, const char *&p);
  bool open(const char *at);
  bool close();
  bool arrow(const char *at);
  void endArrows();
  void newline(const char *p) {
    ++line;
    lineStart = p + 1;
  }

  StringRef buf;
  const char *cur, *end, *lineStart;
  uint32_t line = 1;
  unsigned depth = 0;
  // A function type nests without brackets (`fn () -> fn () -> T` recurses in
  // the parser once per `->`), so each `->` counts as a nesting level until
  // its type ends: at a `,` `;` `=` or `{` of the same bracket level, or when
  // that level closes. arrows[d] counts the open ones at bracket depth d.
  SmallVector<unsigned, 16> arrows{0};
  unsigned openArrows = 0;
  DiagEngine &diags;
  const LexerOptions &opts;
  std::vector<HxToken> &toks;
  std::vector<NodeComment> *nodeComments;
  /// The last node comment's text: the same comment on the next lines (a
  /// node's calls one per line) shares its node.
  StringRef lastNodeText;
  bool inJSON = false;
};

bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

} // namespace

void Lexer::push(size_t type, const char *start) {
  toks.emplace_back(type, buf.begin(), uint32_t(start - buf.begin()), uint32_t(cur - start), line,
                    uint32_t(start - lineStart), uint32_t(toks.size()));
}

bool Lexer::open(const char *at) {
  if (*at == '{')
    endArrows(); // `-> T {`: the type ends where a body begins
  if (++depth + openArrows > opts.maxNesting)
    return error(
        at, "nesting too deep (more than " + Twine(opts.maxNesting) +
                (openArrows ? " levels of brackets and function types)" : " levels of brackets)"));
  arrows.push_back(0);
  return true;
}

bool Lexer::close() {
  if (depth) {
    endArrows();
    arrows.pop_back();
    --depth;
  }
  return true;
}

bool Lexer::arrow(const char *at) {
  ++arrows.back();
  if (depth + ++openArrows > opts.maxNesting)
    return error(at, "nesting too deep (more than " + Twine(opts.maxNesting) +
                         " levels of brackets and function types)");
  return true;
}

void Lexer::endArrows() {
  openArrows -= arrows.back();
  arrows.back() = 0;
}

// Validates one UTF-8 sequence starting at `p` (a byte >= 0x80) and advances.
bool Lexer::checkUTF8(const char *at, const char *&p) {
  unsigned n = getNumBytesForUTF8(static_cast<UTF8>(*p));
  if (p + n > end || !isLegalUTF8Sequence(reinterpret_cast<const UTF8 *>(p),
                                          reinterpret_cast<const UTF8 *>(p + n)))
    return error(p, "invalid UTF-8 in input");
  p += n;
  return true;
}

bool Lexer::skipSpaceAndComments() {
  while (cur < end) {
    char c = *cur;
    if (c == ' ' || c == '\t' || c == '\r') {
      ++cur;
    } else if (c == '\n') {
      newline(cur);
      ++cur;
    } else if (c == '/' && cur + 1 < end && cur[1] == '/') {
      const char *start = cur;
      while (cur < end && *cur != '\n') {
        if (static_cast<unsigned char>(*cur) >= 0x80) {
          if (!checkUTF8(cur, cur))
            return false;
        } else if (*cur == 0) {
          return error(cur, "unexpected NUL byte in comment");
        } else {
          ++cur;
        }
      }
      if (nodeComments && !inJSON)
        noteNodeComment(start);
    } else if (c == '/' && cur + 1 < end && cur[1] == '*') {
      // Nestable block comment.
      const char *start = cur;
      unsigned nest = 0;
      do {
        if (cur + 1 < end && cur[0] == '/' && cur[1] == '*') {
          ++nest;
          cur += 2;
        } else if (cur + 1 < end && cur[0] == '*' && cur[1] == '/') {
          --nest;
          cur += 2;
        } else if (*cur == '\n') {
          newline(cur);
          ++cur;
        } else if (static_cast<unsigned char>(*cur) >= 0x80) {
          if (!checkUTF8(cur, cur))
            return false;
        } else if (*cur == 0) {
          return error(cur, "unexpected NUL byte in comment");
        } else {
          ++cur;
        }
      } while (nest && cur < end);
      if (nest)
        return error(start, "unterminated block comment");
    } else {
      break;
    }
  }
  return true;
}

// The comment from `start` to `cur` (the end of its line).
void Lexer::noteNodeComment(const char *start) {
  StringRef text(start, cur - start);
  if (!text.contains(':'))
    return; // an ordinary comment: the common case, decided fast
  SourceNodeRef node;
  if (!nodeComments->empty() && text == lastNodeText)
    node = nodeComments->back().node;
  else if (!(node = SourceNode::fromComment(text)))
    return;
  lastNodeText = text;
  nodeComments->push_back(
      {uint32_t(lineStart - buf.begin()), uint32_t(start - buf.begin()), std::move(node)});
}

bool Lexer::lexString(const char *start) {
  ++cur; // opening quote
  while (true) {
    if (cur >= end || *cur == '\n' || *cur == '\r')
      return error(start, "unterminated string literal");
    char c = *cur;
    if (c == '"') {
      ++cur;
      return true;
    }
    if (c == '\\') {
      char e = cur + 1 < end ? cur[1] : 0;
      if (e == 'u') {
        for (int i = 2; i < 6; ++i)
          if (cur + i >= end || !isxdigit(static_cast<unsigned char>(cur[i])))
            return error(cur, "invalid \\u escape in string literal");
        cur += 6;
        continue;
      }
      if (!StringRef("\"\\/bfnrt").contains(e) || e == 0)
        return error(cur, "invalid escape sequence in string literal");
      cur += 2;
      continue;
    }
    if (c == 0)
      return error(cur, "unexpected NUL byte in string literal");
    if (static_cast<unsigned char>(c) < 0x20)
      return error(cur, "control character in string literal");
    if (static_cast<unsigned char>(c) >= 0x80) {
      if (!checkUTF8(cur, cur))
        return false;
      continue;
    }
    ++cur;
  }
}

/// Whether `word` is an infinity or a NaN with a float suffix (`inff`,
/// `nanf64`): a NUMBER, as the printer writes non-finite floats.
static bool isNonFiniteLiteral(StringRef word) {
  if (!word.consume_front("inf") && !word.consume_front("nan"))
    return false;
  return word == "f" || word == "f16" || word == "f32" || word == "f64" || word == "bf16";
}

bool Lexer::lexNumber(const char *start, bool json) {
  if (*cur == '-')
    ++cur;
  if (!json && cur < end && isNameStart(*cur)) { // -inff
    const char *p = cur;
    while (p < end && isNameChar(*p))
      ++p;
    if (isNonFiniteLiteral(StringRef(cur, p - cur))) {
      cur = p;
      push(HxLexer::NUMBER, start);
      return true;
    }
  }
  if (cur >= end || !isDigit(*cur))
    return error(start, "expected a digit after '-'");
  if (json && *cur == '0' && cur + 1 < end && isDigit(cur[1]))
    return error(start, "a JSON number has no leading zeros");
  while (cur < end && isDigit(*cur))
    ++cur;
  if (cur + 1 < end && *cur == '.' && isDigit(cur[1])) {
    ++cur;
    while (cur < end && isDigit(*cur))
      ++cur;
  }
  if (cur < end && (*cur == 'e' || *cur == 'E')) {
    const char *p = cur + 1;
    if (p < end && (*p == '+' || *p == '-'))
      ++p;
    if (p < end && isDigit(*p)) {
      cur = p;
      while (cur < end && isDigit(*cur))
        ++cur;
    }
  }
  if (!json && cur < end && *cur >= 'a' && *cur <= 'z') {
    while (cur < end && ((*cur >= 'a' && *cur <= 'z') || isDigit(*cur)))
      ++cur;
  }
  if (cur < end && isNameChar(*cur))
    return error(start, "malformed number '" + StringRef(start, cur - start + 1) + "'");
  push(HxLexer::NUMBER, start);
  return true;
}

bool Lexer::lexIR() {
  while (true) {
    if (!skipSpaceAndComments())
      return false;
    if (cur >= end)
      return true;
    const char *start = cur;
    char c = *cur;
    switch (c) {
    case '(':
      ++cur;
      if (!open(start))
        return false;
      push(HxLexer::LPAREN, start);
      continue;
    case ')':
      ++cur;
      close();
      push(HxLexer::RPAREN, start);
      continue;
    case '{':
      ++cur;
      if (!open(start))
        return false;
      push(HxLexer::LBRACE, start);
      continue;
    case '}':
      ++cur;
      close();
      push(HxLexer::RBRACE, start);
      continue;
    case '[':
      ++cur;
      if (!open(start))
        return false;
      push(HxLexer::LBRACKET, start);
      continue;
    case ']':
      ++cur;
      close();
      push(HxLexer::RBRACKET, start);
      continue;
    case ',':
      ++cur;
      endArrows();
      push(HxLexer::COMMA, start);
      continue;
    case ';':
      ++cur;
      endArrows();
      push(HxLexer::SEMI, start);
      continue;
    case ':':
      ++cur;
      push(HxLexer::COLON, start);
      continue;
    case '=':
      ++cur;
      endArrows();
      push(HxLexer::EQUAL, start);
      continue;
    case '?':
      ++cur;
      push(HxLexer::QUESTION, start);
      continue;
    case '"':
      if (!lexString(start))
        return false;
      push(HxLexer::STRING, start);
      continue;
    case '#':
      if (StringRef(cur, end - cur).starts_with("#[metadata]")) {
        cur += 11;
        push(HxLexer::METADATA, start);
        inJSON = true;
        return lexJSON();
      }
      if (cur + 1 < end && cur[1] == '[') {
        cur += 2;
        if (!open(start))
          return false;
        push(HxLexer::ATTR_OPEN, start);
        continue;
      }
      return error(start, "unexpected '#' (expected '#[version = \"0.0.5\"]' or '#[metadata]')");
    case '-':
      if (cur + 1 < end && cur[1] == '>') {
        cur += 2;
        if (!arrow(start))
          return false;
        push(HxLexer::ARROW, start);
        continue;
      }
      if (!lexNumber(start, false))
        return false;
      continue;
    case '.':
      if (cur + 1 < end && isDigit(cur[1])) {
        ++cur;
        while (cur < end && isDigit(*cur))
          ++cur;
        push(HxLexer::PROJ, start);
        continue;
      }
      return error(start, "unexpected '.' (a tuple projection is written '%t.0')");
    case '%':
    case '@': {
      ++cur;
      if (cur < end && isNameStart(*cur)) {
        while (cur < end && isNameChar(*cur))
          ++cur;
      } else if (c == '%' && cur < end && isDigit(*cur)) {
        while (cur < end && isDigit(*cur))
          ++cur;
      } else {
        return error(start, Twine("expected a name after '") + StringRef(&c, 1) + "'");
      }
      push(c == '%' ? HxLexer::LOCAL : HxLexer::GLOBAL, start);
      continue;
    }
    default:
      break;
    }
    if (isDigit(c)) {
      if (!lexNumber(start, false))
        return false;
      continue;
    }
    if (isNameStart(c)) {
      while (true) {
        while (cur < end && isNameChar(*cur))
          ++cur;
        if (cur + 1 < end && *cur == '.' && isNameStart(cur[1])) {
          ++cur;
          continue;
        }
        break;
      }
      StringRef word(start, cur - start);
      if (isNonFiniteLiteral(word)) {
        push(HxLexer::NUMBER, start);
        continue;
      }
      size_t type = StringSwitch<size_t>(word)
                        .Case("def", HxLexer::DEF)
                        .Case("let", HxLexer::LET)
                        .Case("if", HxLexer::IF)
                        .Case("else", HxLexer::ELSE)
                        .Case("fn", HxLexer::FN)
                        .Case("free_var", HxLexer::FREE_VAR)
                        .Case("meta", HxLexer::META)
                        .Case("True", HxLexer::TRUE)
                        .Case("False", HxLexer::FALSE)
                        .Case("None", HxLexer::NONE)
                        .Default(HxLexer::IDENT);
      if (type == HxLexer::IDENT) {
        // Constructs of full Relay that hx does not take. An attribute
        // named like them (`type=...`) is fine.
        const char *p = cur;
        while (p < end && (*p == ' ' || *p == '\t'))
          ++p;
        bool isAttrName = p < end && *p == '=';
        if (!isAttrName && (word == "type" || word == "match"))
          return error(start, "not supported: algebraic data types ('" + word + "')");
        if (!isAttrName && (word == "ref" || word == "ref_read" || word == "ref_write"))
          return error(start, "not supported: references ('" + word + "')");
      }
      push(type, start);
      continue;
    }
    if (c == 0)
      return error(start, "unexpected NUL byte in input");
    if (static_cast<unsigned char>(c) >= 0x80) {
      const char *p = cur;
      if (!checkUTF8(start, p))
        return false;
      return error(start, "unexpected character '" + StringRef(start, p - start) + "'");
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return error(start, "unexpected control character (byte 0x" +
                              utohexstr(static_cast<unsigned char>(c)) + ")");
    return error(start, "unexpected character '" + StringRef(start, 1) + "'");
  }
}

bool Lexer::lexJSON() {
  while (true) {
    if (!skipSpaceAndComments())
      return false;
    if (cur >= end)
      return true;
    const char *start = cur;
    char c = *cur;
    switch (c) {
    case '{':
    case '[':
      ++cur;
      if (!open(start))
        return false;
      push(c == '{' ? HxLexer::LBRACE : HxLexer::LBRACKET, start);
      continue;
    case '}':
    case ']':
      ++cur;
      close();
      push(c == '}' ? HxLexer::RBRACE : HxLexer::RBRACKET, start);
      continue;
    case ',':
      ++cur;
      push(HxLexer::COMMA, start);
      continue;
    case ':':
      ++cur;
      push(HxLexer::COLON, start);
      continue;
    case '"':
      if (!lexString(start))
        return false;
      push(HxLexer::STRING, start);
      continue;
    default:
      break;
    }
    if (c == '-' || isDigit(c)) {
      if (!lexNumber(start, true))
        return false;
      continue;
    }
    if (isNameStart(c)) {
      while (cur < end && isNameChar(*cur))
        ++cur;
      StringRef word(start, cur - start);
      size_t type = StringSwitch<size_t>(word)
                        .Case("true", HxLexer::J_TRUE)
                        .Case("false", HxLexer::J_FALSE)
                        .Case("null", HxLexer::J_NULL)
                        .Default(0);
      if (!type)
        return error(start, "unexpected '" + word + "' in metadata (expected a JSON value)");
      push(type, start);
      continue;
    }
    if (c == 0)
      return error(start, "unexpected NUL byte in metadata");
    if (static_cast<unsigned char>(c) >= 0x80) {
      const char *p = cur;
      if (!checkUTF8(start, p))
        return false;
    }
    return error(start, "unexpected character in metadata (expected a JSON value)");
  }
}

bool Lexer::run() {
  toks.reserve(buf.size() / 3 + 16); // measured: 3.4 bytes per token on real modules
  inJSON = opts.jsonOnly;
  bool ok = opts.jsonOnly ? lexJSON() : lexIR();
  // EOF token at the end of the buffer.
  cur = end;
  push(antlr4::Token::EOF, end);
  return ok;
}

bool hx::lexBuffer(StringRef buffer, DiagEngine &diags, const LexerOptions &opts,
                   std::vector<HxToken> &tokens, std::vector<NodeComment> *nodeComments) {
  tokens.clear();
  if (nodeComments)
    nodeComments->clear();
  return Lexer(buffer, diags, opts, tokens, nodeComments).run();
}

// ---- HxTokenStream ----------------------------------------------------------

antlr4::Token *HxTokenStream::LT(ssize_t k) {
  if (k == 0)
    return nullptr;
  ssize_t i = static_cast<ssize_t>(pos) + (k > 0 ? k - 1 : k);
  if (i < 0)
    return nullptr;
  if (static_cast<size_t>(i) >= tokens.size())
    return &tokens.back();
  return &tokens[i];
}

void HxTokenStream::consume() {
  if (pos + 1 < tokens.size())
    ++pos;
}

std::string HxTokenStream::getText(const antlr4::misc::Interval &interval) {
  if (interval.a < 0 || interval.b < 0 || tokens.empty())
    return "";
  size_t a = static_cast<size_t>(interval.a), b = static_cast<size_t>(interval.b);
  b = std::min(b, tokens.size() - 1);
  std::string s;
  for (size_t i = a; i <= b; ++i)
    if (tokens[i].getType() != antlr4::Token::EOF)
      s += tokens[i].text().str();
  return s;
}

std::string HxTokenStream::getText() {
  return getText(antlr4::misc::Interval(0ul, tokens.size() - 1));
}

std::string HxTokenStream::getText(antlr4::RuleContext *ctx) {
  return getText(ctx->getSourceInterval());
}

std::string HxTokenStream::getText(antlr4::Token *start, antlr4::Token *stop) {
  if (!start || !stop)
    return "";
  return getText(antlr4::misc::Interval(start->getTokenIndex(), stop->getTokenIndex()));
}
