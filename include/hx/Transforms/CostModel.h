//===- CostModel.h - Estimated times for placement --------------*- C++ -*-===//
//
// What plan-devices --placement=min-time minimizes: the time of each
// operator call on the device it runs on, plus the time of each copy
// (latency + bytes / bandwidth of the device pair). Two sources:
//  - a built-in roofline: an operator takes max(FLOPs / peak FLOP/s, bytes /
//    memory bandwidth) + a launch overhead, with FLOPs and bytes from its
//    types (hx/Ops/OpCost.h) and the peaks the device's target kind
//    declares (hx/IR/TargetKind.h);
//  - a measured cost table, the JSON `hx-run --profile --cost-table-out=F`
//    writes and `--cost-table=F` reads: seconds per operator signature and
//    device kind, bandwidth and latency per device-kind pair. Its entries
//    win; what it lacks falls back to the roofline.
//
// The table's format (hx-cost-table-1):
//   {"format": "hx-cost-table-1",
//    "operators": [{"signature": "add(float32, float32)", "device": "cpu",
//                   "seconds": 1.2e-06, "count": 10}, ...],
//    "copies": [{"from": "cpu", "to": "cuda", "bytes_per_second": 2.0e10,
//                "latency_seconds": 1.0e-05, "count": 4}, ...]}
//
//===----------------------------------------------------------------------===//
#ifndef HX_TRANSFORMS_COSTMODEL_H
#define HX_TRANSFORMS_COSTMODEL_H

#include "hx/IR/TargetKind.h"
#include "hx/IR/VirtualDevice.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <map>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace hx {
class Call;

class CostModel {
public:
  /// Seconds for the typed operator call `c` on the virtual device `d`.
  double opSeconds(const Call &c, const VirtualDevice &d) const;
  /// The copy link from device `from` to `to` (measured between their
  /// device types, else their target kinds' default), and the seconds it
  /// takes to copy `bytes`.
  CopyLink link(const VirtualDevice &from, const VirtualDevice &to) const;
  double copySeconds(const VirtualDevice &from, const VirtualDevice &to, uint64_t bytes) const {
    CopyLink l = link(from, to);
    return l.latencySeconds + static_cast<double>(bytes) / l.bytesPerSecond;
  }

  /// Reads a cost table (the format above). On error, `error` names the
  /// file and what is wrong with it.
  bool load(llvm::StringRef path, std::string &error);
  /// Parses a cost table from text; `name` is the file for messages.
  bool parse(llvm::StringRef text, llvm::StringRef name, std::string &error);
  /// Writes the table (entries sorted, so the output is deterministic).
  void write(llvm::raw_ostream &os) const;

  /// Measured entries: (signature, device kind) -> mean seconds and count.
  struct Measured {
    double seconds = 0;
    uint64_t count = 0;
  };
  std::map<std::pair<std::string, std::string>, Measured> operators;
  /// Measured links: (from kind, to kind) -> link, and its sample count.
  std::map<std::pair<std::string, std::string>, std::pair<CopyLink, uint64_t>> copies;
};

} // namespace hx

#endif
