//===- Executor.cpp - Binding and running a schedule ----------------------===//
//
// bind(): the memory plan gives every intermediate buffer an offset in its
// device's arena; parameters, constants and outputs get allocations of their
// own (outside the reused pool); aliases resolve to their root's memory; each
// kernel step's argument pointers are written once into one flat array.
// run(): copies the inputs in, then walks the steps with an index (If jumps
// to its else branch when the condition is zero, Jump skips the else
// branch), and copies the outputs out. With checkDevices, each kernel first
// checks that its device owns every argument pointer.
//
//===----------------------------------------------------------------------===//
#include "ExecutableImpl.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cstring>
#include <map>

using namespace hx;
using namespace llvm;

static Error fail(const Twine &msg) { return createStringError(inconvertibleErrorCode(), msg); }

Executable::Impl::~Impl() {
  // Nothing may still run on memory about to be freed.
  consumeError(synchronizeAll());
  for (auto &[device, p] : pinned)
    device->unpinHost(p);
  for (size_t d = 0; d < arenas.size(); ++d)
    if (arenas[d])
      devices[d]->deallocate(arenas[d]);
  for (auto &[d, p] : ownAllocations)
    devices[d]->deallocate(p);
}

/// The buffer an alias's chain ends at (aliases point to earlier buffers).
static unsigned rootOf(ArrayRef<Buffer> buffers, unsigned b) {
  while (buffers[b].kind == Buffer::Kind::Alias)
    b = buffers[b].index;
  return b;
}

void Executable::Impl::planOffsets() {
  unsigned numDevices = devices.size();
  // Liveness over the linear schedule; an alias's uses are its root's, and
  // a view's are its whole's (views of views too).
  std::vector<int> wholeOf(buffers.size(), -1);
  std::vector<uint64_t> viewOffset(buffers.size(), 0);
  for (const View &v : views) {
    wholeOf[v.part] = v.whole;
    viewOffset[v.part] = v.offset;
  }
  auto rootOf = [&](unsigned b) {
    b = ::rootOf(buffers, b);
    while (wholeOf[b] >= 0)
      b = wholeOf[b];
    return b;
  };
  std::vector<PlannedBuffer> planned;
  std::vector<int> plannedIndex(buffers.size(), -1);
  for (unsigned b = 0; b < buffers.size(); ++b)
    if (buffers[b].kind == Buffer::Kind::Intermediate && wholeOf[b] < 0) {
      plannedIndex[b] = planned.size();
      PlannedBuffer p;
      p.device = buffers[b].device;
      p.bytes = buffers[b].bytes;
      p.firstStep = ~0u;
      p.lastStep = 0;
      planned.push_back(p);
    }
  for (unsigned s = 0; s < steps.size(); ++s) {
    const Step &st = steps[s];
    for (unsigned i = 0; i < st.buffers.size(); ++i) {
      int k = plannedIndex[rootOf(st.buffers[i])];
      if (k < 0)
        continue;
      PlannedBuffer &p = planned[k];
      p.firstStep = std::min(p.firstStep, s);
      p.lastStep = std::max(p.lastStep, s);
    }
  }
  for (PlannedBuffer &p : planned)
    if (p.firstStep == ~0u)
      p.firstStep = p.lastStep = 0;
  plan = planMemory(planned, numDevices);
  offsets.assign(buffers.size(), 0);
  for (unsigned b = 0; b < buffers.size(); ++b)
    if (plannedIndex[b] >= 0)
      offsets[b] = planned[plannedIndex[b]].offset;
  for (unsigned b = 0; b < buffers.size(); ++b) {
    uint64_t at = 0;
    unsigned w = b;
    for (; wholeOf[w] >= 0; w = wholeOf[w])
      at += viewOffset[w];
    if (w != b)
      offsets[b] = offsets[w] + at;
  }
}

void Executable::Impl::init(const Module &m, ArrayRef<Device *> devs, ArrayRef<Backend *> bes,
                            const ExecutableOptions &o) {
  devices.assign(devs.begin(), devs.end());
  backends.assign(bes.begin(), bes.end());
  backends.resize(devs.size(), nullptr);
  opts = o;
  virtualNames.clear();
  for (const VirtualDevice &d : m.devices)
    virtualNames.push_back(d.shortName());
}

