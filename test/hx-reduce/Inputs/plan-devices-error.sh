#!/bin/sh
# Interesting: `hx-opt -plan-devices` on the candidate (the last argument)
# fails with a message containing the first argument.
hx-opt -plan-devices "$2" 2>&1 > /dev/null | grep -qF -- "$1"
