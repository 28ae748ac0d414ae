//===- MemoryPlan.h - Static memory per device ------------------*- C++ -*-===//
//
// Every intermediate tensor of a schedule gets an offset in one arena per
// device, chosen from liveness so that buffers whose lifetimes do not overlap
// share memory (TVM's graph_plan_memory, ONNX Runtime's mem_pattern).
// Lifetimes are intervals of step positions in the linear schedule: from the
// step that first writes a buffer to the last step that reads it. Buffers
// are placed largest first at the lowest 64-byte-aligned offset where they
// overlap no placed buffer that is live at the same time (first fit). A
// buffer is never shared across devices: each device is planned alone.
// Parameters, outputs and constants are not planned here; they live outside
// the reused pool.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUNTIME_MEMORYPLAN_H
#define HX_RUNTIME_MEMORYPLAN_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hx {

struct PlannedBuffer {
  unsigned device = 0;
  uint64_t bytes = 0;
  /// Step positions: first write, last read (inclusive).
  unsigned firstStep = 0;
  unsigned lastStep = 0;
  /// Filled in by planMemory.
  uint64_t offset = 0;
};

struct MemoryPlan {
  /// Arena bytes per device (the peak of the plan).
  std::vector<uint64_t> arenaBytes;
  /// The sum of all buffer sizes per device (what no reuse would need).
  std::vector<uint64_t> totalBytes;
};

inline constexpr uint64_t kBufferAlignment = 64;

/// Assigns offsets to `buffers` (devices numbered 0..numDevices-1).
MemoryPlan planMemory(std::vector<PlannedBuffer> &buffers, unsigned numDevices);

} // namespace hx

#endif