Error Executable::Impl::bind() {
  unsigned numDevices = devices.size();
  auto rootOf = [&](unsigned b) { return ::rootOf(buffers, b); };
  // An allocation that fails names what the plan needs on that device.
  auto outOfMemory = [&](unsigned d, Error e) {
    uint64_t own = 0;
    for (const Buffer &b : buffers)
      if (b.device == d && b.kind != Buffer::Kind::Intermediate && b.kind != Buffer::Kind::Alias)
        own += b.bytes;
    return fail(toString(std::move(e)) + "; the plan needs " + Twine(plan.arenaBytes[d] + own) +
                " bytes on virtual device " + Twine(d) + " (" +
                (d < virtualNames.size() ? virtualNames[d] : "?") + "): an arena of " +
                Twine(plan.arenaBytes[d]) + " and " + Twine(own) +
                " for parameters, constants and outputs");
  };
  arenas.assign(numDevices, nullptr);
  for (unsigned d = 0; d < numDevices; ++d) {
    if (!plan.arenaBytes[d])
      continue;
    Expected<void *> a = devices[d]->allocate(plan.arenaBytes[d]);
    if (!a)
      return outOfMemory(d, a.takeError());
    arenas[d] = *a;
  }
  extraBytes.assign(numDevices, 0);
  pointers.assign(buffers.size(), nullptr);
  for (unsigned b = 0; b < buffers.size(); ++b) {
    Buffer &buf = buffers[b];
    switch (buf.kind) {
    case Buffer::Kind::Intermediate:
      pointers[b] = static_cast<char *>(arenas[buf.device]) + offsets[b];
      break;
    case Buffer::Kind::Alias:
      break;
    default: {
      Expected<void *> p = devices[buf.device]->allocate(buf.bytes);
      if (!p)
        return outOfMemory(buf.device, p.takeError());
      ownAllocations.push_back({buf.device, *p});
      pointers[b] = *p;
      extraBytes[buf.device] += buf.bytes;
      if (buf.kind == Buffer::Kind::Constant && buf.data) {
        if (Error e = devices[buf.device]->copyFromHost(*p, buf.data->bytes.data(), buf.bytes))
          return e;
      } else if (buf.kind == Buffer::Kind::Constant) {
        // The source must outlive the (possibly asynchronous) copy: a
        // temporary here was freed before a GPU's stream read it.
        HostTensor &t = constantUploads.emplace_back(buf.dtype, buf.shape);
        if (t.numElements())
          t.setDouble(0, buf.value);
        if (Error e = devices[buf.device]->copyFromHost(*p, t.data(), t.byteSize()))
          return e;
      }
    }
    }
  }
  for (unsigned b = 0; b < buffers.size(); ++b)
    if (buffers[b].kind == Buffer::Kind::Alias)
      pointers[b] = pointers[rootOf(b)];

  argOffset.assign(steps.size(), 0);
  for (unsigned s = 0; s < steps.size(); ++s) {
    if (steps[s].kind != Step::Kind::Kernel)
      continue;
    argOffset[s] = argStorage.size();
    for (unsigned b : steps[s].buffers)
      argStorage.push_back(pointers[b]);
  }
  kernels.assign(steps.size(), nullptr);
  for (unsigned s = 0; s < steps.size(); ++s) {
    if (steps[s].kind != Step::Kind::Kernel)
      continue;
    Expected<const void *> k =
        devices[steps[s].device]->load(backends[steps[s].device]->binary(steps[s].kernel));
    if (!k)
      return k.takeError();
    kernels[s] = *k;
  }
  // Also waits for the constants' uploads; their host sources can go then.
  if (Error e = planStreams())
    return e;
  constantUploads.clear();
  return Error::success();
}

Executable::Executable() : impl(std::make_unique<Impl>()) {}
Executable::~Executable() = default;

