//===- CrashReproducer.cpp - Reproducers for internal errors --------------===//
//
// How a crash reaches the reproducer (LLVM's machinery, as MLIR's pass
// manager crash recovery uses it):
//
//  1. Arming renders everything the crash path needs: the file's bytes
//     (header line + input), the final path and a temporary path beside it
//     (write, then rename: never a half-written reproducer under the final
//     name), and the messages. It enables llvm::CrashRecoveryContext and, once
//     per process, adds a callback to LLVM's signal handlers
//     (llvm::sys::AddSignalHandler).
//  2. runSafely runs the work in a CrashRecoveryContext with
//     DumpStackAndCleanupOnFailure: on SIGSEGV, SIGABRT (abort, assert,
//     llvm_unreachable, report_fatal_error), SIGFPE, SIGILL, SIGBUS on this
//     thread, the context runs LLVM's signal callbacks — the stack dump (with
//     the PrettyStackTrace entries: which pass was running), then ours, which
//     writes the file — and jumps back; runSafely prints the message naming
//     the signal and the file, and the tool exits 2.
//  3. A crash on another thread (a cpu device's worker) finds no recovery
//     context there: LLVM's own handler runs the same callbacks, ours writes
//     the file and the generic message, and the process dies of the signal.
//  4. Internal errors found without a crash (a module the verifier rejects
//     after a pass, an exception) call reportInternalError: the same bytes,
//     written from ordinary code.
//
// The callback only reads the armed state and calls open, write, rename,
// close: async-signal-safe. State: one armed reproducer per process (an
// atomic pointer), which a tool's runOpt/run arms and disarms.
//
//===----------------------------------------------------------------------===//
#include "hx/Tools/CrashReproducer.h"
#include "hx/Support/Files.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"
#include <atomic>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <pthread.h>
#include <unistd.h>

using namespace hx;
using namespace llvm;

namespace {

/// What the crash path writes, rendered when armed.
struct Armed {
  std::string contents;  // the reproducer's bytes
  std::string path;      // where it goes
  std::string tempPath;  // written first, then renamed to `path`
  bool exclusive = true; // a unique temp file: never overwrite
  std::string prefix;    // "hx-opt: internal error: "
  std::string written;   // "; a reproducer was written to P; run it with ...\n"
  std::string notWritten;
  pthread_t thread; // the thread that runs runSafely
  std::atomic<bool> inRecovery{false};
  std::atomic<bool> done{false}; // the file was attempted (once)
  std::atomic<bool> ok{false};   // and written
};

std::atomic<Armed *> armed{nullptr};
std::once_flag callbackAdded;

void writeAll(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    p += w;
    n -= size_t(w);
  }
}
void writeStr(int fd, const std::string &s) { writeAll(fd, s.data(), s.size()); }
void writeStr(int fd, const char *s) { writeAll(fd, s, std::strlen(s)); }

/// Writes the file once; async-signal-safe.
bool writeReproducer(Armed &a) {
  if (a.done.exchange(true))
    return a.ok;
  int fd = ::open(a.tempPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;
  writeStr(fd, a.contents);
  bool closed = ::close(fd) == 0;
  // A unique name: link (fails if the name exists) rather than rename.
  bool moved = closed && (a.exclusive ? ::link(a.tempPath.c_str(), a.path.c_str()) == 0
                                      : ::rename(a.tempPath.c_str(), a.path.c_str()) == 0);
  ::unlink(a.tempPath.c_str());
  a.ok = moved;
  return moved;
}

/// The message after the reason; async-signal-safe.
void writeTail(const Armed &a) { writeStr(2, a.ok ? a.written : a.notWritten); }

/// LLVM's signal handlers call this, on whichever thread crashed.
void onSignal(void *) {
  Armed *a = armed.load();
  if (!a)
    return;
  writeReproducer(*a);
  // On the protected thread, runSafely reports once the context jumped back.
  if (a->inRecovery && pthread_equal(pthread_self(), a->thread))
    return;
  writeStr(2, a->prefix);
  writeStr(2, "a crash");
  writeTail(*a);
}

const char *signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGBUS:
    return "SIGBUS";
  case SIGTRAP:
    return "SIGTRAP";
  default:
    return "a signal";
  }
}

} // namespace

