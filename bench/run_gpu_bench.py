#!/usr/bin/env python3
"""GPU benchmark: runs bench/gpu_bench.cpp (hx-gpu-bench), the figures of issue 14.

Each figure is printed next to its reference, measured in the same process on
the same GPU: elementwise add over 2^26 float32 against a device-to-device
copy (GB/s), nn.dense 4096^3 against cuBLAS sgemm (TFLOP/s), the executor's
device_copy of 256 MiB there and back against pinned copies (GB/s), a
10-layer MLP on cuda+cpu against the same module all on the cpu (speed-up),
and the executor's overhead per step of 1,000 tiny adds on cuda (us). Without
a CUDA device hx-gpu-bench says why in one line and exits 0.

    python3 bench/run_gpu_bench.py [--build-dir build | --bin-dir DIR] [hx-gpu-bench options]

--build-dir builds hx-gpu-bench there first; --bin-dir runs the binary found
there as it is (the GPU bundle's bin/); with neither, build/bin is used as it
is. Other options (--only=..., --dense-size=N, --repeat=N, --dry-run) go to
hx-gpu-bench. Where HX_CUBLAS is unset, a libcublas of the CUDA toolkit or of
a Python wheel (nvidia-cublas) is looked for and named in it, for the
reference of nn.dense.
"""
import argparse
import glob
import os
import subprocess
import sys


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def gpus():
    """nvidia-smi's view of the GPUs (read-only queries), or why there is none."""
    fields = "name,driver_version,memory.total,clocks.sm,clocks.max.sm,pstate,temperature.gpu"
    try:
        r = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [f"no nvidia-smi ({e.__class__.__name__})"]
    if r.returncode:
        return [f"nvidia-smi failed: {(r.stderr or r.stdout).strip()}"]
    return [line.strip() for line in r.stdout.splitlines() if line.strip()]


def find_cublas():
    """A libcublas for hx-gpu-bench to dlopen when the loader's path has none."""
    candidates = []
    for root in ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]:
        candidates += [os.path.join(root, f"libcublas.so.{v}") for v in (13, 12)]
    for p in sys.path:
        for sub in ("nvidia/cu13/lib", "nvidia/cublas/lib", "nvidia/*/lib"):
            candidates += sorted(glob.glob(os.path.join(p, sub, "libcublas.so.1[0-9]")),
                                 reverse=True)
    return next((c for c in candidates if os.path.isfile(c)), None)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = p.add_mutually_exclusive_group()
    where.add_argument("--build-dir", help="build hx-gpu-bench in this build directory first")
    where.add_argument("--bin-dir", help="run hx-gpu-bench from this directory as it is")
    a, rest = p.parse_known_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if a.build_dir:
        r = subprocess.run(["cmake", "--build", a.build_dir, "--target", "hx-gpu-bench"])
        if r.returncode:
            print("run_gpu_bench: cannot build hx-gpu-bench")
            return 1
        bin_dir = os.path.join(a.build_dir, "bin")
    else:
        bin_dir = a.bin_dir or os.path.join(root, "build", "bin")
    exe = os.path.join(bin_dir, "hx-gpu-bench")
    if not os.access(exe, os.X_OK):
        print(f"run_gpu_bench: no {exe} (build it: --build-dir build)")
        return 1

    print(f"machine: {cpu_model()}, {os.cpu_count()} cpus")
    for g in gpus():
        print(f"gpu: {g}")
    env = dict(os.environ)
    if "HX_CUBLAS" not in env:
        lib = find_cublas()
        if lib:
            env["HX_CUBLAS"] = lib
    print(f"cuBLAS: {env.get('HX_CUBLAS', 'by soname (libcublas.so.13, .12)')}")
    sys.stdout.flush()
    return subprocess.run([exe] + rest, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
