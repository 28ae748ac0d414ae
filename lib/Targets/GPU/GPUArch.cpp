//===- GPUArch.cpp - What the shared GPU lowering asks of a GPU -----------===//
//
// See GPUArch.h; the interface's anchor.
//
//===----------------------------------------------------------------------===//
#include "hx/Targets/GPU/GPUArch.h"

namespace hx {

GPUArch::~GPUArch() = default;

} // namespace hx
