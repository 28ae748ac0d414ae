#!/usr/bin/env bash
# Installs what hx needs (Debian packages; docs/toolchain.md says why each),
# then configures and builds it in build/ (Release, Ninja).
# Idempotent; prints nothing about packages when none is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

pkgs=(build-essential cmake ninja-build python3 python3-psutil default-jre-headless
      antlr4 libantlr4-runtime-dev uuid-dev llvm-19-dev llvm-19-tools libzstd-dev
      clang-19 libclang-rt-19-dev libgtest-dev libgmock-dev libbenchmark-dev
      ccache graphviz clang-format-19 libopenblas-dev
      libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx python3-numpy
      python3-torch python3-torchvision python3-pytest python3-dev pybind11-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

build="${HX_BUILD_DIR:-$root/build}"
# HX_SANITIZE=address,undefined (utils/sanitize.sh): an instrumented build at
# -O1 with line tables and hx's assertions on, in its own directory.
extra=()
if [ -n "${HX_SANITIZE:-}" ]; then
  extra=(-DHX_SANITIZE="$HX_SANITIZE" "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1"
         "-DCMAKE_C_FLAGS_RELEASE=-O1 -g1")
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >/dev/null
fi
cmake --build "$build"
