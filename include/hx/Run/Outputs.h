//===- Outputs.h - What a run prints and writes of its results --*- C++ -*-===//
#ifndef HX_RUN_OUTPUTS_H
#define HX_RUN_OUTPUTS_H

#include "hx/Tensor/HostTensor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace hx {

/// `output_<i>: TYPE min=... max=... sum=... fnv=...` (FNV-1a of the bytes).
void summarizeOutput(llvm::raw_ostream &os, unsigned i, const HostTensor &t);

/// Writes every result to DIR/output_<i>.npy, all or nothing; the error
/// names the file (as hx-run --output-dir).
llvm::Error writeOutputs(llvm::StringRef dir, llvm::ArrayRef<HostTensor> results);

/// Checks before a run that writeOutputs can write into `dir`: a directory
/// (or a name whose parent is one) that this process may write; the error
/// names the directory and the reason.
llvm::Error checkOutputDir(llvm::StringRef dir);

/// Reads reference outputs DIR/output_<i>.npy, as writeOutputs names them
/// (hx-run --check-against): output_0.npy, output_1.npy, ... up to the
/// first missing one. The error names the directory or the file.
llvm::Expected<std::vector<HostTensor>> readReferenceOutputs(llvm::StringRef dir);

} // namespace hx

#endif
