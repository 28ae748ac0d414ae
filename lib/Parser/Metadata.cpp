//===- Metadata.cpp - The #[metadata] section -----------------------------===//
//
// The metadata JSON is parsed by the grammar (rule `json`), so every value has
// a location. "VirtualDevice" and "PassConfig" are interpreted here,
// "relay.Constant" in Constants.cpp, and a whole TVM object graph (`"root"`,
// `"nodes"`, `"b64ndarrays"`) in TVMMetadata.cpp; any other key is kept
// verbatim (llvm::json) and printed back.
//
//===----------------------------------------------------------------------===//
#include "MetadataReaders.h"
#include "hx/IR/TargetKind.h"
#include <cmath>

using namespace hx;
using namespace llvm;
using P = HxParser;

std::vector<JsonMember> hx::membersOf(P::JsonObjectContext *obj) {
  std::vector<JsonMember> out;
  for (auto *m : obj->jsonMember())
    out.push_back({tok(m->STRING()), m->json()});
  return out;
}

P::JsonContext *hx::memberOf(P::JsonObjectContext *obj, StringRef key) {
  for (auto *m : obj->jsonMember())
    if (unescapeString(tok(m->STRING())->text()) == key)
      return m->json();
  return nullptr;
}

std::optional<std::string> hx::jsonString(P::JsonContext *ctx) {
  if (auto *s = dynamic_cast<P::JsonStringContext *>(ctx))
    return unescapeString(tok(s->STRING())->text());
  return std::nullopt;
}

std::optional<int64_t> hx::jsonInt(P::JsonContext *ctx) {
  int64_t i;
  if (auto *n = dynamic_cast<P::JsonNumberContext *>(ctx))
    if (!tok(n->NUMBER())->text().getAsInteger(10, i))
      return i;
  return std::nullopt;
}

std::string hx::describeJson(P::JsonContext *ctx) {
  if (dynamic_cast<P::JsonObjectContext *>(ctx))
    return "an object";
  if (dynamic_cast<P::JsonArrayContext *>(ctx))
    return "an array";
  if (dynamic_cast<P::JsonStringContext *>(ctx))
    return "a string";
  if (dynamic_cast<P::JsonNumberContext *>(ctx))
    return "a number";
  if (dynamic_cast<P::JsonBoolContext *>(ctx))
    return "a boolean";
  return "null";
}

namespace {
// Keeps a metadata value the IR does not interpret. False after reporting a
// number that no double holds (it would print as `inf`, which is no JSON).
bool toJSON(P::JsonContext *ctx, DiagEngine &diags, json::Value &out) {
  if (auto *o = dynamic_cast<P::JsonObjectContext *>(ctx)) {
    json::Object obj;
    for (auto &m : membersOf(o))
      if (!toJSON(m.value, diags, obj[unescapeString(m.key->text())]))
        return false;
    out = std::move(obj);
    return true;
  }
  if (auto *a = dynamic_cast<P::JsonArrayContext *>(ctx)) {
    json::Array arr;
    for (auto *e : a->json()) {
      arr.push_back(nullptr);
      if (!toJSON(e, diags, arr.back()))
        return false;
    }
    out = std::move(arr);
    return true;
  }
  if (auto *s = dynamic_cast<P::JsonStringContext *>(ctx)) {
    out = unescapeString(tok(s->STRING())->text());
    return true;
  }
  if (auto *n = dynamic_cast<P::JsonNumberContext *>(ctx)) {
    HxToken *t = tok(n->NUMBER());
    int64_t i;
    if (!t->text().getAsInteger(10, i)) {
      out = i;
      return true;
    }
    double d = std::strtod(t->text().str().c_str(), nullptr);
    if (std::isinf(d)) {
      diags.error(locOf(t), "number '" + t->text() + "' is out of range").range(rangeOf(t));
      return false;
    }
    out = d;
    return true;
  }
  if (auto *b = dynamic_cast<P::JsonBoolContext *>(ctx)) {
    out = b->J_TRUE() != nullptr;
    return true;
  }
  out = nullptr;
  return true;
}

} // namespace

