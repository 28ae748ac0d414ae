//===- LargeVector.cpp - Huge-page mappings for large arrays ---------------===//
//
// See hx/Support/LargeVector.h. An allocation is its own anonymous mapping,
// rounded up to whole huge pages so that the kernel can back all of it with
// them; the size is known again at deallocation (allocators are told it), so
// no header is needed. Where mmap is missing, a huge allocation falls back to
// operator new and is freed the same way (freeHuge then forwards).
//
// A PageRecycler reserves 4 GiB of address space once (MAP_NORESERVE:
// nothing is committed until touched) on a huge-page boundary and keeps its
// free ranges in an ordered map, merged on release; first fit keeps the
// reuse deterministic. Freed pages stay mapped: that is the point.
//
//===----------------------------------------------------------------------===//
#include "hx/Support/LargeVector.h"
#include <cstdint>
#include <iterator>

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

namespace {
/// Address space a recycler reserves (no memory until touched): more than
/// the cut of the 1M-line bench module uses at once.
constexpr size_t kRecyclerSpace = size_t(4) << 30;
} // namespace

PageRecycler::~PageRecycler() {
#if defined(__linux__)
  if (mapping)
    munmap(mapping, mapped);
#endif
}

void *PageRecycler::allocate(size_t bytes) {
  size_t need = roundUp(bytes);
#if defined(__linux__)
  if (!mapping) {
    // One huge page more, to start on a huge-page boundary (the kernel
    // backs only aligned 2 MiB ranges with huge pages).
    size_t span = kRecyclerSpace + detail::kHugePageBytes;
    void *p = mmap(nullptr, span, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      mapping = static_cast<char *>(p);
      mapped = span;
      uintptr_t a = reinterpret_cast<uintptr_t>(p);
      base = mapping + (roundUp(a) - a);
#ifdef MADV_HUGEPAGE
      (void)madvise(base, kRecyclerSpace, MADV_HUGEPAGE);
#endif
      reserved = kRecyclerSpace;
      idle[0] = reserved;
    }
  }
#endif
  for (auto it = idle.begin(); it != idle.end(); ++it) { // first fit
    if (it->second < need)
      continue;
    size_t at = it->first, left = it->second - need;
    idle.erase(it);
    if (left)
      idle[at + need] = left;
    return base + at;
  }
  return detail::allocateHuge(need);
}

void PageRecycler::deallocate(void *p, size_t bytes) {
  char *c = static_cast<char *>(p);
  size_t len = roundUp(bytes);
  if (!base || c < base || c >= base + reserved) {
    detail::freeHuge(p, bytes);
    return;
  }
  size_t at = static_cast<size_t>(c - base);
  auto next = idle.lower_bound(at);
  if (next != idle.end() && at + len == next->first) { // merge with the next
    len += next->second;
    next = idle.erase(next);
  }
  if (next != idle.begin()) { // and with the previous
    auto prev = std::prev(next);
    if (prev->first + prev->second == at) {
      prev->second += len;
      return;
    }
  }
  idle[at] = len;
}
