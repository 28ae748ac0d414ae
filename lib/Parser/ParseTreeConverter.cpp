//===- ParseTreeConverter.cpp - ANTLR parse trees to IR -----------------===//
//
// Types, literals and attribute values are built in ParseTreeConverterValues.cpp.
//
// Recursion here follows the nesting of the *syntax* (brackets, if branches,
// fn literals), which the lexer bounds (LexerOptions::maxNesting). Sequences
// (body statements, let chains, postfix chains) are built with loops, so a
// million-statement body or let chain never deepens the stack.
//
//===----------------------------------------------------------------------===//
#include "ParseTreeConverter.h"
#include "hx/IR/TargetKind.h"
#include "hx/Ops/OpRegistry.h"
#include "llvm/Support/ConvertUTF.h"
#include <algorithm>

using namespace hx;
using namespace llvm;
using P = HxParser;

bool ParseTreeConverter::error(antlr4::Token *at, const Twine &msg) {
  diags.error(locOf(at), msg).range(rangeOf(at));
  return false;
}

void ParseTreeConverter::attachSourceNode(Expr &e) {
  if (!e.loc.isValid() || e.loc.getNode())
    return;
  const char *p = e.loc.getPointer();
  if (p < commentBuffer.begin() || p >= commentBuffer.end())
    return;
  auto at = uint32_t(p - commentBuffer.begin());
  // The first comment after `at`; it names the node when it is on `at`'s
  // line. Expressions come mostly in text order: try the last one's first.
  auto after = [&](size_t i) { return nodeComments[i].at > at; };
  size_t i = commentCursor;
  if (!(after(i) && (i == 0 || !after(i - 1))))
    i = std::upper_bound(nodeComments.begin(), nodeComments.end(), at,
                         [](uint32_t v, const NodeComment &c) { return v < c.at; }) -
        nodeComments.begin();
  if (i == nodeComments.size())
    return;
  commentCursor = i;
  if (nodeComments[i].lineStart <= at)
    e.loc.node = nodeComments[i].node;
}

std::string hx::unescapeString(StringRef lit) {
  StringRef s = lit.drop_front().drop_back();
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 >= s.size()) {
      out += c;
      continue;
    }
    char e = s[++i];
    switch (e) {
    case 'n':
      out += '\n';
      break;
    case 't':
      out += '\t';
      break;
    case 'r':
      out += '\r';
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'u': {
      unsigned cp = 0;
      s.substr(i + 1, 4).getAsInteger(16, cp);
      i += 4;
      // JSON spells a character beyond U+FFFF as a UTF-16 surrogate pair; a
      // lone surrogate is no character and becomes U+FFFD.
      unsigned lo = 0;
      if (cp >= 0xD800 && cp < 0xDC00 && s.substr(i + 1, 2) == "\\u" &&
          !s.substr(i + 3, 4).getAsInteger(16, lo) && lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        i += 6;
      }
      if (cp >= 0xD800 && cp < 0xE000)
        cp = 0xFFFD;
      char buf[8];
      char *p = buf;
      if (ConvertCodePointToUTF8(cp, p))
        out.append(buf, p);
      break;
    }
    default:
      out += e;
      break; // \" \\ \/
    }
  }
  return out;
}

// ---- scopes -----------------------------------------------------------------

/// The number of a `%N` name.
static bool numberOf(StringRef name, size_t &n) {
  return !name.empty() && isdigit(static_cast<unsigned char>(name[0])) && !name.getAsInteger(10, n);
}

ExprRef ParseTreeConverter::lookup(HxToken *t) {
  StringRef name = t->text().drop_front();
  size_t n = 0;
  bool numeric = numberOf(name, n);
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    if (numeric && n < it->numbered.size() && it->numbered[n])
      return it->numbered[n];
    auto found = it->names.find(name);
    if (found != it->names.end())
      return found->second;
  }
  error(t, "use of undefined name '" + t->text() + "'");
  return nullptr;
}

