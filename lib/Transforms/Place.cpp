//===- Place.cpp - Put chosen operator calls on chosen devices ------------===//
//
// `place{place=PATTERN=DEVICE,...}` (the tools' `--place=...`, which may be
// given several times) is how a user who imported a model says "this part
// runs there" without editing the text: it writes the `on_device`
// annotations a hand-written module would carry, and plan-devices does the
// rest (copies, the cpu fallback, the placement strategies).
//
//   --place=Softmax=cpu --place='/layer4/*=cuda'
//
//   %7 = nn.softmax(%6); // onnx:Softmax /model/softmax
// becomes
//   %7 = nn.softmax(%6); // onnx:Softmax /model/softmax
//   %8 = on_device(%7, virtual_device=meta[VirtualDevice][0]);
//
// and every use of %7 reads %8.
//
// Matching. A rule is split at its last '='. Its pattern names an operator
// call when it equals hx's operator (`nn.softmax`), or the operator type of
// the framework node the call came from (`Softmax`, or `onnx:Softmax`), or
// when it glob-matches (llvm::GlobPattern: `*` crosses '/') that node's name
// (hx/Support/SourceNames.h: the node an importer put in the call's Loc,
// which text carries as `// onnx:Softmax /model/softmax`).
// Of several matching rules the last one given wins, so a later, narrower
// rule overrides an earlier, broader one.
//
// What is placed. Operator calls, not the device annotations themselves; a
// call that is already the operand of an on_device or a device_copy keeps
// the device that annotation gives it (a matching rule that asks for another
// device is a located warning); nothing inside a `Primitive=1` function is
// looked at: the pass runs before fusion, as plan-devices does. A rule that
// matches no call is a warning naming it.
//
// Devices. DEVICE is what --default-device accepts (cpu, cuda, or a DLPack
// number), optionally with a virtual device id (`cuda:1`). `cuda` is the
// table's first cuda entry (virtual device id 0 preferred), `cuda:1` its
// first cuda entry with id 1; either is appended to the table (with the
// kind's default target) when absent, only once a rule wins for some call.
// Appending must not move the module's default device: when the module
// names none (no PassConfig) and the new entry would change the one TVM's
// rule derives from the table (the only device type used, else the cpu),
// the old one is written into the PassConfig.
//
// Guarantees: placing twice changes nothing (a placed call is under an
// on_device for its own device); the output depends only on the module and
// the rules, in program order. Linear in the module: one walk per def to
// decide, one rewrite of the defs where something is placed. The new
// annotations carry their call's location (its node with it) and type, so a typed module stays
// typed.
//
//===----------------------------------------------------------------------===//
#include "hx/Transforms/Place.h"
#include "hx/IR/Rewrite.h"
#include "hx/IR/TargetKind.h"
#include "hx/IR/Walk.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/GlobPattern.h"

using namespace hx;
using namespace llvm;

/// The table's first device type that is not the host's ("cuda"), as the
/// example of a device in messages.
static std::string exampleDevice() {
  const TargetKindInfo *k = firstNonHostKind();
  return deviceTypeName(k ? k->deviceType : DeviceType::CPU).str();
}

std::string hx::placeDescription() {
  std::vector<std::string> devices = deviceTypeNames();
  devices.push_back(exampleDevice() + ":1");
  return "Put the operator calls that PATTERN names on DEVICE (" + join(devices, ", ") +
         "): PATTERN is an operator (nn.softmax), a framework operator type (Softmax) or a glob "
         "over framework node names (/layer4/*); rules are joined by ',' and the flag may be "
         "repeated";
}

