//===- Streams.cpp - Queues, waits and pinning for asynchronous devices ---===//
//
// A cpu device finishes everything before a call returns; a cuda device
// only queues it. planStreams() decides, once per executable, where each
// step is issued and what it must wait for, so that a run waits only where
// a consumer needs a result and never reuses memory still in use:
//
//  - Queues. Queue 0 is the host (cpu kernels, host copies, if/jump). A
//    virtual device on an asynchronous device gets a compute queue for its
//    kernels, a copy-in queue for copies into it (host to device, and
//    device to device) and a copy-out queue for copies from it to the host:
//    a copy can overlap a kernel, and two virtual devices mapped to one GPU
//    run on streams of their own.
//  - Waits. Every step reads and writes byte ranges (its buffers' memory,
//    aliases resolved, arena reuse included). Walking the schedule in order,
//    a step waits for the latest earlier step on each other asynchronous
//    queue whose accesses conflict with its own (read after write, write
//    after read, write after write); a queue is in order, so that one wait
//    covers the earlier steps there. The walk looks back through each
//    other queue until the first conflict: quadratic only for long runs of
//    independent work on several queues. That gives both rules of the runtime:
//    a consumer waits for its producer's copy or kernel, and a buffer (or
//    an arena range another buffer reuses) is not overwritten while a copy
//    or kernel on another queue still reads it. Host steps need no event
//    (they are done when issued); a host step waits with hostWait.
//  - Barriers. An `if` reads its condition on the host, and the steps of
//    its branches run or not: before an if, a jump and the first step of
//    each branch join, every device finishes, and the walk starts afresh.
//  - Pinning. Host memory that an asynchronous copy reads or writes (a cpu
//    arena, a parameter's or an output's allocation) is pinned once by the
//    asynchronous device, so the copy engine does not stage it.
//
//===----------------------------------------------------------------------===//
#include "ExecutableImpl.h"
#include <set>

using namespace hx;
using namespace llvm;

namespace {
struct Range {
  uintptr_t lo, hi;
  bool overlaps(const Range &o) const { return lo < o.hi && o.lo < hi; }
};
struct Access {
  SmallVector<Range, 4> reads, writes;
  bool conflictsWith(const Access &o) const {
    for (const Range &w : writes) {
      for (const Range &r : o.reads)
        if (w.overlaps(r))
          return true;
      for (const Range &r : o.writes)
        if (w.overlaps(r))
          return true;
    }
    for (const Range &r : reads)
      for (const Range &w : o.writes)
        if (r.overlaps(w))
          return true;
    return false;
  }
};

StringRef kindName(Executable::Impl::Queue::Kind k) {
  using Kind = Executable::Impl::Queue::Kind;
  switch (k) {
  case Kind::Host:
    return "host";
  case Kind::Compute:
    return "kernels";
  case Kind::CopyIn:
    return "copies in";
  case Kind::CopyOut:
    return "copies out";
  }
  return "?";
}
} // namespace

Error Executable::Impl::synchronizeAll() {
  std::set<Device *> seen;
  for (Device *d : devices)
    if (d->asynchronous() && seen.insert(d).second)
      if (Error e = d->synchronize())
        return e;
  return Error::success();
}