bool ParseTreeConverter::define(HxToken *t, ExprRef e, bool isGraphBinding) {
  StringRef name = t->text().drop_front();
  Scope &s = scopes.back();
  size_t n = 0;
  if (isGraphBinding && numberOf(name, n) && n <= s.numbered.size() * 2 + 1024 &&
      !s.names.count(name)) {
    if (n >= s.numbered.size())
      s.numbered.resize(n + 1);
    if (s.numbered[n]) {
      diags.error(locOf(t), "redefinition of '" + t->text() + "'").range(rangeOf(t));
      return false;
    }
    s.numbered[n] = std::move(e);
    return true;
  }
  if (isGraphBinding && numberOf(name, n) && n < s.numbered.size() && s.numbered[n]) {
    diags.error(locOf(t), "redefinition of '" + t->text() + "'").range(rangeOf(t));
    return false;
  }
  auto it = s.names.find(name);
  if (it != s.names.end() && (isGraphBinding || s.graphNames.count(name))) {
    diags.error(locOf(t), "redefinition of '" + t->text() + "'").range(rangeOf(t));
    return false;
  }
  s.names[name] = std::move(e);
  if (isGraphBinding)
    s.graphNames.insert(name);
  return true;
}

// `%0` names a graph binding, never a variable: the printer numbers graph
// bindings `%0, %1, ...`, so a variable of that name would be captured by
// them when the output is read back (as in TVM, whose grammar keeps the two
// apart).
bool ParseTreeConverter::checkVarName(HxToken *t) {
  if (!isdigit(static_cast<unsigned char>(t->text()[1])))
    return true;
  return error(t, "'" + t->text() + "' cannot name a variable: numbers name graph bindings ('" +
                      t->text() + " = ...;')");
}

bool ParseTreeConverter::freeVarInto(P::FreeVarContext *ctx) {
  TypeRef ty = buildType(ctx->type());
  if (!ty)
    return false;
  HxToken *name = tok(ctx->LOCAL());
  if (!checkVarName(name))
    return false;
  auto v = node<Var>(name->text().drop_front().str(), ty, locOf(name));
  scopes.back().freeVars.push_back(v);
  return define(name, v, false);
}

bool ParseTreeConverter::stmtInto(P::StmtContext *ctx) {
  if (auto *g = dynamic_cast<P::GraphBindingContext *>(ctx)) {
    ExprRef value = buildExpr(g->expr());
    if (!value)
      return false;
    return define(tok(g->LOCAL()), value, true);
  }
  auto *l = static_cast<P::LetBindingContext *>(ctx);
  if (!checkVarName(tok(l->LOCAL())))
    return false;
  TypeRef ty;
  if (l->type() && !(ty = buildType(l->type())))
    return false;
  HxToken *name = tok(l->LOCAL());
  auto v = node<Var>(name->text().drop_front().str(), ty, locOf(name));
  // A let-bound fn literal may call itself (`let %loop = fn (...) { %loop(...) }`),
  // as in Relay: its variable is in scope in its own value.
  bool recursive =
      dynamic_cast<P::FnExprContext *>(l->expr()->primary()) && l->expr()->postfix().empty();
  if (recursive) {
    scopes.emplace_back();
    scopes.back().names[v->name] = v;
  }
  ExprRef value = buildExpr(l->expr());
  if (recursive)
    scopes.pop_back();
  if (!value)
    return false;
  scopes.back().lets.emplace_back(v, value);
  return define(name, v, false);
}

// Folds the scope's pending lets around `result`, innermost last, and pops it.
ExprRef ParseTreeConverter::closeScope(ExprRef result) {
  Scope &s = scopes.back();
  for (auto it = s.lets.rbegin(); it != s.lets.rend(); ++it) {
    SMLoc loc = it->first->loc;
    result = node<Let>(it->first, it->second, result, loc);
  }
  scopes.pop_back();
  return result;
}

ExprRef ParseTreeConverter::buildBody(P::BodyContext *ctx) {
  scopes.emplace_back();
  for (auto *fv : ctx->freeVar())
    if (!freeVarInto(fv))
      return nullptr;
  for (auto *st : ctx->stmt())
    if (!stmtInto(st))
      return nullptr;
  ExprRef result = buildExpr(ctx->expr());
  if (!result)
    return nullptr;
  if (!scopes.back().freeVars.empty())
    return error(ctx->freeVar(0)->getStart(),
                 "free_var is only allowed at the start of a def body"),
           nullptr;
  return closeScope(result);
}