std::string hx::quoteArg(StringRef arg) {
  auto plain = [](char c) { return isAlnum(c) || StringRef("_-=,.:/+%@").contains(c); };
  if (!arg.empty() && llvm::all_of(arg, plain))
    return arg.str();
  std::string s = "'";
  for (char c : arg) {
    if (c == '\'')
      s += "'\\''";
    else
      s += c;
  }
  return s + "'";
}

std::vector<std::string> hx::renderCommonArgs(const CommonConfig &c) {
  std::vector<std::string> args;
  std::string pipeline;
  for (const PipelineItem &item : c.pipeline) {
    if (!pipeline.empty())
      pipeline += ",";
    pipeline += item.pass ? item.pass->argument : item.text;
  }
  if (!pipeline.empty())
    args.push_back("--passes=" + pipeline);
  for (const auto &[name, value] : c.passOptions)
    args.push_back("--" + name + (value.empty() ? "" : "=" + value));
  if (c.parser.virtualDevices)
    args.push_back("--virtual-devices=" + *c.parser.virtualDevices);
  if (c.parser.maxNesting != ParserOptions().maxNesting)
    args.push_back("--max-nesting=" + std::to_string(c.parser.maxNesting));
  if (!c.verifyEach)
    args.push_back("--verify-each=false");
  if (c.printIRAfterAll)
    args.push_back("--print-ir-after-all");
  if (c.timePasses)
    args.push_back("--time-passes");
  return args;
}

bool hx::checkReproducerPath(StringRef tool, StringRef path) {
  if (path.empty())
    return true;
  StringRef dir = sys::path::parent_path(path);
  if (sys::fs::is_directory(path) || (!dir.empty() && !sys::fs::is_directory(dir))) {
    errs() << tool << ": error: --crash-reproducer=" << path << ": "
           << (sys::fs::is_directory(path) ? "is a directory"
                                           : "the directory '" + dir + "' does not exist")
           << "\n";
    return false;
  }
  return true;
}

CrashReproducer::CrashReproducer(StringRef tool, ArrayRef<std::string> args, StringRef input,
                                 StringRef path) {
  auto a = std::make_unique<Armed>();
  std::string header = (kReproducerPrefix + tool).str();
  for (const std::string &arg : args)
    header += " " + quoteArg(arg);
  // Replaying a reproducer must not stack headers.
  if (input.starts_with(kReproducerPrefix))
    input = input.substr(std::min(input.size(), input.find('\n') + 1));
  a->contents = header + "\n" + input.str();
  if (!a->contents.empty() && a->contents.back() != '\n')
    a->contents += "\n";
  if (path.empty()) {
    SmallString<128> unique;
    sys::fs::createUniquePath("hx-reproducer-%%%%%%%%.ir", unique, /*MakeAbsolute=*/true);
    a->path = unique.str().str();
  } else {
    a->path = path.str();
    a->exclusive = false;
  }
  a->tempPath = a->path + ".tmp" + std::to_string(::getpid());
  a->prefix = (tool + ": internal error: ").str();
  a->written = "; a reproducer was written to " + a->path + "; run it with " + tool.str() +
               " --run-reproducer=" + quoteArg(a->path) + "; please attach it to a bug report\n";
  a->notWritten = "; no reproducer could be written to " + a->path + "\n";
  a->thread = pthread_self();
  // LLVM's stack dump opens with this (its default asks for an LLVM bug).
  setBugReportMsg("PLEASE attach the hx reproducer named below to a bug report.\n");
  CrashRecoveryContext::Enable();
  std::call_once(callbackAdded, [] { sys::AddSignalHandler(onSignal, nullptr); });
  armed.store(a.release());
}

CrashReproducer::~CrashReproducer() { delete armed.exchange(nullptr); }

