//===- Parser.cpp - Driving the ANTLR parser one piece at a time ---------===//
//
// 1. Lex the whole buffer with the hand-written lexer (Lexer.cpp).
// 2. Parse the `#[metadata]` section first (rule `json`), so that
//    meta[VirtualDevice][i] references resolve as the defs are built; then the
//    command-line table, which wins.
// 3. Walk `module` by hand: `header`, then for each def `defnHead`, its
//    `freeVar`s and `stmt`s one at a time, then its result `expr` and `}`.
//    After each piece the parse tree is handed to the ParseTreeConverter and freed, so
//    tree memory stays constant however long a function is.
//
// The grammar is SLL (every decision is LL(1) or LL(2)), so SLL prediction
// alone gives LL's answers and no second, full-LL pass is needed. Parsing stops
// at the first error: the error strategy never recovers, and the listener
// turns ANTLR's report into one located diagnostic.
//
//===----------------------------------------------------------------------===//
#include "hx/Parser/Parser.h"
#include "HxParser.h"
#include "Lexer.h"
#include "ParseTreeConverter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/thread.h"
#include <exception>

using namespace hx;
using namespace llvm;
using P = HxParser;

namespace {

/// Reports the first syntax error, then stops the parse.
class FirstErrorStrategy : public antlr4::DefaultErrorStrategy {
public:
  void recover(antlr4::Parser *, std::exception_ptr) override {
    throw antlr4::ParseCancellationException("syntax error");
  }
  antlr4::Token *recoverInline(antlr4::Parser *p) override {
    throw antlr4::InputMismatchException(p);
  }
  void sync(antlr4::Parser *) override {}
};

std::string describeToken(const antlr4::dfa::Vocabulary &vocab, size_t type) {
  switch (type) {
  case antlr4::Token::EOF:
    return "end of input";
  case HxParser::LOCAL:
    return "a local name (%x)";
  case HxParser::GLOBAL:
    return "a global name (@f)";
  case HxParser::IDENT:
    return "an identifier";
  case HxParser::NUMBER:
    return "a number";
  case HxParser::STRING:
    return "a string";
  case HxParser::PROJ:
    return "a projection (.0)";
  case HxParser::METADATA:
    return "'#[metadata]'";
  // Only the header starts with `#[`.
  case HxParser::ATTR_OPEN:
    return "the header '#[version = \"0.0.5\"]'";
  // Also spelled by the JSON mode's rules, so ANTLR gives them no literal name.
  case HxParser::LBRACE:
    return "'{'";
  case HxParser::RBRACE:
    return "'}'";
  case HxParser::LBRACKET:
    return "'['";
  case HxParser::RBRACKET:
    return "']'";
  case HxParser::COMMA:
    return "','";
  case HxParser::COLON:
    return "':'";
  default:
    break;
  }
  std::string lit = vocab.getLiteralName(type);
  return lit.empty() ? vocab.getDisplayName(type) : lit;
}

/// Turns ANTLR's syntax errors into diagnostics.
class DiagnosticErrorListener : public antlr4::BaseErrorListener {
public:
  explicit DiagnosticErrorListener(DiagEngine &diags) : diags(diags) {}

  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending, size_t, size_t,
                   const std::string &, std::exception_ptr e) override {
    if (reported)
      return;
    reported = true;
    auto *parser = static_cast<antlr4::Parser *>(recognizer);
    const auto &vocab = parser->getVocabulary();
    antlr4::misc::IntervalSet expected;
    try {
      if (e)
        std::rethrow_exception(e);
    } catch (antlr4::RecognitionException &re) {
      expected = re.getExpectedTokens();
    } catch (...) {
    }
    if (expected.isEmpty())
      expected = parser->getExpectedTokens();

    auto *tok = static_cast<HxToken *>(offending);
    std::string found = tok->getType() == antlr4::Token::EOF ? std::string("end of input")
                                                             : ("'" + tok->text() + "'").str();
    std::vector<std::string> names;
    for (size_t t : expected.toList())
      names.push_back(describeToken(vocab, t));
    std::string msg;
    if (names.empty() || names.size() > 6) {
      msg = "unexpected " + found;
    } else {
      msg = "expected ";
      for (size_t i = 0; i < names.size(); ++i) {
        if (i)
          msg += i + 1 == names.size() ? " or " : ", ";
        msg += names[i];
      }
      msg += ", found " + found;
    }
    if (tok->getType() == antlr4::Token::EOF)
      msg += " (is the input truncated?)";
    diags.error(locOf(tok), msg).range(rangeOf(tok));
  }

