#!/usr/bin/env bash
# Makes a self-contained hx bundle for a GPU machine that has no LLVM 19 and
# no ANTLR (docs/toolchain.md, "Running on a GPU machine without the
# toolchain"):
#
#     utils/make-gpu-bundle.sh [OUT.tar.xz]      (default: build/gpu-bundle.tar.xz)
#
# and on the GPU machine, anywhere:
#
#     mkdir -p /tmp/hx && tar -xJf gpu-bundle.tar.xz -C /tmp/hx
#     bash /tmp/hx/run-gpu-suite.sh RESULTS_DIR [info lit gtest bench]
#     . /tmp/hx/env.sh && hx-run ...             (the tools on PATH)
#
# Recipe (the same every time; about 50 MiB; 2.5 to 7 minutes on 2 cores
# after the build, nearly all of it xz):
#  1. Build hx in $HX_BUILD_DIR (default build/; configured with
#     `cmake -G Ninja -DCMAKE_BUILD_TYPE=Release` when it has no build.ninja).
#  2. bin/: every executable of the build's bin/ (hx-opt, hx-run, the gtest
#     binaries, the benchmarks) and LLVM's FileCheck, not, count; each ELF gets
#     RPATH $ORIGIN/../lib (patchelf --force-rpath: DT_RPATH wins over
#     LD_LIBRARY_PATH). lib/: the build's own lib/*.so
#     (libhx-fake-cuda.so, which hx-runtime-tests opens by its build path).
#  3. lib/: the shared libraries `ldd` finds for them (libLLVM.so.19.1,
#     libantlr4-runtime, libz3, libicu*, libxml2, libedit, libffi, libtinfo,
#     libzstd, libbsd, libmd, liblzma, libz, libopenblas, libgfortran,
#     libquadmath, ...), each with RPATH $ORIGIN. Never libcuda (the GPU
#     machine's driver, dlopened). glibc stays the system's; libstdc++ and
#     libgcc_s go to lib/gcc and the loader, libc, libm, ... to lib/glibc, used
#     by env.sh only when the system's are too old (env.sh explains).
#  4. test/, examples/, bench/, docs/ (test/hx-opt/list-ops.test reads
#     docs/ops.md) and utils/* (the files, not the folders: tests
#     run utils/make-npy.py, utils/ptxas-all.sh, ...) as the working tree has them
#     (git ls-files: tracked and untracked-not-ignored), lit from
#     /usr/lib/llvm-19/build/utils/lit, lit.site.cfg.py.bundle (the build's
#     site config with its paths turned into placeholders that
#     run-gpu-suite.sh fills in), run-gpu-suite.sh, env.sh and README.md from
#     utils/gpu-bundle/, and BUNDLE-INFO (commit, source dir, versions, files).
#  5. Check that every dependency of every ELF resolves inside the bundle or to
#     glibc/libstdc++/libgcc_s, then tar (sorted, owner 0, mtime of the HEAD
#     commit) | xz --x86 --lzma2=preset=9 -T2 (the x86 filter saves about 10%;
#     HX_BUNDLE_XZ="-1 -T2" packs fast for trials).
# Needs patchelf (Debian package patchelf), xz, python3, git.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/gpu-bundle.tar.xz}
build=${HX_BUILD_DIR:-$root/build}
llvm_bin=/usr/lib/llvm-19/bin
lit_src=/usr/lib/llvm-19/build/utils/lit
t_start=$SECONDS

for tool in patchelf xz git ldd /usr/bin/python3; do
  command -v "$tool" >/dev/null || {
    echo "make-gpu-bundle: $tool is missing (apt-get install patchelf xz-utils git python3)" >&2
    exit 1
  }
done

# ---- 1. build ----------------------------------------------------------------
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build"
t_built=$SECONDS

