//===- ImportMain.cpp - hx-import-onnx ------------------------------------===//
//
//   hx-import-onnx model.onnx [-o model.ir]
//
// Writes the module's text to -o (default: the model's name with `.ir`; `-`
// is stdout, with every constant inline) and its large constants to
// `<output stem>.weights/*.npy` beside it, which the text's constant table
// names. Nothing is left behind unless the whole import succeeded, and a
// failed import leaves the files of an earlier one as they were: the text and
// the weights are written under temporary names and renamed into place at the
// end.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/ImportMain.h"
#include "hx/Import/Onnx.h"
#include "hx/Tensor/Npy.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace hx;
using namespace llvm;

static int fail(const Twine &msg) {
  errs() << "hx-import-onnx: error: " << msg << "\n";
  return 1;
}

int hx::importMain(int argc, char **argv) {
  cl::OptionCategory cat("hx-import-onnx options");
  cl::opt<std::string> input(cl::Positional, cl::desc("<model.onnx>"), cl::cat(cat));
  cl::opt<std::string> output("o",
                              cl::desc("Output .ir file (default: the model's name with .ir; "
                                       "- for stdout)"),
                              cl::value_desc("file"), cl::cat(cat));
  cl::opt<bool> listOps("list-ops", cl::desc("Print the ONNX op types hx imports and exit"),
                        cl::cat(cat));
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(argc, argv,
                              "hx-import-onnx: an ONNX model (opsets 11-17) to hx text\n");
  if (listOps) {
    for (const std::string &op : supportedOnnxOps())
      outs() << op << "\n";
    return 0;
  }
  if (input.empty())
    return fail("no input model (usage: hx-import-onnx model.onnx [-o model.ir])");
  std::string out = output;
  if (out.empty()) {
    SmallString<256> p(input == "-" ? StringRef("model.onnx") : StringRef(input));
    sys::path::replace_extension(p, ".ir");
    out = std::string(p);
  }
  auto file = MemoryBuffer::getFileOrSTDIN(input, /*IsText=*/false);
  if (!file)
    return fail("cannot open '" + input + "': " + file.getError().message());

  // Weights beside the text: `<dir of out>/<stem>.weights/`.
  SmallString<256> dir(out == "-" ? StringRef(".") : sys::path::parent_path(out));
  if (dir.empty())
    dir = ".";
  std::string stem = out == "-" ? std::string("model") : sys::path::stem(out).str();
  OnnxImportOptions opts;
  opts.weightsDir = stem + ".weights";
  if (out == "-") // no file beside standard output: every weight inline
    opts.inlineElements = INT64_MAX;
  Expected<ImportedModule> m = importOnnx((*file)->getBuffer(), input, opts);
  if (!m)
    return fail(toString(m.takeError()));

  if (out == "-") {
    outs() << m->text;
    return 0;
  }
  SmallString<256> final(dir);
  sys::path::append(final, opts.weightsDir);
  // A stale import's weights are replaced; a directory holding anything else
  // is the user's, and left alone (checked before anything is written).
  if (!m->weights.empty() && sys::fs::is_directory(final)) {
    std::error_code dirEc;
    for (sys::fs::directory_iterator it(final, dirEc), end; it != end && !dirEc;
         it.increment(dirEc))
      if (sys::path::extension(it->path()) != ".npy")
        return fail("'" + final + "' holds files other than .npy weights; remove it or " +
                    "choose another -o");
  }

  // The text and the weights go to temporary names beside their final ones
  // and are renamed into place once both are complete: a failed import
  // leaves whatever was there before.
  SmallString<256> textTmp, weightsTmp;
  auto cleanup = [&] {
    if (!textTmp.empty())
      sys::fs::remove(textTmp);
    if (!weightsTmp.empty())
      sys::fs::remove_directories(weightsTmp);
  };
  {
    int fd;
    if (std::error_code ec = sys::fs::createUniqueFile(out + ".tmp-%%%%%%", fd, textTmp))
      return fail("cannot write '" + out + "': " + ec.message());
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << m->text;
    os.close();
    if (os.has_error()) {
      std::string msg = os.error().message();
      os.clear_error();
      cleanup();
      return fail("cannot write '" + out + "': " + msg);
    }
  }
  if (!m->weights.empty()) {
    if (std::error_code ec = sys::fs::createUniqueDirectory(final + ".tmp", weightsTmp)) {
      cleanup();
      return fail("cannot create a directory beside '" + final + "': " + ec.message());
    }
    // As a plain mkdir would make it (createUniqueDirectory makes it private).
    sys::fs::setPermissions(weightsTmp,
                            static_cast<sys::fs::perms>(sys::fs::all_all & ~sys::fs::getUmask()));
    for (auto &[rel, tensor] : m->weights) {
      SmallString<256> path(weightsTmp);
      sys::path::append(path, sys::path::filename(rel));
      if (Error e = writeNpy(path, tensor)) {
        cleanup();
        return fail(toString(std::move(e)));
      }
    }
    if (sys::fs::is_directory(final))
      sys::fs::remove_directories(final);
    if (std::error_code ec = sys::fs::rename(weightsTmp, final)) {
      cleanup();
      return fail("cannot write '" + final + "': " + ec.message());
    }
    weightsTmp.clear();
  }
  if (std::error_code ec = sys::fs::rename(textTmp, out)) {
    cleanup();
    return fail("cannot write '" + out + "': " + ec.message());
  }
  return 0;
}
