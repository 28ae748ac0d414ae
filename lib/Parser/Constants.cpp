//===- Constants.cpp - hx's "relay.Constant" table and TVM's NDArrays -----===//
//
// hx's readable constant table, one entry per `meta[relay.Constant][i]`:
//
//   "relay.Constant": [
//     {"dtype": "float32", "shape": [8, 3, 3, 3], "data": "<base64>"},
//     {"dtype": "float32", "shape": [10], "npy": "weights/fc_bias.npy"}
//   ]
//
// `data` is the row-major little-endian bytes in base64; `npy` a NumPy file
// relative to the .ir file. dtype and shape are always given, so a
// constant's type is known before type inference and a reader of the text
// sees it; a value that disagrees with them is a located error.
//
// TVM's binary NDArray (inside the base64 of its own metadata) is decoded here
// too: both readers end in the same TensorData.
//
//===----------------------------------------------------------------------===//
#include "MetadataReaders.h"
#include "hx/Tensor/Npy.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Path.h"

using namespace hx;
using namespace llvm;
using P = HxParser;

namespace {

/// Bytes of a static shape's elements; nullopt when a dim is negative or the
/// size overflows.
std::optional<uint64_t> byteCount(ArrayRef<int64_t> shape, DType dtype) {
  uint64_t n = dtypeBytes(dtype);
  for (int64_t d : shape) {
    if (d < 0 || (d && n > (uint64_t(1) << 46) / uint64_t(d)))
      return std::nullopt;
    n *= uint64_t(d);
  }
  return n;
}

std::string typeText(const TensorData &t) {
  std::string s = "Tensor[(";
  for (size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(t.shape[i]);
  if (t.shape.size() == 1)
    s += ",";
  return s + "), " + dtypeName(t.dtype).str() + "]";
}

class TableReader {
public:
  TableReader(DiagEngine &diags, StringRef baseDir, const NpySources &held)
      : diags(diags), baseDir(baseDir), held(held) {}

  /// Fills `t`, or sets `shared` to a held constant.
  bool entry(P::JsonContext *ctx, size_t index, TensorData &t,
             std::shared_ptr<const TensorData> &shared) {
    auto *obj = dynamic_cast<P::JsonObjectContext *>(ctx);
    if (!obj)
      return error(ctx,
                   "constant " + Twine(index) + " must be an object, not " + describeJson(ctx));
    P::JsonContext *dtype = nullptr, *shape = nullptr, *data = nullptr, *npy = nullptr;
    for (auto &m : membersOf(obj)) {
      std::string key = unescapeString(m.key->text());
      P::JsonContext **slot = key == "dtype"   ? &dtype
                              : key == "shape" ? &shape
                              : key == "data"  ? &data
                              : key == "npy"   ? &npy
                                               : nullptr;
      if (!slot) {
        diags
            .error(locOf(m.key),
                   "unknown constant field '" + key + "' (expected dtype, shape, and data or npy)")
            .range(rangeOf(m.key));
        return false;
      }
      if (*slot) {
        diags.error(locOf(m.key), "duplicate constant field '" + key + "'").range(rangeOf(m.key));
        return false;
      }
      *slot = m.value;
    }
    if (!dtype || !shape)
      return error(ctx, "constant " + Twine(index) + " has no \"" + (dtype ? "shape" : "dtype") +
                            "\" (every entry gives dtype and shape)");
    if (!data == !npy)
      return error(ctx, "constant " + Twine(index) +
                            (data ? " has both \"data\" and \"npy\"; give one"
                                  : " has no value: give \"data\" (base64) or \"npy\" (a file)"));
    std::optional<std::string> dtypeName = jsonString(dtype);
    std::optional<DType> dt = dtypeName ? parseDType(*dtypeName) : std::nullopt;
    if (!dt)
      return error(dtype, "constant dtype must be a dtype name such as \"float32\"");
    t.dtype = *dt;
    auto *dims = dynamic_cast<P::JsonArrayContext *>(shape);
    if (!dims)
      return error(shape, "constant shape must be an array of dims, not " + describeJson(shape));
    for (auto *d : dims->json()) {
      std::optional<int64_t> v = jsonInt(d);
      if (!v || *v < 0)
        return error(d, "a constant's dims must be non-negative integers");
      t.shape.push_back(*v);
    }
    std::optional<uint64_t> bytes = byteCount(t.shape, t.dtype);
    if (!bytes)
      return error(shape, "constant " + Twine(index) + " is too large");
    return data ? inlineData(data, index, *bytes, t) : npyData(npy, index, t, shared);
  }

private:
  bool inlineData(P::JsonContext *ctx, size_t index, uint64_t bytes, TensorData &t) {
    std::optional<std::string> text = jsonString(ctx);
    if (!text)
      return error(ctx, "constant data must be a base64 string, not " + describeJson(ctx));
    std::vector<char> raw;
    if (Error e = decodeBase64(*text, raw))
      return error(ctx, "constant " + Twine(index) + ": " + toString(std::move(e)));
    if (raw.size() != bytes)
      return error(ctx, "constant " + Twine(index) + " data holds " + Twine(raw.size()) +
                            " bytes; " + typeText(t) + " needs " + Twine(bytes));
    t.bytes.assign(raw.begin(), raw.end());
    return true;
  }

  bool npyData(P::JsonContext *ctx, size_t index, TensorData &t,
               std::shared_ptr<const TensorData> &shared) {
    std::optional<std::string> rel = jsonString(ctx);
    if (!rel || rel->empty())
      return error(ctx, "\"npy\" must be a file name (relative to the .ir file)");
    if (this->held.constants)
      if (auto it = this->held.constants->find(*rel); it != this->held.constants->end()) {
        const TensorData &c = *it->second;
        if (c.dtype != t.dtype || c.shape != t.shape) {
          TensorData given;
          given.dtype = c.dtype;
          given.shape = c.shape;
          return error(ctx, "constant " + Twine(index) + ": '" + *rel + "' holds " +
                                typeText(given) + ", but the table says " + typeText(t));
        }
        shared = it->second;
        return true;
      }
    SmallString<256> path(*rel);
    const HostTensor *held = nullptr;
    if (this->held.files)
      if (auto it = this->held.files->find(*rel); it != this->held.files->end())
        held = &it->second;
    if (!held && this->held.only)
      return error(ctx, "constant " + Twine(index) + ": '" + *rel + "' is not held in memory");
    if (!held && !sys::path::is_absolute(path)) {
      path = baseDir;
      sys::path::append(path, *rel);
    }
    Expected<HostTensor> v = held ? held->clone() : readNpy(path);
    if (!v)
      return error(ctx, "constant " + Twine(index) + ": " + toString(v.takeError()));
    *v = npyAs(std::move(*v), t.dtype);
    if (v->dtype() != t.dtype || v->shape() != ArrayRef<int64_t>(t.shape))
      return error(ctx, "constant " + Twine(index) + ": " + path + " holds " + v->typeString() +
                            ", but the table says " + typeText(t));
    auto *p = static_cast<const uint8_t *>(v->data());
    t.bytes.assign(p, p + v->byteSize());
    // A file held in memory prints back inline: the text stays whole
    // without it.
    if (!held)
      t.npyPath = *rel;
    return true;
  }

  bool error(P::JsonContext *at, const Twine &msg) {
    diags.error(locOf(at), msg);
    return false;
  }

  DiagEngine &diags;
  StringRef baseDir;
  NpySources held;
};

} // namespace

bool hx::readConstantTable(P::JsonContext *ctx, DiagEngine &diags, StringRef baseDir,
                           const NpySources &held,
                           std::vector<std::shared_ptr<const TensorData>> &out) {
  auto *arr = dynamic_cast<P::JsonArrayContext *>(ctx);
  if (!arr) {
    diags.error(locOf(ctx), "\"relay.Constant\" must be an array, not " + describeJson(ctx));
    return false;
  }
  TableReader reader(diags, baseDir, held);
  out.clear();
  for (auto *e : arr->json()) {
    auto t = std::make_shared<TensorData>();
    std::shared_ptr<const TensorData> shared;
    if (!reader.entry(e, out.size(), *t, shared))
      return false;
    out.push_back(shared ? std::move(shared) : std::move(t));
  }
  return true;
}

bool hx::decodeTVMNDArray(StringRef bytes, TensorData &out, std::string &err) {
  constexpr uint64_t kMagic = 0xDD5E40F096B4A13FULL;
  auto u64 = [&](size_t at) { return support::endian::read64le(bytes.data() + at); };
  auto i32 = [&](size_t at) { return int32_t(support::endian::read32le(bytes.data() + at)); };
  if (bytes.size() < 32 || u64(0) != kMagic) {
    err = "not a TVM NDArray (bad magic number)";
    return false;
  }
  int32_t ndim = i32(24);
  if (ndim < 0 || ndim > 64 || bytes.size() < 40 + 8 * size_t(ndim)) {
    err = "truncated NDArray header";
    return false;
  }
  unsigned code = uint8_t(bytes[28]), bits = uint8_t(bytes[29]);
  unsigned lanes = support::endian::read16le(bytes.data() + 30);
  std::optional<DType> dt;
  if (lanes == 1) {
    if (code == 1 && bits == 1)
      dt = DType::Bool;
    else if (code == 0 || code == 1 || code == 2)
      dt = parseDType((code == 0 ? "int" : code == 1 ? "uint" : "float") + std::to_string(bits));
  }
  if (!dt) {
    err = "unsupported NDArray dtype (code " + std::to_string(code) + ", " + std::to_string(bits) +
          " bits, " + std::to_string(lanes) + " lanes)";
    return false;
  }
  out.dtype = *dt;
  out.shape.clear();
  for (int32_t i = 0; i < ndim; ++i)
    out.shape.push_back(int64_t(u64(32 + 8 * size_t(i))));
  size_t at = 32 + 8 * size_t(ndim);
  uint64_t size = u64(at);
  std::optional<uint64_t> want = byteCount(out.shape, out.dtype);
  if (!want || size != *want || bytes.size() - at - 8 != size) {
    err = "NDArray data size does not match its shape";
    return false;
  }
  out.bytes.assign(bytes.begin() + at + 8, bytes.end());
  return true;
}
