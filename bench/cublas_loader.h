//===- cublas_loader.h - cuBLAS, opened at run time ----------*- C++ -*-===//
//
// hx-gpu-bench's reference for nn.dense is cuBLAS sgemm. Like the CUDA
// driver, the library is dlopen'ed, so the benchmark builds without the CUDA
// toolkit and runs where cuBLAS is absent (the dense figure then says n/a).
//
//===----------------------------------------------------------------------===//
#ifndef HX_BENCH_CUBLAS_LOADER_H
#define HX_BENCH_CUBLAS_LOADER_H

#include <string>

namespace hx::bench {

struct CuBLAS {
  using Handle = void *;
  void *lib = nullptr;
  std::string path, whyNot;
  Handle handle = nullptr;
  int (*create)(Handle *) = nullptr;
  int (*destroy)(Handle) = nullptr;
  int (*version)(Handle, int *) = nullptr;
  int (*sgemm)(Handle, int, int, int, int, int, const float *, const float *, int, const float *,
               int, const float *, float *, int) = nullptr;

  /// $HX_CUBLAS, then the sonames of CUDA 13 and 12, then the toolkit's;
  /// then a handle. False, with whyNot, when any step fails.
  bool open();
  ~CuBLAS();
};

} // namespace hx::bench

#endif // HX_BENCH_CUBLAS_LOADER_H
