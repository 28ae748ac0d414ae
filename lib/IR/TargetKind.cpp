//===- TargetKind.cpp - The table of target kinds -------------------------===//
//
// The roofline figures are round numbers of the machines hx is measured on
// (docs/benchmarks.md): llvm, a server core's vector units and DRAM; cuda,
// an H200 — its fp32 rate as cuBLAS reaches it (50 TFLOP/s), 2 TB/s of HBM
// (under the 4.1 TB/s its device-to-device copies reach) and a PCIe link
// to the host. Placement needs their ratios more than their values, and a
// measured cost table (hx-run --cost-table-out) replaces them.
//
// A new kind is one entry here: its device type (DLPack's number and its
// names), the operators it lacks, its figures and options. A target that
// compiles for it is a folder of lib/Targets that registers itself.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/TargetKind.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace hx {

namespace {
constexpr StringRef kLLVMAliases[] = {"c"};
constexpr StringRef kLLVMDevices[] = {"cpu"};
constexpr TargetOptionInfo kLLVMOptions[] = {
    {"mcpu", "the CPU to generate code for (native: the host's)"},
    {"mattr", "target features to add or remove (+avx2,-fma)"},
    {"keys", "TVM's target keys (cpu)"},
};
constexpr StringRef kCUDAAliases[] = {"nvptx"};
constexpr StringRef kCUDADevices[] = {"cuda", "gpu"};
/// argsort and topk have no GPU kernel: plan-devices' cpu fallback. The
/// operators with a value-dependent shape (nonzero, NMS) are evaluated on
/// the host between stages, so they belong on the cpu.
constexpr StringRef kCUDALacks[] = {"argsort", "topk"};
constexpr TargetOptionInfo kCUDAOptions[] = {
    {"arch", "the PTX architecture (sm_80, sm_90)"},
    {"mcpu", "the same as -arch", "arch"},
    {"keys", "TVM's target keys (cuda, gpu)"},
};

const TargetKindInfo kKinds[] = {
    {"llvm", kLLVMAliases, DeviceType::CPU, kLLVMDevices, /*lacks=*/{},
     /*peaks=*/{50e9, 20e9, 1e-6},
     /*hostLink=*/{10e9, 1e-6}, /*peerLink=*/{10e9, 1e-6}, kLLVMOptions},
    {"cuda", kCUDAAliases, /*DLPack's kDLCUDA*/ DeviceType(2), kCUDADevices, kCUDALacks,
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

bool TargetKindInfo::supports(const OpDef &op) const {
  // An operator whose result shape depends on values has no kernel: the
  // host evaluates it between the stages of a run, so only a kind whose
  // devices share the host's memory runs it.
  if (op.valueDependentShape)
    return isHost();
  return !is_contained(lacks, op.name);
}

bool everyTargetKindSupports(const OpDef &op) {
  return all_of(kKinds, [&](const TargetKindInfo &k) { return k.supports(op); });
}

bool someTargetKindSupports(const OpDef &op) {
  return any_of(kKinds, [&](const TargetKindInfo &k) { return k.supports(op); });
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

const TargetKindInfo *defaultKindFor(DeviceType t) {
  for (const TargetKindInfo &k : kKinds)
    if (k.deviceType == t)
      return &k;
  return nullptr;
}

bool isHostType(DeviceType t) { return t == DeviceType::CPU; }

const TargetKindInfo *firstNonHostKind() {
  for (const TargetKindInfo &k : kKinds)
    if (!k.isHost())
      return &k;
  return nullptr;
}

std::vector<DeviceType> allDeviceTypes() {
  std::vector<DeviceType> out;
  for (const TargetKindInfo &k : kKinds)
    if (!is_contained(out, k.deviceType))
      out.push_back(k.deviceType);
  return out;
}

std::string joinChoices(ArrayRef<std::string> items, StringRef last) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i)
    s += (i == 0 ? "" : i + 1 == items.size() ? last.str() : ", ") + items[i];
  return s;
}

std::vector<std::string> deviceTypeNames() {
  std::vector<std::string> out;
  for (DeviceType t : allDeviceTypes())
    out.push_back(deviceTypeName(t).str());
  return out;
}

std::string deviceTypeChoices() {
  std::vector<std::string> items = deviceTypeNames();
  for (DeviceType t : allDeviceTypes())
    items.push_back(std::to_string(int32_t(t)));
  return joinChoices(items);
}

std::string deviceTypePlaceholder() { return join(deviceTypeNames(), "|") + "|N"; }

} // namespace hx
