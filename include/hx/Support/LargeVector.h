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
#include <map>
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

/// Hands out huge allocations from one mapping of address space and takes
/// them back, so that a later allocation reuses pages an earlier one
/// touched instead of faulting in fresh ones: one phase's tables become the
/// next one's (the placement's side tables, then its cut graph). Free
/// ranges merge with their neighbours, first fit, so the reuse does not
/// depend on the sizes matching. Address space is reserved lazily
/// (untouched pages cost nothing); what does not fit is mapped on its own.
/// Owned by the caller, it must outlive every vector that uses it. Not
/// thread-safe.
class PageRecycler {
public:
  PageRecycler() = default;
  PageRecycler(const PageRecycler &) = delete;
  PageRecycler &operator=(const PageRecycler &) = delete;
  ~PageRecycler();
  void *allocate(size_t bytes);
  void deallocate(void *p, size_t bytes);

private:
  char *mapping = nullptr; // as mapped, `mapped` bytes
  size_t mapped = 0;
  char *base = nullptr; // its part on a huge-page boundary, `reserved` bytes
  size_t reserved = 0;
  std::map<size_t, size_t> idle; // offset -> length, merged
};

template <typename T> struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  /// Huge allocations come from (and go back to) `recycler` when not null.
  explicit HugePageAllocator(PageRecycler *recycler) : recycler(recycler) {}
  template <typename U> HugePageAllocator(const HugePageAllocator<U> &o) : recycler(o.recycler) {}

  T *allocate(size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes >= detail::kHugePageBytes)
      return static_cast<T *>(recycler ? recycler->allocate(bytes) : detail::allocateHuge(bytes));
    return static_cast<T *>(::operator new(bytes));
  }
  void deallocate(T *p, size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes < detail::kHugePageBytes)
      ::operator delete(p);
    else if (recycler)
      recycler->deallocate(p, bytes);
    else
      detail::freeHuge(p, bytes);
  }
  template <typename U> bool operator==(const HugePageAllocator<U> &o) const {
    return recycler == o.recycler;
  }

  PageRecycler *recycler = nullptr;
};

template <typename T> using LargeVector = std::vector<T, HugePageAllocator<T>>;

} // namespace hx

#endif
