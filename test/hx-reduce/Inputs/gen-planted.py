#!/usr/bin/env python3
"""Writes a module of about N bindings with a planted pattern in the middle.

    gen-planted.py N > module.ir

@main is a chain of elementwise operators over two (8, 16) parameters, with
on_device annotations on two devices, a tuple and a helper def called from
the chain. Halfway along, `nn.softmax(divide(...))` is planted; the test
scripts beside this file look for it (softmax-of-divide.sh).
"""
import sys

n = int(sys.argv[1])
ops = ["add", "multiply", "subtract", "maximum"]
unary = ["exp", "tanh", "sigmoid", "negative"]
lines = []
k = 0


def bind(expr):
    global k
    lines.append(f"  %{k} = {expr};")
    k += 1
    return f"%{k - 1}"


cur = "%x"
planted = False
while k < n - 1:
    if k >= n // 2 and not planted:
        planted = True
        d = bind(f"divide({cur}, %y)")
        cur = bind(f"nn.softmax({d}, axis=1)")
        continue
    i = k % 11
    if i == 3:
        cur = bind(f"{unary[(k // 11) % 4]}({cur})")
    elif i == 5:
        cur = bind(f"on_device({cur}, virtual_device=meta[VirtualDevice][{(k // 11) % 2}])")
    elif i == 7:
        t = bind(f"({cur}, %y)")
        cur = bind(f"{t}.0")
    elif i == 9:
        cur = bind(f"@helper({cur}, %y)")
    else:
        cur = bind(f"{ops[(k // 11) % 4]}({cur}, %y)")

print('#[version = "0.0.5"]')
print("def @helper(%a: Tensor[(8, 16), float32], %b: Tensor[(8, 16), float32]) "
      "-> Tensor[(8, 16), float32] {")
print("  %0 = add(%a, %b);")
print("  nn.relu(%0)")
print("}")
print("def @main(%x: Tensor[(8, 16), float32], %y: Tensor[(8, 16), float32]) {")
print("\n".join(lines))
print(f"  nn.relu({cur})")
print("}")
print("#[metadata]")
print("{")
print('  "VirtualDevice": [')
print('    {"device_type": "cpu", "virtual_device_id": 0, "target": "llvm"},')
print('    {"device_type": "cuda", "virtual_device_id": 0, "target": "cuda"}')
print("  ]")
print("}")