std::unique_ptr<Executable> Executable::build(Module &m, ArrayRef<Device *> devices,
                                              ArrayRef<Backend *> backends, DiagEngine &diags,
                                              const ExecutableOptions &opts) {
  std::unique_ptr<Executable> x(new Executable());
  Impl &i = *x->impl;
  i.init(m, devices, backends, opts);
  if (!buildSchedule(m, i, diags))
    return nullptr;
  for (const Buffer &b : i.buffers)
    if (b.device >= devices.size()) {
      diags.error(SMLoc(),
                  "the executor: virtual device " + Twine(b.device) + " has no physical device");
      return nullptr;
    }
  // Each backend once, in order of first use.
  std::vector<Backend *> distinct;
  for (Backend *b : i.backends)
    if (b && llvm::find(distinct, b) == distinct.end())
      distinct.push_back(b);
  for (Backend *b : distinct) {
    if (unsigned n = b->numPending(); opts.progress && n)
      opts.progress("compiling " + std::to_string(n) + (n == 1 ? " kernel for " : " kernels for ") +
                    b->name().str());
    if (Error e = b->finalize()) {
      diags.error(SMLoc(), "compiling the kernels: " + toString(std::move(e)));
      return nullptr;
    }
  }
  i.planOffsets();
  if (opts.compileOnly)
    return x;
  if (Error e = i.bind()) {
    diags.error(SMLoc(), toString(std::move(e)));
    return nullptr;
  }
  return x;
}

ArrayRef<Step> Executable::steps() const { return impl->steps; }
ArrayRef<Buffer> Executable::buffers() const { return impl->buffers; }
ArrayRef<unsigned> Executable::outputBuffers() const { return impl->outputs; }
const MemoryPlan &Executable::memoryPlan() const { return impl->plan; }
unsigned Executable::numDevices() const { return impl->devices.size(); }
std::string Executable::deviceName(unsigned d) const { return impl->devices[d]->name(); }
uint64_t Executable::deviceBytes(unsigned d) const {
  return impl->plan.arenaBytes[d] + impl->extraBytes[d];
}

/// Issues a copy step on its queue (Streams.cpp chose it): the host copies
/// between host-accessible memory, the destination device copies into an
/// asynchronous device, the source device copies out of one.
static Error issueCopy(Device &from, Device &to, void *dst, const void *src, size_t n,
                       Stream *stream) {
  if (n == 0) // an empty tensor (whose pointers may be null)
    return Error::success();
  if (&from == &to)
    return to.copyWithin(dst, src, n, stream);
  if (from.hostAccessible() && to.hostAccessible()) {
    std::memcpy(dst, src, n);
    return Error::success();
  }
  if (to.asynchronous() || !to.hostAccessible())
    return from.hostAccessible() ? to.copyFromHost(dst, src, n, stream)
                                 : to.copyWithin(dst, src, n, stream);
  return from.copyToHost(dst, src, n, stream);
}

char InterruptedError::ID = 0;

