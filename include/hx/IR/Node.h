//===- Node.h - Reference-counted IR nodes ----------------------*- C++ -*-===//
//
// Every IR object (types and expressions) is a Node: intrusively reference
// counted and owned through Ref<T>. Expressions form DAGs that can be a million
// nodes deep, so releasing the last reference must not recurse: a node hands
// its children to an explicit worklist (dropChildren) before it is deleted.
//
// The counts are plain integers, not atomics: a module belongs to one thread
// at a time (passes number nodes through their slots and change them in
// place), and a locked increment on every copy of a Ref would stall the loads
// a pass keeps in flight over a module that does not fit in the cache.
//
//===----------------------------------------------------------------------===//
#ifndef HX_IR_NODE_H
#define HX_IR_NODE_H

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace hx {

class Node;
using NodeWorklist = std::vector<Node *>;

class Node {
public:
  Node() = default;
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;
  virtual ~Node() = default;

  void retain() const { ++refs; }
  /// Drops one reference; returns true when it was the last one.
  bool releaseNoDelete() const { return --refs == 0; }
  unsigned useCount() const { return refs; }

  /// Releases one reference and deletes the node (and, iteratively, every
  /// child that becomes unreferenced) when it was the last.
  static void release(const Node *n);

protected:
  /// Moves every child reference out of this node. Children whose count drops
  /// to zero are appended to `dead`; the caller deletes them.
  virtual void dropChildren(NodeWorklist &dead) {}

  template <typename T> static void drop(T *&child, NodeWorklist &dead);

private:
  mutable uint32_t refs = 0;
  template <typename T> friend class Ref;
};

/// An owning pointer to a Node.
template <typename T> class Ref {
public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  Ref(T *p) : ptr(p) {
    if (ptr)
      ptr->retain();
  }
  Ref(const Ref &o) : ptr(o.ptr) {
    if (ptr)
      ptr->retain();
  }
  Ref(Ref &&o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
  template <typename U> Ref(const Ref<U> &o) : Ref(static_cast<T *>(o.get())) {}
  template <typename U> Ref(Ref<U> &&o) noexcept : ptr(o.detach()) {}
  ~Ref() {
    if (ptr)
      Node::release(ptr);
  }
  Ref &operator=(Ref o) noexcept {
    std::swap(ptr, o.ptr);
    return *this;
  }

  T *get() const { return ptr; }
  T *operator->() const { return ptr; }
  T &operator*() const { return *ptr; }
  explicit operator bool() const { return ptr != nullptr; }
  bool operator==(const Ref &o) const { return ptr == o.ptr; }
  bool operator==(const T *o) const { return ptr == o; }

  /// Gives up ownership without releasing.
  T *detach() {
    T *p = ptr;
    ptr = nullptr;
    return p;
  }
  /// Detaches the pointer for Node::dropChildren.
  T *&raw() { return ptr; }

private:
  T *ptr = nullptr;
};

template <typename T> void Node::drop(T *&child, NodeWorklist &dead) {
  if (T *c = child) {
    child = nullptr;
    if (c->releaseNoDelete())
      dead.push_back(c);
  }
}

template <typename T, typename... Args> Ref<T> make(Args &&...args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

} // namespace hx

#endif
