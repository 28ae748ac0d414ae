#!/usr/bin/env bash
# Runs a GPU bundle (utils/make-gpu-bundle.sh) the way a GPU machine without
# the toolchain would, on this machine:
#
#     utils/check-gpu-bundle.sh BUNDLE.tar.xz RESULTS_DIR [PART...]
#
# Inside a bubblewrap sandbox the root file system is read-only, Debian's
# LLVM (/usr/lib/llvm-*, libLLVM*, libclang*), the ANTLR runtime, ICU, z3 and
# OpenBLAS are hidden (each library file replaced by an empty one, so a
# binary that still reached for one would fail to load), and so is the
# source tree (/work and the checkout); the environment is empty (env -i,
# PATH with /usr/local/cuda/bin for ptxas). The bundle is unpacked into the
# sandbox's own /tmp and run with run-gpu-suite.sh, whose logs and summary
# land in RESULTS_DIR. PARTs as run-gpu-suite.sh takes them (default: all).
# Exit status: run-gpu-suite.sh's. Needs bwrap (Debian package bubblewrap).
set -euo pipefail

[ $# -ge 2 ] || {
  echo "usage: check-gpu-bundle.sh BUNDLE.tar.xz RESULTS_DIR [PART...]" >&2
  exit 2
}
bundle=$(realpath "$1")
res=$2
shift 2
[ -f "$bundle" ] || {
  echo "check-gpu-bundle: $bundle: no such file" >&2
  exit 1
}
command -v bwrap >/dev/null || {
  echo "check-gpu-bundle: bwrap is missing (apt-get install bubblewrap)" >&2
  exit 1
}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$res"
res=$(cd "$res" && pwd)

args=(--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs "$root")
[ -d /work ] && args+=(--tmpfs /work)
for d in /usr/lib/llvm-*; do
  [ -d "$d" ] && args+=(--tmpfs "$d")
done
for f in /usr/lib/x86_64-linux-gnu/lib{LLVM,clang,antlr4,icu,z3,openblas}*; do
  [ -f "$f" ] && [ ! -L "$f" ] && args+=(--ro-bind /dev/null "$f")
done
for d in /usr/lib/x86_64-linux-gnu/openblas-*; do
  [ -d "$d" ] && args+=(--tmpfs "$d")
done
args+=(--ro-bind "$bundle" /tmp/bundle.tar.xz --bind "$res" /tmp/results)

exec env -i PATH=/usr/local/cuda/bin:/usr/bin:/bin HOME=/tmp bwrap "${args[@]}" \
  bash -c 'mkdir -p /tmp/hx && tar -xJf /tmp/bundle.tar.xz -C /tmp/hx &&
           exec bash /tmp/hx/run-gpu-suite.sh /tmp/results "$@"' check-gpu-bundle "$@"
