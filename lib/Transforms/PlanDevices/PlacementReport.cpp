//===- PlacementReport.cpp - --placement-report and --emit=dot ------------===//
//
// Both views read a planned module's devices through its contract
// (hx/IR/DeviceAware.h), typing it first if it came from text, and walk it in
// program order.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/DeviceAware.h"
#include "hx/IR/TargetKind.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/OpRegistry.h"
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

/// What a copy copies: `%b`, or `add at 7:8`.
std::string describe(SourceMgr &sm, const Expr *e) {
  if (auto *c = dyn_cast<Call>(e); c && c->isOp(kOnDevice))
    e = c->args[0].get();
  if (auto *v = dyn_cast<Var>(e))
    return "%" + v->name;
  if (auto *c = dyn_cast<Call>(e)) {
    std::string name = c->getOp() ? c->getOp()->name
                       : isa<GlobalVar>(c->callee.get())
                           ? "@" + cast<GlobalVar>(c->callee.get())->name
                           : std::string("call");
    return name + " at " + where(sm, c->loc);
  }
  return "value at " + where(sm, e->loc);
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

/// An operator the cpu runs because another device of the module lacks it.
bool isFallback(const Module &m, const PlannedDevices &a, const Call &c) {
  const OpDef *def = c.getOp()->def;
  DeviceIndex d = a.deviceOf(&c);
  if (!def || d == kNoDevice || !targetKindOf(m.devices[d].target).isHost())
    return false;
  return firstKindLacking(m.devices, *def) != nullptr;
}
} // namespace

bool hx::printPlacementReport(raw_ostream &os, Module &m, DiagEngine &diags) {
  PlannedDevices a;
  if (!analyse(m, diags, a, "--placement-report"))
    return false;
  SourceMgr &sm = diags.getSourceMgr();
  auto name = [&](DeviceIndex d) {
    return d == kNoDevice ? std::string("?") : m.devices[d].shortName();
  };
  std::map<std::pair<DeviceIndex, DeviceIndex>, std::pair<unsigned, uint64_t>> total;
  os << "// ---- placement report ----\n";
  for (const Module::Def &def : m.defs) {
    os << "@" << def.global->name << " (result on " << name(def.fn->resultDevice) << "):\n";
    for (const Ref<Var> &p : def.fn->params)
      os << "  param %" << p->name << " on " << name(a.varDevice(p.get())) << "\n";
    std::map<std::pair<DeviceIndex, DeviceIndex>, std::pair<unsigned, uint64_t>> perFn;
    walkPostOrder(def.fn.get(), [&](Expr *e) {
      auto *c = dyn_cast<Call>(e);
      if (!c || !c->getOp() || c->isOp(kOnDevice))
        return;
      if (c->isOp(kDeviceCopy)) {
        DeviceIndex s = deviceAttr(*c, "src_virtual_device");
        DeviceIndex t = deviceAttr(*c, "dst_virtual_device");
        uint64_t bytes = storageBytes(c->checkedType.get());
        os << "  copy " << describe(sm, c->args[0].get()) << ": " << name(s) << " -> " << name(t)
           << ", " << bytes << " bytes\n";
        auto &pf = perFn[{s, t}];
        ++pf.first;
        pf.second += bytes;
        return;
      }
      os << "  " << c->getOp()->name << " at " << where(sm, c->loc) << " on "
         << name(a.deviceOf(c));
      if (isFallback(m, a, *c))
        os << " (cpu fallback: no " << firstKindLacking(m.devices, *c->getOp()->def)->name
           << " implementation)";
      os << "\n";
    });
    for (auto &[k, v] : perFn) {
      os << "  copied " << name(k.first) << " -> " << name(k.second) << ": " << v.first
         << (v.first == 1 ? " copy, " : " copies, ") << v.second << " bytes\n";
      total[k].first += v.first;
      total[k].second += v.second;
    }
  }
  os << "total:";
  if (total.empty())
    os << " no copies";
  os << "\n";
  for (auto &[k, v] : total)
    os << "  " << name(k.first) << " -> " << name(k.second) << ": " << v.first
       << (v.first == 1 ? " copy, " : " copies, ") << v.second << " bytes\n";
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
