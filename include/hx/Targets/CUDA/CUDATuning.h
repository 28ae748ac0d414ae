//===- CUDATuning.h - The GPU lowering's numbers for NVIDIA GPUs -*- C++ -*-===//
//
// The tuning (GPUTuning) the cuda target gives the shared GPU lowering:
// tile shapes, blocks per multiprocessor and the grid's target, sized for
// the GPU hx is measured on (an H200: 132 multiprocessors). cuda-emu runs
// with it too, so that the emulator runs the very kernels the PTX comes
// from.
//
//===----------------------------------------------------------------------===//
#ifndef HX_TARGETS_CUDA_CUDATUNING_H
#define HX_TARGETS_CUDA_CUDATUNING_H

#include "hx/Targets/GPU/GPUArch.h"

namespace hx {

const GPUTuning &cudaTuning();

} // namespace hx

#endif
