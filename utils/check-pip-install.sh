#!/usr/bin/env bash
# check-pip-install.sh BUILD_DIR: `pip install .` into a fresh virtual
# environment works offline, and the installed hx runs with no PYTHONPATH:
# `import hx` compiles and runs the seed example, and the tools it ships
# (hx-run, hx-compile, hx-opt) run from the environment's bin/. The build
# reuses BUILD_DIR (HX_BUILD_DIR), so it only links what is missing.
# ctest's pip-install (test/CMakeLists.txt) runs it; docs/python.md.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Debian's numpy comes from the system's site-packages; nothing is downloaded.
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
HX_BUILD_DIR="$build" "$tmp/venv/bin/python" -m pip install --quiet --no-build-isolation \
  --no-deps --no-index "$src"
cd "$tmp"
env -u PYTHONPATH HX_CACHE=0 "$tmp/venv/bin/python" - "$src/examples/shared-input.ir" <<'PY'
import sys
import warnings

import numpy as np

import hx

assert "/venv/" in hx.__file__, hx.__file__
with warnings.catch_warnings():
    warnings.simplefilter("ignore", hx.HxWarning)
    m = hx.compile(sys.argv[1])
a, b, c = (np.full((5, 7), v, np.float32) for v in (1, 2, 3))
(out,) = m.run(a, b, c)
assert np.array_equal(out, (a + b) - (b + c))
print("pip-install: import hx: ok")
PY
export HX_CACHE=0
"$tmp/venv/bin/hx-compile" "$src/examples/shared-input.ir" --device=cpu --device=cpu:1 -o seed.hxc
"$tmp/venv/bin/hx-run" seed.hxc --random-inputs --check | grep -q ': ok$'
"$tmp/venv/bin/hx-opt" -plan-devices "$src/examples/shared-input.ir" | grep -q device_copy
echo "pip-install: hx-run, hx-compile, hx-opt: ok"
