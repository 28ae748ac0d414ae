# shellcheck shell=bash
# Source this file (bash) from an unpacked hx GPU bundle:
#     . /tmp/hx/env.sh && hx-run --list-devices
# It puts the bundle's tools first on PATH and picks how they load their
# libraries; nothing outside the bundle is written.
#
# The binaries carry RPATH $ORIGIN/../lib (searched before LD_LIBRARY_PATH),
# so libLLVM, the ANTLR runtime and their dependencies come from lib/. What the system may lack is chosen
# here, by asking the loader (LD_TRACE_LOADED_OBJECTS, what ldd does) whether
# every bin/* resolves, in this order:
#   native  the system's glibc, libstdc++ and libgcc_s;
#   gcc     the bundle's libstdc++/libgcc_s (lib/gcc) via LD_LIBRARY_PATH, for a
#           system whose libstdc++ is older than GCC 12's or missing;
#   glibc   the bundle's own loader and glibc (lib/glibc) through wrapper
#           scripts in a temporary directory, for a glibc older than the
#           build machine's (Debian 12: 2.36).
# HX_BUNDLE_MODE=native|gcc|glibc forces one. Afterwards:
#   HX_BUNDLE       the unpacked bundle
#   HX_BIN          the directory to run the tools from (bin/ or the wrappers)
#   HX_BUNDLE_MODE  the mode chosen; HX_BUNDLE_PROBE the loader's complaints
#                   when no mode worked.

HX_BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export HX_BUNDLE

# Prints the loader's complaints for every bin/* under the current settings;
# empty when everything resolves. $1 = the loader to use (default: the system's).
hx_bundle_probe() {
  local f out
  for f in "$HX_BUNDLE"/bin/*; do
    [ -f "$f" ] && [ -x "$f" ] || continue
    head -c 4 "$f" | grep -q 'ELF' || continue
    if [ -n "${1:-}" ]; then
      out=$("$1" --list --library-path "$HX_BUNDLE/lib/glibc:$HX_BUNDLE/lib/gcc:$HX_BUNDLE/lib" "$f" 2>&1) ||
        out="$out (exit $?)"
    else
      out=$(LD_TRACE_LOADED_OBJECTS=1 "$f" 2>&1) || out="$out (exit $?)"
    fi
    case "$out" in
      *"not found"* | *"(exit "* | *rror*) echo "${f##*/}: $(echo "$out" | grep -E 'not found|rror|exit' | head -3)" ;;
    esac
  done
}

hx_bundle_wrappers() {
  local dir=$1 f name ld="$HX_BUNDLE/lib/glibc/ld-linux-x86-64.so.2"
  mkdir -p "$dir"
  for f in "$HX_BUNDLE"/bin/*; do
    [ -f "$f" ] && [ -x "$f" ] || continue
    name=${f##*/}
    if head -c 4 "$f" | grep -q 'ELF'; then
      printf '#!/bin/sh\nexec "%s" --argv0 "$0" --library-path "%s" "%s" "$@"\n' \
        "$ld" "$HX_BUNDLE/lib/glibc:$HX_BUNDLE/lib/gcc:$HX_BUNDLE/lib" "$f" >"$dir/$name"
    else
      printf '#!/bin/sh\nexec "%s" "$@"\n' "$f" >"$dir/$name"
    fi
    chmod +x "$dir/$name"
  done
}

HX_BUNDLE_PROBE=""
case "${HX_BUNDLE_MODE:-}" in
  native | gcc | glibc) ;;
  "")
    HX_BUNDLE_PROBE=$(hx_bundle_probe)
    if [ -z "$HX_BUNDLE_PROBE" ]; then
      HX_BUNDLE_MODE=native
    else
      HX_BUNDLE_PROBE=$(LD_LIBRARY_PATH="$HX_BUNDLE/lib/gcc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" hx_bundle_probe)
      if [ -z "$HX_BUNDLE_PROBE" ]; then
        HX_BUNDLE_MODE=gcc
      else
        HX_BUNDLE_MODE=glibc
        HX_BUNDLE_PROBE=$(hx_bundle_probe "$HX_BUNDLE/lib/glibc/ld-linux-x86-64.so.2")
      fi
    fi
    ;;
  *)
    echo "env.sh: HX_BUNDLE_MODE must be native, gcc or glibc (is '$HX_BUNDLE_MODE')" >&2
    HX_BUNDLE_MODE=native
    ;;
esac

HX_BIN="$HX_BUNDLE/bin"
case "$HX_BUNDLE_MODE" in
  gcc) export LD_LIBRARY_PATH="$HX_BUNDLE/lib/gcc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
  glibc)
    HX_BIN=$(mktemp -d "${TMPDIR:-/tmp}/hx-bundle-bin.XXXXXX")
    hx_bundle_wrappers "$HX_BIN"
    ;;
esac
export HX_BIN HX_BUNDLE_MODE HX_BUNDLE_PROBE
case ":$PATH:" in
  *":$HX_BIN:"*) ;;
  *) export PATH="$HX_BIN:$PATH" ;;
esac
