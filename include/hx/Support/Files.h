//===- Files.h - Reading the files a user names -----------------*- C++ -*-===//
//
// Every file hx reads because a user named it (a module, an `.npy` input or
// constant, a reference output) is read through readUserFile: only a regular
// file is read. A FIFO without a writer would block the open forever, and a
// device such as /dev/zero would never end, so the file is opened without
// blocking and checked on the open descriptor (no race between a check of
// the name and the open), and anything else is an error naming the file and
// what it is. "-" reads standard input where the caller allows it.
//
//
// Every file hx writes for a user (an `.npy` output, a compiled model) is
// written through writeFileAtomically: into a temporary file beside it,
// renamed over the name only once it is complete, so a failure (a full disk,
// a signal) leaves the old file or none, never half of one.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_FILES_H
#define HX_SUPPORT_FILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>

namespace hx {

struct ReadFileOptions {
  /// "-" names standard input.
  bool allowStdin = false;
  /// The buffer ends with a NUL (what the parser reads).
  bool nullTerminated = true;
};

/// The contents of regular file `path`, read into memory (not mapped: what
/// is read stays what was checked, whatever happens to the file later).
/// The error's message is the reason alone, for the caller to put beside
/// the name: the errno's message, or what the file is instead ("a
/// directory", "a FIFO (hx reads regular files only)", ...).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readUserFile(llvm::StringRef path,
                                                                 const ReadFileOptions &opts = {});

/// Writes `bytes` to `path` through a temporary file in the same directory
/// renamed over it. The error's message is the reason alone, as
/// readUserFile's.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef bytes);

} // namespace hx

#endif
