//===- PTXCompiler.cpp - The cuda target's kernels as PTX -----------------===//
//
// See PTXCompiler.h: a GPUCompiler that owns a NVPTXArch, whose modules
// are PTX text.
//
//===----------------------------------------------------------------------===//
#include "hx/Targets/CUDA/PTXCompiler.h"
#include "NVPTXArch.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace hx {

PTXCompiler::PTXCompiler(std::unique_ptr<NVPTXArch> arch)
    : GPUCompiler(std::move(arch)), nvptx(static_cast<const NVPTXArch &>(architecture())) {}

PTXCompiler::~PTXCompiler() = default;

Expected<std::unique_ptr<PTXCompiler>> PTXCompiler::create(PTXCompilerOptions opts) {
  Expected<std::unique_ptr<NVPTXArch>> arch = NVPTXArch::create(std::move(opts));
  if (!arch)
    return arch.takeError();
  return std::unique_ptr<PTXCompiler>(new PTXCompiler(std::move(*arch)));
}

std::string PTXCompiler::defaultLibdevicePath() { return NVPTXArch::defaultLibdevicePath(); }

const std::string &PTXCompiler::ptx(unsigned module) const { return nvptx.ptx(module); }

StringRef PTXCompiler::arch() const { return nvptx.arch(); }

void PTXCompiler::printPTX(raw_ostream &os) const {
  for (unsigned m = 0; m < nvptx.numModules(); ++m)
    os << nvptx.ptx(m);
}

void PTXCompiler::printLLVM(raw_ostream &os) const {
  for (const std::string &text : nvptx.optimizedIR())
    os << text;
}

} // namespace hx
