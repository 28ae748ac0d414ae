//===- OpRegistry.cpp - The operator table and call verification ----------===//
//
// The table is a function-local `static const`: built once, on first use,
// from each family's add*Ops function, then never modified (there is no
// mutable global state; concurrent first use is safe by C++ static
// initialization). A StringMap indexes it by name.
//
// verifyOpCall checks a call against its OpDef's schema; getAttrOrDefault
// returns an attribute in canonical form (an integer written for a list
// becomes a one-element list, an identifier a string, an integer a float
// where a float is expected), so relations and later passes read one shape of
// value only; inferOpType verifies the call and runs the relation.
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"
#include "hx/IR/Expr.h"
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace hx {

namespace {
struct OpTable {
  std::vector<OpDef> ops;
  StringMap<unsigned> index;

  OpTable() {
    // Each family's operators, tagged with the family's name.
    auto add = [&](StringRef family, void (*addOps)(std::vector<OpDef> &)) {
      size_t first = ops.size();
      addOps(ops);
      for (size_t i = first; i < ops.size(); ++i)
        ops[i].family = family;
    };
    add("elementwise", addElementwiseOps);
    add("nn", addNnOps);
    add("convpool", addConvPoolOps);
    add("reduce", addReduceOps);
    add("transform", addTransformOps);
    add("sort", addSortOps);
    add("dynamic", addDynamicOps);
    add("annotation", addAnnotationOps);
    for (unsigned i = 0; i < ops.size(); ++i) {
      bool inserted = index.try_emplace(ops[i].name, i).second;
      (void)inserted;
      assert(inserted && "operator defined twice");
    }
  }
};
} // namespace

static const OpTable &getOpTable() {
  static const OpTable table;
  return table;
}

const OpDef *lookupOp(StringRef name) {
  const OpTable &t = getOpTable();
  auto it = t.index.find(name);
  return it == t.index.end() ? nullptr : &t.ops[it->second];
}

ArrayRef<OpDef> allOps() { return getOpTable().ops; }

StringRef suggestOpName(StringRef name) {
  if (name.empty())
    return {};
  // `relu` for `nn.relu`: a missing namespace prefix.
  for (const OpDef &d : allOps()) {
    auto dot = d.name.rfind('.');
    if (dot != StringRef::npos && d.name.substr(dot + 1) == name)
      return d.name;
  }
  unsigned maxDist = std::max<unsigned>(1, name.size() / 3);
  StringRef best;
  unsigned bestDist = maxDist + 1;
  for (const OpDef &d : allOps()) {
    unsigned dist = name.edit_distance(d.name, /*AllowReplacements=*/true,
                                       /*MaxEditDistance=*/maxDist);
    if (dist < bestDist) {
      bestDist = dist;
      best = d.name;
    }
  }
  return best;
}

static StringRef valueDescription(const AttrValue &v) {
  switch (v.kind) {
  case AttrValue::Kind::None:
    return "None";
  case AttrValue::Kind::Bool:
    return "a boolean";
  case AttrValue::Kind::Int:
    return "an integer";
  case AttrValue::Kind::Float:
    return "a float";
  case AttrValue::Kind::String:
    return "a string";
  case AttrValue::Kind::Ident:
    return "an identifier";
  case AttrValue::Kind::List:
    return "a list";
  case AttrValue::Kind::Device:
    return "a virtual device";
  case AttrValue::Kind::Meta:
    return "a meta reference";
  }
  return "a value";
}

using VK = AttrValue::Kind;

static bool isIntList(const AttrValue &v, bool noneItems = false) {
  if (v.kind != VK::List)
    return false;
  for (const AttrValue &e : v.list)
    if (e.kind != VK::Int && !(noneItems && e.kind == VK::None))
      return false;
  return true;
}

/// Whether `v` is acceptable for `kind` (leniently).
static bool matchesKind(AttrKind kind, const AttrValue &v) {
  switch (kind) {
  case AttrKind::Bool:
    return v.kind == VK::Bool || (v.kind == VK::Int && (v.intValue == 0 || v.intValue == 1));
  case AttrKind::Int:
    return v.kind == VK::Int;
  case AttrKind::OptInt:
    return v.kind == VK::Int || v.kind == VK::None;
  case AttrKind::Float:
    return v.kind == VK::Float || v.kind == VK::Int;
  case AttrKind::String:
  case AttrKind::DType:
    return v.kind == VK::String || v.kind == VK::Ident;
  case AttrKind::IntList:
  case AttrKind::IntOrIntList:
    return v.kind == VK::Int || isIntList(v);
  case AttrKind::OptIntList:
    return v.kind == VK::Int || v.kind == VK::None || isIntList(v);
  case AttrKind::IntListList:
    return v.kind == VK::List &&
           llvm::all_of(v.list, [](const AttrValue &e) { return isIntList(e); });
  case AttrKind::SizeList:
    return v.kind == VK::Int || v.kind == VK::None || isIntList(v, /*noneItems=*/true);
  case AttrKind::OptFloatList:
    return v.kind == VK::None ||
           (v.kind == VK::List && llvm::all_of(v.list, [](const AttrValue &e) {
              return e.kind == VK::Float || e.kind == VK::Int;
            }));
  case AttrKind::Device:
    return v.kind == VK::Device;
  case AttrKind::OptDevice:
    return v.kind == VK::Device || v.kind == VK::None;
  }
  return false;
}

/// Rewrites a value accepted by matchesKind into the kind's canonical form.
static AttrValue canonicalize(AttrKind kind, AttrValue v) {
  SMLoc loc = v.loc;
  switch (kind) {
  case AttrKind::Bool:
    if (v.kind == VK::Int)
      v = AttrValue::ofBool(v.intValue != 0);
    break;
  case AttrKind::Float:
    if (v.kind == VK::Int)
      v = AttrValue::ofFloat(double(v.intValue));
    break;
  case AttrKind::OptFloatList:
    for (AttrValue &e : v.list)
      if (e.kind == VK::Int)
        e = AttrValue::ofFloat(double(e.intValue));
    break;
  case AttrKind::String:
  case AttrKind::DType:
    if (v.kind == VK::Ident)
      v.kind = VK::String;
    break;
  case AttrKind::IntList:
  case AttrKind::OptIntList:
  case AttrKind::SizeList:
    if (v.kind == VK::Int) {
      std::vector<AttrValue> items{v};
      v = AttrValue::ofList(std::move(items));
    }
    break;
  default:
    break;
  }
  v.loc = loc;
  return v;
}

static const OpDef *getDef(const Call &call) {
  const Op *op = call.getOp();
  if (!op)
    return nullptr;
  return op->def ? op->def : lookupOp(op->name);
}

AttrValue getAttrOrDefault(const Call &call, StringRef name) {
  const OpDef *def = getDef(call);
  const AttrSpec *spec = def ? def->findAttr(name) : nullptr;
  if (!spec)
    return AttrValue::none();
  if (const AttrValue *v = call.attrs.get(name))
    return matchesKind(spec->kind, *v) ? canonicalize(spec->kind, *v) : *v;
  return spec->defaultValue;
}

/// An attribute's value (or name) in the text, with its call's framework
/// node (attributes have positions, not nodes).
static Loc valueLoc(const Attr &a, const Call &call) {
  return Loc(a.value.loc.isValid() ? a.value.loc : a.loc, call.loc.node);
}

bool verifyOpCall(const Call &call, const OpDef &def, DiagEngine &diags) {
  bool ok = true;
  if (call.args.size() != def.numArgs) {
    diags.error(call.loc, def.name + ": expected " + Twine(def.numArgs) +
                              (def.numArgs == 1 ? " argument" : " arguments") + ", got " +
                              Twine(call.args.size()));
    ok = false;
  }

  StringSet<> seen;
  for (const Attr &a : call.attrs) {
    Loc nameLoc = a.loc.isValid() ? Loc(a.loc, call.loc.node) : call.loc;
    const AttrSpec *spec = def.findAttr(a.name);
    if (!spec) {
      std::string accepted;
      for (const AttrSpec &s : def.attrs)
        accepted += (accepted.empty() ? "" : ", ") + s.name.str();
      if (accepted.empty())
        diags.error(nameLoc, def.name + ": unknown attribute '" + a.name + "' (" + def.name +
                                 " takes no attributes)");
      else
        diags.error(nameLoc, def.name + ": unknown attribute '" + a.name +
                                 "'; accepted attributes: " + accepted);
      ok = false;
      continue;
    }
    if (!seen.insert(a.name).second) {
      diags.error(nameLoc, def.name + ": duplicate attribute '" + a.name + "'");
      ok = false;
      continue;
    }
    if (!matchesKind(spec->kind, a.value)) {
      diags.error(valueLoc(a, call), def.name + ": attribute '" + a.name + "' must be " +
                                         attrKindDescription(spec->kind) + ", got " +
                                         valueDescription(a.value));
      ok = false;
      continue;
    }
    if (spec->kind == AttrKind::DType && !a.value.str.empty() && !parseDType(a.value.str)) {
      diags.error(valueLoc(a, call), def.name + ": unknown dtype '" + a.value.str +
                                         "' for attribute '" + a.name + "'");
      ok = false;
    }
  }

  for (const AttrSpec &s : def.attrs) {
    if (s.required && !call.attrs.get(s.name)) {
      diags.error(call.loc, def.name + ": missing required attribute '" + s.name + "' (" +
                                attrKindDescription(s.kind) + ")");
      ok = false;
    }
  }
  return ok;
}

/// A relation may compute a dimension the parser would reject (a pad of
/// 2^62, a reshape to a huge constant): the result type must stay printable
/// and parse back, so such a call is an error at the call.
static bool checkResultDims(const Call &call, const OpDef &def, const Type &result,
                            DiagEngine &diags) {
  SmallVector<const Type *, 4> work{&result};
  while (!work.empty()) {
    const Type *t = work.pop_back_val();
    if (auto *tuple = dyn_cast<TupleType>(t)) {
      for (const TypeRef &f : tuple->fields)
        work.push_back(f.get());
      continue;
    }
    auto *tensor = dyn_cast<TensorType>(t);
    if (!tensor)
      continue;
    for (size_t d = 0; d < tensor->shape.size(); ++d)
      if (tensor->shape[d] > TensorType::kMaxDim) {
        diags.error(call.loc, def.name + ": axis " + Twine(d) + " of the result would have size " +
                                  Twine(tensor->shape[d]) +
                                  ", above the largest hx supports (2^48)");
        return false;
      }
  }
  return true;
}

TypeRef inferOpType(const Call &call, ArrayRef<const Type *> argTypes, DiagEngine &diags) {
  const OpDef *def = getDef(call);
  if (!def) {
    const Op *op = call.getOp();
    StringRef name = op ? StringRef(op->name) : StringRef("<not an operator>");
    StringRef hint = suggestOpName(name);
    if (hint.empty())
      diags.error(call.loc, "unknown operator '" + name + "'");
    else
      diags.error(call.loc, "unknown operator '" + name + "'; did you mean '" + hint + "'?");
    return nullptr;
  }
  if (!verifyOpCall(call, *def, diags))
    return nullptr;
  assert(argTypes.size() == call.args.size() && "one type per argument");
  for (const Type *t : argTypes)
    if (!t)
      return nullptr;
  TypeRelContext ctx(call, *def, argTypes, diags);
  TypeRef result = def->relation(ctx);
  if (!result || !checkResultDims(call, *def, *result, diags))
    return nullptr;
  return result;
}

//===----------------------------------------------------------------------===//
// Schema builders
//===----------------------------------------------------------------------===//

static AttrSpec spec(StringRef name, AttrKind kind, AttrValue dflt) {
  AttrSpec s;
  s.name = name;
  s.kind = kind;
  s.defaultValue = std::move(dflt);
  return s;
}

AttrSpec boolAttr(StringRef name, bool dflt) {
  return spec(name, AttrKind::Bool, AttrValue::ofBool(dflt));
}
AttrSpec intAttr(StringRef name, int64_t dflt) {
  return spec(name, AttrKind::Int, AttrValue::ofInt(dflt));
}
AttrSpec floatAttr(StringRef name, double dflt) {
  return spec(name, AttrKind::Float, AttrValue::ofFloat(dflt));
}
AttrSpec stringAttr(StringRef name, StringRef dflt) {
  return spec(name, AttrKind::String, AttrValue::ofString(dflt.str()));
}
AttrSpec dtypeAttr(StringRef name, StringRef dflt) {
  return spec(name, AttrKind::DType, AttrValue::ofString(dflt.str()));
}
AttrSpec intListAttr(StringRef name, std::initializer_list<int64_t> dflt) {
  std::vector<AttrValue> items;
  for (int64_t v : dflt)
    items.push_back(AttrValue::ofInt(v));
  return spec(name, AttrKind::IntList, AttrValue::ofList(std::move(items)));
}
AttrSpec noneAttr(StringRef name, AttrKind kind) { return spec(name, kind, AttrValue::none()); }
AttrSpec requiredAttr(StringRef name, AttrKind kind) {
  AttrSpec s = spec(name, kind, AttrValue::none());
  s.required = true;
  return s;
}

static std::vector<const OpDef *> sortedOps() {
  std::vector<const OpDef *> defs;
  for (const OpDef &d : allOps())
    defs.push_back(&d);
  llvm::sort(defs, [](const OpDef *a, const OpDef *b) { return a->name < b->name; });
  return defs;
}

/// The device types whose target kinds run `d`, in table order: "cpu cuda";
/// "host" for an operator with a value-dependent shape.
static std::string targetsOf(const OpDef &d) {
  if (d.valueDependentShape)
    return "host";
  std::vector<std::string> names;
  for (DeviceType t : allDeviceTypes())
    if (defaultKindFor(t)->supports(d))
      names.push_back(deviceTypeName(t).str());
  return join(names, " ");
}

void printOperatorTable(raw_ostream &os) {
  std::vector<const OpDef *> defs = sortedOps();
  size_t width = 0, patternWidth = 0, targetsWidth = 0;
  for (const OpDef *d : defs) {
    width = std::max(width, d->name.size());
    patternWidth = std::max(patternWidth, opPatternName(d->pattern).size());
    targetsWidth = std::max(targetsWidth, targetsOf(*d).size());
  }
  os << "# " << defs.size() << " operators: name, targets, fusion pattern, input dtypes, summary\n";
  for (const OpDef *d : defs) {
    std::string targets = targetsOf(*d);
    StringRef pattern = opPatternName(d->pattern);
    os << d->name;
    os.indent(width + 2 - d->name.size()) << targets;
    os.indent(targetsWidth + 2 - targets.size()) << pattern;
    os.indent(patternWidth + 2 - pattern.size())
        << dtypeSetToString(d->dtypes) << ": " << d->summary << "\n";
  }
}

/// `text` with each `|` escaped, for a Markdown table cell.
static std::string escapePipes(StringRef text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|')
      out += '\\';
    out += ch;
  }
  return out;
}