  bool reported = false;

private:
  DiagEngine &diags;
};

/// Where the constant table's `.npy` paths start: the option, else the
/// directory of the file being parsed (the working directory for stdin).
std::string baseDirectory(DiagEngine &diags, unsigned bufferId, const ParserOptions &opts) {
  if (opts.baseDirectory)
    return *opts.baseDirectory;
  StringRef name = diags.getSourceMgr().getMemoryBuffer(bufferId)->getBufferIdentifier();
  StringRef dir = sys::path::parent_path(name);
  if (name == "-" || name.starts_with("<") || dir.empty())
    return ".";
  return dir.str();
}

class ModuleParser {
public:
  ModuleParser(unsigned bufferId, DiagEngine &diags, const ParserOptions &opts)
      : bufferId(bufferId), diags(diags), opts(opts),
        converter(*mod, diags, baseDirectory(diags, bufferId, opts)) {
    converter.held = {opts.npyFiles, opts.heldConstants, opts.npyFilesOnly};
  }

  std::unique_ptr<Module> run();

private:
  /// Runs one grammar rule; null after a syntax error.
  template <typename Rule> auto parse(HxParser &p, Rule rule) -> decltype((p.*rule)()) {
    try {
      return (p.*rule)();
    } catch (antlr4::ParseCancellationException &) {
      return nullptr;
    } catch (antlr4::RecognitionException &) {
      return nullptr;
    }
  }
  bool parseCommandLineTable();
  bool expectRBrace(HxTokenStream &stream);

  unsigned bufferId;
  DiagEngine &diags;
  const ParserOptions &opts;
  std::unique_ptr<Module> mod = std::make_unique<Module>();
  ParseTreeConverter converter;
};

/// An ANTLR parser over an HxTokenStream, set up for hx.
struct ParserSetup {
  ParserSetup(std::vector<HxToken> &tokens, StringRef name, DiagEngine &diags)
      : stream(tokens, name.str()), parser(&stream), listener(diags) {
    parser.removeErrorListeners();
    parser.addErrorListener(&listener);
    parser.setErrorHandler(std::make_shared<FirstErrorStrategy>());
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::SLL);
  }
  HxTokenStream stream;
  HxParser parser;
  DiagnosticErrorListener listener;
};

bool ModuleParser::expectRBrace(HxTokenStream &stream) {
  HxToken &t = stream.current();
  if (t.getType() == P::RBRACE) {
    stream.consume();
    return true;
  }
  std::string found = t.getType() == antlr4::Token::EOF ? "end of input (is the input truncated?)"
                                                        : ("'" + t.text() + "'").str();
  diags.error(locOf(&t), "expected '}' at the end of the def body, found " + found)
      .range(rangeOf(&t));
  return false;
}

bool ModuleParser::parseCommandLineTable() {
  SourceMgr &sm = diags.getSourceMgr();
  unsigned id = sm.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(*opts.virtualDevices, "<command line --virtual-devices>"),
      SMLoc());
  // The table is lexed in the metadata section's JSON mode, in its own
  // buffer, so its errors point into the command-line text.
  std::vector<HxToken> tokens;
  LexerOptions lo;
  lo.maxNesting = std::min(opts.maxNesting, kMaxNestingLimit);
  lo.jsonOnly = true;
  if (!lexBuffer(sm.getMemoryBuffer(id)->getBuffer(), diags, lo, tokens))
    return false;
  ParserSetup ps(tokens, "<command line>", diags);
  P::JsonContext *j = parse(ps.parser, &P::json);
  if (!j)
    return false;
  if (ps.stream.current().getType() != antlr4::Token::EOF) {
    diags.error(locOf(&ps.stream.current()), "unexpected text after the JSON value");
    return false;
  }
  return converter.buildMetadata(j, /*fromCommandLine=*/true);
}

