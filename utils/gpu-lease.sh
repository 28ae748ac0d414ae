#!/usr/bin/env bash
# One device call: everything hx proves on a GPU, sized for a lease of 15
# minutes that holds one call of about 10 (the machine's start counts). Run
# from the repository root, with .gpu (ignored by git) carried:
#
#   utils/make-gpu-bundle.sh .gpu/gpu-bundle.tar.xz      # the bundle
#   /usr/bin/python3 utils/make-onnx.py .gpu/onnx        # 23 ONNX cases
#   there:  bash utils/gpu-lease.sh                      # results in $OUT
#
# Phase 1, correctness, in parallel: the GPU lit tests (test/GPU, the cuda
# conformance suite among them), the rest of lit (niced), and the models:
# the ONNX cases on cuda against the interpreter (utils/gpu-models.sh) and
# PyTorch models exported there by the machine's own PyTorch at opset 20
# (its default exporter), the body on cuda and the head on the cpu, against
# PyTorch's output, and the families whose branches meet in a concatenate
# (utils/torch-families.py --check, on cuda). Phase 2, timings, one at a time: hx-gpu-bench, the
# gtests that skip without a GPU, whole networks beside PyTorch eager on
# the same GPU (bench/run_gpu_networks.py), and torchvision's detectors with
# the backbone on cuda and the tail on the cpu beside all on the cpu and
# beside PyTorch eager on the cpu and on the GPU (utils/torch-detectors.py).
# Each stage runs under its own limit in seconds (L_CHECK, L_LITREST,
# L_BENCH, L_GTEST, L_NETS, L_DET; 0 skips the stage); results are packed into $OUT after every stage,
# so a late kill loses nothing: summary.txt, lease.log and
# gpu-results.tar.gz (every log).
set -u
T0=$SECONDS
OUT=${OUT:-/tmp/hx-out}; mkdir -p "$OUT"
R=/tmp/hx-results; rm -rf "$R" /tmp/hx; mkdir -p "$R" /tmp/hx
exec > >(tee "$OUT/lease.log") 2>&1
tar -xJf .gpu/gpu-bundle.tar.xz -C /tmp/hx || exit 3
echo "unpacked in $((SECONDS-T0)) s"
. /tmp/hx/env.sh
export HXRUN=$(command -v hx-run) R T0 PYTHONUNBUFFERED=1
save() {
  tar -czf "$OUT/gpu-results.tar.gz" -C /tmp hx-results 2>/dev/null
  { cat "$R"/*/summary.txt; for f in "$R"/*.out; do echo "== $(basename "$f")"; tail -n 40 "$f"; done; } \
    >"$OUT/summary.txt" 2>/dev/null
}
suite() { # name limit parts... (utils/gpu-bundle/run-gpu-suite.sh); limit 0 skips it
  local name=$1 lim=$2; shift 2
  [ "$lim" = 0 ] && return
  timeout -k 5 "$lim" bash /tmp/hx/run-gpu-suite.sh "$R/$name" "$@" >"$R/$name.log" 2>&1
  echo "$name: rc $? after $((SECONDS-T0)) s"
}
cmd() { # name limit command...: output in $R/name.out; limit 0 skips it
  local name=$1 lim=$2; shift 2
  [ "$lim" = 0 ] && return
  timeout -k 5 "$lim" "$@" >"$R/$name.out" 2>&1
  echo "$name: rc $? after $((SECONDS-T0)) s"
}
models() {
  OUT=/tmp/hx-models bash utils/gpu-models.sh .gpu/onnx
  python3 utils/export-torch-models.py /tmp/hx-m20 --models resnet18,mobilenet_v2,gpt2block,bertblock \
    --opsets 20 --check "$HXRUN" --split-head
  # Families whose branches meet in a concatenate, on cuda (FAMILIES="" skips them).
  [ -z "${FAMILIES-x}" ] || python3 utils/torch-families.py /tmp/hx-fam --check "$HXRUN" \
    --only "${FAMILIES:-squeezenet,googlenet,densenet,inception_v3}" --default-device=cuda --check-devices
}

echo "== phase 1 (correctness, limit ${L_CHECK:-170} s) at $((SECONDS-T0)) s"
HX_LIT_ARGS="--filter GPU/" suite gpu-lit "${L_CHECK:-170}" info lit & pids=$!
HX_LIT_ARGS="--filter-out GPU/ -j 6" nice -n 10 bash -c "$(declare -f suite); suite lit-rest ${L_LITREST:-${L_CHECK:-170}} lit" & pids+=" $!"
cmd models "${L_CHECK:-170}" nice -n 10 bash -c "$(declare -f models); models" & pids+=" $!"
wait $pids; save  # not a bare wait: that would wait for the tee too
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,pstate,temperature.gpu --format=csv >"$R/smi.txt" 2>&1

echo "== phase 2 (timings) at $((SECONDS-T0)) s"
HX_BENCH=run_gpu_bench.py suite bench "${L_BENCH:-100}" bench; save
cmd runtime-gtests "${L_GTEST:-40}" bash -c "cd $R && $HX_BIN/hx-runtime-tests --gtest_brief=1"; save
cmd networks "${L_NETS:-80}" python3 bench/run_gpu_networks.py --hx-run "$HXRUN" --repeat 30 \
  --nets resnet,resnet50,mobilenetv2,gpt2block; save
det=(python3 utils/torch-detectors.py /tmp/hx-det --bench "$HXRUN" --threads "$(nproc)" --torch-device cuda
  "--also=--default-device=cuda --placement=min-time" "--also=--default-device=cuda")
cmd detectors "${L_DET:-150}" bash -c "$(printf '%q ' "${det[@]}") --repeat 10 \
  --only ssdlite320_mobilenet_v3_large,fasterrcnn_mobilenet_v3_large_320_fpn &&
  $(printf '%q ' "${det[@]}") --repeat 3 --only retinanet_resnet50_fpn"
save
echo "done at $((SECONDS-T0)) s"; cat "$OUT/summary.txt"
