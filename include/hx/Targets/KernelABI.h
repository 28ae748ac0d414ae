//===- KernelABI.h - How the runtime calls a compiled kernel ----*- C++ -*-===//
//
// Every compiled kernel, on every target, is one primitive function (today
// one operator call) with static shapes, called as
//
//   void kernel(void **buffers, void *launch);
//
// `buffers` holds the data pointers of the operands then of the results:
// a tuple operand (concatenate's) contributes one pointer per field, a tuple
// result (split, topk) one per field, in order. Shapes, strides and
// attributes are baked into the code. `launch` is the device instance's
// context, passed back to the parallel-for callback.
//
// CPU kernels split their outer loop with the one parallel-for callback the
// runtime injects into the JIT (TVM's TVMBackendParallelLaunch):
//
//   void hx_parallel_for(void *launch, void (*body)(void *closure, int64_t
//                        begin, int64_t end), void *closure, int64_t n);
//
// which calls body over [0, n) in chunks, possibly on several threads, and
// returns when all chunks are done.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_KERNELABI_H
#define HX_TARGETS_KERNELABI_H

#include <cstdint>

namespace hx {

using KernelFn = void (*)(void **buffers, void *launch);
using ParallelBodyFn = void (*)(void *closure, int64_t begin, int64_t end);
using ParallelForFn = void (*)(void *launch, ParallelBodyFn body, void *closure, int64_t n);

/// The symbol name of the parallel-for callback inside JIT'd code.
inline constexpr const char *kParallelForSymbol = "hx_parallel_for";

/// A parallel-for that runs the body inline, in one chunk.
void serialParallelFor(void *launch, ParallelBodyFn body, void *closure, int64_t n);

} // namespace hx

#endif
