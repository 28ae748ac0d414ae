#!/usr/bin/env bash
# Runs hx's tests and benchmarks from an unpacked GPU bundle (made by
# utils/make-gpu-bundle.sh) on a machine without LLVM 19 or ANTLR:
#
#     run-gpu-suite.sh [RESULTS_DIR] [PART...]
#
# RESULTS_DIR (default ./gpu-results) receives every log; PARTs run in this
# order, all by default:
#   info   bundle, machine, `hx-run --list-devices`, `nvidia-smi -L`, and
#          ldd.txt: where every library of every binary resolves
#   lit    the lit suite (the bundle's test/), outputs in a temporary exec root
#   gtest  every bin/*tests binary with --gtest_brief=1
#   bench  bench/*.py drivers that take --bin-dir (run_gpu_bench.py, which
#          runs hx-gpu-bench), and every bin/*-bench no driver names
#          (hx-runtime-bench)
# A failing part does not stop the others. The last lines printed (and
# summary.txt) are a table: part, status, counts, seconds. Exit status 0 when
# every part passed, 1 otherwise.
#
# Environment: HX_BUNDLE_MODE (see env.sh), HX_PTXAS (default
# /usr/local/cuda/bin/ptxas or ptxas on PATH), HX_LIT_ARGS (extra lit
# arguments, e.g. "--filter Runtime"), HX_LIT_TIMEOUT (per test, seconds,
# default 600, used when python3 has psutil), HX_PART_TIMEOUT (per gtest or
# bench binary, default 900), HX_BENCH (the benchmarks to run, by file name,
# e.g. "run_gpu_bench.py"; default all), HX_BENCH_ARGS (arguments for each,
# e.g. "--only=dense"), HX_KEEP_LIT_OUTPUT=1 keeps the lit exec
# root, HX_BUNDLE_LINKS=0 (below).
set -u

B=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RES=${1:-./gpu-results}
[ $# -gt 0 ] && shift
PARTS=${*:-info lit gtest bench}
mkdir -p "$RES" && RES=$(cd "$RES" && pwd) || {
  echo "run-gpu-suite: cannot create $RES" >&2
  exit 2
}
: >"$RES/summary.txt"

# shellcheck source=env.sh
. "$B/env.sh"
PY=$(command -v python3 || command -v python || true)
PART_TIMEOUT=${HX_PART_TIMEOUT:-900}
TIMEOUT=""
command -v timeout >/dev/null && TIMEOUT="timeout -k 10 $PART_TIMEOUT"
export HX_SOURCE_DIR="$B"
FAILED=0

# Test binaries have the build machine's source and build directories compiled
# in (hx-unittests reads $src/test/..., hx-runtime-tests opens
# $build/lib/libhx-fake-cuda.so). Where those paths are absent, link them to
# the bundle: $src/{test,examples,utils,bench} and $build/{bin,lib}. Nothing
# that exists is touched; HX_BUNDLE_LINKS=0 creates nothing.
baked_src=$(sed -n 's/^source dir: //p' "$B/BUNDLE-INFO" 2>/dev/null)
baked_build=$(sed -n 's/^build dir: //p' "$B/BUNDLE-INFO" 2>/dev/null)
link_into() { # dir entry...
  local dir=$1 e
  shift
  [ -n "$dir" ] && [ "$dir" != "$B" ] || return 0
  for e in "$@"; do
    [ -e "$dir/$e" ] || [ -L "$dir/$e" ] || [ ! -e "$B/$e" ] && continue
    if mkdir -p "$dir" 2>/dev/null && ln -s "$B/$e" "$dir/$e" 2>/dev/null; then
      echo "linked $dir/$e -> $B/$e"
    else
      echo "cannot link $dir/$e -> $B/$e"
    fi
  done
}
if [ "${HX_BUNDLE_LINKS:-1}" != 0 ]; then
  {
    link_into "$baked_src" test examples utils bench
    link_into "$baked_build" bin lib
  } >"$RES/links.txt" 2>&1
fi

rows=()
row() { # part status detail seconds; summary.txt grows as parts finish
  rows+=("$(printf '%-26s %-7s %6ss  %s' "$1" "$2" "$4" "$3")")
  echo "${rows[-1]}" >>"$RES/summary.txt"
  [ "$2" = ok ] || [ "$2" = skipped ] || FAILED=1
}
want_bench() { [ -z "${HX_BENCH:-}" ] || case " $HX_BENCH " in *" $1 "*) ;; *) return 1 ;; esac; }
has_part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
banner() { printf '\n===== %s =====\n' "$*"; }

