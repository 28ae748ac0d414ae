//===- Inputs.cpp - The inputs of a run, from files or drawn -------------===//
//
// Every file is read once, here, before anything is compiled: what the run
// uses is what was checked, whatever happens to the file later.
//
//===----------------------------------------------------------------------===//
#include "hx/Run/Inputs.h"
#include "hx/IR/Rewrite.h"
#include "hx/Tensor/Npy.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <iterator>
#include <unistd.h>

using namespace llvm;

namespace hx {

/// DIR/NAME.npy for --params: nullopt when there is no such file; an error
/// when DIR is not a directory, or the file's name cannot be resolved (a
/// symlink loop, no permission), so that a mistake in the directory is not
/// reported as a missing input.
static Expected<std::optional<std::string>> paramFile(StringRef dir, StringRef name) {
  sys::fs::file_status st;
  if (std::error_code ec = sys::fs::status(dir, st))
    return createStringError("--params " + dir + ": " + ec.message());
  if (!sys::fs::is_directory(st))
    return createStringError("--params " + dir + ": not a directory");
  SmallString<256> path(dir);
  sys::path::append(path, name + ".npy");
  std::error_code ec = sys::fs::status(path, st);
  if (ec == std::errc::no_such_file_or_directory)
    return std::nullopt;
  if (ec)
    return createStringError(path + ": cannot read: " + ec.message());
  return path.str().str();
}

/// "1.5 GiB"
static std::string bytesText(uint64_t n) {
  const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(n);
  unsigned u = 0;
  while (v >= 1024 && u + 1 < std::size(units))
    v /= 1024, ++u;
  return u == 0 ? std::to_string(n) + " bytes" : formatv("{0:F1} {1}", v, units[u]).str();
}

/// The machine's physical memory (0 when unknown).
static uint64_t physicalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

/// Whether a random value of type `tt` for `param` may be drawn: its size
/// is computed without overflow and checked before anything is allocated,
/// against --device-memory-limit and, with what was drawn before, against
/// the machine's memory.
static Error checkDrawSize(const Var &param, const TensorType &tt, uint64_t limit,
                           uint64_t &drawn) {
  std::optional<int64_t> n = tt.numElements();
  uint64_t elemBytes = dtypeBytes(tt.dtype);
  auto tooLarge = [&](const Twine &why) {
    return createStringError("parameter %" + param.name + " (" + typeToString(&tt) +
                             "): cannot draw random values for it: " + why);
  };
  if (!n || uint64_t(*n) > UINT64_MAX / elemBytes)
    return tooLarge("its size overflows 64 bits");
  uint64_t bytes = uint64_t(*n) * elemBytes;
  if (limit && bytes > limit)
    return tooLarge(bytesText(bytes) + ", more than --device-memory-limit (" + bytesText(limit) +
                    ")");
  uint64_t memory = physicalMemory();
  if (memory && bytes > memory - std::min(memory, drawn))
    return tooLarge(bytesText(bytes) + (drawn ? " more" : "") + ", more than this machine's " +
                    "memory (" + bytesText(memory) + ")");
  drawn += bytes;
  return Error::success();
}

/// Reads or makes one tensor per parameter of @main.
Error checkInput(const Var &param, const HostTensor &t) {
  // Typed, or as written (before infer-type).
  const Type *ty = param.checkedType ? param.checkedType.get() : param.annotation.get();
  if (!ty)
    return Error::success();
  const auto *tt = dyn_cast<TensorType>(ty);
  auto mismatch = [&](const Twine &why) {
    return createStringError(t.typeString() + " does not match parameter %" + param.name +
                             " of type " + typeToString(ty) + ": " + why);
  };
  if (!tt)
    return mismatch("not a tensor");
  if (t.dtype() != tt->dtype)
    return mismatch("dtype " + dtypeName(t.dtype()) + ", not " + dtypeName(tt->dtype));
  if (t.shape().size() != tt->rank())
    return mismatch("rank " + Twine(t.shape().size()) + ", not " + Twine(tt->rank()));
  for (size_t d = 0; d < tt->rank(); ++d)
    if (tt->shape[d] != TensorType::kDynamic && tt->shape[d] != t.shape()[d])
      return mismatch("dim " + Twine(d) + " is " + Twine(t.shape()[d]) + ", not " +
                      Twine(tt->shape[d]));
  return Error::success();
}

Expected<std::vector<HostTensor>> gatherInputs(const Function &main, const InputSources &c) {
  std::vector<HostTensor> out;
  StringMap<std::string> given;
  for (StringRef spec : c.inputs) {
    auto [name, file] = spec.split('=');
    name.consume_front("%");
    if (name.empty() || file.empty()) {
      return createStringError("--input " + spec + ": expected NAME=file.npy");
    }
    bool known = llvm::any_of(main.params, [&](const Ref<Var> &p) { return p->name == name; });
    if (!known) {
      std::string names;
      for (const Ref<Var> &p : main.params)
        names += (names.empty() ? "%" : ", %") + p->name;
      return createStringError("--input " + spec + ": @main has no parameter %" + name +
                               (names.empty() ? " (it has none)" : " (it has " + names + ")"));
    }
    if (!given.try_emplace(name, file.str()).second) {
      return createStringError("--input: parameter %" + name + " given twice");
    }
  }
  std::optional<RandomInputGenerator> random;
  uint64_t drawn = 0; // bytes drawn so far
  if (c.randomInputs)
    random.emplace(main, c.seed, *c.randomInputs);
  for (const Ref<Var> &p : main.params) {
    auto *tt = dyn_cast_or_null<TensorType>(p->checkedType.get());
    if (!tt) {
      return createStringError("parameter %" + p->name + " of type " +
                               typeToString(p->checkedType.get()) + ": hx-run takes tensors");
    }
    auto it = given.find(p->name);
    if (it == given.end() && !c.paramsDir.empty()) {
      Expected<std::optional<std::string>> path = paramFile(c.paramsDir, p->name);
      if (!path)
        return path.takeError();
      if (*path)
        it = given.try_emplace(p->name, **path).first;
    }
    if (it != given.end()) {
      Expected<HostTensor> t = readNpy(it->second);
      if (!t)
        return t.takeError();
      *t = npyAs(std::move(*t), tt->dtype);
      if (Error e = checkInput(*p, *t))
        return createStringError(it->second + ": " + toString(std::move(e)));
      out.push_back(std::move(*t));
      continue;
    }
    if (!tt->isStatic()) {
      return createStringError("parameter %" + p->name + " has the dynamic shape " +
                               typeToString(tt) + ": give its value with --input " + p->name +
                               "=FILE.npy (no other input binds its dimensions)");
    }
    if (!c.randomInputs) {
      return createStringError(
          "no input for parameter %" + p->name + " (" + typeToString(tt) + "): give --input " +
          p->name + "=FILE.npy" +
          (c.paramsDir.empty() ? "" : ", " + c.paramsDir + "/" + p->name + ".npy") +
          " or --random-inputs");
    }
    if (Error e = checkDrawSize(*p, *tt, c.memoryLimit, drawn))
      return e;
    out.push_back(random->draw(*p, *tt));
  }
  return out;
}

Expected<unsigned> bindParamsAsConstants(Function &main, StringRef dir,
                                         ArrayRef<std::string> keep) {
  DenseMap<Var *, ExprRef> bound;
  std::vector<Ref<Var>> kept;
  for (const Ref<Var> &p : main.params) {
    if (p->device != kNoDevice || is_contained(keep, p->name)) {
      kept.push_back(p);
      continue;
    }
    Expected<std::optional<std::string>> file = paramFile(dir, p->name);
    if (!file)
      return file.takeError();
    if (!*file) {
      kept.push_back(p);
      continue;
    }
    std::string path = **file;
    Expected<HostTensor> t = readNpy(path);
    if (!t)
      return t.takeError();
    const Type *declared = p->annotation.get();
    auto *tt = dyn_cast_or_null<TensorType>(declared);
    if (tt)
      *t = npyAs(std::move(*t), tt->dtype);
    if (declared && (!tt || !tt->isStatic() || t->dtype() != tt->dtype ||
                     t->shape() != ArrayRef<int64_t>(tt->shape)))
      return createStringError(path + ": " + t->typeString() + " does not match parameter %" +
                               p->name + " of type " + typeToString(declared));
    auto data = std::make_shared<TensorData>();
    data->dtype = t->dtype();
    data->shape.assign(t->shape().begin(), t->shape().end());
    const auto *bytes = static_cast<const uint8_t *>(t->data());
    data->bytes.assign(bytes, bytes + t->byteSize());
    SmallString<256> absolutePath(path);
    sys::fs::make_absolute(absolutePath);
    data->npyPath = absolutePath.str().str();
    bound[p.get()] = make<Constant>(std::move(data), p->loc);
  }
  if (bound.empty())
    return 0;
  main.body = rewritePostOrder(main.body.get(), [&](Expr *old, ArrayRef<ExprRef> ops) {
    if (auto *v = dyn_cast<Var>(old))
      if (auto it = bound.find(v); it != bound.end())
        return it->second;
    return withOperands(old, ops);
  });
  main.params = std::move(kept);
  return unsigned(bound.size());
}

std::vector<std::string> paramNames(const Function &main) {
  std::vector<std::string> names;
  for (const Ref<Var> &p : main.params)
    names.push_back(p->name);
  return names;
}

Error writeInputs(StringRef dir, ArrayRef<std::string> names, ArrayRef<HostTensor> inputs) {
  if (std::error_code ec = sys::fs::create_directories(dir))
    return createStringError(ec, "cannot create '" + dir + "': " + ec.message());
  for (size_t i = 0; i < names.size() && i < inputs.size(); ++i) {
    SmallString<128> path(dir);
    sys::path::append(path, names[i] + ".npy");
    if (Error e = writeNpy(path, inputs[i]))
      return e;
  }
  return Error::success();
}

} // namespace hx
