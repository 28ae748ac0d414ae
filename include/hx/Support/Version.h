//===- Version.h - Which hx this is -----------------------------*- C++ -*-===//
//
// The project's version and the git revision it was configured from
// ("0.1.0+fdf4d72", or the version alone outside a git checkout): what a
// compiled model file records, and refuses to load under any other.
//
//===----------------------------------------------------------------------===//
#ifndef HX_SUPPORT_VERSION_H
#define HX_SUPPORT_VERSION_H

#include "llvm/ADT/StringRef.h"

namespace hx {

llvm::StringRef hxVersion();

} // namespace hx

#endif
