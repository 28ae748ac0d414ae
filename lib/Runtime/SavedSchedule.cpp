//===- SavedSchedule.cpp - An executable's schedule and plan as bytes -----===//
//
// What a compiled model file keeps besides the module and the kernels, so
// that loading one neither evaluates @main into steps (Schedule.cpp) nor
// plans memory (MemoryPlan.h): the buffers (kind, device, dtype, shape,
// bytes, parameter or aliased index, a scalar constant's value or a tensor
// constant's number, name), the steps (kind, device, kernel id, buffers,
// inputs, jump target, label, signature), the output buffers, and per
// device the arena's size with each intermediate buffer's offset in it.
//
//   "hx schedule 1", u32 virtual devices, u32 parameters,
//   u32 buffers × {u32 kind, u32 device, bytes dtype, u32 rank × i64 dim,
//                  u64 bytes, u32 index, u64 value bits, u32 constant + 1
//                  (0: none), bytes name, u64 offset},
//   u32 steps × {u32 kind, u32 device, u32 kernel, u32 count × u32 buffer,
//                u32 inputs, u32 target, bytes label, bytes signature},
//   u32 outputs × u32 buffer, per device {u64 arena, u64 total}.
//
// Restoring checks every field against what it indexes and against the
// module it was built from, before anything is allocated: a buffer's bytes
// are its shape's; a parameter's type is @main's parameter's; an alias
// names an earlier buffer; a kernel id is below its backend's kernel count;
// jumps go forward; an intermediate buffer lies inside its device's arena at
// an aligned offset. Such an error means the file was made by something
// other than this hx's hx-compile (the file's checksum catches damage).
//
//===----------------------------------------------------------------------===//
#include "ExecutableImpl.h"
#include "hx/Support/ByteStream.h"
#include "llvm/ADT/bit.h"

using namespace hx;
using namespace llvm;

static constexpr StringLiteral kScheduleTag = "hx schedule 1";

static Error fail(const Twine &msg) { return createStringError(inconvertibleErrorCode(), msg); }

Error Executable::save(
    std::string &out,
    function_ref<std::optional<unsigned>(const TensorData &)> constantIndex) const {
  const Impl &x = *impl;
  std::string bytes;
  ByteWriter w(bytes);
  w.bytes(kScheduleTag);
  w.u32(x.devices.size());
  w.u32(x.numParams);
  w.u32(x.buffers.size());
  for (unsigned b = 0; b < x.buffers.size(); ++b) {
    const Buffer &buf = x.buffers[b];
    w.u32(uint32_t(buf.kind));
    w.u32(buf.device);
    w.bytes(dtypeName(buf.dtype));
    w.u32(buf.shape.size());
    for (int64_t d : buf.shape)
      w.i64(d);
    w.u64(buf.bytes);
    w.u32(buf.index);
    w.u64(bit_cast<uint64_t>(buf.value));
    uint32_t constant = 0;
    if (buf.data) {
      std::optional<unsigned> i = constantIndex(*buf.data);
      if (!i)
        return fail("the tensor constant of buffer " + Twine(b) + " (" + buf.name +
                    ") is not in the module");
      constant = *i + 1;
    }
    w.u32(constant);
    w.bytes(buf.name);
    w.u64(b < x.offsets.size() ? x.offsets[b] : 0);
  }
  w.u32(x.steps.size());
  for (const Step &st : x.steps) {
    w.u32(uint32_t(st.kind));
    w.u32(st.device);
    w.u32(st.kernel);
    w.u32(st.buffers.size());
    for (unsigned b : st.buffers)
      w.u32(b);
    w.u32(st.numInputs);
    w.u32(st.target);
    w.bytes(st.label);
    w.bytes(st.signature);
  }
  w.u32(x.outputs.size());
  for (unsigned b : x.outputs)
    w.u32(b);
  for (unsigned d = 0; d < x.devices.size(); ++d) {
    w.u64(d < x.plan.arenaBytes.size() ? x.plan.arenaBytes[d] : 0);
    w.u64(d < x.plan.totalBytes.size() ? x.plan.totalBytes[d] : 0);
  }
  out += bytes;
  return Error::success();
}

