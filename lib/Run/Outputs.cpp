//===- Outputs.cpp - What a run prints and writes of its results ---------===//
//
// writeOutputs writes every file under a temporary name first, then renames
// them all, so a failure leaves none of them (nor a directory it created);
// checkOutputDir finds the failures it can before a run. readReferenceOutputs
// reads files of the same names back.
//
//===----------------------------------------------------------------------===//
#include "hx/Run/Outputs.h"
#include "hx/Tensor/Npy.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <cmath>

using namespace llvm;

namespace hx {

void summarizeOutput(raw_ostream &os, unsigned i, const HostTensor &t) {
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (int64_t k = 0; k < t.numElements(); ++k) {
    double v = t.getDouble(k);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  uint64_t h = 1469598103934665603ull; // FNV-1a of the bytes
  const auto *bytes = static_cast<const uint8_t *>(t.data());
  for (size_t k = 0; k < t.byteSize(); ++k)
    h = (h ^ bytes[k]) * 1099511628211ull;
  os << "output_" << i << ": " << t.typeString();
  if (t.numElements())
    os << format(" min=%.6g max=%.6g sum=%.6g", lo, hi, sum);
  os << format(" fnv=%016llx\n", (unsigned long long)h);
}

/// Writes every result to DIR/output_<i>.npy, all or nothing.
Error writeOutputs(StringRef dir, ArrayRef<HostTensor> results) {
  bool existed = sys::fs::exists(dir);
  if (std::error_code ec = sys::fs::create_directories(dir))
    return createStringError("--output-dir: cannot create '" + dir + "': " + ec.message());
  std::vector<std::pair<std::string, std::string>> staged; // temporary, final
  auto undo = [&] {
    for (auto &[tmp, path] : staged)
      sys::fs::remove(tmp);
    if (!existed)
      sys::fs::remove(dir); // only if still empty
  };
  for (unsigned i = 0; i < results.size(); ++i) {
    SmallString<128> path(dir), tmp(dir);
    sys::path::append(path, "output_" + std::to_string(i) + ".npy");
    sys::path::append(tmp, ".output_" + std::to_string(i) + ".npy.tmp" +
                               std::to_string(sys::Process::getProcessId()));
    if (Error e = writeNpy(tmp, results[i])) {
      undo();
      return createStringError("--output-dir: cannot write '" + path +
                               "': " + toString(std::move(e)));
    }
    staged.push_back({tmp.str().str(), path.str().str()});
  }
  // Renaming cannot run out of space; it fails only where a name cannot
  // be taken (a directory of that name): check all before renaming any.
  for (auto &[tmp, path] : staged)
    if (sys::fs::is_directory(path)) {
      undo();
      return createStringError("--output-dir: cannot write '" + path + "': it is a directory");
    }
  for (auto &[tmp, path] : staged)
    if (std::error_code ec = sys::fs::rename(tmp, path)) {
      undo();
      return createStringError("--output-dir: cannot write '" + path + "': " + ec.message());
    }
  return Error::success();
}

Error checkOutputDir(StringRef dir) {
  // The directory, or the nearest existing one above it, in which
  // writeOutputs would create the rest.
  SmallString<256> target(dir);
  sys::fs::make_absolute(target);
  SmallString<256> at(target);
  while (true) {
    sys::fs::file_status st;
    std::error_code ec = sys::fs::status(at, st);
    bool exists = !ec;
    if (exists ||
        (ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)) {
      std::string why;
      if (!exists)
        why = ec.message();
      else if (!sys::fs::is_directory(st))
        why = at == target ? std::string("not a directory")
                           : "'" + at.str().str() + "' is not a directory";
      else if (std::error_code ac = sys::fs::access(at, sys::fs::AccessMode::Write))
        why = ac.message() + (at == target ? "" : " ('" + at.str().str() + "')");
      if (why.empty())
        return Error::success();
      return createStringError("--output-dir: cannot " +
                               Twine(at == target ? "write into '" : "create '") + dir +
                               "': " + why);
    }
    StringRef parent = sys::path::parent_path(at);
    if (parent.empty() || parent == at)
      return createStringError("--output-dir: cannot create '" + dir + "': " + ec.message());
    at.truncate(parent.size()); // parent is a prefix of at
  }
}

Expected<std::vector<HostTensor>> readReferenceOutputs(StringRef dir) {
  sys::fs::file_status st;
  if (std::error_code ec = sys::fs::status(dir, st))
    return createStringError("'" + dir + "': " + ec.message());
  if (!sys::fs::is_directory(st))
    return createStringError("'" + dir + "': not a directory");
  std::vector<HostTensor> out;
  for (unsigned i = 0;; ++i) {
    SmallString<256> path(dir);
    sys::path::append(path, "output_" + std::to_string(i) + ".npy");
    std::error_code ec = sys::fs::status(path, st);
    if (ec == std::errc::no_such_file_or_directory)
      break;
    Expected<HostTensor> t = readNpy(path);
    if (!t)
      return t.takeError();
    out.push_back(std::move(*t));
  }
  if (out.empty())
    return createStringError("'" + dir + "' holds no output_0.npy");
  return out;
}

} // namespace hx
