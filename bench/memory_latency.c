/* memory_latency.c - the cost of one dependent random load by working-set size.
 *
 * Explains bench/compile_bench.py's time(1M)/time(100k): a pass that touches
 * nodes out of address order pays this latency per miss, and it keeps rising
 * with the size of the process (TLB misses and page walks), not only at the
 * last cache level.
 *
 *   cc -O2 bench/memory_latency.c -o /tmp/memory_latency && /tmp/memory_latency
 *   THP=1 /tmp/memory_latency      # the buffers madvise'd to huge pages
 *
 * Prints, for working sets of 1 MiB to 1 GiB, the nanoseconds per load of a
 * pointer chase through a random cyclic permutation of 64-byte lines.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) { /* xorshift64: deterministic, no libc rand */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

int main(void) {
  const size_t line = 64, huge = 2u << 20;
  for (size_t mib = 1; mib <= 1024; mib *= 2) {
    size_t n = mib * (1u << 20) / line;
    size_t bytes = (n * line + huge - 1) / huge * huge;
    uint64_t *a = aligned_alloc(huge, bytes);
    size_t *perm = malloc(n * sizeof *perm);
    if (!a || !perm)
      return 1;
    if (getenv("THP"))
      madvise(a, bytes, MADV_HUGEPAGE);
    for (size_t i = 0; i < n; ++i)
      perm[i] = i;
    for (size_t i = n - 1; i > 0; --i) {
      size_t j = next() % (i + 1), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    const size_t stride = line / sizeof *a;
    for (size_t i = 0; i < n; ++i)
      a[perm[i] * stride] = perm[(i + 1) % n] * stride;
    size_t p = 0, steps = 20000000;
    for (size_t i = 0; i < n; ++i) /* warm up: fault every page in */
      p = a[p];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < steps; ++i)
      p = a[p];
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / steps;
    printf("%5zu MiB: %6.1f ns/load%s\n", mib, ns, p == 1 ? " " : "");
    free(a);
    free(perm);
  }
  return 0;
}
