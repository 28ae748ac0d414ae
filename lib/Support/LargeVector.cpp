//===- LargeVector.cpp - Huge-page mappings for large arrays ---------------===//
//
// See hx/Support/LargeVector.h. An allocation is its own anonymous mapping,
// rounded up to whole huge pages so that the kernel can back all of it with
// them; the size is known again at deallocation (allocators are told it), so
// no header is needed. Where mmap is missing, a huge allocation falls back to
// operator new and is freed the same way (freeHuge then forwards).
//
//===----------------------------------------------------------------------===//
#include "hx/Support/LargeVector.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace hx;

namespace {
size_t roundUp(size_t bytes) {
  return (bytes + detail::kHugePageBytes - 1) / detail::kHugePageBytes * detail::kHugePageBytes;
}
} // namespace

void *detail::allocateHuge(size_t bytes) {
#if defined(__linux__)
  size_t size = roundUp(bytes);
  void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  (void)madvise(p, size, MADV_HUGEPAGE); // advice: nothing to do if refused
#endif
  return p;
#else
  return ::operator new(bytes);
#endif
}

void detail::freeHuge(void *p, size_t bytes) {
#if defined(__linux__)
  munmap(p, roundUp(bytes));
#else
  ::operator delete(p);
#endif
}