Expected<std::vector<HostTensor>> Executable::run(ArrayRef<HostTensor> inputs, RunProfile *profile,
                                                  InterruptCheck interrupted) {
  Impl &x = *impl;
  if (x.opts.compileOnly)
    return fail("this executable was built to be printed (compileOnly), not run");
  if (inputs.size() != x.numParams)
    return fail("expected " + Twine(x.numParams) + " inputs, got " + Twine(inputs.size()));
  for (unsigned b = 0; b < x.buffers.size(); ++b) {
    const Buffer &buf = x.buffers[b];
    if (buf.kind != Buffer::Kind::Param)
      continue;
    // A tuple parameter's fields are consecutive buffers of one index: not
    // supported as an input.
    const HostTensor &in = inputs[buf.index];
    if (in.byteSize() != buf.bytes)
      return fail("input " + Twine(buf.index) + " (" + buf.name + ") has " + Twine(in.byteSize()) +
                  " bytes, expected " + Twine(buf.bytes));
    if (Error e = x.devices[buf.device]->copyFromHost(x.pointers[b], in.data(), in.byteSize()))
      return e;
  }
  if (Error e = x.synchronizeAll())
    return e;
  using Clock = std::chrono::steady_clock;
  Clock::time_point begin = Clock::now();
  auto since = [&](Clock::time_point t) {
    return std::chrono::duration<double>(t - begin).count();
  };
  // Asynchronous steps are timed by events, measured from one event per
  // queue recorded when the run begins (the devices are idle then).
  std::vector<std::unique_ptr<Event>> queueStart(x.queues.size());
  std::vector<unsigned> asyncTimed;
  if (profile && x.anyAsync) {
    x.startEvent.resize(x.steps.size());
    x.endEvent.resize(x.steps.size());
    for (unsigned q = 1; q < x.queues.size(); ++q) {
      queueStart[q] = x.deviceOfQueue(q).createEvent(true);
      if (Error e = x.deviceOfQueue(q).record(*queueStart[q], x.streamOf(q)))
        return e;
    }
  }
  double queueStartTime = since(Clock::now());
  for (unsigned s = 0; s < x.steps.size();) {
    if (interrupted && interrupted()) {
      // What the queues still hold finishes before the buffers are reused.
      consumeError(x.synchronizeAll());
      return make_error<InterruptedError>();
    }
    const Step &st = x.steps[s];
    unsigned q = x.anyAsync ? x.stepQueue[s] : 0;
    Stream *stream = x.anyAsync ? x.streamOf(q) : nullptr;
    if (x.anyAsync) {
      if (x.barrierBefore[s])
        if (Error e = x.synchronizeAll())
          return e;
      for (unsigned p : x.waitsFor[s]) {
        Device &producer = x.deviceOfQueue(x.stepQueue[p]);
        Error e = q == 0 ? producer.hostWait(*x.doneEvent[p])
                         : x.deviceOfQueue(q).wait(*x.doneEvent[p], stream);
        if (e)
          return e;
      }
    }
    bool timedByEvents = profile && q != 0;
    if (timedByEvents) {
      Device &d = x.deviceOfQueue(q);
      for (auto *ev : {&x.startEvent[s], &x.endEvent[s]})
        if (!*ev)
          *ev = d.createEvent(true);
      if (Error e = d.record(*x.startEvent[s], stream))
        return e;
    }
    Clock::time_point t0;
    if (profile)
      t0 = Clock::now();
    unsigned next = s + 1;
    switch (st.kind) {
    case Step::Kind::Kernel: {
      void **args = x.argStorage.data() + x.argOffset[s];
      Device &dev = *x.devices[st.device];
      if (x.opts.checkDevices) {
        for (unsigned i = 0; i < st.buffers.size(); ++i) {
          if (dev.owns(args[i]))
            continue;
          const Buffer &b = x.buffers[st.buffers[i]];
          std::string where = "no device";
          for (unsigned d = 0; d < x.devices.size(); ++d)
            if (x.devices[d]->owns(args[i]))
              where = x.devices[d]->name() + " (virtual device " + std::to_string(d) + ", " +
                      (d < x.virtualNames.size() ? x.virtualNames[d] : "?") + ")";
          bool isInput = i < st.numInputs;
          return fail("--check-devices: step " + Twine(s) + " (" + st.label + ") runs on " +
                      dev.name() + " (virtual device " + Twine(st.device) + ", " +
                      (st.device < x.virtualNames.size() ? x.virtualNames[st.device] : "?") +
                      "), but its " + (isInput ? "argument " : "result ") +
                      Twine(isInput ? i : i - st.numInputs) + " (" + b.name + ") lives on " +
                      where + ": a device_copy is missing");
        }
      }
      if (Error e = dev.launch(x.kernels[s], args, st.buffers.size(), stream))
        return e;
      break;
    }
    case Step::Kind::Copy: {
      unsigned src = st.buffers[0], dst = st.buffers[1];
      const Buffer &sb = x.buffers[src];
      if (Error e = issueCopy(*x.devices[sb.device], *x.devices[x.buffers[dst].device],
                              x.pointers[dst], x.pointers[src], sb.bytes, stream))
        return e;
      break;
    }
    case Step::Kind::Alias:
      break;
    case Step::Kind::If: {
      // A scalar of at most 8 bytes, read without allocating: zero bytes
      // are false for every dtype (a float -0.0 aside).
      const Buffer &cb = x.buffers[st.buffers[0]];
      unsigned char bytes[8] = {};
      size_t n = std::min<size_t>(cb.bytes, sizeof(bytes));
      Device &cd = *x.devices[cb.device];
      if (Error e = cd.copyToHost(bytes, x.pointers[st.buffers[0]], n))
        return e;
      if (cd.asynchronous())
        if (Error e = cd.synchronize())
          return e;
      bool truth = false;
      for (size_t k = 0; k < n; ++k)
        truth |= bytes[k] != 0;
      if (cb.dtype == DType::Float32) {
        float f;
        std::memcpy(&f, bytes, sizeof(f));
        truth = f != 0;
      }
      if (cb.dtype == DType::Float16 || cb.dtype == DType::BFloat16) // -0.0 is 0x8000
        truth = ((bytes[0] | (bytes[1] << 8)) & 0x7fff) != 0;
      if (!truth)
        next = st.target;
      break;
    }
    case Step::Kind::Jump:
      next = st.target;
      break;
    }
    if (timedByEvents) {
      if (Error e = x.deviceOfQueue(q).record(*x.endEvent[s], stream))
        return e;
      asyncTimed.push_back(s);
    } else if (profile && st.kind != Step::Kind::Alias && st.kind != Step::Kind::Jump) {
      profile->steps.push_back({s, since(t0), since(Clock::now()) - since(t0), st.device});
    }
    if (x.anyAsync && x.doneEvent[s])
      if (Error e = x.deviceOfQueue(q).record(*x.doneEvent[s], stream))
        return e;
    s = next;
  }
  if (Error e = x.synchronizeAll())
    return e;
  for (unsigned s : asyncTimed) {
    unsigned q = x.stepQueue[s];
    Device &d = x.deviceOfQueue(q);
    Expected<double> start = d.elapsed(*queueStart[q], *x.startEvent[s]);
    Expected<double> length = d.elapsed(*x.startEvent[s], *x.endEvent[s]);
    if (!start || !length)
      return joinErrors(start.takeError(), length.takeError());
    profile->steps.push_back(
        {s, queueStartTime + *start, *length, unsigned(x.devices.size()) + q - 1});
  }
  std::vector<HostTensor> results;
  for (unsigned b : x.outputs) {
    const Buffer &buf = x.buffers[b];
    HostTensor t(buf.dtype, buf.shape);
    if (Error e = x.devices[buf.device]->copyToHost(t.data(), x.pointers[b], t.byteSize()))
      return e;
    results.push_back(std::move(t));
  }
  if (Error e = x.synchronizeAll())
    return e;
  return results;
}

