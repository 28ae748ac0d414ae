#!/usr/bin/env bash
# Installs ONNX Runtime's CPU provider for the benchmarks (never for the
# tests): the npm package onnxruntime-node 1.30.0 ships libonnxruntime.so
# for linux x64. Its install script would fetch GPU binaries; it is skipped.
#
#   bash bench/ort/setup.sh [DIR]     (default: bench/ort, git-ignored)
#
# Then: bench/run_torch_families.py --ort DIR (or HX_ORT_DIR=DIR).
set -euo pipefail
dir=${1:-$(cd "$(dirname "$0")" && pwd)}
command -v npm > /dev/null || { echo "ort setup: needs node and npm (apt-get install nodejs npm)" >&2; exit 1; }
mkdir -p "$dir"
npm install --prefix "$dir" --no-save --ignore-scripts onnxruntime-node@1.30.0
echo "onnxruntime-node installed in $dir"
