//===- PlacementReport.cpp - --placement-report and --emit=dot ------------===//
//
// Both views read a planned module's devices through its contract
// (hx/IR/DeviceAware.h), typing it first if it came from text, and walk it in
// program order. The report prints what collectPlacement gathers in that walk
// (the Python API reads the same data); each call and copy names the
// framework node it came from (its Loc's, hx/Support/SourceNames.h).
//
//===----------------------------------------------------------------------===//
#include "hx/IR/DeviceAware.h"
#include "hx/IR/TargetKind.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Transforms/CostModel.h"
#include "hx/Transforms/DeviceReport.h"
#include "hx/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace hx;
using namespace llvm;

namespace {
std::string where(SourceMgr &sm, SMLoc loc) {
  if (!loc.isValid() || !sm.FindBufferContainingLoc(loc))
    return "?";
  auto [line, col] = sm.getLineAndColumn(loc);
  return std::to_string(line) + ":" + std::to_string(col);
}

/// What a copy copies: `%b`, `add at 7:8`, or with the framework node it
/// came from `nn.relu at 7:8 (/relu/Relu)`.
std::string describe(SourceMgr &sm, const Expr *e) {
  if (auto *c = dyn_cast<Call>(e); c && c->isOp(kOnDevice))
    e = c->args[0].get();
  if (auto *v = dyn_cast<Var>(e))
    return "%" + v->name;
  std::string s;
  if (auto *c = dyn_cast<Call>(e)) {
    std::string name = c->getOp() ? c->getOp()->name
                       : isa<GlobalVar>(c->callee.get())
                           ? "@" + cast<GlobalVar>(c->callee.get())->name
                           : std::string("call");
    s = name + " at " + where(sm, c->loc);
  } else {
    s = "value at " + where(sm, e->loc);
  }
  if (const SourceNode *n = e->loc.getNode())
    s += " (" + (n->name().empty() ? (n->framework() + ":" + n->opType()).str() : n->name().str()) +
         ")";
  return s;
}

/// Types the module if it is not typed yet and reads its devices.
bool analyse(Module &m, DiagEngine &diags, PlannedDevices &out, StringRef who) {
  bool typed = llvm::all_of(m.defs, [](const Module::Def &d) { return bool(d.fn->checkedType); });
  if (!typed && !inferTypes(m, diags))
    return false;
  return readPlannedDevices(m, diags, out, who);
}

DeviceIndex deviceAttr(const Call &c, StringRef name) {
  const AttrValue *v = c.attrs.get(name);
  return v && v->kind == AttrValue::Kind::Device ? DeviceIndex(v->intValue) : kNoDevice;
}

/// The device kind lacking the operator that the cpu runs `c` for, when it
/// runs there because another device of the module lacks it.
const TargetKindInfo *fallbackFrom(const Module &m, const PlannedDevices &a, const Call &c) {
  const OpDef *def = c.getOp()->def;
  DeviceIndex d = a.deviceOf(&c);
  if (!def || d == kNoDevice || !targetKindOf(m.devices[d].target).isHost())
    return nullptr;
  return firstKindLacking(m.devices, *def);
}

using PairTotals = std::map<std::pair<DeviceIndex, DeviceIndex>, std::pair<unsigned, uint64_t>>;

void printTotals(raw_ostream &os, StringRef indent, const PairTotals &totals,
                 const std::vector<VirtualDevice> &devices) {
  auto name = [&](DeviceIndex d) {
    return d == kNoDevice ? std::string("?") : devices[d].shortName();
  };
  for (auto &[k, v] : totals)
    os << indent << name(k.first) << " -> " << name(k.second) << ": " << v.first
       << (v.first == 1 ? " copy, " : " copies, ") << v.second << " bytes\n";
}
} // namespace

