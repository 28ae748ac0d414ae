//===- TargetKind.cpp - The table of target kinds -------------------------===//
//
// The roofline figures are round numbers of the machines hx is measured on
// (a server core's vector units and DRAM; an H100's fp32 rate and HBM; PCIe
// between them): placement needs their ratios more than their values, and
// a measured cost table (hx-run --cost-table-out) replaces them.
//
// A new kind is one entry here; a backend that compiles for it registers in
// lib/Targets.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace hx {

namespace {
constexpr StringRef kLLVMAliases[] = {"c"};
constexpr TargetOptionInfo kLLVMOptions[] = {
    {"mcpu", "the CPU to generate code for (native: the host's)"},
    {"mattr", "target features to add or remove (+avx2,-fma)"},
    {"keys", "TVM's target keys (cpu)"},
};
constexpr StringRef kCUDAAliases[] = {"nvptx"};
constexpr TargetOptionInfo kCUDAOptions[] = {
    {"arch", "the PTX architecture (sm_80, sm_90)"},
    {"mcpu", "the same as -arch"},
    {"keys", "TVM's target keys (cuda, gpu)"},
};

const TargetKindInfo kKinds[] = {
    {"llvm", kLLVMAliases, DeviceType::CPU, kTargetCPU,
     /*peaks=*/{50e9, 20e9, 1e-6},
     /*hostLink=*/{10e9, 1e-6}, /*peerLink=*/{10e9, 1e-6}, kLLVMOptions},
    {"cuda", kCUDAAliases, DeviceType::CUDA, kTargetCUDA,
     /*peaks=*/{50e12, 2.0e12, 5e-6},
     /*hostLink=*/{20e9, 10e-6}, /*peerLink=*/{200e9, 10e-6}, kCUDAOptions},
};
} // namespace

ArrayRef<TargetKindInfo> allTargetKinds() { return kKinds; }

const TargetKindInfo *lookupTargetKind(StringRef name) {
  for (const TargetKindInfo &k : kKinds)
    if (k.name == name || is_contained(k.aliases, name))
      return &k;
  return nullptr;
}

const TargetKindInfo &targetKindOf(const Target &t) {
  if (const TargetKindInfo *k = lookupTargetKind(t.kind))
    return *k;
  return kKinds[0];
}

bool everyTargetKindSupports(const OpDef &op) {
  return all_of(kKinds, [&](const TargetKindInfo &k) { return k.supports(op); });
}

const TargetKindInfo *firstKindLacking(ArrayRef<VirtualDevice> devices, const OpDef &op) {
  for (const VirtualDevice &d : devices)
    if (!targetSupportsOp(d.target, op))
      return &targetKindOf(d.target);
  return nullptr;
}

CopyLink defaultCopyLink(const Target &from, const Target &to) {
  const TargetKindInfo &a = targetKindOf(from), &b = targetKindOf(to);
  if (&a == &b)
    return a.peerLink;
  // Across kinds, the device that is not the host's sets the link.
  return a.isHost() ? b.hostLink : a.hostLink;
}

} // namespace hx