void printOperatorMarkdown(raw_ostream &os) {
  std::vector<const OpDef *> defs = sortedOps();
  // The table's first device that is not the host, as the example.
  const TargetKindInfo *other = firstNonHostKind();
  std::string device = deviceTypeName(other ? other->deviceType : DeviceType::CPU).str();
  std::string host = deviceTypeName(DeviceType::CPU).str();
  os << "# Operators\n\n"
     << "<!-- Generated by `hx-opt --list-ops=markdown`; test/hx-opt/list-ops.test fails when "
        "this file differs. -->\n\n"
     << "hx has " << defs.size()
     << " operators. Each has TVM's name, attributes and type relation, a reference\n"
        "interpreter implementation and, for each target it lists, a kernel generator;\n"
        "the conformance suite compares every kernel with the interpreter. An operator\n"
        "without `"
     << device << "` runs on the " << host << " when planned onto a " << device
     << " device (plan-devices\n"
        "inserts the copies). An operator whose result shape depends on values (targets\n"
        "`host`) has no kernel: plan-devices places it on the "
     << host
     << ", and a run evaluates it on the host between\n"
        "stages (execution.md). The fusion pattern is TVM's OpPatternKind.\n\n"
     << "| operator | targets | fusion pattern | input dtypes | attributes | summary |\n"
     << "| --- | --- | --- | --- | --- | --- |\n";
  for (const OpDef *d : defs) {
    std::string attrs;
    for (const AttrSpec &a : d->attrs) {
      if (!attrs.empty())
        attrs += ", ";
      attrs += "`" + a.name.str() + "`";
    }
    os << "| `" << d->name << "` | " << targetsOf(*d) << " | " << opPatternName(d->pattern) << " | "
       << dtypeSetToString(d->dtypes) << " | " << attrs << " | " << escapePipes(d->summary)
       << " |\n";
  }
}

} // namespace hx
