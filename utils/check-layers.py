#!/usr/bin/env python3
"""Checks that hx's libraries form layers with no back edges.

Each library under lib/ (and its headers under include/hx/) has a rank; a
file may include hx headers only of libraries of a lower rank, or of its own.
The CMake LINK lists of lib/*/CMakeLists.txt obey the same order. Exits 1
listing every back edge.

    Support < IR < Ops, Tensor < Parser, Pass, Smith < Transforms, CodeGen,
    Interpreter < Import, Reduce < Runtime < Targets < Run < Differential < Tools, Python

lib/Targets is one room: a folder per target (its code generator and its
devices, a library each: hxTarget<Folder>), the GPU lowering the GPU targets
share, and the registry (hxTargets).
"""
import os
import re
import sys

RANK = {
    "Support": 0,
    "IR": 1,
    "Ops": 2, "Tensor": 2,
    "Parser": 3, "Pass": 3, "Smith": 3,
    "Transforms": 4, "CodeGen": 4, "Interpreter": 4,
    "Import": 5, "Reduce": 5,
    "Runtime": 6,
    "Targets": 7,
    "Run": 8,
    "Differential": 9,
    "Tools": 10, "Python": 10,
}
# CMake target names -> room.
TARGETS = {"hxGrammar": "Parser"}


def room_of_target(name):
    if name in TARGETS:
        return TARGETS[name]
    if re.fullmatch(r"hxTarget[A-Z]\w*", name):
        return "Targets"
    m = re.fullmatch(r"hx([A-Z]\w*)", name)
    return m.group(1) if m and m.group(1) in RANK else None


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    errors = []
    include_re = re.compile(r'^\s*#\s*include\s+"hx/(\w+)/')
    for top, key in (("lib", 1), ("include/hx", 2)):
        base = os.path.join(root, top)
        for dirpath, _, files in os.walk(base):
            rel = os.path.relpath(dirpath, base).split(os.sep)
            room = rel[0]
            if room not in RANK:
                if room != ".":
                    errors.append(f"{top}/{room}: a room with no rank in utils/check-layers.py")
                continue
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                if f == "CMakeLists.txt":
                    text = open(path).read()
                    for link in re.findall(r"\bhx[A-Z]\w*", text):
                        other = room_of_target(link)
                        if other and RANK[other] > RANK[room] or (
                                other and RANK[other] == RANK[room] and other != room):
                            errors.append(f"{os.path.relpath(path, root)}: links {link} "
                                          f"({other}), a layer above or beside {room}")
                    continue
                if not f.endswith((".h", ".cpp", ".c")):
                    continue
                for n, line in enumerate(open(path, errors="replace"), 1):
                    m = include_re.match(line)
                    if not m:
                        continue
                    other = m.group(1)
                    if other not in RANK:
                        errors.append(f"{os.path.relpath(path, root)}:{n}: includes hx/{other}, "
                                      "a room with no rank")
                    elif RANK[other] > RANK[room] or (RANK[other] == RANK[room] and other != room):
                        errors.append(f"{os.path.relpath(path, root)}:{n}: includes hx/{other} "
                                      f"({RANK[other]}) from {room} ({RANK[room]}): a back edge")
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} layering violation(s)")
        return 1
    print("layers: no back edges")
    return 0


if __name__ == "__main__":
    sys.exit(main())
