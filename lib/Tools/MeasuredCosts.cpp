//===- MeasuredCosts.cpp - A cost table from a profiled run ---------------===//
//
// See hx/Tools/MeasuredCosts.h. Steps are keyed by what plan-devices can see
// before anything runs: an operator call's signature (its types and
// attributes) and the kind of physical device it ran on, so a table measured
// on one module prices the same calls in another.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/MeasuredCosts.h"
#include "hx/IR/Module.h"
#include <map>
#include <vector>

using namespace hx;
using namespace llvm;

CostModel hx::measuredCosts(const Executable &exe, const RunProfile &profile, const Module &m) {
  // The kind of the physical device each virtual device ran on ("cpu:1" for
  // a cuda virtual device on a machine without a GPU is a cpu measurement).
  auto kindName = [&](unsigned device) {
    std::string name = exe.deviceName(device);
    std::optional<DeviceType> t = parseDeviceType(StringRef(name).split(':').first);
    if (!t && device < m.devices.size())
      t = m.devices[device].deviceType;
    return deviceTypeName(t.value_or(DeviceType::CPU)).str();
  };
  std::map<std::pair<std::string, std::string>, std::pair<double, uint64_t>> ops;
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> links;
  ArrayRef<Step> steps = exe.steps();
  ArrayRef<Buffer> buffers = exe.buffers();
  for (const RunProfile::StepTime &t : profile.steps) {
    const Step &st = steps[t.step];
    if (st.kind == Step::Kind::Kernel && !st.signature.empty()) {
      auto &e = ops[{st.signature, kindName(st.device)}];
      e.first += t.seconds;
      ++e.second;
    } else if (st.kind == Step::Kind::Copy && st.buffers.size() == 2) {
      const Buffer &from = buffers[st.buffers[0]], &to = buffers[st.buffers[1]];
      links[{kindName(from.device), kindName(to.device)}].push_back(
          {static_cast<double>(from.bytes), t.seconds});
    }
  }
  CostModel table;
  for (auto &[k, v] : ops)
    table.operators[k] = {v.first / static_cast<double>(v.second), v.second};
  for (auto &[k, samples] : links) {
    double n = static_cast<double>(samples.size()), sb = 0, st = 0, sbb = 0, sbt = 0;
    for (auto [b, s] : samples) {
      sb += b;
      st += s;
      sbb += b * b;
      sbt += b * s;
    }
    CopyLink link{sb > 0 && st > 0 ? sb / st : 1e9, 0};
    double den = n * sbb - sb * sb;
    if (samples.size() >= 2 && den > 0) {
      double slope = (n * sbt - sb * st) / den; // seconds per byte
      double latency = (st - slope * sb) / n;
      if (slope > 0 && latency >= 0)
        link = {1 / slope, latency};
    }
    table.copies[k] = {link, samples.size()};
  }
  return table;
}
