//===- CostModel.cpp - Estimated times for placement ---------------------===//
//
// See hx/Transforms/CostModel.h. The roofline's peaks and the default copy
// links are the target kinds' (hx/IR/TargetKind.h); a measured table
// replaces them.
//
//===----------------------------------------------------------------------===//
#include "hx/Transforms/CostModel.h"
#include "hx/IR/Expr.h"
#include "hx/IR/TargetKind.h"
#include "hx/Ops/OpCost.h"
#include "hx/Support/Files.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>

using namespace hx;
using namespace llvm;

double CostModel::opSeconds(const Call &c, const VirtualDevice &d) const {
  if (!operators.empty()) {
    auto it = operators.find({operatorSignature(c), deviceTypeName(d.deviceType).str()});
    if (it != operators.end())
      return it->second.seconds;
  }
  OpWork w = operatorWork(c);
  DevicePeaks p = targetKindOf(d.target).peaks;
  return std::max(w.flops / p.flopsPerSecond, w.bytes / p.bytesPerSecond) + p.launchSeconds;
}

CopyLink CostModel::link(const VirtualDevice &from, const VirtualDevice &to) const {
  if (!copies.empty()) {
    auto it =
        copies.find({deviceTypeName(from.deviceType).str(), deviceTypeName(to.deviceType).str()});
    if (it != copies.end())
      return it->second.first;
  }
  return defaultCopyLink(from.target, to.target);
}

bool CostModel::load(StringRef path, std::string &error) {
  Expected<std::unique_ptr<MemoryBuffer>> buf = readUserFile(path);
  if (!buf) {
    error = ("cannot read cost table '" + path + "': " + toString(buf.takeError())).str();
    return false;
  }
  return parse((*buf)->getBuffer(), path, error);
}

bool CostModel::parse(StringRef text, StringRef name, std::string &error) {
  auto fail = [&](const Twine &what) {
    error = ("cost table '" + name + "': " + what).str();
    return false;
  };
  Expected<json::Value> v = json::parse(text);
  if (!v)
    return fail(toString(v.takeError()));
  const json::Object *o = v->getAsObject();
  if (!o)
    return fail("expected a JSON object");
  std::optional<StringRef> format = o->getString("format");
  if (!format || *format != "hx-cost-table-1")
    return fail("expected \"format\": \"hx-cost-table-1\"");
  auto kindOf = [&](const json::Object &e, StringRef key, std::string &out) {
    std::optional<StringRef> s = e.getString(key);
    std::optional<DeviceType> t = s ? parseDeviceType(*s) : std::nullopt;
    if (!t)
      return false;
    out = deviceTypeName(*t).str();
    return true;
  };
  auto positive = [](std::optional<double> d) { return d && std::isfinite(*d) && *d >= 0; };
  if (const json::Array *ops = o->getArray("operators")) {
    for (size_t i = 0; i < ops->size(); ++i) {
      const json::Object *e = (*ops)[i].getAsObject();
      std::string kind;
      std::optional<StringRef> sig = e ? e->getString("signature") : std::nullopt;
      std::optional<double> secs = e ? e->getNumber("seconds") : std::nullopt;
      if (!e || !sig || !kindOf(*e, "device", kind) || !positive(secs))
        return fail("operators[" + Twine(i) + "]: expected \"signature\", \"device\" (" +
                    joinChoices(deviceTypeNames()) + ") and \"seconds\" >= 0");
      Measured &m = operators[{sig->str(), kind}];
      m.seconds = *secs;
      m.count = static_cast<uint64_t>(e->getInteger("count").value_or(1));
    }
  } else if (o->get("operators")) {
    return fail("\"operators\" must be an array");
  }
  if (const json::Array *cs = o->getArray("copies")) {
    for (size_t i = 0; i < cs->size(); ++i) {
      const json::Object *e = (*cs)[i].getAsObject();
      std::string from, to;
      std::optional<double> bw = e ? e->getNumber("bytes_per_second") : std::nullopt;
      std::optional<double> lat = e ? e->getNumber("latency_seconds") : std::nullopt;
      if (!e || !kindOf(*e, "from", from) || !kindOf(*e, "to", to) || !positive(bw) || *bw <= 0 ||
          !positive(lat))
        return fail("copies[" + Twine(i) +
                    "]: expected \"from\", \"to\", \"bytes_per_second\" > 0 and "
                    "\"latency_seconds\" >= 0");
      copies[{from, to}] = {{*bw, *lat}, static_cast<uint64_t>(e->getInteger("count").value_or(1))};
    }
  } else if (o->get("copies")) {
    return fail("\"copies\" must be an array");
  }
  return true;
}

void CostModel::write(raw_ostream &os) const {
  json::Array ops, cs;
  for (auto &[k, m] : operators)
    ops.push_back(json::Object{{"signature", k.first},
                               {"device", k.second},
                               {"seconds", m.seconds},
                               {"count", static_cast<int64_t>(m.count)}});
  for (auto &[k, l] : copies)
    cs.push_back(json::Object{{"from", k.first},
                              {"to", k.second},
                              {"bytes_per_second", l.first.bytesPerSecond},
                              {"latency_seconds", l.first.latencySeconds},
                              {"count", static_cast<int64_t>(l.second)}});
  json::Object root{
      {"format", "hx-cost-table-1"}, {"operators", std::move(ops)}, {"copies", std::move(cs)}};
  os << formatv("{0:2}", json::Value(std::move(root))) << "\n";
}