# ---- info --------------------------------------------------------------------
if has_part info; then
  t0=$SECONDS
  banner "info"
  {
    cat "$B/BUNDLE-INFO" 2>/dev/null
    echo "bundle: $B (library mode: $HX_BUNDLE_MODE)"
    [ -n "$HX_BUNDLE_PROBE" ] && echo "loader complaints before the mode was chosen: $HX_BUNDLE_PROBE"
    [ -s "$RES/links.txt" ] && echo "compiled-in paths:" && sed 's/^/  /' "$RES/links.txt"
    echo "host: $(uname -srm), $(getconf GNU_LIBC_VERSION 2>/dev/null), $(nproc 2>/dev/null) cpus"
    echo "python: ${PY:-none} $("${PY:-false}" --version 2>&1)"
  } 2>&1 | tee "$RES/info.txt"
  banner "nvidia-smi -L"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi -L 2>&1 | tee "$RES/nvidia-smi.txt"
    nvidia-smi >>"$RES/nvidia-smi.txt" 2>&1
  else
    echo "(no nvidia-smi)" | tee "$RES/nvidia-smi.txt"
  fi
  banner "hx-run --list-devices"
  hx-run --list-devices 2>&1 | tee "$RES/devices.txt"
  rc=${PIPESTATUS[0]}
  cudaline=$(grep -m1 '^cuda' "$RES/devices.txt" | cut -c1-60)

  # ldd: every library of every binary, with the bundle's settings.
  missing=0 outside=0
  for f in "$B"/bin/*; do
    head -c 4 "$f" 2>/dev/null | grep -q ELF || continue
    echo "== ${f##*/}"
    if [ "$HX_BUNDLE_MODE" = glibc ]; then
      "$B/lib/glibc/ld-linux-x86-64.so.2" --list \
        --library-path "$B/lib/glibc:$B/lib/gcc:$B/lib" "$f" 2>&1
    else
      LD_TRACE_LOADED_OBJECTS=1 "$f" 2>&1
    fi
  done >"$RES/ldd.txt"
  missing=$(grep -c 'not found' "$RES/ldd.txt")
  # Outside the bundle only glibc, libstdc++/libgcc_s may resolve.
  outside=$(grep '=> /' "$RES/ldd.txt" | grep -v "=> $B/" |
    grep -vcE '^\s*(libc|libm|libmvec|libpthread|libdl|librt|libutil|libresolv|libstdc\+\+|libgcc_s)\.so')
  echo "ldd: $missing missing, $outside resolved outside the bundle besides glibc/libstdc++ (ldd.txt)"
  st=ok
  [ "$rc" = 0 ] && [ "$missing" = 0 ] && [ "$outside" = 0 ] || st=FAIL
  row info "$st" "mode $HX_BUNDLE_MODE; ldd missing $missing, outside $outside; ${cudaline:-no cuda line}" $((SECONDS - t0))
fi

# ---- lit ---------------------------------------------------------------------
if has_part lit; then
  t0=$SECONDS
  banner "lit"
  obj=$(mktemp -d "${TMPDIR:-/tmp}/hx-lit.XXXXXX")
  mkdir -p "$obj/test"
  ptxas=${HX_PTXAS:-}
  if [ -z "$ptxas" ]; then
    if [ -x /usr/local/cuda/bin/ptxas ]; then ptxas=/usr/local/cuda/bin/ptxas; else ptxas=$(command -v ptxas || true); fi
  fi
  dot=$(command -v dot || true)
  sed -e "s|@HX_BUNDLE@|$B|g" -e "s|@HX_OBJ@|$obj|g" -e "s|@HX_BIN@|$HX_BIN|g" \
    -e "s|@HX_PTXAS@|$ptxas|g" -e "s|@HX_DOT@|$dot|g" -e "s|@HX_PYTHON@|$PY|g" \
    "$B/lit.site.cfg.py.bundle" >"$obj/test/lit.site.cfg.py"
  cp "$obj/test/lit.site.cfg.py" "$RES/lit.site.cfg.py"
  litargs=(-sv --show-unsupported --xunit-xml-output "$RES/lit.xml" --time-tests)
  if "$PY" -c 'import psutil' 2>/dev/null; then
    litargs+=("--timeout=${HX_LIT_TIMEOUT:-600}")
  else
    echo "lit: python3 has no psutil: no per-test timeout"
  fi
  # shellcheck disable=SC2206
  extra=(${HX_LIT_ARGS:-})
  echo "lit: exec root $obj, ptxas '${ptxas}', dot '${dot}'"
  "$PY" "$B/lit/lit.py" "${litargs[@]}" "${extra[@]}" "$obj/test" 2>&1 | tee "$RES/lit.log"
  rc=${PIPESTATUS[0]}
  counts=$(grep -E '^  [A-Z][A-Za-z ]+: +[0-9]+' "$RES/lit.log" |
    sed -E 's/^  ([A-Za-z ]*[A-Za-z]) *: +([0-9]+).*/\1 \2/' |
    paste -sd, - | sed 's/,/, /g')
  # The lists of unsupported/failed tests and the totals: the log's tail from
  # the first "... Tests (N):" list (or the totals when there is none).
  awk '/^[A-Z][A-Za-z ]+ Tests \([0-9]+\):$/ || /^Total Discovered Tests/ {on = 1} on' \
    "$RES/lit.log" >"$RES/lit-summary.txt"
  st=ok
  [ "$rc" = 0 ] || st=FAIL
  row lit "$st" "${counts:-no summary (rc $rc)}" $((SECONDS - t0))
  if [ "${HX_KEEP_LIT_OUTPUT:-0}" = 1 ] || [ "$rc" != 0 ]; then
    echo "lit: outputs kept in $obj"
  else
    rm -rf "$obj"
  fi