// ---- defs -------------------------------------------------------------------

bool ParseTreeConverter::beginDef(P::DefnHeadContext *ctx) {
  HxToken *g = tok(ctx->GLOBAL());
  defName = g->text().drop_front().str();
  defLoc = locOf(g);
  if (const Module::Def *prev = mod.lookupDef(defName)) {
    diags.error(defLoc, "redefinition of '@" + defName + "'")
        .range(rangeOf(g))
        .note(prev->fn->loc, "previous definition is here");
    return false;
  }
  defFn = node<Function>(std::vector<Ref<Var>>(), nullptr, nullptr, locOf(ctx->DEF()->getSymbol()));
  scopes.clear();
  scopes.emplace_back(); // parameters
  if (ctx->paramList() && !buildParams(ctx->paramList(), *defFn, defFn->params))
    return false;
  if (ctx->type() && !(defFn->retType = buildType(ctx->type())))
    return false;
  scopes.emplace_back(); // body
  return true;
}

bool ParseTreeConverter::addFreeVar(P::FreeVarContext *ctx) { return freeVarInto(ctx); }
bool ParseTreeConverter::addStmt(P::StmtContext *ctx) { return stmtInto(ctx); }

bool ParseTreeConverter::finishDef(P::ExprContext *resultCtx) {
  ExprRef result = buildExpr(resultCtx);
  if (!result)
    return false;
  defFn->freeVars = std::move(scopes.back().freeVars);
  defFn->body = closeScope(result);
  scopes.clear();
  mod.addDef(defName, defFn, defLoc);
  defFn = nullptr;
  return true;
}

bool ParseTreeConverter::buildParams(P::ParamListContext *ctx, Function &fn,
                                     std::vector<Ref<Var>> &params) {
  for (auto *item : ctx->paramItem()) {
    if (auto *fa = dynamic_cast<P::FuncAttrContext *>(item)) {
      HxToken *name = tok(fa->IDENT());
      if (name->text() == "virtual_device") {
        AttrValue v;
        if (!buildAttrValue(fa->attrValue(), v))
          return false;
        if (v.kind != AttrValue::Kind::Device)
          return error(name, "virtual_device must be meta[VirtualDevice][i]");
        fn.resultDevice = static_cast<DeviceIndex>(v.intValue);
        continue;
      }
      if (!buildAttr(name, fa->attrValue(), fn.attrs))
        return false;
      continue;
    }
    auto *pd = static_cast<P::ParamDeclContext *>(item);
    HxToken *name = tok(pd->LOCAL());
    if (!checkVarName(name))
      return false;
    TypeRef ty;
    if (pd->type() && !(ty = buildType(pd->type())))
      return false;
    auto v = node<Var>(name->text().drop_front().str(), ty, locOf(name));
    if (auto *al = pd->attrList()) {
      for (auto *a : al->attr()) {
        HxToken *an = tok(a->IDENT());
        if (an->text() != "virtual_device")
          return error(an, "unknown parameter attribute '" + an->text() +
                               "' (expected 'virtual_device')");
        AttrValue dv;
        if (!buildAttrValue(a->attrValue(), dv))
          return false;
        if (dv.kind != AttrValue::Kind::Device)
          return error(an, "virtual_device must be meta[VirtualDevice][i]");
        v->device = static_cast<DeviceIndex>(dv.intValue);
      }
    }
    for (const Ref<Var> &p : params)
      if (p->name == v->name) {
        diags.error(locOf(name), "duplicate parameter '" + name->text() + "'")
            .range(rangeOf(name))
            .note(p->loc, "previous parameter is here");
        return false;
      }
    params.push_back(v);
    if (!define(name, v, false))
      return false;
  }
  return true;
}

// ---- expressions ------------------------------------------------------------