bool hx::collectPlacement(Module &m, DiagEngine &diags, PlacementData &out) {
  out = PlacementData();
  PlannedDevices a;
  if (!analyse(m, diags, a, "--placement-report"))
    return false;
  SourceMgr &sm = diags.getSourceMgr();
  auto name = [&](DeviceIndex d) {
    return d == kNoDevice ? std::string("?") : m.devices[d].shortName();
  };
  unsigned order = 0;
  CostModel roofline;
  std::vector<PlacedTotals> perDevice(m.devices.size());
  out.copyTotals.device = "copies";
  for (const Module::Def &def : m.defs) {
    const std::string &fn = def.global->name;
    PlacedFunction &f = out.functions.emplace_back();
    f.name = fn;
    f.resultDevice = name(def.fn->resultDevice);
    for (const Ref<Var> &p : def.fn->params)
      f.params.emplace_back(p->name, name(a.varDevice(p.get())));
    walkPostOrder(def.fn.get(), [&](Expr *e) {
      auto *c = dyn_cast<Call>(e);
      if (!c || !c->getOp() || c->isOp(kOnDevice))
        return;
      if (c->isOp(kDeviceCopy)) {
        PlacedCopy &k = out.copies.emplace_back();
        k.function = fn;
        k.what = describe(sm, c->args[0].get());
        k.fromIndex = deviceAttr(*c, "src_virtual_device");
        k.toIndex = deviceAttr(*c, "dst_virtual_device");
        k.from = name(k.fromIndex);
        k.to = name(k.toIndex);
        k.bytes = storageBytes(c->checkedType.get());
        k.order = order++;
        ++out.copyTotals.calls;
        out.copyTotals.bytes += k.bytes;
        if (k.fromIndex != kNoDevice && k.toIndex != kNoDevice)
          out.copyTotals.seconds +=
              roofline.copySeconds(m.devices[k.fromIndex], m.devices[k.toIndex], k.bytes);
        return;
      }
      PlacedCall &p = out.calls.emplace_back();
      p.function = fn;
      p.op = c->getOp()->name;
      p.deviceIndex = a.deviceOf(c);
      p.device = name(p.deviceIndex);
      p.loc = c->loc;
      p.where = where(sm, c->loc);
      if (const SourceNode *n = c->loc.getNode()) {
        p.framework = n->framework().str();
        p.nodeOpType = n->opType().str();
        p.node = n->name().str();
      }
      if (const TargetKindInfo *lacking = fallbackFrom(m, a, *c))
        p.fallback = ("no " + lacking->name + " implementation").str();
      p.order = order++;
      if (p.deviceIndex != kNoDevice) {
        PlacedTotals &t = perDevice[p.deviceIndex];
        ++t.calls;
        t.bytes += storageBytes(c->checkedType.get());
        t.seconds += roofline.opSeconds(*c, m.devices[p.deviceIndex]);
      }
    });
  }
  for (size_t d = 0; d < perDevice.size(); ++d)
    if (perDevice[d].calls) {
      perDevice[d].device = name(DeviceIndex(d));
      out.devices.push_back(perDevice[d]);
    }
  return true;
}

bool hx::printPlacementReport(raw_ostream &os, Module &m, DiagEngine &diags) {
  PlacementData data;
  if (!collectPlacement(m, diags, data))
    return false;
  PairTotals total;
  size_t nextCall = 0, nextCopy = 0;
  os << "// ---- placement report ----\n";
  os << "devices (estimated by the roofline cost model):\n";
  auto totals = [&](const PlacedTotals &t, StringRef what, StringRef bytes) {
    os << "  " << t.device << ": " << t.calls << " " << what << ", " << t.bytes << " bytes "
       << bytes << ", " << format("%.3g", t.seconds * 1e3) << " ms\n";
  };
  for (const PlacedTotals &t : data.devices)
    totals(t, t.calls == 1 ? "call" : "calls", "written");
  totals(data.copyTotals, data.copyTotals.calls == 1 ? "copy" : "copies", "copied");
  for (const PlacedFunction &f : data.functions) {
    os << "@" << f.name << " (result on " << f.resultDevice << "):\n";
    for (const auto &[param, device] : f.params)
      os << "  param %" << param << " on " << device << "\n";
    PairTotals perFn;
    // The def's calls and copies, merged back into program order.
    while (true) {
      const PlacedCall *c = nextCall < data.calls.size() && data.calls[nextCall].function == f.name
                                ? &data.calls[nextCall]
                                : nullptr;
      const PlacedCopy *k =
          nextCopy < data.copies.size() && data.copies[nextCopy].function == f.name
              ? &data.copies[nextCopy]
              : nullptr;
      if (!c && !k)
        break;
      if (k && (!c || k->order < c->order)) {
        os << "  copy " << k->what << ": " << k->from << " -> " << k->to << ", " << k->bytes
           << " bytes\n";
        auto &pf = perFn[{k->fromIndex, k->toIndex}];
        ++pf.first;
        pf.second += k->bytes;
        ++nextCopy;
        continue;
      }
      os << "  " << c->op << " at " << c->where << " on " << c->device;
      if (!c->nodeOpType.empty()) {
        os << " (" << c->framework << ":" << c->nodeOpType;
        if (!c->node.empty())
          os << " " << c->node;
        os << ")";
      }
      if (!c->fallback.empty())
        os << " (cpu fallback: " << c->fallback << ")";
      os << "\n";
      ++nextCall;
    }
    printTotals(os, "  copied ", perFn, m.devices);
    for (auto &[k, v] : perFn) {
      total[k].first += v.first;
      total[k].second += v.second;
    }
  }
  os << "total:";
  if (total.empty())
    os << " no copies";
  os << "\n";
  printTotals(os, "  ", total, m.devices);
  return true;
}

