#!/usr/bin/env bash
# Builds hx with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-asan/ (-O1, line tables, hx's assertions on; ccache shared with
# build/) and runs the whole test suite under them: lit, the unit tests, the
# layering and format checks. Any report (a leak included) fails its test.
# This is CI's second step (.ci/run).
#
#   utils/sanitize.sh [ctest arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export HX_BUILD_DIR="$root/build-asan" HX_SANITIZE=address,undefined
# clang's sanitizers, and clang-19 compiles hx about 3x faster than g++ 12 on
# this machine (build/ stays on the default compiler).
export CC="${HX_SANITIZE_CC:-clang-19}" CXX="${HX_SANITIZE_CXX:-clang++-19}"
"$root/utils/setup.sh"
# Reports abort (so a test that trips one fails) and print a symbolized stack.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/utils/lsan.supp:${LSAN_OPTIONS:-}"
[ -x /usr/lib/llvm-19/bin/llvm-symbolizer ] && export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-19/bin/llvm-symbolizer
ctest --test-dir "$root/build-asan" --output-on-failure "$@"
