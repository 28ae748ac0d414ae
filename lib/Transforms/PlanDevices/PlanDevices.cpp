//===- PlanDevices.cpp - Give every expression a device -------------------===//
//
// plan-devices gives every expression of a module a virtual device, honouring
// `on_device` annotations, parameter and function devices and explicit
// `device_copy`s, and inserts a `device_copy` wherever a value produced on one
// device is consumed on another. Its output is what the backend executes. The
// reference is TVM Relay's PlanDevices (src/relay/transforms/device_planner.cc);
// docs/plan-devices.md is the specification.
//
// Example (seed 000, default device cuda):
//
//   def @main(%a, %b, %c) {                 def @main(%a {cpu}, %b {cpu}, %c {cuda},
//     %0 = add(%a, %b);                               virtual_device=cuda) {
//     %1 = on_device(%0, cpu);        ==>     %0 = add(%a, %b);
//     %2 = add(%b, %c);                       %1 = on_device(%0, cpu, constrain_result=True);
//     %3 = on_device(%2, cuda);               %2 = device_copy(%1, cpu, cuda);
//     subtract(%1, %3)                        %3 = device_copy(%b, cpu, cuda);
//   }                                         %4 = add(%3, %c);
//                                             subtract(%2, %4)
//                                           }
//
// Phases, def by def in module order first, each def read from memory once
// and then walked (postOrder) while its nodes are in the cache:
//  0. Types (TypeInference::inferDef; copies are costed in bytes). The
//     analysis' diagnostics wait until every def is typed, so a module with
//     type errors reports only those, as if infer-type had run first.
//  1. Rewrite (Capture.cpp, rewriteOnDevices, over the walked order):
//     `on_device(e, D).i` becomes `on_device(e.i, D)` so only the needed field
//     is copied; a normal on_device that is let-bound or a whole function body
//     becomes fixed. Only a def whose walk met an on_device under a
//     projection, let or function is rewritten, and then walked again.
//  2a. Constraints (DeviceAnalysis::addDef): unification of device domains
//     (DeviceDomains.cpp: a device, a free variable, or fn(D1..Dn):Dr) over
//     the whole module. Beyond TVM, a value used more than once is not forced
//     onto one domain with all its uses: its uses are recorded as soft edges.
//     Operators a device's target lacks (argsort, topk on cuda) are placed on
//     the cpu (unless --strict-placement, which makes that an error).
//  Then def by def in canonical def order (callees first, ties by name;
//  DeviceAnalysis::solve):
//  2b. Shared values (SharedValues.cpp): each lives where its producer puts
//     it, else where it costs the fewest bytes moved, and is copied once to
//     each other device.
//  Then the def settles (3 and 4), right away if no class that holds its
//  domains and another def's is still free (the domains tag each class with
//  its defs): nothing later can move its devices, and its nodes are still in
//  the cache. The others settle together after every def's shared values,
//  in canonical order. Either way the result is the same.
//  3. Default: free on_devices join their body; unconstrained function
//     results take the default device, then their parameters the result's;
//     let variables their let's; everything else the default device.
//     Target checks run last, over every def in canonical order.
//  4. Capture (Capture.cpp, captureDef, over the walked order):
//     parameters and functions get their devices, user on_devices are
//     removed, let-bound values are wrapped in fixed on_devices, and
//     `device_copy(on_device(x, S, fixed), S, T)` is inserted where an edge
//     crosses devices (no on_device around variables, globals and functions),
//     one copy per value and destination, shared. Only a soft edge can cross
//     devices (a hard edge's ends are unified), and once its value is placed
//     (2b) most soft edges provably do not (same class, or bound to the same
//     device). So the capture visits only the annotations, lets, functions,
//     the consumers of annotations and those of soft edges that may still
//     cross (listed by addDef and 2b), and changes them in place when the def
//     owns them all; otherwise it rebuilds the def, copying the nodes
//     something else holds.
//
// Guarantees: every parameter and function has a device; every cross-device
// edge goes through a device_copy; planning a planned module changes nothing;
// output depends only on program order (never on hash order or addresses, nor
// on the order of defs: unification has one solution whatever the order of
// its constraints, and every later step follows the canonical def order).
// Unsatisfiable constraints are located errors with a note per constraint;
// of several, the one met first in module order is reported.
//
// What later passes may rely on (the contract hx/IR/DeviceAware.h states
// and readPlannedDevices reads): every def, fn literal and parameter has a
// device; on_device(e, D, constrain_result=True) and device_copy(e, S, T) say
// where their operand lives; arguments of a call of a known function live on
// its parameter devices; everything else lives where its consumer expects.
// The placement report, the Graphviz view and the executor read devices this
// way, never by running the analysis again.
//
// Complexity: linear in the module. Each def is walked once (iteratively, no
// recursion on depth) and later steps reuse that order; per-node facts live
// in vectors indexed through ExprNumbering, not in maps keyed by address; the
// union-find is near-constant per operation. `--time-passes` shows the phases.
//
// --place=PATTERN=DEVICE (Place.cpp) first wraps the operator calls it names
// in on_devices, as the place pass does: the user's annotations without
// editing the text.
//
// --placement=min-copy|min-time (MinCutPlacement.cpp) replaces phase 2b's
// greedy choice and phase 3's defaults for every class a copy or an
// operator's cost involves with minimum cuts: exact for two devices.
//
// Limitations (TODO): one device signature per function (no specialisation
// per call site); under the default placement, the choice for a shared value
// is greedy in program order and counts bytes only.
//
//===----------------------------------------------------------------------===//
#include "Capture.h"
#include "DeviceAnalysis.h"
#include "hx/Transforms/CostModel.h"
#include "hx/Transforms/DeviceReport.h"
#include "hx/Transforms/Passes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace hx;
using namespace llvm;