void Executable::printSchedule(raw_ostream &os) const {
  const Impl &x = *impl;
  auto shapeOf = [](const Buffer &b) {
    return typeToString(makeTensorType(b.shape, b.dtype).get());
  };
  os << "// ---- schedule: " << x.steps.size() << " steps"
     << (x.restored ? ", read from the compiled model" : "") << " ----\n";
  for (unsigned s = 0; s < x.steps.size(); ++s) {
    const Step &st = x.steps[s];
    os << format("%4u  ", s);
    auto list = [&](unsigned from, unsigned to) {
      for (unsigned i = from; i < to; ++i)
        os << (i > from ? ", " : "") << "b" << st.buffers[i];
    };
    switch (st.kind) {
    case Step::Kind::Kernel:
      os << "kernel " << st.label << " on " << x.devices[st.device]->name() << " (k" << st.kernel
         << "): [";
      list(0, st.numInputs);
      os << "] -> [";
      list(st.numInputs, st.buffers.size());
      os << "]";
      break;
    case Step::Kind::Copy:
      os << "copy " << st.label << ": b" << st.buffers[0] << " ("
         << x.devices[x.buffers[st.buffers[0]].device]->name() << ") -> b" << st.buffers[1] << " ("
         << x.devices[x.buffers[st.buffers[1]].device]->name() << "), "
         << x.buffers[st.buffers[0]].bytes << " bytes";
      break;
    case Step::Kind::Alias:
      os << "alias " << st.label << ": b" << st.buffers[1] << " = b" << st.buffers[0];
      break;
    case Step::Kind::If:
      os << "if b" << st.buffers[0] << " else goto " << st.target;
      break;
    case Step::Kind::Jump:
      os << "goto " << st.target;
      break;
    }
    os << "\n";
  }
  for (unsigned d = 0; d < x.devices.size(); ++d) {
    os << "// ---- " << x.devices[d]->name() << " (virtual device " << d << ", "
       << (d < x.virtualNames.size() ? x.virtualNames[d] : "?") << "): arena "
       << x.plan.arenaBytes[d] << " bytes (" << x.plan.totalBytes[d]
       << " without reuse), parameters, constants and outputs " << x.extraBytes[d]
       << " bytes ----\n";
    for (unsigned b = 0; b < x.buffers.size(); ++b) {
      const Buffer &buf = x.buffers[b];
      if (buf.device != d)
        continue;
      os << "  b" << b << " " << shapeOf(buf) << " " << buf.bytes << " bytes, ";
      switch (buf.kind) {
      case Buffer::Kind::Param:
        os << "parameter " << buf.index;
        break;
      case Buffer::Kind::Constant:
        if (buf.data)
          os << "constant tensor";
        else
          os << "constant " << buf.value;
        break;
      case Buffer::Kind::Output:
        os << "output";
        break;
      case Buffer::Kind::Alias:
        os << "alias of b" << buf.index;
        break;
      case Buffer::Kind::Intermediate:
        os << "arena offset " << x.offsets[b];
        break;
      }
      os << " (" << buf.name << ")\n";
    }
  }
}