fi

# ---- gtest -------------------------------------------------------------------
if has_part gtest; then
  for f in "$B"/bin/*tests; do
    [ -x "$f" ] || continue
    name=${f##*/}
    t0=$SECONDS
    banner "$name"
    args=(--gtest_brief=1 "--gtest_output=xml:$RES/gtest-$name.xml")
    note=""
    # hx-unittests reads test/Transforms/PlanDevices under the source directory
    # compiled into it (HX_SOURCE_DIR); skip that one test where it is absent.
    if [ "$name" = hx-unittests ] && [ -n "$baked_src" ] &&
      [ ! -d "$baked_src/test/Transforms/PlanDevices" ]; then
      args+=(--gtest_filter=-DeviceAwareTest.AgreesWithTheAnalysisOnEveryPlanDevicesTest)
      note=" (skipped DeviceAwareTest.AgreesWithTheAnalysisOnEveryPlanDevicesTest: no $baked_src/test)"
      echo "note:$note"
    fi
    (cd "$RES" && $TIMEOUT "$HX_BIN/$name" "${args[@]}") 2>&1 | tee "$RES/gtest-$name.log"
    rc=${PIPESTATUS[0]}
    pass=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) test.*/\1/p' "$RES/gtest-$name.log" | tail -1)
    fail=$(sed -nE 's/^\[  FAILED  \] ([0-9]+) test.*/\1/p' "$RES/gtest-$name.log" | tail -1)
    skip=$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) test.*/\1/p' "$RES/gtest-$name.log" | tail -1)
    st=ok
    [ "$rc" = 0 ] || st=FAIL
    detail="passed ${pass:-0}, failed ${fail:-0}, skipped ${skip:-0}"
    [ "$rc" = 0 ] || detail="$detail, exit $rc"
    row "$name" "$st" "$detail$note" $((SECONDS - t0))
  done
fi

# ---- bench -------------------------------------------------------------------
# A bench/*.py that takes --bin-dir is a driver (run_gpu_bench.py: machine
# facts, cuBLAS lookup, then hx-gpu-bench); a bin/*-bench it names runs
# through it only, unless HX_BENCH names it. The others run as they are.
run_bench() { # name command...
  local name=$1 t0=$SECONDS rc st
  shift
  nb=$((nb + 1))
  banner "$name"
  # shellcheck disable=SC2086
  (cd "$RES" && $TIMEOUT "$@" ${HX_BENCH_ARGS:-}) 2>&1 | tee "$RES/bench-$name.log"
  rc=${PIPESTATUS[0]}
  st=ok
  [ "$rc" = 0 ] || st=FAIL
  row "$name" "$st" "exit $rc, log bench-$name.log" $((SECONDS - t0))
}
if has_part bench; then
  nb=0
  drivers=()
  for f in "$B"/bench/*.py; do
    [ -f "$f" ] && grep -q -- '--bin-dir' "$f" && drivers+=("$f")
  done
  for f in "$B"/bin/*-bench; do
    name=${f##*/}
    [ -x "$f" ] && want_bench "$name" || continue
    [ -z "${HX_BENCH:-}" ] && [ ${#drivers[@]} -gt 0 ] && grep -qF -- "$name" "${drivers[@]}" && continue
    run_bench "$name" "$HX_BIN/$name"
  done
  for f in "${drivers[@]}"; do
    name=${f##*/}
    want_bench "$name" || continue
    run_bench "$name" "$PY" "$f" --bin-dir "$HX_BIN"
  done
  [ "$nb" = 0 ] && row bench skipped "no benchmark found" 0
fi

# ---- summary -----------------------------------------------------------------
{
  printf '\n===== summary (%s) =====\n' "$RES"
  printf '%-26s %-7s %7s  %s\n' part status time detail
  for r in "${rows[@]}"; do echo "$r"; done
} | tee "$RES/summary.txt"
exit "$FAILED"