stage=$(mktemp -d "${TMPDIR:-/tmp}/hx-bundle.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"
mkdir -p "$stage/bin" "$stage/lib/gcc" "$stage/lib/glibc" "$stage/lit"

is_elf() { [ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# ---- 2. executables ----------------------------------------------------------
for f in "$build"/bin/*; do
  [ -f "$f" ] && [ -x "$f" ] || continue
  install -m 0755 "$f" "$stage/bin/"
done
for t in FileCheck not count; do
  install -m 0755 "$llvm_bin/$t" "$stage/bin/"
done
# Shared libraries and modules the build makes (lib/libhx-fake-cuda.so, ...).
for f in "$build"/lib/*.so*; do
  [ -f "$f" ] && install -m 0755 "$f" "$stage/lib/"
done

# ---- 3. libraries ------------------------------------------------------------
glibc_libs="ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1 libpthread.so.0 libdl.so.2
  librt.so.1 libutil.so.1 libresolv.so.2"
gcc_libs="libstdc++.so.6 libgcc_s.so.1"
in_list() { case " $(echo $2) " in *" $1 "*) return 0 ;; esac; return 1; }

elfs=() own_libs=()
for f in "$stage"/bin/*; do is_elf "$f" && elfs+=("$f"); done
for f in "$stage"/lib/*.so*; do is_elf "$f" && own_libs+=("$f"); done
deps=$(for f in "${elfs[@]}" "${own_libs[@]}"; do ldd "$f"; done)
if echo "$deps" | grep -q 'not found'; then
  echo "make-gpu-bundle: unresolved libraries on this machine:" >&2
  echo "$deps" | grep 'not found' | sort -u >&2
  exit 1
fi
libc_dir=""
while read -r soname path; do
  case "$soname" in
    libcuda.so* | libnvidia-* | linux-vdso.so*) continue ;;
  esac
  if in_list "$soname" "$glibc_libs"; then
    [ "$soname" = libc.so.6 ] && libc_dir=$(dirname "$path")
    continue
  elif in_list "$soname" "$gcc_libs"; then
    cp -L "$path" "$stage/lib/gcc/$soname"
  else
    cp -L "$path" "$stage/lib/$soname"
  fi
done < <(echo "$deps" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u)
# The whole glibc (for a system whose own is older), from where libc came.
for l in $glibc_libs; do
  src="$libc_dir/$l"
  [ "$l" = ld-linux-x86-64.so.2 ] && [ ! -e "$src" ] && src=/lib64/ld-linux-x86-64.so.2
  cp -L "$src" "$stage/lib/glibc/$l"
done
chmod 0755 "$stage"/lib/*.so* "$stage"/lib/gcc/* "$stage"/lib/glibc/*

# DT_RPATH, not DT_RUNPATH: it is searched before LD_LIBRARY_PATH, so a GPU
# image's LD_LIBRARY_PATH (conda, /usr/local/nvidia/lib64) cannot swap in its
# own libz or libxml2; only libstdc++/libgcc_s and glibc, which are not in
# lib/, still come from the system (or from env.sh's choice).
for f in "${elfs[@]}"; do patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$f"; done
for f in "$stage"/lib/*.so*; do
  for n in $(patchelf --print-needed "$f"); do
    if [ -e "$stage/lib/$n" ]; then
      patchelf --force-rpath --set-rpath '$ORIGIN' "$f"
      break
    fi
  done
done

# ---- 4. tests, lit, scripts --------------------------------------------------
(cd "$root" && git ls-files -co --exclude-standard -- test examples bench utils docs) |
  while read -r f; do
    case "$f" in utils/*/*) continue ;; esac
    [ -f "$root/$f" ] || continue # deleted in the working tree
    mkdir -p "$stage/$(dirname "$f")"
    cp -p "$root/$f" "$stage/$f"
  done
cp -p "$lit_src/lit.py" "$lit_src/LICENSE.TXT" "$stage/lit/"
(cd "$lit_src" && find lit -name __pycache__ -prune -o -type f -print) | while read -r f; do
  mkdir -p "$stage/lit/$(dirname "$f")"
  cp -p "$lit_src/$f" "$stage/lit/$f"
done
install -m 0755 "$root/utils/gpu-bundle/run-gpu-suite.sh" "$stage/run-gpu-suite.sh"
install -m 0644 "$root/utils/gpu-bundle/env.sh" "$stage/env.sh"
install -m 0644 "$root/utils/gpu-bundle/README.md" "$stage/README.md"

src_dir=$(sed -n 's/^hx_SOURCE_DIR:STATIC=//p' "$build/CMakeCache.txt")
build=$(sed -n 's/^hx_BINARY_DIR:STATIC=//p' "$build/CMakeCache.txt")
# The site config CMake wrote, with its paths as placeholders (run-gpu-suite.sh).
/usr/bin/python3 - "$build/test/lit.site.cfg.py" "$stage/lit.site.cfg.py.bundle" \
  "$src_dir" "$build" "$llvm_bin" <<'EOF'
import re, sys
src, dst, source_dir, build_dir, llvm_bin = sys.argv[1:6]
keys = {"hx_src_root": "@HX_BUNDLE@", "hx_obj_root": "@HX_OBJ@", "hx_tools_dir": "@HX_BIN@",
        "llvm_tools_dir": "@HX_BIN@", "ptxas": "@HX_PTXAS@", "dot": "@HX_DOT@",
        "python": "@HX_PYTHON@"}
prefixes = [(build_dir + "/bin", "@HX_BIN@"), (llvm_bin, "@HX_BIN@"), (build_dir, "@HX_OBJ@"),
            (source_dir, "@HX_BUNDLE@")]
lines = []
for line in open(src):
    m = re.match(r'^config\.(\w+) = "(.*)"$', line.rstrip("\n"))
    if m and m.group(1) in keys:
        line = 'config.%s = "%s"\n' % (m.group(1), keys[m.group(1)])
    elif m:
        v = m.group(2)
        for p, r in prefixes:
            if v == p or v.startswith(p + "/"):
                v = r + v[len(p):]
                break
        line = 'config.%s = "%s"\n' % (m.group(1), v)
    lines.append(line)
text = "".join(lines).replace("# Generated by CMake from test/lit.site.cfg.py.in.",
                              "# From the build's test/lit.site.cfg.py; run-gpu-suite.sh fills in @...@.")
missing = [k for k in ("hx_src_root", "hx_obj_root", "hx_tools_dir", "llvm_tools_dir") if "config.%s =" % k not in text]
if missing:
    sys.exit("make-gpu-bundle: %s has no %s" % (src, ", ".join(missing)))
open(dst, "w").write(text)
EOF

# ---- 5. check, describe, pack -------------------------------------------------
bad=0
for f in "${elfs[@]}" "${own_libs[@]}"; do
  while read -r soname path; do
    case "$(readlink -f "$path")" in "$stage"/lib/*) continue ;; esac
    in_list "$soname" "$glibc_libs $gcc_libs" && continue
    echo "make-gpu-bundle: ${f##*/}: $soname resolves to $path, outside the bundle" >&2
    bad=1
  done < <(env -i /usr/bin/ldd "$f" | awk '$2 == "=>" {print $1, $3}')
done
[ "$bad" = 0 ] || exit 1

commit=$(git -C "$root" rev-parse HEAD)
dirty=""
[ -n "$(git -C "$root" --no-optional-locks status --porcelain -- . 2>/dev/null)" ] &&
  dirty=" + uncommitted changes in the working tree"
{
  echo "hx GPU bundle (utils/make-gpu-bundle.sh)"
  echo "commit: $commit$dirty"
  # run-gpu-suite.sh reads these two: test binaries have them compiled in.
  echo "source dir: $src_dir"
  echo "build dir: $build"
  echo "build type: $(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt")"
  echo "built with: $(. /etc/os-release && echo "$PRETTY_NAME"), glibc $(getconf GNU_LIBC_VERSION | cut -d' ' -f2)," \
    "LLVM $("$llvm_bin/llvm-config" --version), $(basename "$(readlink -f "$stage/lib/libantlr4-runtime.so.4.9" 2>/dev/null || echo antlr4-runtime)")"
  echo "bin: $(cd "$stage/bin" && echo *)"
  echo "lib: $(cd "$stage/lib" && ls *.so* | tr '\n' ' ')"
  echo "lib/gcc: $(cd "$stage/lib/gcc" && echo *)"
  echo "lib/glibc: $(cd "$stage/lib/glibc" && echo *)"
} >"$stage/BUNDLE-INFO"
chmod 0644 "$stage/BUNDLE-INFO" "$stage/lit.site.cfg.py.bundle"

mkdir -p "$(dirname "$out")"
epoch=$(git -C "$root" log -1 --format=%ct)
tar -C "$stage" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
  --mode='u+rwX,go+rX,go-w' -cf - . | xz ${HX_BUNDLE_XZ:---x86 --lzma2=preset=9 -T2} >"$out.tmp"
mv "$out.tmp" "$out"

echo "make-gpu-bundle: $out: $(du -m "$out" | cut -f1) MiB ($(stat -c %s "$out") bytes)," \
  "$(du -sm "$stage" | cut -f1) MiB unpacked; build $((t_built - t_start)) s, bundle $((SECONDS - t_built)) s"
(cd "$stage" && du -sm bin && du -sm --separate-dirs lib && du -sm lib/gcc && du -sm lib/glibc &&
  du -sm lit test examples bench utils docs) 2>/dev/null | sed 's/^/  /'

