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
#include <iterator>
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
    const Map::value_type *b = blockAt(p);
    return b && static_cast<const char *>(p) <
                    static_cast<const char *>(b->first) + (b->second ? b->second : 1);
  }
  /// The bytes from `p` to the end of its block (0 at its end); nullopt
  /// outside every block.
  std::optional<size_t> bytesFrom(const void *p) const {
    const Map::value_type *b = blockAt(p);
    size_t offset =
        size_t(static_cast<const char *>(p) - static_cast<const char *>(b ? b->first : p));
    if (!b || offset > b->second)
      return std::nullopt;
    return b->second - offset;
  }
  Map::const_iterator begin() const { return blocks.begin(); }
  Map::const_iterator end() const { return blocks.end(); }

private:
  /// The block starting at or below `p`, if any.
  const Map::value_type *blockAt(const void *p) const {
    auto it = blocks.upper_bound(p);
    return it == blocks.begin() ? nullptr : &*std::prev(it);
  }

  Map blocks;
};

} // namespace hx

#endif