bool hx::printDeviceGraph(raw_ostream &os, Module &m, DiagEngine &diags) {
  PlannedDevices a;
  if (!analyse(m, diags, a, "--emit=dot"))
    return false;
  SourceMgr &sm = diags.getSourceMgr();
  static const char *palette[] = {"#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#fb9a99", "#ffff99"};
  auto color = [&](DeviceIndex d) {
    return d == kNoDevice ? "white" : palette[d % (sizeof(palette) / sizeof(*palette))];
  };
  os << "digraph hx {\n  rankdir=TB;\n  node [style=filled, fontname=\"monospace\"];\n";
  os << "  subgraph cluster_legend {\n    label=\"devices\";\n";
  for (size_t i = 0; i < m.devices.size(); ++i)
    os << "    dev" << i << " [label=\"" << m.devices[i].shortName() << " ("
       << m.devices[i].target.str() << ")\", shape=box, fillcolor=\"" << color(i) << "\"];\n";
  os << "  }\n";
  unsigned next = 0;
  for (const Module::Def &def : m.defs) {
    DenseMap<const Expr *, unsigned> ids;
    os << "  subgraph cluster_" << def.global->name << " {\n    label=\"@" << def.global->name
       << "\";\n";
    auto nodeOf = [&](const Expr *e) -> int {
      // on_device wrappers are transparent in the graph.
      if (auto *c = dyn_cast<Call>(e); c && c->isOp(kOnDevice))
        e = c->args[0].get();
      auto it = ids.find(e);
      return it == ids.end() ? -1 : static_cast<int>(it->second);
    };
    walkPostOrder(def.fn.get(), [&](Expr *e) {
      std::string label;
      DeviceIndex d = kNoDevice;
      if (auto *v = dyn_cast<Var>(e)) {
        label = "%" + v->name;
        d = a.varDevice(v);
      } else if (auto *c = dyn_cast<Call>(e);
                 c && c->getOp() && !c->isOp(kOnDevice) && !c->isOp(kDeviceCopy)) {
        label = c->getOp()->name + "\\n" + where(sm, c->loc);
        d = a.deviceOf(c);
      } else if (isa<Tuple>(e) || isa<TupleGetItem>(e) || isa<Constant>(e)) {
        label = isa<Tuple>(e) ? "tuple" : isa<Constant>(e) ? "const" : "proj";
        d = a.deviceOf(e);
      } else {
        return;
      }
      unsigned id = next++;
      ids[e] = id;
      os << "    n" << id << " [label=\"" << label << "\", fillcolor=\"" << color(d) << "\""
         << (isa<Var>(e) ? ", shape=ellipse" : ", shape=box") << "];\n";
      SmallVector<Expr *, 4> ops;
      getOperands(e, ops);
      for (Expr *op : ops) {
        const Expr *src = op;
        uint64_t bytes = 0;
        bool copy = false;
        if (auto *c = dyn_cast<Call>(op); c && c->isOp(kDeviceCopy)) {
          src = c->args[0].get();
          bytes = storageBytes(c->checkedType.get());
          copy = true;
        }
        int from = nodeOf(src);
        if (from < 0)
          continue;
        os << "    n" << from << " -> n" << id;
        if (copy)
          os << " [style=\"bold,dashed\", color=red, label=\"device_copy " << bytes << " B\"]";
        os << ";\n";
      }
    });
    os << "  }\n";
  }
  os << "}\n";
  return true;
}
