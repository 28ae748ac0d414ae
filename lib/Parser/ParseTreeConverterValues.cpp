//===- ParseTreeConverterValues.cpp - Types, literals, attribute values -===//
//
// The leaves of the parse-tree converter: tensor, tuple and function types; number and
// boolean literals with their dtype suffixes; attribute values, including
// meta[...] references resolved against the metadata tables.
//
//===----------------------------------------------------------------------===//
#include "ParseTreeConverter.h"
#include "llvm/ADT/StringSwitch.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace hx;
using namespace llvm;
using P = HxParser;

// ---- literals ---------------------------------------------------------------

namespace {
struct NumberText {
  StringRef digits; // the number without suffix
  StringRef suffix;
  bool isFloatSyntax = false;
  bool nonFinite = false; // inf or nan
};

NumberText splitNumber(StringRef s) {
  NumberText r;
  size_t i = 0;
  if (i < s.size() && s[i] == '-')
    ++i;
  if (s.substr(i).starts_with("inf") || s.substr(i).starts_with("nan")) { // inff, -inff, nanf
    r.isFloatSyntax = r.nonFinite = true;
    r.digits = s.take_front(i + 3);
    r.suffix = s.drop_front(i + 3);
    return r;
  }
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
  return StringSwitch<std::optional<DType>>(suffix)
      .Cases("f", "f32", DType::Float32)
      .Case("f64", DType::Float64)
      .Case("f16", DType::Float16)
      .Case("bf16", DType::BFloat16)
      .Cases("i", "i32", DType::Int32)
      .Case("i64", DType::Int64)
      .Case("i8", DType::Int8)
      .Case("i16", DType::Int16)
      .Case("u8", DType::UInt8)
      .Case("u16", DType::UInt16)
      .Case("u32", DType::UInt32)
      .Case("u64", DType::UInt64)
      .Default(std::nullopt);
}

bool fitsIn(int64_t v, DType t) {
  switch (t) {
  case DType::Int8:
    return v >= INT8_MIN && v <= INT8_MAX;
  case DType::Int16:
    return v >= INT16_MIN && v <= INT16_MAX;
  case DType::Int32:
    return v >= INT32_MIN && v <= INT32_MAX;
  case DType::UInt8:
    return v >= 0 && v <= UINT8_MAX;
  case DType::UInt16:
    return v >= 0 && v <= UINT16_MAX;
  case DType::UInt32:
    return v >= 0 && v <= UINT32_MAX;
  default:
    return true;
  }
}
} // namespace

// Parses a NUMBER token into (dtype, value). Shared by literals and attributes.
static bool parseNumberToken(HxToken *t, DiagEngine &diags, DType &type, double &f, int64_t &i) {
  NumberText n = splitNumber(t->text());
  std::optional<DType> ty = suffixType(n.suffix, n.isFloatSyntax);
  if (!ty) {
    diags
        .error(locOf(t),
               "unknown literal suffix '" + n.suffix +
                   "' (expected f, f16, f32, f64, i8, i16, i32, i64, u8, u16, u32 or u64)")
        .range(rangeOf(t));
    return false;
  }
  type = *ty;
  if (isFloat(type)) {
    std::string s = n.digits.str();
    errno = 0;
    f = std::strtod(s.c_str(), nullptr);
    if (n.nonFinite) // inff, -inff, nanf: in every float dtype
      return true;
    if (errno == ERANGE && std::isinf(f)) {
      diags.error(locOf(t), "float literal '" + t->text() + "' is out of range").range(rangeOf(t));
      return false;
    }
    if (((type == DType::Float32 || type == DType::BFloat16) &&
         std::isinf(static_cast<float>(f))) ||
        (type == DType::Float16 && std::fabs(f) >= 65520)) { // rounds to inf
      diags.error(locOf(t), "float literal '" + t->text() + "' does not fit in " + dtypeName(type))
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
    diags
        .error(locOf(t), "integer literal '" + t->text() + "' does not fit in " + dtypeName(type) +
                             (type == DType::Int32 ? " (use the i64 suffix for int64)" : ""))
        .range(rangeOf(t));
    return false;
  }
  return true;
}

ExprRef ParseTreeConverter::buildNumber(HxToken *t) {
  DType type;
  double f = 0;
  int64_t i = 0;
  if (!parseNumberToken(t, diags, type, f, i))
    return nullptr;
  auto c = node<Constant>(type, locOf(t));
  c->floatValue = f;
  c->intValue = i;
  return c;
}

// ---- types ------------------------------------------------------------------

TypeRef ParseTreeConverter::buildType(P::TypeContext *ctx) {
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
        if (nt->text().getAsInteger(10, v) || v < 0 || v > TensorType::kMaxDim)
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

bool ParseTreeConverter::buildAttr(HxToken *name, P::AttrValueContext *value, Attrs &attrs) {
  if (attrs.find(name->text()))
    return error(name, "duplicate attribute '" + name->text() + "'");
  AttrValue v;
  if (!buildAttrValue(value, v))
    return false;
  attrs.items.push_back({name->text().str(), std::move(v), locOf(name)});
  return true;
}

bool ParseTreeConverter::buildMetaRef(P::MetaRefContext *ctx, AttrValue &out) {
  HxToken *kind = tok(ctx->IDENT());
  HxToken *idxTok = tok(ctx->NUMBER());
  int64_t idx;
  if (idxTok->text().getAsInteger(10, idx) || idx < 0)
    return error(idxTok, "invalid metadata index '" + idxTok->text() + "'");
  out.loc = locOf(ctx->getStart());
  if (kind->text() == "VirtualDevice") {
    if (static_cast<uint64_t>(idx) >= mod.devices.size()) {
      diags
          .error(locOf(ctx->getStart()), "meta[VirtualDevice][" + Twine(idx) +
                                             "] has no entry: the metadata table has " +
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

ExprRef ParseTreeConverter::buildMetaConstant(P::MetaRefContext *ctx) {
  HxToken *kind = tok(ctx->IDENT());
  HxToken *idxTok = tok(ctx->NUMBER());
  SMRange range(locOf(ctx->getStart()),
                SMLoc::getFromPointer(static_cast<HxToken *>(ctx->getStop())->ptr() + 1));
  if (kind->text().starts_with("relay.attrs.")) {
    diags
        .error(locOf(ctx->getStart()), "not supported: attributes given as metadata (" +
                                           ctx->getText() + "); write them inline as name=value")
        .range(range);
    return nullptr;
  }
  if (kind->text() != "relay.Constant") {
    diags
        .error(locOf(ctx->getStart()),
               "not supported: meta[" + kind->text() +
                   "] as a value (only meta[relay.Constant][i] is an expression)")
        .range(range);
    return nullptr;
  }
  int64_t idx;
  if (idxTok->text().getAsInteger(10, idx) || idx < 0)
    return error(idxTok, "invalid metadata index '" + idxTok->text() + "'"), nullptr;
  if (static_cast<uint64_t>(idx) >= constants.size()) {
    diags
        .error(locOf(ctx->getStart()),
               "meta[relay.Constant][" + Twine(idx) + "] has no entry: the metadata table has " +
                   Twine(constants.size()) + " constant" + (constants.size() == 1 ? "" : "s"))
        .range(range);
    return nullptr;
  }
  return node<Constant>(constants[idx], locOf(ctx->getStart()));
}

bool ParseTreeConverter::buildAttrValue(P::AttrValueContext *ctx, AttrValue &out) {
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
