//===- CompiledFile.cpp - A compiled model as one file (.hxc) -------------===//
//
// See CompiledFile.h. The header stays outside the hash, so that a file of
// another hx version is named as such rather than as corrupted. A
// constant's shape is checked against its bytes before anything is
// allocated for it.
//
//===----------------------------------------------------------------------===//
#include "hx/Run/CompiledFile.h"
#include "hx/IR/Type.h"
#include "hx/Support/ByteStream.h"
#include "hx/Support/Version.h"
#include "llvm/Support/xxhash.h"
#include <cstring>

using namespace llvm;

namespace hx {

static constexpr StringLiteral kMagic = "\x89HXC\r\n\x1a\n";

std::string compiledConstantName(unsigned i) { return "hxc:" + std::to_string(i); }

bool isCompiledModel(StringRef bytes) { return bytes.starts_with(kMagic); }

/// The header: magic, format, version, payload size and hash.
static std::string header(StringRef payload) {
  std::string out(kMagic);
  ByteWriter w(out);
  w.u32(kCompiledFormatVersion);
  w.bytes(hxVersion());
  w.u64(payload.size());
  w.u64(xxh3_64bits(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(payload.data()), payload.size())));
  return out;
}

std::string resealCompiled(StringRef bytes) {
  if (!isCompiledModel(bytes))
    return bytes.str();
  ByteReader h(bytes.drop_front(kMagic.size()));
  h.u32();
  h.bytes();
  h.u64();
  h.u64();
  if (!h.ok())
    return bytes.str();
  StringRef payload = bytes.drop_front(kMagic.size() + h.offset());
  return header(payload) + payload.str();
}

std::string serializeCompiled(const CompiledModelParts &parts) {
  std::string payload;
  ByteWriter p(payload);
  p.bytes(parts.log);
  p.bytes(parts.moduleText);
  p.u32(parts.constants.size());
  for (const TensorData *t : parts.constants) {
    p.bytes(dtypeName(t->dtype));
    p.u32(t->shape.size());
    for (int64_t d : t->shape)
      p.i64(d);
    p.bytes(StringRef(reinterpret_cast<const char *>(t->bytes.data()), t->bytes.size()));
  }
  p.u32(parts.kernels.size());
  for (const BackendCache::SavedKernels &k : parts.kernels) {
    p.bytes(k.backend);
    p.bytes(k.targetKey);
    p.bytes(k.bytes);
  }
  p.bytes(parts.schedule);
  p.u32(parts.scheduleBackends.size());
  for (const auto &[backend, targetKey] : parts.scheduleBackends) {
    p.bytes(backend);
    p.bytes(targetKey);
  }
  return header(payload) + payload;
}

/// Reads one constant; false when its fields do not make a tensor.
static bool readConstant(ByteReader &r, TensorData &out) {
  std::optional<DType> dtype = parseDType(r.bytes());
  SmallVector<int64_t, 4> shape(r.count(8));
  for (int64_t &d : shape)
    d = r.i64();
  StringRef data = r.bytes();
  if (!r.ok() || !dtype)
    return false;
  uint64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d && elements > data.size() / uint64_t(d)))
      return false;
    elements *= uint64_t(d);
  }
  if (elements * dtypeBytes(*dtype) != data.size())
    return false;
  out.dtype = *dtype;
  out.shape = shape;
  out.bytes.assign(data.bytes_begin(), data.bytes_end());
  return true;
}

Expected<LoadedCompiledModel> parseCompiled(std::unique_ptr<MemoryBuffer> buffer, StringRef name) {
  auto fail = [&](const Twine &why) { return createStringError(name + ": " + why); };
  StringRef bytes = buffer->getBuffer();
  if (!isCompiledModel(bytes))
    return fail("not a compiled hx model (hx-compile writes them)");
  ByteReader h(bytes.drop_front(kMagic.size()));
  uint32_t format = h.u32();
  StringRef version = h.bytes();
  uint64_t size = h.u64(), hash = h.u64();
  if (!h.ok())
    return fail("truncated compiled model (its header is cut short)");
  if (format != kCompiledFormatVersion)
    return fail("compiled model file format " + Twine(format) + "; this hx reads format " +
                Twine(kCompiledFormatVersion) + ": compile the model again with this hx-compile");
  if (version != hxVersion())
    return fail("compiled by hx " + version + "; this is hx " + hxVersion() +
                ": compile the model again with this hx-compile");
  StringRef payload = bytes.drop_front(kMagic.size() + h.offset());
  if (payload.size() != size)
    return fail(payload.size() < size ? "truncated compiled model (" + Twine(payload.size()) +
                                            " of its " + Twine(size) + " bytes)"
                                      : "corrupted compiled model (" +
                                            Twine(payload.size() - size) + " bytes after its end)");
  if (xxh3_64bits(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(payload.data()),
                                    payload.size())) != hash)
    return fail("corrupted compiled model (its checksum does not match)");

  LoadedCompiledModel m;
  m.version = version.str();
  ByteReader r(payload);
  m.log = r.bytes();
  m.moduleText = r.bytes();
  unsigned numConstants = r.count(24);
  for (unsigned i = 0; i < numConstants && r.ok(); ++i) {
    auto t = std::make_shared<TensorData>();
    if (!readConstant(r, *t))
      return fail("corrupted compiled model (constant " + Twine(i) + ")");
    m.constantList.push_back(t);
    m.constants[compiledConstantName(i)] = std::move(t);
  }
  unsigned numKernels = r.count(24);
  for (unsigned i = 0; i < numKernels && r.ok(); ++i) {
    LoadedCompiledModel::Kernels &k = m.kernels.emplace_back();
    k.backend = r.bytes();
    k.targetKey = r.bytes();
    k.bytes = r.bytes();
  }
  m.schedule = r.bytes();
  unsigned numScheduleBackends = r.count(16);
  for (unsigned i = 0; i < numScheduleBackends && r.ok(); ++i) {
    StringRef backend = r.bytes(), targetKey = r.bytes();
    m.scheduleBackends.push_back({backend, targetKey});
  }
  if (!r.ok() || !r.atEnd())
    return fail("corrupted compiled model (its fields do not add up)");
  m.buffer = std::move(buffer);
  return m;
}

} // namespace hx
