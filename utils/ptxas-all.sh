#!/usr/bin/env bash
# ptxas-all.sh PTXAS DIR: assembles every DIR/*.ptx with ptxas, for the
# architecture its name ends with (<name>.sm_90.ptx), else for the .target
# line inside it; prints each failure and exits 1 if there was one.
set -uo pipefail
ptxas=$1 dir=$2
fails=0 count=0
for f in "$dir"/*.ptx; do
  [ -e "$f" ] || continue
  base=${f%.ptx}
  arch=${base##*.}
  case $arch in sm_*) ;; *) arch=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$f" | head -1) ;; esac
  count=$((count + 1))
  if ! "$ptxas" --gpu-name "$arch" "$f" -o /dev/null; then
    echo "ptxas-all: $f: rejected by ptxas --gpu-name $arch"
    fails=$((fails + 1))
  fi
done
echo "ptxas-all: $count files, $fails rejected"
[ "$count" -gt 0 ] && [ "$fails" -eq 0 ]
