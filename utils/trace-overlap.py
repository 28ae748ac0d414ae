#!/usr/bin/env python3
"""trace-overlap.py TRACE.json: says whether a copy event and a kernel event
of an hx-run --trace overlap in time on different tracks of one GPU
("... copies in/out ..." and "... kernels ..."). Prints "overlap: yes" or
"overlap: no" and the pair found."""
import json
import sys


def main():
    trace = json.load(open(sys.argv[1]))["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in trace if e.get("ph") == "M"}
    spans = [e for e in trace if e.get("ph") == "X"]
    copies = [e for e in spans if "copies" in names.get(e["tid"], "")]
    kernels = [e for e in spans if "kernels" in names.get(e["tid"], "")]
    for c in copies:
        for k in kernels:
            if c["ts"] < k["ts"] + k["dur"] and k["ts"] < c["ts"] + c["dur"]:
                print("overlap: yes")
                print(f"  {c['name']} [{c['ts']:.1f}, +{c['dur']:.1f}] us on {names[c['tid']]}")
                print(f"  {k['name']} [{k['ts']:.1f}, +{k['dur']:.1f}] us on {names[k['tid']]}")
                return 0
    print(f"overlap: no ({len(copies)} copies, {len(kernels)} kernels on GPU tracks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
