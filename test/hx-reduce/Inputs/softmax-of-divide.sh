#!/bin/sh
# Interesting: hx-opt accepts the candidate and a softmax takes the result
# of a divide.
hx-opt "$1" > /dev/null 2>&1 || exit 1
d=$(sed -n 's/^ *\(%[0-9]*\) = divide(.*/\1/p' "$1" | head -n 1)
[ -n "$d" ] && grep -q "nn.softmax($d[,)]" "$1"
