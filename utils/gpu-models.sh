#!/usr/bin/env bash
# Runs ONNX models on a GPU machine from the unpacked GPU bundle (/tmp/hx):
# each model on cuda with --check --check-devices (the interpreter beside
# it), and again with its head on the cpu (--place='*=cuda' --place=HEAD=cpu)
# when HEAD is given. The GPU machine's Python may lack onnx and torch, so
# the models are made here and carried:
#
#   /usr/bin/python3 utils/make-onnx.py .gpu/onnx                  # 23 cases
#   /usr/bin/python3 utils/export-torch-models.py .gpu/models \
#       --models gpt2block,mobilenet_v2 --opsets 17                 # with inputs
#   there:  bash utils/gpu-models.sh .gpu/onnx [HEAD]  (outputs under $OUT)
#
# Inputs are the files NAME.INPUT.npy beside NAME.onnx. Prints one line per
# model and run; exits 1 if any run failed.
set -u
dir=${1:?usage: gpu-models.sh DIR [HEAD]}
head=${2:-}
. /tmp/hx/env.sh || { echo "gpu-models: unpack the GPU bundle into /tmp/hx first" >&2; exit 2; }
out=${OUT:-/tmp/hx-models}
pass=0 fail=0
run() { # label outdir flags...
  local label=$1 o=$2; shift 2
  local log
  if log=$(hx-run "$@" --check --check-devices --profile --output-dir="$o" 2>&1); then
    pass=$((pass + 1))
    echo "$label: $(grep -m1 '^check:' <<<"$log" | sed 's/^check: //'); $(grep -m1 '^total' <<<"$log")"
  else
    fail=$((fail + 1))
    echo "$label: FAIL"
    tail -n 5 <<<"$log"
  fi
}
for m in "$dir"/*.onnx; do
  stem=${m%.onnx} name=$(basename "${m%.onnx}")
  args=()
  for i in "$stem".*.npy; do
    k=${i#"$stem".} k=${k%.npy}
    [ "$k" = expected ] || args+=("--input=$k=$i")
  done
  run "$name on cuda" "$out/$name" "$m" "${args[@]}" --default-device=cuda
  [ -n "$head" ] && run "$name, $head on the cpu" "$out/$name-split" "$m" "${args[@]}" \
    --place='*=cuda' --place="$head=cpu"
done
echo "models: $pass runs passed, $fail failed"
[ "$fail" = 0 ]
