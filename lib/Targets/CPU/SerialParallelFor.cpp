//===- SerialParallelFor.cpp - The inline parallel-for callback -----------===//
//
// The default hx_parallel_for of CPUCompilerOptions (KernelABI.h): the whole
// range in one chunk, on the calling thread. A runtime with a thread pool
// injects its own.
//
//===----------------------------------------------------------------------===//

#include "hx/Targets/KernelABI.h"

namespace hx {

void serialParallelFor(void *launch, ParallelBodyFn body, void *closure, int64_t n) {
  if (n > 0)
    body(closure, 0, n);
}

} // namespace hx