std::unique_ptr<Module> ModuleParser::run() {
  SourceMgr &sm = diags.getSourceMgr();
  const MemoryBuffer *mb = sm.getMemoryBuffer(bufferId);
  std::vector<HxToken> tokens;
  std::vector<NodeComment> nodeComments;
  LexerOptions lo;
  lo.maxNesting = std::min(opts.maxNesting, kMaxNestingLimit);
  if (!lexBuffer(mb->getBuffer(), diags, lo, tokens, &nodeComments))
    return nullptr;
  converter.setNodeComments(mb->getBuffer(), std::move(nodeComments));

  ParserSetup ps(tokens, mb->getBufferIdentifier(), diags);
  HxTokenStream &stream = ps.stream;
  HxParser &parser = ps.parser;

  // Pre-scan: where the metadata starts, and which globals are defined.
  size_t metaIndex = tokens.size() - 1;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    size_t t = tokens[i].getType();
    if (t == P::METADATA) {
      metaIndex = i;
      break;
    }
    if (t == P::DEF && tokens[i + 1].getType() == P::GLOBAL)
      converter.definedGlobals.try_emplace(tokens[i + 1].text().drop_front(),
                                           locOf(&tokens[i + 1]));
  }
  if (metaIndex + 1 < tokens.size()) {
    stream.seek(metaIndex);
    P::MetadataContext *m = parse(parser, &P::metadata);
    if (!m || !converter.buildMetadata(m->json(), false))
      return nullptr;
    if (stream.current().getType() != antlr4::Token::EOF) {
      HxToken &t = stream.current();
      diags.error(locOf(&t), "unexpected '" + t.text() + "' after the metadata object")
          .range(rangeOf(&t));
      return nullptr;
    }
    parser.getTreeTracker().reset();
  }
  if (opts.virtualDevices && !parseCommandLineTable())
    return nullptr;

  stream.seek(0);
  P::HeaderContext *h = parse(parser, &P::header);
  if (!h || !converter.checkHeader(h))
    return nullptr;
  parser.getTreeTracker().reset();

  while (stream.current().getType() == P::DEF) {
    P::DefnHeadContext *head = parse(parser, &P::defnHead);
    if (!head || !converter.beginDef(head))
      return nullptr;
    parser.getTreeTracker().reset();
    while (stream.current().getType() == P::FREE_VAR) {
      P::FreeVarContext *fv = parse(parser, &P::freeVar);
      if (!fv || !converter.addFreeVar(fv))
        return nullptr;
      parser.getTreeTracker().reset();
    }
    while (stream.current().getType() == P::LET ||
           (stream.current().getType() == P::LOCAL && stream.peek(1).getType() == P::EQUAL)) {
      P::StmtContext *st = parse(parser, &P::stmt);
      if (!st || !converter.addStmt(st))
        return nullptr;
      parser.getTreeTracker().reset();
    }
    P::ExprContext *result = parse(parser, &P::expr);
    if (!result || !expectRBrace(stream) || !converter.finishDef(result))
      return nullptr;
    parser.getTreeTracker().reset();
  }
  HxToken &t = stream.current();
  if (t.getType() != antlr4::Token::EOF && t.getType() != P::METADATA) {
    diags.error(locOf(&t), "expected 'def' or '#[metadata]', found '" + t.text() + "'")
        .range(rangeOf(&t));
    return nullptr;
  }
  return std::move(mod);
}

} // namespace

std::unique_ptr<Module> hx::parseModule(unsigned bufferId, DiagEngine &diags,
                                        const ParserOptions &opts) {
  auto parse = [&] {
    try {
      return ModuleParser(bufferId, diags, opts).run();
    } catch (std::exception &e) {
      // ANTLR runtime exceptions are bugs in hx, not user errors.
      diags.error(SMLoc(), Twine("internal parser error: ") + e.what());
      throw;
    }
  };
  // ANTLR's rules recurse once per bracket level: the default limit (256)
  // fits any thread's stack, a raised one (up to kMaxNestingLimit) gets a
  // thread with a stack of its own, so 4096 levels parse whatever the
  // caller's stack (ulimit -s, a sanitizer's larger frames).
  if (opts.maxNesting <= 256)
    return parse();
  std::unique_ptr<Module> result;
  std::exception_ptr error;
  llvm::thread worker(std::optional<unsigned>(kDeepParseStackBytes), [&] {
    try {
      result = parse();
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error)
    std::rethrow_exception(error);
  return result;
}
