//===- OnnxExternalData.cpp - Tensors kept outside the model file ---------===//
//
// ONNX lets a tensor keep its bytes in another file (data_location EXTERNAL,
// with `location`, `offset` and `length` entries); PyTorch's exporter does
// so by default (`model.onnx.data` beside `model.onnx`). Before anything
// else reads the model, each such tensor gets its bytes back as raw_data,
// so the rest of the importer sees an ordinary model.
//
// A location is a file inside the model's directory: a relative path with
// no `..`, which stays inside that directory once symbolic links are
// resolved, and names a regular file. Offset and length are checked
// against the file and the tensor's size before anything is read. The
// graphs (the main one, If and Loop bodies, functions) are walked with a
// worklist, not recursion.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <vector>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

/// Every tensor of the model whose data is in another file, in the order
/// they appear (graphs breadth first).
std::vector<onnx::TensorProto *> externalTensors(onnx::ModelProto &model) {
  std::vector<onnx::TensorProto *> out;
  std::vector<onnx::GraphProto *> graphs{model.mutable_graph()};
  auto visitNodes = [&](auto *nodes) {
    for (onnx::NodeProto &n : *nodes)
      for (onnx::AttributeProto &a : *n.mutable_attribute()) {
        if (a.has_t() && a.t().data_location() == onnx::TensorProto::EXTERNAL)
          out.push_back(a.mutable_t());
        for (onnx::TensorProto &t : *a.mutable_tensors())
          if (t.data_location() == onnx::TensorProto::EXTERNAL)
            out.push_back(&t);
        if (a.has_g())
          graphs.push_back(a.mutable_g());
        for (onnx::GraphProto &g : *a.mutable_graphs())
          graphs.push_back(&g);
      }
  };
  for (onnx::FunctionProto &f : *model.mutable_functions())
    visitNodes(f.mutable_node());
  for (size_t i = 0; i < graphs.size(); ++i) {
    for (onnx::TensorProto &t : *graphs[i]->mutable_initializer())
      if (t.data_location() == onnx::TensorProto::EXTERNAL)
        out.push_back(&t);
    visitNodes(graphs[i]->mutable_node());
  }
  return out;
}

struct Where {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

Expected<Where> whereOf(const onnx::TensorProto &t, const Twine &what) {
  Where w;
  for (const onnx::StringStringEntryProto &e : t.external_data()) {
    if (e.key() == "location") {
      w.location = e.value();
      continue;
    }
    if (e.key() != "offset" && e.key() != "length") // checksum, basepath
      continue;
    uint64_t v = 0;
    if (StringRef(e.value()).getAsInteger(10, v))
      return createStringError(what + ": its external data's " + e.key() + " '" + e.value() +
                               "' is not a non-negative integer");
    if (e.key() == "offset")
      w.offset = v;
    else
      w.length = v;
  }
  if (w.location.empty())
    return createStringError(what + " keeps its data in an external file but names none "
                                    "(no 'location')");
  return w;
}

/// The file `location` names, checked to be a regular file inside `dir`.
Expected<std::string> resolve(StringRef dir, StringRef location, const Twine &what) {
  auto refuse = [&](const Twine &why) {
    return createStringError(what + ": its external data '" + location + "' " + why);
  };
  if (sys::path::is_absolute(location) ||
      sys::path::is_absolute(location, sys::path::Style::windows) || location.starts_with("\\"))
    return refuse("is an absolute path; hx reads external data from the model's directory only");
  for (StringRef part : make_range(sys::path::begin(location), sys::path::end(location)))
    if (part == "..")
      return refuse("leaves the model's directory ('..'); hx reads external data from the "
                    "model's directory only");
  SmallString<256> path(dir);
  sys::path::append(path, location);
  SmallString<256> realDir, realFile;
  if (std::error_code ec = sys::fs::real_path(path, realFile))
    return refuse("cannot be opened (" + path + "): " + ec.message());
  if (std::error_code ec = sys::fs::real_path(dir, realDir))
    return refuse("cannot be opened (" + dir + "): " + ec.message());
  StringRef file(realFile), inDir(realDir);
  bool inside = file.starts_with(inDir) &&
                (inDir.ends_with("/") ||
                 (file.size() > inDir.size() && sys::path::is_separator(file[inDir.size()])));
  if (!inside)
    return refuse("leads outside the model's directory (" + realFile +
                  "); hx reads external data from the model's directory only");
  sys::fs::file_status st;
  if (std::error_code ec = sys::fs::status(realFile, st))
    return refuse("cannot be opened (" + path + "): " + ec.message());
  if (!sys::fs::is_regular_file(st))
    return refuse("is not a regular file (" + path + ")");
  return path.str().str();
}

} // namespace