namespace {
class PlanDevicesPass : public PlacementPass {
public:
  PlanDevicesPass() : PlacementPass(/*planning=*/true) {}
  StringRef getArgument() const override { return "plan-devices"; }
  StringRef getDescription() const override {
    return "Give every expression a device and insert device_copy at device boundaries";
  }

  bool run(Module &m, PassContext &ctx) override {
    std::vector<PlacedByRule> placed;
    if (!options.place.empty()) {
      TimeScope t(ctx.timing, "place");
      placed = placeCalls(m, options.place, ctx.diags);
    }
    CostModel costs;
    if (!options.costTable.empty()) {
      std::string error;
      if (!costs.load(options.costTable, error)) {
        ctx.diags.error(SMLoc(), error);
        return false;
      }
    }
    raw_ostream &report = ctx.reports ? *ctx.reports : errs();
    if (options.placementReport && options.placement != PlacementStrategy::Default &&
        !reportStrategy(report, m, ctx, costs))
      return false;
    if (!placeDevices(m, ctx, options, /*plan=*/true, &costs))
      return false;
    if (!placed.empty())
      notePulledCalls(m, ctx, placed);
    if (options.placementReport)
      return printPlacementReport(report, m, ctx.diags);
    return true;
  }

private:
  /// A note for a --place rule that put a few calls on a device other than
  /// the default and, with them, nearly every call of the module there:
  /// under the default placement a value's readers follow it to its
  /// device, so one rule can move a whole network.
  void notePulledCalls(Module &m, PassContext &ctx, ArrayRef<PlacedByRule> placed) {
    PlacementData data;
    if (!collectPlacement(m, ctx.diags, data))
      return;
    DeviceAnalysisOptions resolved;
    resolveDeviceOptions(m, options, resolved, /*fallback=*/false);
    size_t total = data.calls.size();
    for (size_t i = 0; i < placed.size(); ++i) {
      DeviceIndex d = placed[i].device;
      if (d == kNoDevice || d == resolved.defaultDevice || total < 10)
        continue;
      size_t there =
          llvm::count_if(data.calls, [&](const PlacedCall &c) { return c.deviceIndex == d; });
      if (there * 10 < total * 9 || placed[i].calls * 2 > there)
        continue;
      ctx.diags.report(Severity::Note, SMLoc(),
                       "--place: rule '" + options.place[i].text + "' placed " +
                           Twine(placed[i].calls) + (placed[i].calls == 1 ? " call" : " calls") +
                           ", and with them " + Twine(there) + " of the module's " + Twine(total) +
                           " calls run on " + m.devices[d].shortName() +
                           ": under the default placement a value's readers follow it to its "
                           "device (--placement=min-time places the other calls by cost)");
    }
  }

  /// The chosen strategy's copies and estimated time next to the default
  /// placement's, from two solves that leave the IR unplaced.
  bool reportStrategy(raw_ostream &os, Module &m, PassContext &ctx, const CostModel &costs) {
    PlacementOptions defaults = options;
    defaults.placement = PlacementStrategy::Default;
    PlacementCost chosen, tvm;
    PlacementStats stats;
    // The default placement may fail where the chosen one does not (an
    // operator TVM's rule puts on a device that lacks it, under
    // --strict-placement): then the report says so, quietly.
    DiagEngine quiet(ctx.diags.getSourceMgr());
    bool tvmFailed = false;
    quiet.setHandler([&](const Diagnostic &d) { tvmFailed |= d.severity == Severity::Error; });
    PassContext quietCtx{quiet, nullptr, ctx.reports};
    bool tvmOk = placeDevices(m, quietCtx, defaults, /*plan=*/true, &costs, &tvm) && !tvmFailed;
    if (!placeDevices(m, ctx, options, /*plan=*/true, &costs, &chosen, &stats))
      return false;
    StringRef name = options.placement == PlacementStrategy::MinCopy ? "min-copy" : "min-time";
    os << "// ---- placement: " << name << " ----\n";
    auto line = [&](StringRef who, const PlacementCost &c) {
      os << format("%-10s", (who + ":").str().c_str()) << c.copies
         << (c.copies == 1 ? " copy, " : " copies, ") << c.bytes << " bytes; estimated "
         << format("%.6f ms (copies %.6f ms, operators %.6f ms)\n",
                   1e3 * (c.copySeconds + c.computeSeconds), 1e3 * c.copySeconds,
                   1e3 * c.computeSeconds);
    };
    line(name, chosen);
    if (tvmOk)
      line("default", tvm);
    else
      os << "default:  fails (its placement breaks a constraint)\n";
    os << "cut: " << stats.classes << " free classes, " << stats.terms << " copy terms; "
       << stats.moves << (stats.moves == 1 ? " move, " : " moves, ") << stats.nodes << " nodes, "
       << stats.arcs << " arcs, " << stats.augmentations << " augmentations, " << stats.orphans
       << " orphans; cost " << stats.initialEnergy << " -> " << stats.finalEnergy
       << (options.placement == PlacementStrategy::MinCopy ? " bytes" : " ps") << "\n";
    return true;
  }
};
} // namespace

std::unique_ptr<Pass> hx::createPlanDevicesPass() { return std::make_unique<PlanDevicesPass>(); }