ExprRef ParseTreeConverter::buildExpr(P::ExprContext *ctx) {
  ExprRef cur = buildPrimary(ctx->primary());
  if (!cur)
    return nullptr;
  SMLoc start = locOf(ctx->getStart());
  for (auto *pf : ctx->postfix()) {
    if (auto *proj = dynamic_cast<P::ProjSuffixContext *>(pf)) {
      HxToken *t = tok(proj->PROJ());
      unsigned idx;
      if (t->text().drop_front().getAsInteger(10, idx))
        return error(t, "tuple index '" + t->text().drop_front() + "' is out of range"), nullptr;
      cur = node<TupleGetItem>(cur, idx, locOf(t));
      continue;
    }
    cur = buildCall(cur, static_cast<P::CallSuffixContext *>(pf), start);
    if (!cur)
      return nullptr;
  }
  return cur;
}

ExprRef ParseTreeConverter::buildCall(ExprRef callee, P::CallSuffixContext *ctx, SMLoc loc) {
  llvm::SmallVector<ExprRef, 2> args;
  Attrs attrs;
  if (auto *al = ctx->argList()) {
    for (auto *a : al->arg()) {
      if (auto *kw = dynamic_cast<P::KeywordArgContext *>(a)) {
        if (!buildAttr(tok(kw->IDENT()), kw->attrValue(), attrs))
          return nullptr;
        continue;
      }
      auto *pos = static_cast<P::PositionalArgContext *>(a);
      if (!attrs.empty())
        return error(pos->getStart(), "positional argument after attributes"), nullptr;
      ExprRef e = buildExpr(pos->expr());
      if (!e)
        return nullptr;
      args.push_back(std::move(e));
    }
  }
  auto call = node<Call>(callee, std::move(args), std::move(attrs), loc);
  if (isa<Op>(callee.get()) && !finishOpCall(*call))
    return nullptr;
  if (!isa<Op>(callee.get()) && !call->attrs.empty())
    return error(ctx->getStart(), "attributes are only allowed on operator calls"), nullptr;
  return call;
}

// Resolves legacy device forms and checks the call against the registry.
bool ParseTreeConverter::finishOpCall(Call &call) {
  if (!convertLegacyDeviceAttrs(call))
    return false;
  Op *op = call.getOp();
  if (!op->def)
    return true; // unknown operators are rejected where the name is parsed
  return verifyOpCall(call, *op->def, diags);
}

// on_device(%x, device_type=1, is_fixed=True) and
// device_copy(%x, src_dev_type=1, dst_dev_type=2) from older TVM repros.
bool ParseTreeConverter::convertLegacyDeviceAttrs(Call &call) {
  auto deviceOf = [&](StringRef legacy, StringRef modern) -> bool {
    const Attr *a = call.attrs.find(legacy);
    if (!a)
      return true;
    std::optional<DeviceType> t;
    if (a->value.kind == AttrValue::Kind::Int)
      t = deviceTypeFromNumber(a->value.intValue);
    else if (a->value.kind == AttrValue::Kind::String || a->value.kind == AttrValue::Kind::Ident)
      t = parseDeviceType(a->value.str);
    if (!t) {
      std::vector<std::string> types;
      for (DeviceType dt : allDeviceTypes())
        types.push_back(std::to_string(int32_t(dt)) + " for " + deviceTypeName(dt).str());
      diags.error(a->value.loc,
                  "unknown device type in '" + legacy + "' (expected " + joinChoices(types) + ")");
      return false;
    }
    if (call.attrs.get(modern)) {
      diags.error(a->loc, "'" + legacy + "' and '" + modern + "' given together");
      return false;
    }
    AttrValue d = AttrValue::ofDevice(mod.deviceForType(*t));
    d.loc = a->value.loc;
    SMLoc nameLoc = a->loc;
    call.attrs.erase(legacy);
    call.attrs.set(modern, d);
    call.attrs.items.back().loc = nameLoc;
    return true;
  };
  if (call.isOp(kOnDevice)) {
    if (!deviceOf("device_type", "virtual_device"))
      return false;
    if (const Attr *fixed = call.attrs.find("is_fixed")) {
      AttrValue v = fixed->value;
      call.attrs.erase("is_fixed");
      if (v.kind == AttrValue::Kind::Bool && v.boolValue)
        call.attrs.set("constrain_result", v);
    }
  } else if (call.isOp(kDeviceCopy)) {
    if (!deviceOf("src_dev_type", "src_virtual_device") ||
        !deviceOf("dst_dev_type", "dst_virtual_device"))
      return false;
  }
  return true;
}

