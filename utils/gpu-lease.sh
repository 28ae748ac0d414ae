#!/usr/bin/env bash
# One device call, run from the repository root with the bundle made by
# `utils/make-gpu-bundle.sh .gpu/gpu-bundle.tar.xz` carried: unpacks the GPU
# bundle, then runs the GPU lit tests (the cuda conformance suite among
# them), the GPU benchmarks, the gtests that skip without a GPU, and the rest
# of lit, each stage under its own time limit (L1, L2, L3 seconds; LIT1 and
# LIT2 narrow the lit stages). Results are packed into $OUT after every stage
# so a late kill loses nothing.
set -u
T0=$SECONDS
OUT=${OUT:-/tmp/hx-out}; mkdir -p "$OUT"
R=/tmp/hx-results; rm -rf "$R" /tmp/hx; mkdir -p "$R" /tmp/hx
tar -xJf .gpu/gpu-bundle.tar.xz -C /tmp/hx || exit 3
echo "unpacked in $((SECONDS-T0)) s"
save() { tar -czf "$OUT/gpu-results.tar.gz" -C /tmp hx-results 2>/dev/null; cat "$R"/*/summary.txt >"$OUT/summary.txt" 2>/dev/null; }
stage() { # name limit parts...
  local name=$1 lim=$2; shift 2
  echo "== stage $name (limit $lim s) at $((SECONDS-T0)) s"
  timeout -k 5 "$lim" bash /tmp/hx/run-gpu-suite.sh "$R/$name" "$@" >"$R/$name.out" 2>&1
  echo "rc $? after $((SECONDS-T0)) s"; tail -n 8 "$R/$name.out"; save
}
HX_LIT_ARGS="${LIT1:---filter GPU/}" stage gpu-lit "${L1:-170}" info lit
HX_BENCH=run_gpu_bench.py stage bench "${L2:-150}" bench
echo "== stage runtime-gtests at $((SECONDS-T0)) s"
( . /tmp/hx/env.sh; cd "$R" && timeout -k 5 60 "$HX_BIN/hx-runtime-tests" --gtest_brief=1 ) >"$R/runtime-gtests.out" 2>&1
echo "rc $?"; tail -n 5 "$R/runtime-gtests.out"; save
HX_LIT_ARGS="${LIT2:---filter-out GPU/}" stage lit-rest "${L3:-100}" lit
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,pstate,temperature.gpu --format=csv >"$R/smi-end.txt" 2>&1; save
echo "done at $((SECONDS-T0)) s"; cat "$OUT/summary.txt"
