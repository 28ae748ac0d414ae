#!/usr/bin/env bash
# Runs one of hx's libFuzzer targets (tools/hx-fuzz) for SECONDS seconds.
#
#   utils/run-fuzzer.sh [TARGET] SECONDS [extra libFuzzer arguments...]
#
# TARGET (default parse):
#   parse     hx-fuzz           parse → verify → print → round trip → infer-type
#   plan      hx-fuzz-plan      parse → infer-type → plan-devices → verify → print
#   npy       hx-fuzz-npy       the .npy reader (round trip through the writer)
#   metadata  hx-fuzz-metadata  hx's metadata tables and TVM's object graph
#   onnx      hx-fuzz-onnx      the ONNX importer (its module must parse)
#   exec      hx-fuzz-exec      hx-smith's modules (the input is the generator's
#                               choices), planned, run, against the interpreter
#   hxc       hx-fuzz-hxc       the compiled model reader (.hxc), resealed too
#
# 1. Configures fuzz-build/ with clang-19 (-DHX_ENABLE_FUZZER=ON) if needed
#    and builds the target (-j1 unless HX_FUZZ_JOBS says otherwise).
# 2. Builds the target's seed corpus fuzz-build/seed-TARGET/: every `// -----`
#    chunk of every *.ir under test/ and examples/ (parse, plan), their
#    `#[metadata]` sections and the TVM dump's (metadata), every *.npy under
#    test/ (npy).
# 3. Runs the target with its dictionary (utils/hx-fuzz.dict, or
#    utils/hx-fuzz-npy.dict); new coverage goes to fuzz-build/corpus-TARGET/
#    (kept between runs), crashes, timeouts and leaks to
#    fuzz-build/crashes-TARGET/. The log is fuzz-build/fuzz-TARGET.log; stdin
#    is /dev/null (a metadata path may name /dev/stdin).
# Exits non-zero when the fuzzer found something (or failed to start).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/fuzz-build"

target=parse
if [ $# -ge 1 ] && ! [[ $1 =~ ^[0-9]+$ ]]; then
  target=$1
  shift
fi
# A unit's time limit: 10 s; 30 s for exec, whose unit JIT-compiles up to 24
# kernels with the instrumented compiler (about 1 s of CPU, more wall time
# when the 2 cores are shared with other fuzzers).
timeout=10
case "$target" in
  parse) exe=hx-fuzz dict=hx-fuzz.dict ;;
  plan) exe=hx-fuzz-plan dict=hx-fuzz.dict ;;
  npy) exe=hx-fuzz-npy dict=hx-fuzz-npy.dict ;;
  metadata) exe=hx-fuzz-metadata dict=hx-fuzz.dict ;;
  onnx) exe=hx-fuzz-onnx dict= ;;
  exec) exe=hx-fuzz-exec dict= timeout=30 ;;
  hxc) exe=hx-fuzz-hxc dict= ;;
  *) echo "$0: unknown target '$target' (parse, plan, npy, metadata, onnx, exec, hxc)" >&2; exit 2 ;;
esac
if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [parse|plan|npy|metadata|onnx|exec|hxc] SECONDS [extra libFuzzer args...]" >&2
  exit 2
fi
seconds=$1
shift

if [ ! -f "$build/build.ninja" ]; then
  CC=clang-19 CXX=clang++-19 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHX_ENABLE_FUZZER=ON -DHX_BUILD_TESTS=OFF \
    -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
fi
ninja -C "$build" -j"${HX_FUZZ_JOBS:-1}" "$exe"
# The hxc seeds are compiled models: hx-compile of the same build makes them.
if [ "$target" = hxc ]; then
  ninja -C "$build" -j"${HX_FUZZ_JOBS:-1}" hx-compile
  export HX_COMPILE="$build/bin/hx-compile"
fi

seed="$build/seed-$target"
corpus="$build/corpus-$target"
crashes="$build/crashes-$target"
mkdir -p "$corpus" "$crashes"
/usr/bin/python3 "$root/utils/fuzz-seeds.py" "$target" "$seed"

before=$(find "$crashes" -type f | wc -l)
set +e
"$build/bin/$exe" "$corpus" "$seed" \
  -max_total_time="$seconds" \
  ${dict:+-dict="$root/utils/$dict"} \
  -timeout="$timeout" -report_slow_units="$timeout" -rss_limit_mb=4096 -max_len=65536 \
  -artifact_prefix="$crashes/" \
  -print_final_stats=1 "$@" </dev/null 2>&1 | tee "$build/fuzz-$target.log"
status=${PIPESTATUS[0]}
set -e
after=$(find "$crashes" -type f | wc -l)

if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
  echo "run-fuzzer: $exe exited with $status; findings in $crashes/:" >&2
  find "$crashes" -type f -newer "$seed" >&2 || true
  exit 1
fi
echo "run-fuzzer: clean run of ${seconds}s ($exe)"
