//===- ParseTreeConverter.h - ANTLR parse trees to IR ------*- C++ -*-===//
//
// One of the two places that see ANTLR (the other is the error listener in
// Parser.cpp). The driver hands over one top-level piece at a time: the
// metadata section, a def head, a free_var, a body statement, a def's result.
//
// Scoping: `%N` graph bindings and `%name` variables live in lexical scopes
// (the def body, each if branch, each fn literal, each parenthesised block).
// A name may shadow one of an enclosing scope but not be redefined in its own
// scope (a `let` may rebind, as in Relay).
//
// Framework nodes: every expression starting on a line that ends with a
// node comment (`// onnx:Conv /conv/Conv`, collected by the lexer) gets
// that node in its Loc, as the printer wrote it.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_PARSER_PARSETREECONVERTER_H
#define HX_LIB_PARSER_PARSETREECONVERTER_H

#include "HxParser.h"
#include "Lexer.h"
#include "hx/IR/Module.h"
#include "hx/Support/Diagnostics.h"
#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace hx {

/// Where a constant table's `npy` names are looked up before the disk
/// (ParserOptions::npyFiles, heldConstants, npyFilesOnly).
struct NpySources {
  const llvm::StringMap<HostTensor> *files = nullptr;
  const llvm::StringMap<std::shared_ptr<const TensorData>> *constants = nullptr;
  /// Instead of the disk.
  bool only = false;
};

class ParseTreeConverter {
public:
  /// `baseDir`: the directory `.npy` paths of the constant table are
  /// relative to (the .ir file's).
  ParseTreeConverter(Module &m, DiagEngine &diags, std::string baseDir = ".")
      : mod(m), diags(diags), baseDir(std::move(baseDir)) {}

  /// A new expression node, counted in the module's exprCountHint.
  template <typename T, typename... Args> Ref<T> node(Args &&...args) {
    ++mod.exprCountHint;
    Ref<T> e = make<T>(std::forward<Args>(args)...);
    if (!nodeComments.empty())
      attachSourceNode(*e);
    return e;
  }

  /// The node comments of `buffer` (the lexer's), for node() to attach.
  void setNodeComments(llvm::StringRef buffer, std::vector<NodeComment> comments) {
    commentBuffer = buffer;
    nodeComments = std::move(comments);
  }

  /// `.npy` files and constants held in memory (ParserOptions).
  NpySources held;

  /// Global names defined anywhere in the file (so calls may precede defs).
  llvm::StringMap<llvm::SMLoc> definedGlobals;

  bool checkHeader(HxParser::HeaderContext *ctx);
  /// The `#[metadata]` section, or the command-line table (`fromCommandLine`:
  /// a bare device array is accepted and its entries replace the file's).
  bool buildMetadata(HxParser::JsonContext *ctx, bool fromCommandLine);

  bool beginDef(HxParser::DefnHeadContext *ctx);
  bool addFreeVar(HxParser::FreeVarContext *ctx);
  bool addStmt(HxParser::StmtContext *ctx);
  bool finishDef(HxParser::ExprContext *result);

private:
  struct Scope {
    llvm::StringMap<ExprRef> names;
    llvm::StringSet<> graphNames; // names bound by `%N = ...` here
    /// `%N` graph bindings numbered densely from 0 (the common case: a hash
    /// map of a function's 100,000s of bindings no longer fits in cache);
    /// sparse numbers go to `names`.
    std::vector<ExprRef> numbered;
    std::vector<std::pair<Ref<Var>, ExprRef>> lets;
    std::vector<Ref<Var>> freeVars;
  };

  // Scopes and bodies.
  ExprRef lookup(HxToken *tok);
  bool define(HxToken *tok, ExprRef e, bool isGraphBinding);
  bool checkVarName(HxToken *tok);
  bool freeVarInto(HxParser::FreeVarContext *ctx);
  bool stmtInto(HxParser::StmtContext *ctx);
  ExprRef closeScope(ExprRef result);
  ExprRef buildBody(HxParser::BodyContext *ctx);

  // Expressions.
  ExprRef buildExpr(HxParser::ExprContext *ctx);
  ExprRef buildPrimary(HxParser::PrimaryContext *ctx);
  ExprRef buildCall(ExprRef callee, HxParser::CallSuffixContext *ctx, llvm::SMLoc loc);
  ExprRef buildFn(HxParser::FnExprContext *ctx);
  bool finishOpCall(Call &call);
  bool convertLegacyDeviceAttrs(Call &call);

  // Parameters, types, attributes, literals.
  bool buildParams(HxParser::ParamListContext *ctx, Function &fn, std::vector<Ref<Var>> &params);
  TypeRef buildType(HxParser::TypeContext *ctx);
  bool buildAttrValue(HxParser::AttrValueContext *ctx, AttrValue &out);
  bool buildMetaRef(HxParser::MetaRefContext *ctx, AttrValue &out);
  ExprRef buildMetaConstant(HxParser::MetaRefContext *ctx);
  bool buildAttr(HxToken *name, HxParser::AttrValueContext *value, Attrs &attrs);
  ExprRef buildNumber(HxToken *tok);

  bool error(antlr4::Token *at, const llvm::Twine &msg);
  void attachSourceNode(Expr &e);

  Module &mod;
  DiagEngine &diags;
  std::string baseDir;
  /// `meta[relay.Constant][i]`, from the metadata section.
  std::vector<std::shared_ptr<const TensorData>> constants;
  std::vector<Scope> scopes;
  // The def being built.
  std::string defName;
  llvm::SMLoc defLoc;
  Ref<Function> defFn;
  llvm::StringRef commentBuffer;
  std::vector<NodeComment> nodeComments;
  /// The comment the last lookup found (lookups mostly move forward).
  size_t commentCursor = 0;
};

/// The location of a token.
inline llvm::SMLoc locOf(antlr4::Token *t) {
  return llvm::SMLoc::getFromPointer(static_cast<HxToken *>(t)->ptr());
}
inline llvm::SMRange rangeOf(antlr4::Token *t) {
  auto *h = static_cast<HxToken *>(t);
  return llvm::SMRange(llvm::SMLoc::getFromPointer(h->ptr()),
                       llvm::SMLoc::getFromPointer(h->ptr() + h->text().size()));
}
inline HxToken *tok(antlr4::tree::TerminalNode *n) {
  return static_cast<HxToken *>(n->getSymbol());
}

/// Decodes a string literal (quotes and JSON escapes) to UTF-8.
std::string unescapeString(llvm::StringRef literal);

} // namespace hx

#endif
