//===- MemoryPlan.cpp - Static memory per device --------------------------===//
//
// First fit, largest buffer first (see MemoryPlan.h). For each buffer, the
// placed buffers of its device whose lifetimes overlap its own are the only
// constraints; among the gaps they leave (sorted by offset), the first that
// fits wins. O(n^2) in the buffers of one device, which stays small: a
// schedule of ten thousand kernels plans in milliseconds.
//
//===----------------------------------------------------------------------===//
#include "hx/Runtime/MemoryPlan.h"
#include <algorithm>
#include <numeric>

using namespace hx;

static uint64_t alignUp(uint64_t v) {
  return (v + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

MemoryPlan hx::planMemory(std::vector<PlannedBuffer> &buffers, unsigned numDevices) {
  MemoryPlan plan;
  plan.arenaBytes.assign(numDevices, 0);
  plan.totalBytes.assign(numDevices, 0);
  std::vector<unsigned> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first; ties by first use, then by index, so the plan is
  // deterministic.
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].firstStep < buffers[b].firstStep;
  });
  std::vector<std::vector<unsigned>> placed(numDevices);
  std::vector<std::pair<uint64_t, uint64_t>> busy; // [offset, end)
  for (unsigned i : order) {
    PlannedBuffer &b = buffers[i];
    uint64_t size = alignUp(std::max<uint64_t>(b.bytes, 1));
    plan.totalBytes[b.device] += size;
    busy.clear();
    for (unsigned j : placed[b.device]) {
      const PlannedBuffer &o = buffers[j];
      if (o.firstStep <= b.lastStep && b.firstStep <= o.lastStep)
        busy.push_back({o.offset, o.offset + alignUp(std::max<uint64_t>(o.bytes, 1))});
    }
    std::sort(busy.begin(), busy.end());
    uint64_t at = 0;
    for (auto [start, end] : busy) {
      if (start >= at + size)
        break;
      at = std::max(at, end);
    }
    b.offset = at;
    plan.arenaBytes[b.device] = std::max(plan.arenaBytes[b.device], at + size);
    placed[b.device].push_back(i);
  }
  return plan;
}