namespace {

/// Reads save's bytes into an Impl, checking each field (see the file
/// comment); the error says which field does not fit.
class ScheduleReader {
public:
  ScheduleReader(StringRef saved, Executable::Impl &x, const Module &m,
                 ArrayRef<std::shared_ptr<const TensorData>> constants)
      : r(saved), x(x), m(m), constants(constants) {}

  Error read() {
    if (r.bytes() != kScheduleTag)
      return fail("it is not a schedule");
    unsigned numDevices = r.u32();
    x.numParams = r.u32();
    const Function *main = m.lookup("main");
    if (!r.ok() || numDevices != x.devices.size())
      return fail("it is for " + Twine(numDevices) + " virtual devices, and the module has " +
                  Twine(x.devices.size()));
    if (!main || x.numParams != main->params.size())
      return fail("its parameter count does not match @main's");
    x.buffers.resize(r.count(64));
    x.offsets.assign(x.buffers.size(), 0);
    for (unsigned b = 0; b < x.buffers.size() && r.ok(); ++b)
      if (Error e = readBuffer(b, *main))
        return e;
    x.steps.resize(r.count(32));
    for (unsigned s = 0; s < x.steps.size() && r.ok(); ++s)
      if (Error e = readStep(s))
        return e;
    x.outputs.resize(r.count(4));
    for (unsigned &b : x.outputs) {
      b = r.u32();
      if (r.ok() && b >= x.buffers.size())
        return fail("an output names buffer " + Twine(b) + " of " + Twine(x.buffers.size()));
    }
    x.plan.arenaBytes.assign(numDevices, 0);
    x.plan.totalBytes.assign(numDevices, 0);
    for (unsigned d = 0; d < numDevices; ++d) {
      x.plan.arenaBytes[d] = r.u64();
      x.plan.totalBytes[d] = r.u64();
      if (x.plan.arenaBytes[d] > kMaxBufferBytes)
        return fail("the arena of virtual device " + Twine(d) + " is too large");
    }
    if (!r.ok() || !r.atEnd())
      return fail("its fields do not add up");
    for (unsigned b = 0; b < x.buffers.size(); ++b) {
      const Buffer &buf = x.buffers[b];
      if (buf.kind == Buffer::Kind::Intermediate &&
          (x.offsets[b] % kBufferAlignment || x.offsets[b] > x.plan.arenaBytes[buf.device] ||
           buf.bytes > x.plan.arenaBytes[buf.device] - x.offsets[b]))
        return fail("buffer " + Twine(b) + " does not lie inside its arena");
    }
    return Error::success();
  }

private:
  Error readBuffer(unsigned b, const Function &main) {
    Buffer &buf = x.buffers[b];
    uint32_t kind = r.u32();
    buf.device = r.u32();
    std::optional<DType> dtype = parseDType(r.bytes());
    buf.shape.resize(r.count(8));
    for (int64_t &d : buf.shape)
      d = r.i64();
    buf.bytes = r.u64();
    buf.index = r.u32();
    buf.value = bit_cast<double>(r.u64());
    uint32_t constant = r.u32();
    buf.name = r.bytes().str();
    x.offsets[b] = r.u64();
    if (!r.ok())
      return Error::success(); // read() reports it
    auto bad = [&](const Twine &why) { return fail("buffer " + Twine(b) + ": " + why); };
    if (kind > uint32_t(Buffer::Kind::Alias) || !dtype || buf.device >= x.devices.size())
      return bad("a kind, dtype or device it cannot have");
    buf.kind = Buffer::Kind(kind);
    buf.dtype = *dtype;
    uint64_t elements = 1;
    for (int64_t d : buf.shape) {
      if (d < 0 || (d && elements > kMaxBufferBytes / uint64_t(d)))
        return bad("a shape it cannot have");
      elements *= uint64_t(d);
    }
    if (elements * dtypeBytes(buf.dtype) != buf.bytes || buf.bytes > kMaxBufferBytes)
      return bad("its bytes are not its shape's");
    switch (buf.kind) {
    case Buffer::Kind::Param: {
      const auto *t = buf.index < main.params.size()
                          ? dyn_cast_or_null<TensorType>(main.params[buf.index]->checkedType.get())
                          : nullptr;
      if (!t || t->dtype != buf.dtype || ArrayRef<int64_t>(t->shape) != ArrayRef(buf.shape))
        return bad("it is not @main's parameter " + Twine(buf.index));
      break;
    }
    case Buffer::Kind::Alias:
      if (buf.index >= b || x.buffers[buf.index].device != buf.device ||
          x.buffers[buf.index].bytes != buf.bytes)
        return bad("it aliases no earlier buffer of its device and size");
      break;
    case Buffer::Kind::Constant:
      if (constant) {
        if (constant > constants.size())
          return bad("it names constant " + Twine(constant - 1) + " of " + Twine(constants.size()));
        buf.data = constants[constant - 1];
        if (buf.data->dtype != buf.dtype || buf.data->bytes.size() != buf.bytes)
          return bad("its constant is of another type");
      } else if (elements != 1) {
        return bad("a scalar constant of " + Twine(elements) + " elements");
      }
      break;
    default:
      break;
    }
    return Error::success();
  }

