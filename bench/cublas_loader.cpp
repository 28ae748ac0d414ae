//===- cublas_loader.cpp - cuBLAS for hx-gpu-bench, opened at run time ----===//
//
// The entry points are the _v2 ones, the ABI cuBLAS has kept since CUDA 4.
//
//===----------------------------------------------------------------------===//
#include "cublas_loader.h"
#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace hx::bench {

bool CuBLAS::open() {
  std::vector<std::string> names;
  if (const char *env = std::getenv("HX_CUBLAS"))
    names.push_back(env);
  for (const char *n :
       {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
        "/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.12"})
    names.push_back(n);
  for (const std::string &n : names) {
    if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      path = n;
      break;
    }
    if (whyNot.empty())
      whyNot = dlerror();
  }
  if (!lib)
    return false;
  create = reinterpret_cast<decltype(create)>(dlsym(lib, "cublasCreate_v2"));
  destroy = reinterpret_cast<decltype(destroy)>(dlsym(lib, "cublasDestroy_v2"));
  version = reinterpret_cast<decltype(version)>(dlsym(lib, "cublasGetVersion_v2"));
  sgemm = reinterpret_cast<decltype(sgemm)>(dlsym(lib, "cublasSgemm_v2"));
  if (!create || !destroy || !sgemm) {
    whyNot = path + " lacks cublasCreate_v2, cublasDestroy_v2 or cublasSgemm_v2";
    return false;
  }
  if (int s = create(&handle)) {
    whyNot = "cublasCreate_v2 failed with status " + std::to_string(s);
    return false;
  }
  return true;
}

CuBLAS::~CuBLAS() {
  if (handle)
    destroy(handle);
  // The library stays loaded: the CUDA runtime inside it tears down at exit.
}

} // namespace hx::bench
