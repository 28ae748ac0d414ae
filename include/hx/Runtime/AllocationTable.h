//===- AllocationTable.h - The blocks a device allocated --------*- C++ -*-===//
//
// Every Device keeps its allocations, to free them when it goes and to
// answer Device::owns (--check-devices): which block, if any, a pointer
// falls in. Ordered by address, so that lookup is one upper_bound.
//
//===----------------------------------------------------------------------===//
#ifndef HX_RUNTIME_ALLOCATIONTABLE_H
#define HX_RUNTIME_ALLOCATIONTABLE_H

#include <cstddef>
#include <map>
#include <optional>

namespace hx {

class AllocationTable {
public:
  using Map = std::map<const void *, size_t>;

  void insert(const void *p, size_t bytes) { blocks[p] = bytes; }
  /// Forgets the block that starts at `p` and returns its size; nullopt
  /// when no block starts there.
  std::optional<size_t> erase(const void *p) {
    auto it = blocks.find(p);
    if (it == blocks.end())
      return std::nullopt;
    size_t bytes = it->second;
    blocks.erase(it);
    return bytes;
  }
  /// Whether `p` points into a block (a block of 0 bytes holds its start).
  bool contains(const void *p) const {
    auto it = blocks.upper_bound(p);
    if (it == blocks.begin())
      return false;
    --it;
    size_t bytes = it->second ? it->second : 1;
    return static_cast<const char *>(p) < static_cast<const char *>(it->first) + bytes;
  }
  Map::const_iterator begin() const { return blocks.begin(); }
  Map::const_iterator end() const { return blocks.end(); }

private:
  Map blocks;
};

} // namespace hx

#endif
