#!/usr/bin/env python3
"""Every row of runs written by alternate.sh (or sidebyside.sh): GASNet's median against each GEX/J setting's.

    python3 tools/sidebyside/rows.py 'RUNS/s1-G-r*' 'RUNS/s1-J-r*' ['RUNS/s1-Jh-r*' ...]

testam: one row per (section, size, test), each section's largest size as 'max'; prints how many rows are at or
below GASNet (GEX/J median / GASNet median <= 1), the median ratio and every row above 1. testqueue: the same per
cell (table, size, depth). Runs are parsed by ../shared/tools/gasnet-anchor/analyze.py.
"""
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/tools/gasnet-anchor"))
from analyze import parse_run  # noqa: E402


def load(pattern):
    return [parse_run(p) for p in sorted(glob.glob(pattern))]


def rows(runs):
    out = {}
    for r in runs:
        for k, v in r["am"].items():
            # a section's largest size is compared as its 'max' row (GASNet's udp stops at 65000 B, GEX/J goes on)
            if len(k) == 6 and (k[1] in ("", "max") or int(k[1]) != r["am"].get((k[0], "max-size"))):
                out.setdefault(("am",) + k, []).append(v)
        for title, table in r["tq"].items():
            for size, cells in table.items():
                for depth, v in cells.items():
                    out.setdefault(("tq", title, size, depth), []).append(v)
    return out


def label(k):
    if k[0] == "am":
        return f"{k[1]} {k[2]:>6} {k[3]:8} {k[4]:9} {k[5]:9} {k[6]}"
    return f"{k[1][:48]:48} size {k[2]:>8} depth {k[3]:>4}"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    g = rows(load(sys.argv[1]))
    print(f"GASNet: {len(load(sys.argv[1]))} runs ({sys.argv[1]})")
    for pattern in sys.argv[2:]:
        runs = load(pattern)
        j = rows(runs)
        ratios, above = [], []
        for k in sorted(g):
            if k not in j:
                continue
            gm, jm = statistics.median(g[k]), statistics.median(j[k])
            ratios.append(jm / gm)
            if jm > gm:
                above.append((k, gm, jm))
        if not ratios:
            print(f"== {pattern}: no rows in common")
            continue
        print(f"== {pattern} ({len(runs)} runs): {len(ratios) - len(above)} of {len(ratios)} rows at or below GASNet,"
              f" median ratio {statistics.median(ratios):.2f}, largest {max(ratios):.2f}")
        for k, gm, jm in sorted(above, key=lambda x: -x[2] / x[1]):
            print(f"   {label(k)}  GASNet {gm:9.3f}  GEX/J {jm:9.3f}  {jm / gm:.2f}")


if __name__ == "__main__":
    main()
