//===- Version.cpp - Which hx this is -------------------------------------===//
//
// HX_VERSION_STRING comes from lib/Support/CMakeLists.txt.
//
//===----------------------------------------------------------------------===//
#include "hx/Support/Version.h"

llvm::StringRef hx::hxVersion() { return HX_VERSION_STRING; }
