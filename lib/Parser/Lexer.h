//===- Lexer.h - The hand-written lexer and the token stream ----*- C++ -*-===//
//
// The lexer turns a whole buffer into a vector of HxTokens (the token types of
// grammar/HxLexer.g4) in one tight loop, checking on the way everything the
// ANTLR parser must never see: invalid UTF-8, NUL bytes, unterminated strings
// and comments, and nesting deeper than the parser's stack allows.
//
// Comments are not tokens, but a line comment that names a framework node
// (`// onnx:Conv /conv/Conv`, hx/Support/SourceNames.h) is kept on the side
// with its position, for the converter to put on the line's expressions.
//
// HxTokenStream serves those tokens to the ANTLR parser without allocating:
// the parser gets pointers into the vector.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_PARSER_LEXER_H
#define HX_LIB_PARSER_LEXER_H

#include "antlr4-runtime.h"
#include "hx/Support/Diagnostics.h"
#include "hx/Support/SourceNames.h"
#include "llvm/ADT/StringRef.h"
#include <vector>

namespace hx {

class HxToken final : public antlr4::Token {
public:
  HxToken(size_t type, const char *base, uint32_t start, uint32_t len, uint32_t line, uint32_t col,
          uint32_t index)
      : base(base), type(type), start(start), len(len), line(line), col(col), index(index) {}

  llvm::StringRef text() const { return llvm::StringRef(base + start, len); }
  const char *ptr() const { return base + start; }

  std::string getText() const override;
  size_t getType() const override { return type; }
  size_t getLine() const override { return line; }
  size_t getCharPositionInLine() const override { return col; }
  size_t getChannel() const override { return DEFAULT_CHANNEL; }
  size_t getTokenIndex() const override { return index; }
  size_t getStartIndex() const override { return start; }
  size_t getStopIndex() const override { return start + len - 1; }
  antlr4::TokenSource *getTokenSource() const override { return nullptr; }
  antlr4::CharStream *getInputStream() const override { return nullptr; }
  std::string toString() const override { return getText(); }

private:
  const char *base;
  size_t type;
  uint32_t start, len, line, col, index;
};

struct LexerOptions {
  /// Deepest nesting of (), [] and {} accepted.
  unsigned maxNesting = 256;
  /// Lex JSON only (a metadata table given on the command line).
  bool jsonOnly = false;
};

/// A line comment naming a framework node: it applies to the expressions
/// that start on its line before it, from `lineStart` up to `at`.
struct NodeComment {
  uint32_t lineStart; ///< offset of the line's first byte
  uint32_t at;        ///< offset of the comment's `//`
  SourceNodeRef node; ///< equal comments on consecutive lines share one
};

/// Lexes `buffer` (NUL-terminated, as SourceMgr buffers are). Returns false
/// after reporting the first lexical error. The token vector ends with EOF.
/// The node comments of the IR part go to `nodeComments`, in buffer order,
/// when it is given.
bool lexBuffer(llvm::StringRef buffer, DiagEngine &diags, const LexerOptions &opts,
               std::vector<HxToken> &tokens, std::vector<NodeComment> *nodeComments = nullptr);

/// A TokenStream over a vector of HxTokens.
class HxTokenStream final : public antlr4::TokenStream {
public:
  HxTokenStream(std::vector<HxToken> &tokens, std::string sourceName)
      : tokens(tokens), sourceName(std::move(sourceName)) {}

  antlr4::Token *LT(ssize_t k) override;
  antlr4::Token *get(size_t i) const override { return &tokens[i]; }
  antlr4::TokenSource *getTokenSource() const override { return nullptr; }
  std::string getText(const antlr4::misc::Interval &interval) override;
  std::string getText() override;
  std::string getText(antlr4::RuleContext *ctx) override;
  std::string getText(antlr4::Token *start, antlr4::Token *stop) override;

  void consume() override;
  size_t LA(ssize_t i) override { return LT(i)->getType(); }
  ssize_t mark() override { return 0; }
  void release(ssize_t) override {}
  size_t index() override { return pos; }
  void seek(size_t i) override { pos = std::min(i, tokens.size() - 1); }
  size_t size() override { return tokens.size(); }
  std::string getSourceName() const override { return sourceName; }

  HxToken &current() { return tokens[pos]; }
  HxToken &peek(size_t k) { return tokens[std::min(pos + k, tokens.size() - 1)]; }

private:
  std::vector<HxToken> &tokens;
  std::string sourceName;
  size_t pos = 0;
};

} // namespace hx

#endif
