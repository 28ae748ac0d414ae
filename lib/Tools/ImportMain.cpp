//===- ImportMain.cpp - hx-import-onnx ------------------------------------===//
//
//   hx-import-onnx model.onnx [-o model.ir] [--quiet]
//
// Writes the module's text to -o (default: the model's name with `.ir`; `-`
// is stdout, with every constant inline) and its large constants to
// `<output stem>.weights/*.npy` beside it, which the text's constant table
// names. Nothing is left behind unless the whole import succeeded, and a
// failed import leaves the files of an earlier one as they were: the text and
// the weights are written under temporary names beside their final ones and
// renamed into place at the end. What is not an earlier import's is never
// replaced: the model itself (-o naming it), a symbolic link, a file or a
// directory of other files where the weights would go. A line on stderr
// sums up the model (nodes, op types, weights, opset, time) unless --quiet.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/ImportMain.h"
#include "hx/Import/Onnx.h"
#include "hx/Support/Files.h"
#include "hx/Tensor/Npy.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>

using namespace hx;
using namespace llvm;

/// "model.onnx: 69 nodes of 9 op types (Conv 20, Relu 17, ...), 11.7M
/// weights in 102 initializers (44.7 MB), opset 13, 0.31 s".
static std::string importSummary(const ImportedModule &m, StringRef input, double seconds) {
  std::string s;
  raw_string_ostream os(s);
  auto count = [&](int64_t n) {
    if (n >= 1000000)
      os << format("%.1fM", double(n) / 1e6);
    else if (n >= 10000)
      os << format("%.1fk", double(n) / 1e3);
    else
      os << n;
  };
  os << sys::path::filename(input) << ": " << m.nodes << (m.nodes == 1 ? " node" : " nodes")
     << " of " << m.opTypes.size() << " op type" << (m.opTypes.size() == 1 ? "" : "s");
  if (!m.opTypes.empty()) {
    os << " (";
    for (size_t i = 0; i < m.opTypes.size() && i < 6; ++i)
      os << (i ? ", " : "") << m.opTypes[i].first << " " << m.opTypes[i].second;
    os << (m.opTypes.size() > 6 ? ", ...)" : ")");
  }
  os << ", ";
  count(m.weightElements);
  os << " weights in " << m.initializers << " initializer" << (m.initializers == 1 ? "" : "s")
     << format(" (%.1f MB)", double(m.weightBytes) / 1e6) << ", opset " << m.opset;
  if (m.sourceOpset)
    os << " (from " << m.sourceOpset << ")";
  os << format(", %.2f s", seconds);
  return s;
}

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
  cl::opt<bool> quiet("quiet", cl::desc("No summary line on stderr"), cl::cat(cat));
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(argc, argv,
                              "hx-import-onnx: an ONNX model (opsets 1-21) to hx text\n");
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
  // The model is never overwritten by its own import.
  bool same = false;
  if (input != "-" && out != "-" && !sys::fs::equivalent(input, out, same) && same)
    return fail("-o '" + out + "' is the model itself; choose another output");
  ReadFileOptions ro;
  ro.allowStdin = true;
  Expected<std::unique_ptr<MemoryBuffer>> file = readUserFile(input, ro);
  if (!file)
    return fail("cannot open '" + input + "': " + toString(file.takeError()));

  // Weights beside the text: `<dir of out>/<stem>.weights/`.
  SmallString<256> dir(out == "-" ? StringRef(".") : sys::path::parent_path(out));
  if (dir.empty())
    dir = ".";
  std::string stem = out == "-" ? std::string("model") : sys::path::stem(out).str();
  OnnxImportOptions opts;
  opts.weightsDir = stem + ".weights";
  opts.modelDir = modelDirOf(input);
  if (out == "-") // no file beside standard output: every weight inline
    opts.inlineElements = INT64_MAX;
  auto start = std::chrono::steady_clock::now();
  Expected<ImportedModule> m = importOnnx((*file)->getBuffer(), input, opts);
  if (!m)
    return fail(toString(m.takeError()));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto summary = [&] {
    if (!quiet)
      errs() << "hx-import-onnx: " << importSummary(*m, input, seconds) << " -> " << out << "\n";
  };

  if (out == "-") {
    outs() << m->text;
    outs().flush();
    summary();
    return 0;
  }
  // Everything is staged beside its final name, so the renames stay on one
  // file system (never in $TMPDIR, which createUniqueDirectory would use for
  // a relative name).
  SmallString<256> text(out), final(dir);
  sys::fs::make_absolute(text);
  sys::fs::make_absolute(final);
  sys::path::append(final, opts.weightsDir);
  // A stale import's weights are replaced; anything else at that name is the
  // user's and left alone (checked before anything is written): a symbolic
  // link (followed, the replacement would delete what it points to), a
  // file, a directory holding other files.
  bool replaceWeights = false;
  if (!m->weights.empty()) {
    sys::fs::file_status st;
    if (!sys::fs::status(final, st, /*Follow=*/false)) {
      if (st.type() == sys::fs::file_type::symlink_file)
        return fail("'" + final + "' is a symbolic link, which hx-import-onnx does not write " +
                    "through; remove it or choose another -o");
      if (!sys::fs::is_directory(st))
        return fail("'" + final + "' exists and is not a directory; remove it or choose " +
                    "another -o");
      std::error_code dirEc;
      for (sys::fs::directory_iterator it(final, dirEc, /*follow_symlinks=*/false), end;
           it != end && !dirEc; it.increment(dirEc))
        if (sys::path::extension(it->path()) != ".npy" ||
            it->type() != sys::fs::file_type::regular_file)
          return fail("'" + final + "' holds files other than .npy weights; remove it or " +
                      "choose another -o");
      if (dirEc)
        return fail("cannot read '" + final + "': " + dirEc.message());
      replaceWeights = true;
    }
  }

  // The text and the weights go to temporary names beside their final ones
  // and are renamed into place once both are complete; the weights they
  // replace are moved aside first and deleted last. A failed import leaves
  // whatever was there before.
  SmallString<256> textTmp, weightsTmp, oldWeights;
  auto cleanup = [&] {
    if (!textTmp.empty())
      sys::fs::remove(textTmp);
    if (!weightsTmp.empty())
      sys::fs::remove_directories(weightsTmp);
  };
  {
    int fd;
    if (std::error_code ec = sys::fs::createUniqueFile(text + ".tmp-%%%%%%", fd, textTmp))
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
    if (replaceWeights) {
      // A unique name beside it for the old weights.
      SmallString<256> aside;
      if (std::error_code ec = sys::fs::createUniqueDirectory(final + ".old", aside)) {
        cleanup();
        return fail("cannot write '" + final + "': " + ec.message());
      }
      sys::fs::remove(aside);
      if (std::error_code ec = sys::fs::rename(final, aside)) {
        cleanup();
        return fail("cannot replace '" + final + "': " + ec.message());
      }
      oldWeights = aside;
    }
    if (std::error_code ec = sys::fs::rename(weightsTmp, final)) {
      if (!oldWeights.empty())
        sys::fs::rename(oldWeights, final);
      cleanup();
      return fail("cannot write '" + final + "': " + ec.message());
    }
    weightsTmp.clear();
  }
  if (std::error_code ec = sys::fs::rename(textTmp, text)) {
    if (!m->weights.empty()) { // the new weights out, the old ones back
      sys::fs::remove_directories(final);
      if (!oldWeights.empty())
        sys::fs::rename(oldWeights, final);
    }
    cleanup();
    return fail("cannot write '" + out + "': " + ec.message());
  }
  if (!oldWeights.empty())
    sys::fs::remove_directories(oldWeights);
  summary();
  return 0;
}
