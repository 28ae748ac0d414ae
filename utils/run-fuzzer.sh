#!/usr/bin/env bash
# Runs the hx libFuzzer target (tools/hx-fuzz) for SECONDS seconds.
#
#   utils/run-fuzzer.sh SECONDS [extra libFuzzer arguments...]
#
# 1. Configures fuzz-build/ with clang-19 (-DHX_ENABLE_FUZZER=ON) if needed
#    and builds hx-fuzz (-j1 unless HX_FUZZ_JOBS says otherwise).
# 2. Builds the seed corpus fuzz-build/corpus-seed/ from every *.ir under
#    test/ and examples/, one file per `// -----` chunk.
# 3. Runs hx-fuzz with the dictionary utils/hx-fuzz.dict; new coverage goes to
#    fuzz-build/corpus/ (kept between runs), crashes, timeouts and leaks to
#    fuzz-build/crashes/. The log is fuzz-build/fuzz.log.
# Exits non-zero when the fuzzer found a crash (or failed to start).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/fuzz-build"

if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 SECONDS [extra libFuzzer args...]" >&2
  exit 2
fi
seconds=$1
shift

if [ ! -f "$build/build.ninja" ]; then
  CC=clang-19 CXX=clang++-19 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHX_ENABLE_FUZZER=ON -DHX_BUILD_TESTS=OFF \
    -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
fi
ninja -C "$build" -j"${HX_FUZZ_JOBS:-1}" hx-fuzz

# Seed corpus: one file per `// -----` chunk of every test and example.
seed="$build/corpus-seed"
rm -rf "$seed"
mkdir -p "$seed" "$build/corpus" "$build/crashes"
/usr/bin/python3 - "$root" "$seed" <<'PY'
import os, re, sys
root, seed = sys.argv[1], sys.argv[2]
sep = re.compile(r"^\s*// -----")
count = 0
for top in ("test", "examples"):
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(".ir"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                lines = f.read().split(b"\n")
            chunks, cur = [], []
            for line in lines:
                if sep.match(line.decode("utf-8", "replace")):
                    chunks.append(cur)
                    cur = []
                else:
                    cur.append(line)
            chunks.append(cur)
            stem = os.path.relpath(path, root).replace(os.sep, "_")[:-3]
            for i, chunk in enumerate(chunks):
                data = b"\n".join(chunk)
                if not data.strip():
                    continue
                with open(os.path.join(seed, "%s.%d.ir" % (stem, i)), "wb") as f:
                    f.write(data)
                count += 1
print("run-fuzzer: %d seed inputs in %s" % (count, seed))
PY

before=$(find "$build/crashes" -type f | wc -l)
set +e
"$build/bin/hx-fuzz" "$build/corpus" "$seed" \
  -max_total_time="$seconds" \
  -dict="$root/utils/hx-fuzz.dict" \
  -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
  -artifact_prefix="$build/crashes/" \
  -print_final_stats=1 "$@" 2>&1 | tee "$build/fuzz.log"
status=${PIPESTATUS[0]}
set -e
after=$(find "$build/crashes" -type f | wc -l)

if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
  echo "run-fuzzer: hx-fuzz exited with $status; findings in $build/crashes/:" >&2
  find "$build/crashes" -type f -newer "$build/corpus-seed" >&2 || true
  exit 1
fi
echo "run-fuzzer: clean run of ${seconds}s"