Error Executable::Impl::planStreams() {
  unsigned numSteps = steps.size();
  queues.clear();
  queues.emplace_back();
  queues[0].name = "host";
  stepQueue.assign(numSteps, 0);
  waitsFor.assign(numSteps, {});
  doneEvent.clear();
  doneEvent.resize(numSteps);
  barrierBefore.assign(numSteps, false);
  anyAsync = llvm::any_of(devices, [](Device *d) { return d->asynchronous(); });
  if (!anyAsync)
    return Error::success();

  using Kind = Queue::Kind;
  std::map<std::pair<unsigned, Kind>, unsigned> queueIndex;
  auto queueFor = [&](unsigned vd, Kind k) -> unsigned {
    if (!devices[vd]->asynchronous())
      return 0;
    auto [it, fresh] = queueIndex.try_emplace({vd, k}, unsigned(queues.size()));
    if (fresh) {
      Queue q;
      q.kind = k;
      q.device = vd;
      q.stream = devices[vd]->createStream();
      q.name = devices[vd]->name() + " " + kindName(k).str() + " (virtual device " +
               std::to_string(vd) + ")";
      queues.push_back(std::move(q));
    }
    return it->second;
  };
  auto rangeOf = [&](unsigned b) {
    auto lo = reinterpret_cast<uintptr_t>(pointers[b]);
    return Range{lo, lo + std::max<uint64_t>(buffers[b].bytes, 1)};
  };
  auto rootOf = [&](unsigned b) {
    while (buffers[b].kind == Buffer::Kind::Alias)
      b = buffers[b].index;
    return b;
  };
  std::set<std::pair<Device *, void *>> pinnedSet;
  auto pin = [&](Device &async, unsigned hostBuffer) {
    unsigned root = rootOf(hostBuffer);
    const Buffer &b = buffers[root];
    void *p = pointers[root];
    uint64_t bytes = b.bytes;
    if (b.kind == Buffer::Kind::Intermediate) {
      p = arenas[b.device];
      bytes = plan.arenaBytes[b.device];
    }
    if (!p || !bytes || !pinnedSet.insert({&async, p}).second)
      return;
    // Pinning only speeds copies up: a range the driver cannot pin is
    // copied through its staging buffers.
    if (Error e = async.pinHost(p, bytes))
      consumeError(std::move(e));
    else
      pinned.push_back({&async, p});
  };

  for (unsigned s = 0; s < numSteps; ++s) {
    const Step &st = steps[s];
    switch (st.kind) {
    case Step::Kind::Kernel:
      stepQueue[s] = queueFor(st.device, Kind::Compute);
      break;
    case Step::Kind::Copy: {
      unsigned from = buffers[st.buffers[0]].device, to = buffers[st.buffers[1]].device;
      bool fromAsync = devices[from]->asynchronous(), toAsync = devices[to]->asynchronous();
      if (toAsync)
        stepQueue[s] = queueFor(to, Kind::CopyIn);
      else if (fromAsync)
        stepQueue[s] = queueFor(from, Kind::CopyOut);
      if (toAsync && !fromAsync)
        pin(*devices[to], st.buffers[0]);
      if (fromAsync && !toAsync)
        pin(*devices[from], st.buffers[1]);
      break;
    }
    case Step::Kind::If:
    case Step::Kind::Jump:
      barrierBefore[s] = true;
      if (st.target < numSteps)
        barrierBefore[st.target] = true;
      break;
    case Step::Kind::Alias:
      break;
    }
  }

  // The waits, walking the schedule in order.
  std::vector<std::vector<unsigned>> history(queues.size());
  std::vector<Access> access(numSteps);
  for (unsigned s = 0; s < numSteps; ++s) {
    const Step &st = steps[s];
    if (barrierBefore[s])
      for (auto &h : history)
        h.clear();
    if (st.kind != Step::Kind::Kernel && st.kind != Step::Kind::Copy)
      continue;
    Access &a = access[s];
    for (unsigned i = 0; i < st.buffers.size(); ++i) {
      bool isRead = st.kind == Step::Kind::Kernel ? i < st.numInputs : i == 0;
      (isRead ? a.reads : a.writes).push_back(rangeOf(st.buffers[i]));
    }
    unsigned q = stepQueue[s];
    for (unsigned other = 1; other < queues.size(); ++other) {
      if (other == q)
        continue;
      const std::vector<unsigned> &h = history[other];
      for (auto it = h.rbegin(); it != h.rend(); ++it)
        if (a.conflictsWith(access[*it])) {
          waitsFor[s].push_back(*it);
          if (!doneEvent[*it])
            doneEvent[*it] = deviceOfQueue(stepQueue[*it]).createEvent(false);
          break;
        }
    }
    history[q].push_back(s);
  }
  return synchronizeAll();
}