namespace hx {
// Reads a device type given as a name or a DLPack number.
static bool readDeviceType(P::JsonContext *v, DiagEngine &diags, DeviceType &out) {
  std::optional<DeviceType> t;
  if (auto *s = dynamic_cast<P::JsonStringContext *>(v))
    t = parseDeviceType(unescapeString(tok(s->STRING())->text()));
  else if (auto *n = dynamic_cast<P::JsonNumberContext *>(v)) {
    int64_t i;
    if (!tok(n->NUMBER())->text().getAsInteger(10, i))
      t = deviceTypeFromNumber(i);
  } else {
    diags.error(locOf(v->getStart()),
                "device type must be a name or a number, not " + describeJson(v));
    return false;
  }
  if (!t) {
    std::vector<std::string> types;
    for (DeviceType dt : allDeviceTypes())
      types.push_back("\"" + deviceTypeName(dt).str() + "\" (" + std::to_string(int32_t(dt)) + ")");
    diags.error(locOf(v->getStart()), "unknown device type " + v->getStart()->getText() +
                                          " (expected " + joinChoices(types) + ")");
    return false;
  }
  out = *t;
  return true;
}

bool readVirtualDevice(P::JsonContext *ctx, DiagEngine &diags, VirtualDevice &d) {
  auto *obj = dynamic_cast<P::JsonObjectContext *>(ctx);
  if (!obj) {
    diags.error(locOf(ctx->getStart()),
                "a virtual device must be an object, not " + describeJson(ctx));
    return false;
  }
  d.loc = locOf(ctx->getStart());
  bool haveType = false;
  P::JsonContext *targetCtx = nullptr;
  std::string target;
  for (auto &m : membersOf(obj)) {
    std::string key = unescapeString(m.key->text());
    if (key == "device_type") {
      if (!readDeviceType(m.value, diags, d.deviceType))
        return false;
      haveType = true;
    } else if (key == "virtual_device_id") {
      auto *n = dynamic_cast<P::JsonNumberContext *>(m.value);
      int64_t id;
      if (!n || tok(n->NUMBER())->text().getAsInteger(10, id) || id < 0 || id > 1 << 20) {
        diags.error(locOf(m.value->getStart()),
                    "virtual_device_id must be a small non-negative integer");
        return false;
      }
      d.virtualDeviceId = id;
    } else if (key == "target") {
      auto *s = dynamic_cast<P::JsonStringContext *>(m.value);
      if (!s) {
        std::vector<std::string> kinds;
        for (DeviceType dt : allDeviceTypes())
          kinds.push_back("\"" + defaultKindFor(dt)->name.str() + "\"");
        diags.error(locOf(m.value->getStart()),
                    "target must be a string such as " + joinChoices(kinds));
        return false;
      }
      targetCtx = m.value;
      target = unescapeString(tok(s->STRING())->text());
    } else if (key == "memory_scope") {
      auto *s = dynamic_cast<P::JsonStringContext *>(m.value);
      if (!s) {
        diags.error(locOf(m.value->getStart()), "memory_scope must be a string");
        return false;
      }
      d.memoryScope = unescapeString(tok(s->STRING())->text());
    } else {
      diags
          .error(locOf(m.key),
                 "unknown virtual device field '" + key +
                     "' (expected device_type, virtual_device_id, target, memory_scope)")
          .range(rangeOf(m.key));
      return false;
    }
  }
  if (!haveType) {
    diags.error(d.loc, "virtual device has no \"device_type\"");
    return false;
  }
  if (!targetCtx) {
    d.target = Target::defaultFor(d.deviceType);
    return true;
  }
  std::string err;
  std::optional<Target> t = Target::parse(target, err);
  if (!t) {
    diags.error(locOf(targetCtx->getStart()), "invalid target: " + err);
    return false;
  }
  if (t->deviceType() != d.deviceType) {
    diags.error(locOf(targetCtx->getStart()), "target '" + t->str() +
                                                  "' does not run on device type '" +
                                                  deviceTypeName(d.deviceType) + "'");
    return false;
  }
  d.target = std::move(*t);
  return true;
}
} // namespace hx

