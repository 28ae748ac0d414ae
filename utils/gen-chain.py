#!/usr/bin/env python3
"""Writes an hx module whose body is an N-deep chain of additions.

    gen-chain.py N          %0 = add(%x, %x); %1 = add(%0, %x); ...
    gen-chain.py N --let    let %v0 = add(%x, %x); let %v1 = add(%v0, %x); ...

The result is the last link. Used by test/Parser/chain-*.ir to check that
parsing, verifying, printing and passes never recurse on the depth of the IR.
"""
import argparse
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="number of links (at least 1)")
    ap.add_argument("--let", action="store_true",
                    help="bind the links with 'let' instead of graph bindings")
    args = ap.parse_args()
    if args.n < 1:
        ap.error("N must be at least 1")

    sigil = "%v" if args.let else "%"
    keyword = "let " if args.let else ""
    out = sys.stdout
    out.write('#[version = "0.0.5"]\n')
    out.write("def @main(%x: Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] {\n")
    out.write(f"  {keyword}{sigil}0 = add(%x, %x);\n")
    # Write in blocks: a million lines one write() at a time is slow.
    block = []
    for i in range(1, args.n):
        block.append(f"  {keyword}{sigil}{i} = add({sigil}{i - 1}, %x);\n")
        if len(block) == 10000:
            out.write("".join(block))
            block.clear()
    out.write("".join(block))
    out.write(f"  {sigil}{args.n - 1}\n}}\n")


if __name__ == "__main__":
    main()