void Executable::printProfile(raw_ostream &os, const RunProfile &p, unsigned runs) const {
  const Impl &x = *impl;
  runs = std::max(runs, 1u);
  std::map<std::pair<unsigned, std::string>, std::pair<unsigned, double>> byOp;
  std::vector<double> perDevice(x.devices.size(), 0);
  std::map<std::pair<unsigned, unsigned>, std::pair<unsigned, uint64_t>> copies;
  double total = 0;
  for (const RunProfile::StepTime &t : p.steps) {
    const Step &st = x.steps[t.step];
    if (st.kind == Step::Kind::Jump || st.kind == Step::Kind::Alias)
      continue;
    std::string name = st.kind == Step::Kind::Copy ? "copy"
                       : st.kind == Step::Kind::If ? "if"
                                                   : st.label.substr(0, st.label.find(" at "));
    auto &e = byOp[{st.device, name}];
    ++e.first;
    e.second += t.seconds;
    perDevice[st.device] += t.seconds;
    total += t.seconds;
    if (st.kind == Step::Kind::Copy) {
      auto &c = copies[{x.buffers[st.buffers[0]].device, x.buffers[st.buffers[1]].device}];
      ++c.first;
      c.second += x.buffers[st.buffers[0]].bytes;
    }
  }
  os << "// ---- profile (" << runs << (runs == 1 ? " run" : " runs") << ", times per run) ----\n";
  os << format("total %.3f ms in %zu steps\n", 1e3 * total / runs, p.steps.size() / runs);
  for (unsigned d = 0; d < x.devices.size(); ++d) {
    os << x.devices[d]->name() << ": " << format("%.3f ms", 1e3 * perDevice[d] / runs)
       << ", peak memory " << deviceBytes(d) << " bytes (arena " << x.plan.arenaBytes[d] << ")\n";
    for (auto &[k, v] : byOp)
      if (k.first == d)
        os << format("  %-24s %6u x %10.3f ms\n", k.second.c_str(), v.first / runs,
                     1e3 * v.second / runs);
  }
  os << "copies:";
  if (copies.empty())
    os << " none";
  os << "\n";
  for (auto &[k, v] : copies)
    os << "  " << x.devices[k.first]->name() << " -> " << x.devices[k.second]->name() << ": "
       << v.first / runs << (v.first / runs == 1 ? " copy, " : " copies, ") << v.second / runs
       << " bytes\n";
}

unsigned Executable::numTracks() const {
  return impl->devices.size() + (impl->queues.empty() ? 0 : impl->queues.size() - 1);
}

std::string Executable::trackName(unsigned track) const {
  const Impl &x = *impl;
  if (track < x.devices.size())
    return x.devices[track]->name();
  unsigned q = track - x.devices.size() + 1;
  return q < x.queues.size() ? x.queues[q].name : "?";
}

void Executable::writeTrace(raw_ostream &os, const RunProfile &p) const {
  const Impl &x = *impl;
  json::Array events;
  for (unsigned t = 0; t < numTracks(); ++t)
    events.push_back(json::Object{{"name", "thread_name"},
                                  {"ph", "M"},
                                  {"pid", 0},
                                  {"tid", t},
                                  {"args", json::Object{{"name", trackName(t)}}}});
  for (const RunProfile::StepTime &t : p.steps) {
    const Step &st = x.steps[t.step];
    if (st.kind == Step::Kind::Jump || st.kind == Step::Kind::Alias)
      continue;
    json::Object args{{"step", t.step}};
    std::string name = st.label;
    if (st.kind == Step::Kind::Copy) {
      const Buffer &src = x.buffers[st.buffers[0]];
      name = "copy " + x.devices[src.device]->name() + " -> " + x.devices[st.device]->name();
      args["bytes"] = src.bytes;
    }
    events.push_back(json::Object{{"name", name},
                                  {"cat", st.kind == Step::Kind::Copy ? "copy" : "kernel"},
                                  {"ph", "X"},
                                  {"pid", 0},
                                  {"tid", t.track},
                                  {"ts", t.start * 1e6},
                                  {"dur", t.seconds * 1e6},
                                  {"args", std::move(args)}});
  }
  os << formatv("{0:2}", json::Value(json::Object{{"traceEvents", std::move(events)}})) << "\n";
}