bool hx::parsePlaceRules(StringRef text, std::vector<PlaceRule> &rules, std::string &error) {
  rules.clear();
  if (text.empty())
    return true;
  SmallVector<StringRef, 4> pieces;
  text.split(pieces, ',');
  for (StringRef piece : pieces) {
    StringRef rule = piece.trim();
    if (rule.empty()) {
      error = ("an empty rule in '" + text + "' (expected PATTERN=DEVICE)").str();
      return false;
    }
    size_t eq = rule.rfind('=');
    if (eq == StringRef::npos) {
      error = ("rule '" + rule + "' has no '=' (expected PATTERN=DEVICE)").str();
      return false;
    }
    StringRef pattern = rule.take_front(eq).trim(), device = rule.drop_front(eq + 1).trim();
    if (pattern.empty()) {
      error = ("rule '" + rule + "' has an empty pattern (expected PATTERN=DEVICE)").str();
      return false;
    }
    if (Expected<GlobPattern> g = GlobPattern::create(pattern); !g) {
      error = ("rule '" + rule + "': invalid pattern: " + toString(g.takeError())).str();
      return false;
    }
    PlaceRule r;
    r.text = rule.str();
    r.pattern = pattern.str();
    auto [type, id] = device.split(':');
    std::optional<DeviceType> t = parseDeviceType(type);
    int64_t n = 0;
    if (!t || (device.contains(':') && (id.getAsInteger(10, n) || n < 0))) {
      error =
          ("rule '" + rule + "': unknown device '" + device + "' (expected " + deviceTypeChoices() +
           ", optionally with a virtual device id: " + exampleDevice() + ":1)")
              .str();
      return false;
    }
    r.deviceType = *t;
    if (device.contains(':'))
      r.virtualDeviceId = n;
    rules.push_back(std::move(r));
  }
  return true;
}

namespace {
/// The entry of `m`'s table a rule names, if there is one.
std::optional<DeviceIndex> findDevice(const Module &m, const PlaceRule &r) {
  if (!r.virtualDeviceId) {
    std::optional<DeviceIndex> any;
    for (size_t i = 0; i < m.devices.size(); ++i) {
      if (m.devices[i].deviceType != r.deviceType)
        continue;
      if (m.devices[i].virtualDeviceId == 0)
        return DeviceIndex(i);
      if (!any)
        any = DeviceIndex(i);
    }
    return any;
  }
  for (size_t i = 0; i < m.devices.size(); ++i)
    if (m.devices[i].deviceType == r.deviceType &&
        m.devices[i].virtualDeviceId == *r.virtualDeviceId)
      return DeviceIndex(i);
  return std::nullopt;
}

/// The entry a rule names, appended to the table when absent.
DeviceIndex deviceFor(Module &m, const PlaceRule &r) {
  if (std::optional<DeviceIndex> d = findDevice(m, r))
    return *d;
  VirtualDevice d;
  d.deviceType = r.deviceType;
  d.virtualDeviceId = r.virtualDeviceId.value_or(0);
  d.target = Target::defaultFor(r.deviceType);
  return m.addDevice(d);
}

/// The default device TVM's CompilationConfig derives from the table alone:
/// the only device type in use, else the cpu.
DeviceType tableDefault(const Module &m) {
  std::optional<DeviceType> type;
  for (const VirtualDevice &d : m.devices) {
    if (type && *type != d.deviceType)
      return DeviceType::CPU;
    type = d.deviceType;
  }
  return type.value_or(DeviceType::CPU);
}

DeviceIndex deviceAttr(const Call &c, StringRef name) {
  const AttrValue *v = c.attrs.get(name);
  return v && v->kind == AttrValue::Kind::Device ? DeviceIndex(v->intValue) : kNoDevice;
}

class Placer {
public:
  Placer(Module &m, ArrayRef<PlaceRule> rules, DiagEngine &diags)
      : placed(rules.size()), m(m), rules(rules), diags(diags), used(rules.size(), false) {
    // Each GlobPattern points into its rule's pattern, which outlives it.
    for (const PlaceRule &r : rules)
      globs.push_back(cantFail(GlobPattern::create(r.pattern)));
  }

  void run() {
    bool named = m.fallbackDeviceType.has_value();
    DeviceType before = tableDefault(m);
    for (Module::Def &d : m.defs)
      if (!d.fn->isPrimitive())
        placeDef(*d.fn);
    if (!named && tableDefault(m) != before)
      m.fallbackDeviceType = before;
    for (size_t i = 0; i < rules.size(); ++i) {
      if (!used[i])
        diags.warning(SMLoc(), "--place: rule '" + rules[i].text + "' matches no operator call");
      if (placed[i].calls)
        placed[i].device = deviceFor(m, rules[i]);
    }
  }

  std::vector<PlacedByRule> placed;

private:
  /// `onnx:Softmax`.
  static bool isQualifiedType(StringRef p, const SourceNode &n) {
    return p.size() == n.framework().size() + 1 + n.opType().size() &&
           p.starts_with(n.framework()) && p[n.framework().size()] == ':' &&
           p.ends_with(n.opType());
  }