  Error readStep(unsigned s) {
    Step &st = x.steps[s];
    uint32_t kind = r.u32();
    st.device = r.u32();
    st.kernel = r.u32();
    st.buffers.resize(r.count(4));
    for (unsigned &b : st.buffers)
      b = r.u32();
    st.numInputs = r.u32();
    st.target = r.u32();
    st.label = r.bytes().str();
    st.signature = r.bytes().str();
    if (!r.ok())
      return Error::success();
    auto bad = [&](const Twine &why) { return fail("step " + Twine(s) + ": " + why); };
    if (kind > uint32_t(Step::Kind::Jump) || st.device >= x.devices.size())
      return bad("a kind or device it cannot have");
    st.kind = Step::Kind(kind);
    for (unsigned b : st.buffers)
      if (b >= x.buffers.size())
        return bad("it names buffer " + Twine(b) + " of " + Twine(x.buffers.size()));
    if (st.numInputs > st.buffers.size())
      return bad("more inputs than buffers");
    switch (st.kind) {
    case Step::Kind::Kernel:
      if (!x.backends[st.device] || st.kernel >= x.backends[st.device]->numKernels())
        return bad("its kernel " + Twine(st.kernel) + " is not in its device's backend");
      break;
    case Step::Kind::Copy:
    case Step::Kind::Alias:
      if (st.buffers.size() != 2 ||
          x.buffers[st.buffers[0]].bytes != x.buffers[st.buffers[1]].bytes)
        return bad("a copy between buffers of different sizes");
      break;
    case Step::Kind::If:
    case Step::Kind::Jump:
      if (st.target <= s || st.target > x.steps.size() ||
          st.buffers.size() != (st.kind == Step::Kind::If ? 1u : 0u))
        return bad("a jump that does not go forward");
      break;
    }
    return Error::success();
  }

  ByteReader r;
  Executable::Impl &x;
  const Module &m;
  ArrayRef<std::shared_ptr<const TensorData>> constants;
};

} // namespace

Expected<std::unique_ptr<Executable>> Executable::restore(
    StringRef saved, const Module &m, ArrayRef<Device *> devices, ArrayRef<Backend *> backends,
    ArrayRef<std::shared_ptr<const TensorData>> constants, const ExecutableOptions &opts) {
  std::unique_ptr<Executable> x(new Executable());
  Impl &i = *x->impl;
  i.init(m, devices, backends, opts);
  if (Error e = ScheduleReader(saved, i, m, constants).read())
    return fail("the saved schedule does not fit: " + toString(std::move(e)));
  i.restored = true;
  if (opts.compileOnly)
    return std::move(x);
  if (Error e = i.bind())
    return std::move(e);
  return std::move(x);
}
