//===- gpu_bench_modules.h - hx-gpu-bench's programs ------------*- C++ -*-===//
//
// The modules hx-gpu-bench times, as Relay text: virtual device 0 is the
// cpu, 1 cuda with `-arch=<arch>` (the GPU's own, or sm_90 in a dry run).
//
//===----------------------------------------------------------------------===//
#ifndef HX_BENCH_GPU_BENCH_MODULES_H
#define HX_BENCH_GPU_BENCH_MODULES_H

#include <cstdint>
#include <string>

namespace hx::bench {

/// add(%a, %b) of n floats, all on cuda.
std::string addModule(int64_t n, const std::string &arch);

/// nn.dense of (n, n) by (n, n), on cuda.
std::string denseModule(int64_t n, const std::string &arch);

/// max(%x) of a cpu parameter of n floats, after a round trip through cuda
/// when `roundTrip`; `full` returns the round-tripped tensor instead.
std::string copyModule(int64_t n, bool roundTrip, bool full, const std::string &arch);

/// The MLP: %x (batch, width) and %w0..%w<layers-1> (width, width); every
/// layer nn.dense + nn.relu, then nn.softmax. Layers before the last on
/// `gpuDevice`, the last one and the softmax on the cpu.
std::string mlpModule(int layers, int64_t batch, int64_t width, unsigned gpuDevice,
                      const std::string &arch);

/// `n` adds chained on cuda: %0 = %x + %x, %i = %(i-1) + %x.
std::string chainModule(int n, const std::string &arch);

} // namespace hx::bench

#endif // HX_BENCH_GPU_BENCH_MODULES_H