  /// The last rule matching `c`, or -1; marks every matching rule used.
  int match(const Call &c) {
    StringRef op = c.getOp()->name;
    const SourceNode *node = c.loc.getNode();
    int winner = -1;
    for (size_t i = 0; i < rules.size(); ++i) {
      StringRef p = rules[i].pattern;
      bool hit = p == op;
      if (!hit && node)
        hit = p == node->opType() || isQualifiedType(p, *node) ||
              (!node->name().empty() && globs[i].match(node->name()));
      if (hit) {
        used[i] = true;
        winner = int(i);
      }
    }
    return winner;
  }

  void placeDef(Function &fn) {
    std::vector<Expr *> order = postOrder(fn.body.get());
    // The calls an annotation already places (and where), and the bodies of
    // primitive functions.
    DenseMap<const Expr *, std::pair<const Call *, DeviceIndex>> annotated;
    DenseSet<const Expr *> inPrimitive;
    for (Expr *e : order) {
      if (auto *f = dyn_cast<Function>(e); f && f->isPrimitive()) {
        for (Expr *x : postOrder(f->body.get()))
          inPrimitive.insert(x);
      } else if (auto *c = dyn_cast<Call>(e); c && !c->args.empty()) {
        if (c->isOp(kOnDevice))
          annotated.try_emplace(c->args[0].get(), c, deviceAttr(*c, "virtual_device"));
        else if (c->isOp(kDeviceCopy))
          annotated.try_emplace(c->args[0].get(), c, deviceAttr(*c, "src_virtual_device"));
      }
    }
    DenseMap<const Expr *, size_t> wrap;
    for (Expr *e : order) {
      auto *c = dyn_cast<Call>(e);
      if (!c || !c->getOp() || c->isOp(kOnDevice) || c->isOp(kDeviceCopy) ||
          inPrimitive.contains(c))
        continue;
      int r = match(*c);
      if (r < 0)
        continue;
      auto it = annotated.find(c);
      if (it == annotated.end()) {
        wrap[c] = size_t(r);
        ++placed[size_t(r)].calls;
        continue;
      }
      DeviceIndex now = it->second.second;
      std::optional<DeviceIndex> want = findDevice(m, rules[r]);
      if (want && joinDevices(m.devices, *want, now) != kNoDevice) {
        ++placed[size_t(r)].calls; // already where the rule wants it: placed before
        continue;
      }
      std::string where = "another device";
      if (now >= 0 && size_t(now) < m.devices.size())
        where = (Twine("'") + m.devices[now].shortName() + "'").str();
      diags
          .warning(c->loc, "--place: rule '" + rules[r].text + "' matches this '" +
                               c->getOp()->name + "', but its " + it->second.first->getOp()->name +
                               " keeps it on " + where)
          .note(it->second.first->loc, "the annotation is here");
    }
    if (wrap.empty())
      return;
    Op *onDevice = m.getOp(kOnDevice);
    fn.body = rewriteInOrder(order, [&](Expr *old, ArrayRef<ExprRef> ops) -> ExprRef {
      ExprRef now = replaceOperands(old, ops);
      auto it = wrap.find(old);
      if (it == wrap.end())
        return now;
      Attrs attrs;
      attrs.set("virtual_device", AttrValue::ofDevice(deviceFor(m, rules[it->second])));
      auto placed =
          make<Call>(ExprRef(onDevice), SmallVector<ExprRef, 2>{now}, std::move(attrs), old->loc);
      placed->checkedType = now->checkedType;
      return placed;
    });
  }

  Module &m;
  ArrayRef<PlaceRule> rules;
  DiagEngine &diags;
  std::vector<GlobPattern> globs;
  std::vector<bool> used;
};

class PlacePass : public Pass {
public:
  PlacePass() {
    addListOption(
        "place", kPlaceValueName, placeDescription(),
        [this](StringRef v, std::string &error) { return parsePlaceRules(v, rules, error); });
  }
  StringRef getArgument() const override { return "place"; }
  StringRef getDescription() const override {
    return "Put the operator calls --place names on their devices (on_device annotations)";
  }
  bool run(Module &m, PassContext &ctx) override {
    placeCalls(m, rules, ctx.diags);
    return true;
  }

private:
  std::vector<PlaceRule> rules;
};
} // namespace

std::vector<PlacedByRule> hx::placeCalls(Module &m, ArrayRef<PlaceRule> rules, DiagEngine &diags) {
  if (rules.empty())
    return {};
  Placer p(m, rules, diags);
  p.run();
  return std::move(p.placed);
}

std::unique_ptr<Pass> hx::createPlacePass() { return std::make_unique<PlacePass>(); }
