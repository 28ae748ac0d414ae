//===- LargeVector.h - Vectors of millions, on huge pages --------*- C++ -*-===//
//
// The cost-based placement builds arrays of tens of megabytes (a record per
// class, per copy term, per arc of the cut graph), fills them once and then
// reads them at random. On 4 KiB pages each first touch is a page fault,
// and in a virtual machine a fault is dear: on the project's VM the cut of
// the 1M-line bench module spent a third of its time in them. An allocation
// of 2 MiB or more here is mapped on its own and advised to transparent huge
// pages (Linux, madvise mode): 512 times fewer faults, and fewer TLB misses
// in the search. Smaller ones, and other systems, use operator new. Where
// the kernel gives no huge page the advice is a no-op.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_LARGEVECTOR_H
#define HX_SUPPORT_LARGEVECTOR_H

#include <cstddef>
#include <new>
#include <vector>

namespace hx {

namespace detail {
/// Memory for `bytes` (>= kHugePageBytes), huge pages advised where the
/// system has them; throws std::bad_alloc when there is none.
void *allocateHuge(size_t bytes);
void freeHuge(void *p, size_t bytes);
constexpr size_t kHugePageBytes = size_t(2) << 20;
} // namespace detail

template <typename T> struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U> HugePageAllocator(const HugePageAllocator<U> &) {}

  T *allocate(size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes >= detail::kHugePageBytes)
      return static_cast<T *>(detail::allocateHuge(bytes));
    return static_cast<T *>(::operator new(bytes));
  }
  void deallocate(T *p, size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes >= detail::kHugePageBytes)
      detail::freeHuge(p, bytes);
    else
      ::operator delete(p);
  }
  template <typename U> bool operator==(const HugePageAllocator<U> &) const { return true; }
};

template <typename T> using LargeVector = std::vector<T, HugePageAllocator<T>>;

} // namespace hx

#endif