bool CrashReproducer::runSafely(function_ref<void()> fn) {
  Armed &a = *armed.load();
  CrashRecoveryContext crc;
  crc.DumpStackAndCleanupOnFailure = true;
  a.inRecovery = true;
  bool ok = crc.RunSafely(fn);
  a.inRecovery = false;
  if (ok)
    return true;
  // Back from a signal on this thread: the heap may be broken, so only
  // rendered bytes and a number are written.
  writeReproducer(a); // already done by onSignal, unless no handler ran
  int sig = crc.RetCode > 128 ? crc.RetCode - 128 : 0;
  writeStr(2, a.prefix);
  writeStr(2, "a crash (");
  writeStr(2, signalName(sig));
  writeStr(2, ")");
  writeTail(a);
  return false;
}

void CrashReproducer::reportInternalError(StringRef reason) {
  Armed &a = *armed.load();
  writeReproducer(a);
  errs() << a.prefix << reason;
  errs().flush();
  writeTail(a);
}

bool hx::readReproducerArgs(StringRef tool, StringRef file, std::vector<std::string> &args) {
  Expected<std::unique_ptr<MemoryBuffer>> buf = readUserFile(file);
  if (!buf) {
    errs() << tool << ": error: --run-reproducer: cannot open '" << file
           << "': " << toString(buf.takeError()) << "\n";
    return false;
  }
  StringRef text = (*buf)->getBuffer();
  StringRef line = text.take_until([](char c) { return c == '\n'; }).rtrim('\r');
  if (!line.consume_front(kReproducerPrefix)) {
    errs() << tool << ": error: --run-reproducer: '" << file
           << "' is not an hx reproducer (its first line does not start with '"
           << kReproducerPrefix.rtrim() << "')\n";
    return false;
  }
  BumpPtrAllocator alloc;
  StringSaver saver(alloc);
  SmallVector<const char *> tokens;
  cl::TokenizeGNUCommandLine(line, saver, tokens);
  if (tokens.empty() || StringRef(tokens[0]) != tool) {
    StringRef other = tokens.empty() ? StringRef("?") : StringRef(tokens[0]);
    errs() << tool << ": error: --run-reproducer: '" << file << "' is " << other
           << "'s reproducer: run it with " << other << " --run-reproducer=" << quoteArg(file)
           << "\n";
    return false;
  }
  args.assign(tokens.begin() + 1, tokens.end());
  args.push_back(file.str());
  return true;
}

bool hx::reparseWithReproducer(int argc, char **argv, ArrayRef<std::string> args,
                               StringRef overview) {
  std::vector<const char *> v{argv[0]};
  for (const std::string &a : args)
    v.push_back(a.c_str());
  for (int i = 1; i < argc; ++i) {
    StringRef s = argv[i];
    StringRef name = s.ltrim('-');
    if (s.starts_with("-") && name.starts_with("run-reproducer")) {
      if (name == "run-reproducer") // the value is the next argument
        ++i;
      continue;
    }
    v.push_back(argv[i]);
  }
  cl::ResetAllOptionOccurrences();
  return cl::ParseCommandLineOptions(int(v.size()), v.data(), overview, &errs());
}

ReproducerFlags::ReproducerFlags(cl::OptionCategory &cat)
    : crashReproducer("crash-reproducer",
                      cl::desc("On an internal error, write the reproducer here (default: a new "
                               "hx-reproducer-*.ir in the temporary directory)"),
                      cl::value_desc("file"), cl::cat(cat)),
      runReproducer(
          "run-reproducer",
          cl::desc("Replay a reproducer: run the command in its '// hx-reproducer:' line on it"),
          cl::value_desc("file"), cl::cat(cat)) {}

bool ReproducerFlags::replay(StringRef tool, int argc, char **argv, StringRef overview) {
  if (runReproducer.empty())
    return true;
  std::string file = runReproducer;
  std::vector<std::string> args;
  return readReproducerArgs(tool, file, args) && reparseWithReproducer(argc, argv, args, overview);
}

bool ReproducerFlags::crashPath(StringRef tool, std::string &path) const {
  if (!checkReproducerPath(tool, crashReproducer))
    return false;
  path = crashReproducer;
  return true;
}
