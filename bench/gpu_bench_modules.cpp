//===- gpu_bench_modules.cpp - hx-gpu-bench's programs --------------------===//
//
// Each module is built as text, so that what is timed goes through the
// parser and plan-devices exactly as a user's file does.
//
//===----------------------------------------------------------------------===//
#include "gpu_bench_modules.h"
#include "llvm/ADT/ArrayRef.h"

namespace hx::bench {

/// The virtual devices every module's text uses: 0 cpu, 1 cuda.
static std::string metadata(const std::string &arch) {
  return "#[metadata]\n{\"VirtualDevice\": [{\"device_type\": \"cpu\"}, {\"device_type\": "
         "\"cuda\", \"target\": \"cuda -arch=" +
         arch + "\"}]}\n";
}

static std::string on(unsigned vd) {
  return "virtual_device=meta[VirtualDevice][" + std::to_string(vd) + "]";
}

static std::string tensor(llvm::ArrayRef<int64_t> shape) {
  std::string s = "Tensor[(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "), float32]";
}

static std::string param(const std::string &name, unsigned vd, llvm::ArrayRef<int64_t> shape) {
  return "%" + name + " {" + on(vd) + "}: " + tensor(shape);
}

static const char *const kHeader = "#[version = \"0.0.5\"]\n";

std::string addModule(int64_t n, const std::string &arch) {
  return kHeader +
         ("def @main(" + param("a", 1, {n}) + ", " + param("b", 1, {n}) + ", " + on(1) +
          ") {\n  add(%a, %b)\n}\n") +
         metadata(arch);
}

std::string denseModule(int64_t n, const std::string &arch) {
  return kHeader +
         ("def @main(" + param("data", 1, {n, n}) + ", " + param("weight", 1, {n, n}) + ", " +
          on(1) + ") {\n  nn.dense(%data, %weight, units=" + std::to_string(n) + ")\n}\n") +
         metadata(arch);
}

std::string copyModule(int64_t n, bool roundTrip, bool full, const std::string &arch) {
  std::string body = "%x";
  std::string s = kHeader + ("def @main(" + param("x", 0, {n}) + ", " + on(0) + ") {\n");
  if (roundTrip) {
    s += "  %0 = device_copy(%x, src_" + on(0) + ", dst_" + on(1) + ");\n";
    s += "  %1 = device_copy(%0, src_" + on(1) + ", dst_" + on(0) + ");\n";
    body = "%1";
  }
  return s + "  " + (full ? body : "max(" + body + ")") + "\n}\n" + metadata(arch);
}

std::string mlpModule(int layers, int64_t batch, int64_t width, unsigned gpuDevice,
                      const std::string &arch) {
  std::string s = kHeader + ("def @main(" + param("x", gpuDevice, {batch, width}));
  for (int l = 0; l < layers; ++l)
    s += ", " + param("w" + std::to_string(l), l + 1 < layers ? gpuDevice : 0, {width, width});
  s += ", " + on(0) + ") {\n";
  std::string in = "%x";
  int v = 0;
  for (int l = 0; l < layers; ++l) {
    std::string d = "%" + std::to_string(v++), r = "%" + std::to_string(v++);
    s += "  " + d + " = nn.dense(" + in + ", %w" + std::to_string(l) +
         ", units=" + std::to_string(width) + ");\n";
    s += "  " + r + " = nn.relu(" + d + ");\n";
    in = r;
    if (l + 1 < layers) {
      in = "%" + std::to_string(v++);
      s += "  " + in + " = on_device(" + r + ", " + on(gpuDevice) + ");\n";
    }
  }
  s += "  nn.softmax(" + in + ")\n}\n";
  return s + (gpuDevice == 0 ? "#[metadata]\n{\"VirtualDevice\": [{\"device_type\": \"cpu\"}]}\n"
                             : metadata(arch));
}

std::string chainModule(int n, const std::string &arch) {
  std::string s = kHeader + ("def @main(" + param("x", 1, {4}) + ", " + on(1) + ") {\n");
  s += "  %0 = add(%x, %x);\n";
  for (int i = 1; i < n; ++i)
    s += "  %" + std::to_string(i) + " = add(%" + std::to_string(i - 1) + ", %x);\n";
  return s + "  %" + std::to_string(n - 1) + "\n}\n" + metadata(arch);
}

} // namespace hx::bench