ExprRef ParseTreeConverter::buildFn(P::FnExprContext *ctx) {
  auto fn =
      node<Function>(std::vector<Ref<Var>>(), nullptr, nullptr, locOf(ctx->FN()->getSymbol()));
  scopes.emplace_back(); // parameters
  if (ctx->paramList() && !buildParams(ctx->paramList(), *fn, fn->params))
    return nullptr;
  if (ctx->type() && !(fn->retType = buildType(ctx->type())))
    return nullptr;
  ExprRef body = buildBody(ctx->body());
  if (!body)
    return nullptr;
  scopes.pop_back();
  fn->body = body;
  return fn;
}

ExprRef ParseTreeConverter::buildPrimary(P::PrimaryContext *ctx) {
  if (auto *l = dynamic_cast<P::LocalRefContext *>(ctx))
    return lookup(tok(l->LOCAL()));
  if (auto *g = dynamic_cast<P::GlobalRefContext *>(ctx)) {
    HxToken *t = tok(g->GLOBAL());
    StringRef name = t->text().drop_front();
    if (!definedGlobals.count(name))
      return error(t, "use of undefined global '" + t->text() + "'"), nullptr;
    return mod.getGlobal(name, definedGlobals[name]);
  }
  if (auto *o = dynamic_cast<P::OpRefContext *>(ctx)) {
    HxToken *t = tok(o->IDENT());
    const OpDef *def = lookupOp(t->text());
    if (!def)
      return error(t, "unknown operator '" + t->text() + "'"), nullptr;
    Op *op = mod.getOp(t->text());
    op->def = def;
    return op; // shared by all uses; a call takes the location of its name
  }
  if (auto *n = dynamic_cast<P::NumberLitContext *>(ctx))
    return buildNumber(tok(n->NUMBER()));
  if (auto *b = dynamic_cast<P::BoolLitContext *>(ctx)) {
    auto c = node<Constant>(DType::Bool, locOf(b->getStart()));
    c->intValue = b->TRUE() != nullptr;
    return c;
  }
  if (auto *m = dynamic_cast<P::MetaExprContext *>(ctx))
    return buildMetaConstant(m->metaRef());
  if (auto *p = dynamic_cast<P::ParenExprContext *>(ctx)) {
    if (!p->body()) // ()
      return node<Tuple>(SmallVector<ExprRef, 2>(), locOf(p->getStart()));
    bool isTuple = !p->COMMA().empty();
    if (isTuple && (!p->body()->stmt().empty() || !p->body()->freeVar().empty()))
      return error(p->body()->getStart(), "a tuple field cannot contain bindings"), nullptr;
    ExprRef first = buildBody(p->body());
    if (!first)
      return nullptr;
    if (!isTuple)
      return first;
    SmallVector<ExprRef, 2> fields{first};
    for (auto *e : p->expr()) {
      ExprRef f = buildExpr(e);
      if (!f)
        return nullptr;
      fields.push_back(std::move(f));
    }
    return node<Tuple>(std::move(fields), locOf(p->getStart()));
  }
  if (auto *i = dynamic_cast<P::IfExprContext *>(ctx)) {
    ExprRef c = buildExpr(i->expr());
    if (!c)
      return nullptr;
    ExprRef t = buildBody(i->body(0));
    if (!t)
      return nullptr;
    ExprRef e = buildBody(i->body(1));
    if (!e)
      return nullptr;
    return node<If>(c, t, e, locOf(i->getStart()));
  }
  return buildFn(static_cast<P::FnExprContext *>(ctx));
}

bool ParseTreeConverter::checkHeader(P::HeaderContext *ctx) {
  HxToken *key = tok(ctx->IDENT());
  if (key->text() != "version")
    return error(key, "expected 'version' in the header '#[version = \"0.0.5\"]'");
  HxToken *v = tok(ctx->STRING());
  if (unescapeString(v->text()) != "0.0.5")
    return error(v, "unsupported version " + v->text() + " (hx reads Relay \"0.0.5\")");
  return true;
}