Error onnximport::loadExternalData(onnx::ModelProto &model, StringRef modelDir,
                                   StringRef fileName) {
  for (onnx::TensorProto *t : externalTensors(model)) {
    std::string what = fileName.str() + ": tensor '" + t->name() + "'";
    std::optional<DType> dt = dtypeFromOnnx(t->data_type());
    if (!dt) // checkTensorProto names the dtype hx lacks
      continue;
    Expected<Where> w = whereOf(*t, what);
    if (!w)
      return w.takeError();
    if (modelDir.empty())
      return createStringError(what + " keeps its data in an external file ('" + w->location +
                               "'), and a model read from standard input has no directory to "
                               "find it in: give the model's path");
    Expected<std::string> path = resolve(modelDir, w->location, what);
    if (!path)
      return path.takeError();
    uint64_t size = 0;
    if (std::error_code ec = sys::fs::file_size(*path, size))
      return createStringError(what + ": cannot read its external data '" + *path +
                               "': " + ec.message());
    // The bytes the dims and dtype need, without overflow.
    uint64_t need = dtypeBytes(*dt);
    for (int64_t d : t->dims()) {
      if (d < 0)
        return createStringError(what + " has a negative dim");
      if (d && need > (uint64_t(1) << 50) / uint64_t(d))
        return createStringError(what + " is too large");
      need *= uint64_t(d);
    }
    uint64_t length = w->length.value_or(size - std::min(size, w->offset));
    if (w->offset > size || length > size - w->offset)
      return createStringError(what + ": its external data (" + Twine(length) +
                               " bytes at offset " + Twine(w->offset) + ") runs past the end of '" +
                               *path + "' (" + Twine(size) + " bytes)");
    if (length != need)
      return createStringError(what + ": its external data in '" + *path + "' is " + Twine(length) +
                               " bytes; " + Twine(need) + " bytes of " + dtypeName(*dt) +
                               " fill its dims");
    std::string bytes;
    if (length) {
      ErrorOr<std::unique_ptr<MemoryBuffer>> slice =
          MemoryBuffer::getFileSlice(*path, length, w->offset, /*IsVolatile=*/false);
      if (!slice)
        return createStringError(what + ": cannot read its external data '" + *path +
                                 "': " + slice.getError().message());
      bytes.assign((*slice)->getBufferStart(), (*slice)->getBufferSize());
    }
    t->set_raw_data(std::move(bytes));
    t->clear_external_data();
    t->set_data_location(onnx::TensorProto::DEFAULT);
  }
  return Error::success();
}

std::vector<std::string> hx::onnxExternalDataFiles(StringRef bytes, StringRef path) {
  onnx::ModelProto model;
  std::vector<std::string> files;
  // Every run that may hit the compile cache asks: a model that keeps its
  // data inside (no "location" key's bytes anywhere) is not parsed.
  if (path == "-" || !bytes.contains("location") || bytes.size() > size_t(INT32_MAX) ||
      !model.ParseFromArray(bytes.data(), int(bytes.size())))
    return files;
  SmallString<256> dir(sys::path::parent_path(path));
  for (onnx::TensorProto *t : externalTensors(model))
    for (const onnx::StringStringEntryProto &e : t->external_data())
      if (e.key() == "location") {
        SmallString<256> file(dir.empty() ? StringRef(".") : StringRef(dir));
        sys::path::append(file, e.value());
        if (!llvm::is_contained(files, file.str()))
          files.push_back(file.str().str());
      }
  return files;
}
