#!/bin/sh
# Interesting: `hx-opt -infer-type` accepts the candidate (the last argument)
# and it contains each of the other arguments (fixed strings).
eval file=\"\${$#}\"
hx-opt -infer-type "$file" > /dev/null 2>&1 || exit 1
while [ $# -gt 1 ]; do
  grep -qF -- "$1" "$file" || exit 1
  shift
done