bool ParseTreeConverter::buildMetadata(P::JsonContext *ctx, bool fromCommandLine) {
  std::vector<VirtualDevice> devices;
  bool haveDevices = false;
  auto readDevices = [&](P::JsonContext *v) {
    auto *arr = dynamic_cast<P::JsonArrayContext *>(v);
    if (!arr) {
      diags.error(locOf(v->getStart()),
                  "\"VirtualDevice\" must be an array, not " + describeJson(v));
      return false;
    }
    for (auto *e : arr->json()) {
      VirtualDevice d;
      if (!readVirtualDevice(e, diags, d))
        return false;
      devices.push_back(std::move(d));
    }
    haveDevices = true;
    return true;
  };

  if (fromCommandLine && dynamic_cast<P::JsonArrayContext *>(ctx)) {
    if (!readDevices(ctx))
      return false;
    mod.devices = std::move(devices);
    return true;
  }
  auto *obj = dynamic_cast<P::JsonObjectContext *>(ctx);
  if (!obj) {
    diags.error(locOf(ctx->getStart()),
                "the metadata section must be a JSON object, not " + describeJson(ctx));
    return false;
  }
  if (!fromCommandLine && isTVMObjectGraph(obj)) {
    if (!readTVMObjectGraph(obj, diags, devices, constants))
      return false;
    mod.devices = std::move(devices);
    return true;
  }
  StringMap<HxToken *> seen;
  for (auto &m : membersOf(obj)) {
    std::string key = unescapeString(m.key->text());
    auto [it, inserted] = seen.try_emplace(key, m.key);
    if (!inserted) {
      diags.error(locOf(m.key), "duplicate metadata key '" + key + "'")
          .range(rangeOf(m.key))
          .note(locOf(it->second), "previous occurrence is here");
      return false;
    }
    if (key == "VirtualDevice") {
      if (!readDevices(m.value))
        return false;
    } else if (key == "relay.Constant" && !fromCommandLine) {
      if (!readConstantTable(m.value, diags, baseDir, held, constants))
        return false;
    } else if (key == "PassConfig") {
      auto *pc = dynamic_cast<P::JsonObjectContext *>(m.value);
      if (!pc) {
        diags.error(locOf(m.value->getStart()),
                    "\"PassConfig\" must be an object, not " + describeJson(m.value));
        return false;
      }
      if (fromCommandLine) {
        mod.fallbackDeviceType.reset();
        mod.passConfigExtra.clear();
      }
      for (auto &pm : membersOf(pc)) {
        std::string pkey = unescapeString(pm.key->text());
        if (pkey == "relay.fallback_device_type") {
          DeviceType t;
          if (!readDeviceType(pm.value, diags, t))
            return false;
          mod.fallbackDeviceType = t;
        } else {
          json::Value v = nullptr;
          if (!toJSON(pm.value, diags, v))
            return false;
          mod.passConfigExtra.emplace_back(pkey, std::move(v));
        }
      }
    } else if (fromCommandLine) {
      diags
          .error(locOf(m.key),
                 "unknown key '" + key +
                     "' in --virtual-devices (expected \"VirtualDevice\" or \"PassConfig\")")
          .range(rangeOf(m.key));
      return false;
    } else {
      json::Value v = nullptr;
      if (!toJSON(m.value, diags, v))
        return false;
      mod.extraMetadata.emplace_back(key, std::move(v));
    }
  }
  if (haveDevices)
    mod.devices = std::move(devices);
  return true;
}
