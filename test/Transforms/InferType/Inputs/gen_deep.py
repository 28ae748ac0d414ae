#!/usr/bin/env python3
"""Writes deep programs for deep.ir to stdout.

  chain N   %i = add(%i-1, %i-1) for N calls: a DAG N nodes deep whose nodes
            are shared by two uses each.
  lets N    let %xi = negative(%xi-1); ... N nested lets.
  scopes N  N function literals nested inside ifs inside function literals.
"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
out = sys.stdout
out.write('#[version = "0.0.5"]\n')
if kind == "chain":
    out.write("def @main(%x: Tensor[(5, 7), float32]) {\n")
    out.write("  %0 = add(%x, %x);\n")
    for i in range(1, n):
        out.write(f"  %{i} = add(%{i - 1}, %{i - 1});\n")
    out.write(f"  %{n - 1}\n}}\n")
elif kind == "lets":
    out.write("def @main(%x0: Tensor[(5, 7), float32]) {\n")
    for i in range(1, n + 1):
        out.write(f"  let %x{i} = negative(%x{i - 1});\n")
    out.write(f"  %x{n}\n}}\n")
elif kind == "scopes":
    # %f0 = fn (%a0) { if (%c) { %f1 = fn (%a1) { if ... }; %f1(%a0) }
    #                  else { %a0 } }; %f0(%v)
    out.write("def @main(%c: bool, %v: Tensor[(3), float32]) {\n")
    for i in range(n):
        out.write(f"%f{i} = fn (%a{i}: Tensor[(3), float32]) {{\n")
        out.write("if (%c) {\n")
    out.write(f"exp(%a{n - 1})\n")
    for i in reversed(range(n)):
        out.write(f"}} else {{ %a{i} }}\n}};\n")
        out.write(f"%f{i}(%a{i - 1})\n" if i else "%f0(%v)\n")
    out.write("}\n")
else:
    sys.exit(f"unknown kind {kind}")
