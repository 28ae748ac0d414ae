//===- Files.cpp - Reading the files a user names -------------------------===//
//
// open(O_NONBLOCK) returns at once for a FIFO without a writer; fstat on the
// descriptor then says what the name is, and only a regular file is read
// (with blocking reads: O_NONBLOCK changes nothing for regular files).
//
//===----------------------------------------------------------------------===//
#include "hx/Support/Files.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace hx {

static const char *fileKind(mode_t m) {
  if (S_ISDIR(m))
    return "Is a directory";
  if (S_ISFIFO(m))
    return "a FIFO (hx reads regular files only)";
  if (S_ISCHR(m))
    return "a character device (hx reads regular files only)";
  if (S_ISBLK(m))
    return "a block device (hx reads regular files only)";
  if (S_ISSOCK(m))
    return "a socket (hx reads regular files only)";
  return "not a regular file";
}

Expected<std::unique_ptr<MemoryBuffer>> readUserFile(StringRef path, const ReadFileOptions &opts) {
  if (opts.allowStdin && path == "-") {
    ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getSTDIN();
    if (!buf)
      return createStringError(buf.getError().message());
    return std::move(*buf);
  }
  auto failure = [](const Twine &why) { return createStringError(why); };
  std::string name = path.str();
  int fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return failure(std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return failure(std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return failure(fileKind(st.st_mode));
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> buf =
      MemoryBuffer::getOpenFile(fd, path, /*FileSize=*/-1, opts.nullTerminated,
                                /*IsVolatile=*/true);
  ::close(fd);
  if (!buf)
    return failure(buf.getError().message());
  return std::move(*buf);
}

Error writeFileAtomically(StringRef path, StringRef bytes) {
  SmallString<256> model;
  StringRef dir = sys::path::parent_path(path);
  if (!dir.empty())
    model = dir;
  sys::path::append(model, "." + sys::path::filename(path) + ".tmp-%%%%%%%%");
  int fd = -1;
  SmallString<256> tmpPath;
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, tmpPath))
    return createStringError("cannot create a temporary file: " + ec.message());
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(bytes.data(), bytes.size());
    os.close();
    if (os.has_error()) {
      std::string msg = os.error().message();
      os.clear_error();
      sys::fs::remove(tmpPath);
      return createStringError("cannot write: " + msg);
    }
  }
  if (std::error_code ec = sys::fs::rename(tmpPath, path)) {
    sys::fs::remove(tmpPath);
    return createStringError("cannot write: " + ec.message());
  }
  return Error::success();
}

} // namespace hx
