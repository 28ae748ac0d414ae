//===- IRBuilder.cpp - ANTLR parse trees to IR ----------------------------===//
//
// Recursion here follows the nesting of the *syntax* (brackets, if branches,
// fn literals), which the lexer bounds (LexerOptions::maxNesting). Sequences
// (body statements, let chains, postfix chains) are built with loops, so a
// million-statement body or let chain never deepens the stack.
//
//===----------------------------------------------------------------------===//
#include "IRBuilder.h"
#include "hx/Ops/OpRegistry.h"
#include "llvm/Support/ConvertUTF.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace hx;
using namespace llvm;
using P = HxParser;

bool IRBuilder::error(antlr4::Token *at, const Twine &msg) {
  diags.error(locOf(at), msg).range(rangeOf(at));
  return false;
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
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    case 'r': out += '\r'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
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
    default: out += e; break; // \" \\ \/
    }
  }
  return out;
}

// ---- scopes -----------------------------------------------------------------

/// The number of a `%N` name.
static bool numberOf(StringRef name, size_t &n) {
  return !name.empty() && isdigit(static_cast<unsigned char>(name[0])) &&
         !name.getAsInteger(10, n);
}

ExprRef IRBuilder::lookup(HxToken *t) {
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

bool IRBuilder::define(HxToken *t, ExprRef e, bool isGraphBinding) {
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
bool IRBuilder::checkVarName(HxToken *t) {
  if (!isdigit(static_cast<unsigned char>(t->text()[1])))
    return true;
  return error(t, "'" + t->text() +
                      "' cannot name a variable: numbers name graph bindings ('" +
                      t->text() + " = ...;')");
}

bool IRBuilder::freeVarInto(P::FreeVarContext *ctx) {
  TypeRef ty = buildType(ctx->type());
  if (!ty)
    return false;
  HxToken *name = tok(ctx->LOCAL());
  if (!checkVarName(name))
    return false;
  auto v = make<Var>(name->text().drop_front().str(), ty, locOf(name));
  scopes.back().freeVars.push_back(v);
  return define(name, v, false);
}

bool IRBuilder::stmtInto(P::StmtContext *ctx) {
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
  auto v = make<Var>(name->text().drop_front().str(), ty, locOf(name));
  // A let-bound fn literal may call itself (`let %loop = fn (...) { %loop(...) }`),
  // as in Relay: its variable is in scope in its own value.
  bool recursive = dynamic_cast<P::FnExprContext *>(l->expr()->primary()) &&
                   l->expr()->postfix().empty();
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
ExprRef IRBuilder::closeScope(ExprRef result) {
  Scope &s = scopes.back();
  for (auto it = s.lets.rbegin(); it != s.lets.rend(); ++it) {
    SMLoc loc = it->first->loc;
    result = make<Let>(it->first, it->second, result, loc);
  }
  scopes.pop_back();
  return result;
}

ExprRef IRBuilder::buildBody(P::BodyContext *ctx) {
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

bool IRBuilder::beginDef(P::DefnHeadContext *ctx) {
  HxToken *g = tok(ctx->GLOBAL());
  defName = g->text().drop_front().str();
  defLoc = locOf(g);
  if (const Module::Def *prev = mod.lookupDef(defName)) {
    diags.error(defLoc, "redefinition of '@" + defName + "'")
        .range(rangeOf(g))
        .note(prev->fn->loc, "previous definition is here");
    return false;
  }
  defFn = make<Function>(std::vector<Ref<Var>>(), nullptr, nullptr, locOf(ctx->DEF()->getSymbol()));
  scopes.clear();
  scopes.emplace_back(); // parameters
  if (ctx->paramList() && !buildParams(ctx->paramList(), *defFn, defFn->params))
    return false;
  if (ctx->type() && !(defFn->retType = buildType(ctx->type())))
    return false;
  scopes.emplace_back(); // body
  return true;
}

bool IRBuilder::addFreeVar(P::FreeVarContext *ctx) { return freeVarInto(ctx); }
bool IRBuilder::addStmt(P::StmtContext *ctx) { return stmtInto(ctx); }

bool IRBuilder::finishDef(P::ExprContext *resultCtx) {
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

bool IRBuilder::buildParams(P::ParamListContext *ctx, Function &fn,
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
    auto v = make<Var>(name->text().drop_front().str(), ty, locOf(name));
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

ExprRef IRBuilder::buildExpr(P::ExprContext *ctx) {
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
      cur = make<TupleGetItem>(cur, idx, locOf(t));
      continue;
    }
    cur = buildCall(cur, static_cast<P::CallSuffixContext *>(pf), start);
    if (!cur)
      return nullptr;
  }
  return cur;
}

ExprRef IRBuilder::buildCall(ExprRef callee, P::CallSuffixContext *ctx, SMLoc loc) {
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
  auto call = make<Call>(callee, std::move(args), std::move(attrs), loc);
  if (isa<Op>(callee.get()) && !finishOpCall(*call))
    return nullptr;
  if (!isa<Op>(callee.get()) && !call->attrs.empty())
    return error(ctx->getStart(), "attributes are only allowed on operator calls"), nullptr;
  return call;
}

// Resolves legacy device forms and checks the call against the registry.
bool IRBuilder::finishOpCall(Call &call) {
  if (!convertLegacyDeviceAttrs(call))
    return false;
  Op *op = call.getOp();
  if (!op->def)
    return true; // unknown operators are rejected where the name is parsed
  return verifyOpCall(call, *op->def, diags);
}

// on_device(%x, device_type=1, is_fixed=True) and
// device_copy(%x, src_dev_type=1, dst_dev_type=2) from older TVM repros.
bool IRBuilder::convertLegacyDeviceAttrs(Call &call) {
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
      diags.error(a->value.loc, "unknown device type in '" + legacy +
                                    "' (expected 1 for cpu or 2 for cuda)");
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

ExprRef IRBuilder::buildFn(P::FnExprContext *ctx) {
  auto fn = make<Function>(std::vector<Ref<Var>>(), nullptr, nullptr, locOf(ctx->FN()->getSymbol()));
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

ExprRef IRBuilder::buildPrimary(P::PrimaryContext *ctx) {
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
    auto c = make<Constant>(DType::Bool, locOf(b->getStart()));
    c->intValue = b->TRUE() != nullptr;
    return c;
  }
  if (auto *m = dynamic_cast<P::MetaExprContext *>(ctx))
    return error(m->getStart(), "not supported: metadata constants (" +
                                    m->getText() + ")"),
           nullptr;
  if (auto *p = dynamic_cast<P::ParenExprContext *>(ctx)) {
    if (!p->body()) // ()
      return make<Tuple>(SmallVector<ExprRef, 2>(), locOf(p->getStart()));
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
    return make<Tuple>(std::move(fields), locOf(p->getStart()));
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
    return make<If>(c, t, e, locOf(i->getStart()));
  }
  return buildFn(static_cast<P::FnExprContext *>(ctx));
}

// ---- literals ---------------------------------------------------------------

namespace {
struct NumberText {
  StringRef digits; // the number without suffix
  StringRef suffix;
  bool isFloatSyntax = false;
};

NumberText splitNumber(StringRef s) {
  NumberText r;
  size_t i = 0;
  if (i < s.size() && s[i] == '-')
    ++i;
  while (i < s.size() && isdigit(static_cast<unsigned char>(s[i])))
    ++i;
  if (i < s.size() && s[i] == '.') {
    r.isFloatSyntax = true;
    ++i;
    while (i < s.size() && isdigit(static_cast<unsigned char>(s[i])))
      ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-'))
      ++j;
    if (j < s.size() && isdigit(static_cast<unsigned char>(s[j]))) {
      r.isFloatSyntax = true;
      i = j;
      while (i < s.size() && isdigit(static_cast<unsigned char>(s[i])))
        ++i;
    }
  }
  r.digits = s.take_front(i);
  r.suffix = s.drop_front(i);
  return r;
}

std::optional<DType> suffixType(StringRef suffix, bool isFloatSyntax) {
  if (suffix.empty())
    return isFloatSyntax ? DType::Float32 : DType::Int32;
  if (suffix == "f" || suffix == "f32")
    return DType::Float32;
  if (suffix == "f64")
    return DType::Float64;
  if (suffix == "f16")
    return DType::Float16;
  if (suffix == "i" || suffix == "i32")
    return DType::Int32;
  if (suffix == "i64")
    return DType::Int64;
  if (suffix == "i8")
    return DType::Int8;
  if (suffix == "i16")
    return DType::Int16;
  if (suffix == "u8")
    return DType::UInt8;
  if (suffix == "u16")
    return DType::UInt16;
  if (suffix == "u32")
    return DType::UInt32;
  if (suffix == "u64")
    return DType::UInt64;
  return std::nullopt;
}

bool fitsIn(int64_t v, DType t) {
  switch (t) {
  case DType::Int8: return v >= INT8_MIN && v <= INT8_MAX;
  case DType::Int16: return v >= INT16_MIN && v <= INT16_MAX;
  case DType::Int32: return v >= INT32_MIN && v <= INT32_MAX;
  case DType::UInt8: return v >= 0 && v <= UINT8_MAX;
  case DType::UInt16: return v >= 0 && v <= UINT16_MAX;
  case DType::UInt32: return v >= 0 && v <= UINT32_MAX;
  default: return true;
  }
}
} // namespace

// Parses a NUMBER token into (dtype, value). Shared by literals and attributes.
static bool parseNumberToken(HxToken *t, DiagEngine &diags, DType &type, double &f,
                             int64_t &i) {
  NumberText n = splitNumber(t->text());
  std::optional<DType> ty = suffixType(n.suffix, n.isFloatSyntax);
  if (!ty) {
    diags.error(locOf(t), "unknown literal suffix '" + n.suffix +
                              "' (expected f, f16, f32, f64, i8, i16, i32, i64, u8, u16, u32 or u64)")
        .range(rangeOf(t));
    return false;
  }
  type = *ty;
  if (isFloat(type)) {
    std::string s = n.digits.str();
    errno = 0;
    f = std::strtod(s.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(f)) {
      diags.error(locOf(t), "float literal '" + t->text() + "' is out of range").range(rangeOf(t));
      return false;
    }
    if ((type == DType::Float32 && std::isinf(static_cast<float>(f))) ||
        (type == DType::Float16 && std::fabs(f) >= 65520)) { // rounds to inf
      diags.error(locOf(t), "float literal '" + t->text() + "' does not fit in " +
                                dtypeName(type))
          .range(rangeOf(t));
      return false;
    }
    return true;
  }
  if (n.isFloatSyntax) {
    diags.error(locOf(t), "integer suffix '" + n.suffix + "' on a float literal").range(rangeOf(t));
    return false;
  }
  // uint64 keeps its bit pattern in the int64 (the printer prints it back
  // unsigned), so all of 0 .. 2^64-1 is writable.
  uint64_t u = 0;
  bool bad = type == DType::UInt64 ? n.digits.getAsInteger(10, u)
                                   : n.digits.getAsInteger(10, i) || !fitsIn(i, type);
  if (type == DType::UInt64 && !bad)
    i = static_cast<int64_t>(u);
  if (bad) {
    diags.error(locOf(t), "integer literal '" + t->text() + "' does not fit in " +
                              dtypeName(type) +
                              (type == DType::Int32 ? " (use the i64 suffix for int64)" : ""))
        .range(rangeOf(t));
    return false;
  }
  return true;
}

ExprRef IRBuilder::buildNumber(HxToken *t) {
  DType type;
  double f = 0;
  int64_t i = 0;
  if (!parseNumberToken(t, diags, type, f, i))
    return nullptr;
  auto c = make<Constant>(type, locOf(t));
  c->floatValue = f;
  c->intValue = i;
  return c;
}

// ---- types ------------------------------------------------------------------

TypeRef IRBuilder::buildType(P::TypeContext *ctx) {
  SMLoc loc = locOf(ctx->getStart());
  if (auto *t = dynamic_cast<P::TensorTypeContext *>(ctx)) {
    HxToken *head = tok(t->IDENT(0));
    if (head->text() != "Tensor")
      return error(head, "unknown type '" + head->text() + "' (expected 'Tensor[(...), dtype]')"),
             nullptr;
    SmallVector<int64_t, 4> shape;
    if (auto *dl = t->dimList()) {
      for (auto *d : dl->dim()) {
        if (dynamic_cast<P::DynamicDimContext *>(d)) {
          shape.push_back(TensorType::kDynamic);
          continue;
        }
        HxToken *nt = tok(static_cast<P::StaticDimContext *>(d)->NUMBER());
        int64_t v;
        if (nt->text().getAsInteger(10, v) || v < 0 || v > (int64_t(1) << 48))
          return error(nt, "invalid dimension '" + nt->text() +
                               "' (expected a non-negative integer or '?')"),
                 nullptr;
        shape.push_back(v);
      }
    }
    HxToken *dt = tok(t->IDENT(1));
    std::optional<DType> dtype = parseDType(dt->text());
    if (!dtype)
      return error(dt, "unknown dtype '" + dt->text() + "'"), nullptr;
    TypeRef r = make<TensorType>(std::move(shape), *dtype);
    r->loc = loc;
    return r;
  }
  if (auto *s = dynamic_cast<P::ScalarTypeContext *>(ctx)) {
    HxToken *dt = tok(s->IDENT());
    std::optional<DType> dtype = parseDType(dt->text());
    if (!dtype)
      return error(dt, "unknown type '" + dt->text() + "'"), nullptr;
    TypeRef r = make<TensorType>(SmallVector<int64_t, 4>(), *dtype);
    r->loc = loc;
    return r;
  }
  if (auto *tt = dynamic_cast<P::TupleTypeContext *>(ctx)) {
    std::vector<TypeRef> fields;
    for (auto *f : tt->type()) {
      TypeRef ft = buildType(f);
      if (!ft)
        return nullptr;
      fields.push_back(ft);
    }
    if (fields.size() == 1 && tt->COMMA().empty())
      return fields[0]; // parenthesised type
    TypeRef r = make<TupleType>(std::move(fields));
    r->loc = loc;
    return r;
  }
  auto *ft = static_cast<P::FuncTypeContext *>(ctx);
  std::vector<TypeRef> params;
  auto types = ft->type();
  for (size_t i = 0; i + 1 < types.size(); ++i) {
    TypeRef p = buildType(types[i]);
    if (!p)
      return nullptr;
    params.push_back(p);
  }
  TypeRef ret = buildType(types.back());
  if (!ret)
    return nullptr;
  TypeRef r = make<FuncType>(std::move(params), ret);
  r->loc = loc;
  return r;
}

// ---- attributes -------------------------------------------------------------

bool IRBuilder::buildAttr(HxToken *name, P::AttrValueContext *value, Attrs &attrs) {
  if (attrs.find(name->text()))
    return error(name, "duplicate attribute '" + name->text() + "'");
  AttrValue v;
  if (!buildAttrValue(value, v))
    return false;
  attrs.items.push_back({name->text().str(), std::move(v), locOf(name)});
  return true;
}

bool IRBuilder::buildMetaRef(P::MetaRefContext *ctx, AttrValue &out) {
  HxToken *kind = tok(ctx->IDENT());
  HxToken *idxTok = tok(ctx->NUMBER());
  int64_t idx;
  if (idxTok->text().getAsInteger(10, idx) || idx < 0)
    return error(idxTok, "invalid metadata index '" + idxTok->text() + "'");
  out.loc = locOf(ctx->getStart());
  if (kind->text() == "VirtualDevice") {
    if (static_cast<uint64_t>(idx) >= mod.devices.size()) {
      diags
          .error(locOf(ctx->getStart()),
                 "meta[VirtualDevice][" + Twine(idx) + "] has no entry: the metadata table has " +
                     Twine(mod.devices.size()) + " virtual device" +
                     (mod.devices.size() == 1 ? "" : "s"))
          .range(SMRange(locOf(ctx->getStart()),
                         SMLoc::getFromPointer(static_cast<HxToken *>(ctx->getStop())->ptr() + 1)));
      return false;
    }
    out.kind = AttrValue::Kind::Device;
    out.intValue = idx;
    return true;
  }
  for (auto &[key, value] : mod.extraMetadata) {
    if (key != kind->text())
      continue;
    const json::Array *arr = value.getAsArray();
    if (!arr || static_cast<uint64_t>(idx) >= arr->size())
      break;
    out.kind = AttrValue::Kind::Meta;
    out.str = kind->text().str();
    out.intValue = idx;
    return true;
  }
  return error(ctx->getStart(), "meta[" + kind->text() + "][" + Twine(idx) +
                                    "] has no entry in the metadata section");
}

bool IRBuilder::buildAttrValue(P::AttrValueContext *ctx, AttrValue &out) {
  out.loc = locOf(ctx->getStart());
  if (auto *n = dynamic_cast<P::NumberAttrContext *>(ctx)) {
    DType type;
    double f = 0;
    int64_t i = 0;
    if (!parseNumberToken(tok(n->NUMBER()), diags, type, f, i))
      return false;
    out.kind = isFloat(type) ? AttrValue::Kind::Float : AttrValue::Kind::Int;
    out.numType = type;
    out.floatValue = f;
    out.intValue = i;
    return true;
  }
  if (auto *b = dynamic_cast<P::BoolAttrContext *>(ctx)) {
    out.kind = AttrValue::Kind::Bool;
    out.boolValue = b->TRUE() != nullptr;
    return true;
  }
  if (auto *s = dynamic_cast<P::StringAttrContext *>(ctx)) {
    out.kind = AttrValue::Kind::String;
    out.str = unescapeString(tok(s->STRING())->text());
    return true;
  }
  if (dynamic_cast<P::NoneAttrContext *>(ctx)) {
    out.kind = AttrValue::Kind::None;
    return true;
  }
  if (auto *id = dynamic_cast<P::IdentAttrContext *>(ctx)) {
    out.kind = AttrValue::Kind::Ident;
    out.str = tok(id->IDENT())->text().str();
    return true;
  }
  if (auto *m = dynamic_cast<P::MetaAttrContext *>(ctx))
    return buildMetaRef(m->metaRef(), out);
  std::vector<P::AttrValueContext *> items;
  if (auto *l = dynamic_cast<P::ListAttrContext *>(ctx)) {
    items = l->attrValue();
  } else {
    items = static_cast<P::TupleAttrContext *>(ctx)->attrValue();
    out.isTuple = true;
  }
  out.kind = AttrValue::Kind::List;
  for (auto *item : items) {
    AttrValue v;
    if (!buildAttrValue(item, v))
      return false;
    out.list.push_back(std::move(v));
  }
  return true;
}

bool IRBuilder::checkHeader(P::HeaderContext *ctx) {
  HxToken *key = tok(ctx->IDENT());
  if (key->text() != "version")
    return error(key, "expected 'version' in the header '#[version = \"0.0.5\"]'");
  HxToken *v = tok(ctx->STRING());
  if (unescapeString(v->text()) != "0.0.5")
    return error(v, "unsupported version " + v->text() + " (hx reads Relay \"0.0.5\")");
  return true;
}
