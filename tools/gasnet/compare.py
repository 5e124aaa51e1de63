#!/usr/bin/env python3
"""Compares GASNet-EX's and GEX/J's testam and testqueue runs written by tools/gasnet/alternate.sh.

    python3 tools/gasnet/compare.py [--split US] [--copy-split US] [--tcp-split US] [--include-busy] [--all] [--spread]
                                    [--plot [DIR]] DIR_OR_FILE...

Runs are grouped by conduit, program and tag: testam runs of one tag may each run one section (their rows pool).
Every testam row (section, size, test; each section's largest size is compared as its 'max' row, since GASNet's
largest AMMedium is not GEX/J's), every testqueue cell (table, size, depth), every testsmall/testlarge/testfaddperf row
and every testvisperf cell (section, contig size, data size, density; its MiB/s turned into us per operation) gets the
median of its values over the runs of each side; ratio = GEX/J median / GASNet median, at or below 1.0 means GEX/J is
as fast or faster. For each group it prints the rows at or below 1.0 out of all rows in common, the median ratio, and
every row above 1.0 (--all: every row) with both medians; GEX/J variants (alternate.sh -v NAME:...,
side gexj-NAME) are compared with GASNet one by one.

This VM runs in a fast or a slow mode for minutes at a time (GASNet smp's AMShort ping-pong round trip about 0.3 us
or about 1 us, every other time moving with it). Each run's mode is read from its mode probe (alternate.sh times
that round trip just before the run), or, without one, from the run itself when it is a GASNet smp testam run;
runs are compared only with runs of the same mode. --split sets the boundary (default 0.55 us). The mode can change
within a run: when alternate.sh probed after the run too and the two probes fall on either side of the boundary,
the run is left out ("mode changed during the run"). A probe above
--disturbed-above (default 3 us) means the cores were busy with something else: such runs are not compared.
Independently, the kernel's copies of large datagrams take about 3 times as long for tens of seconds at a time (a C
program's 32 KiB loopback UDP ping-pong: 16-22 us or 45-50 us; GASNet's and GEX/J's udp testam at 32 KiB alike): a
run whose copy probe before or after it is above --copy-split (default 32 us) is in that mode as well (fast+slowcopy,
slow+slowcopy), and is compared only with runs of the same. ofi runs have a TCP probe before and after too (a C
program's 64-byte ping-pong over one loopback TCP connection): for a minute or more at a time it takes 9.5-10 us
instead of 6.6-6.9, and every tcp;ofi_rxm round trip of either program about 2.5 us more. Both TCP probes above
--tcp-split (default 8.2 us) put a run in the slow-TCP state (fast+slowtcp, ...), probes on either side of it leave
the run out as changed, and runs are compared only within one state.

--spread adds, for each side and mode, how far each row's runs lie apart: slowest over fastest, with the count of
rows within 1.25 (the issue's test for bimodality: every row within 1.25 over 5 runs of one command) and the widest
rows. GASNet's own spread is the VM's noise to read GEX/J's against.

A run is left out when it exited non-zero, has no rows, or started only after its load wait gave up
(--include-busy keeps those). --plot also draws every run with the repository's bin/gexplot into DIR
(default RESULTS_DIR/plots).
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys

AM_RE = re.compile(r"^([A-Z]):\s+(\d*)\s*(AMShort|AMMedium|AMLong)\s+(ping-pong|flood)\s+(roundtrip|one-way|two-way)"
                   r"\s+(ReqRep|ReqReq|Req)\s*:\s+[\d.]+ sec\s+([\d.]+) us")
# testsmall/testlarge: "A:  0 -   1 byte :  10 iters, latency 5 us total, 0.500 us ave. (PutBlocking latency)" or
# "... throughput 123.456 KB/sec (PutBlocking throughput)"; latency in us, throughput turned into us per operation
RMA_RE = re.compile(r"^([A-Z]):\s+(\d+) -\s+(\d+) byte :\s+(\d+) iters, (?:latency\s+(\d+) us total,\s+[\d.]+ us ave\."
                    r"|throughput\s+([\d.]+) ([KM])B/sec) \((.+)\)$")
# testfaddperf: "A:  0 :   10000 iters, latency  123 us total,  0.012 us ave. (U32 FADD latency)" or
# "... throughput             123.456 ops/sec (U32 FADD throughput)"; either turned into us per operation
AD_RE = re.compile(r"^([A-Z]):\s+(\d+) :\s+(\d+) iters, (?:latency\s+(\d+) us total,\s+[\d.]+ us ave\."
                   r"|throughput\s+([\d.]+) ops/sec) \((.+)\)$")
# testvisperf: a table "A: VECTOR PUT CONTIGSZ = 8", its " density:     100%      75% ..." and rows of MiB/s per
# density, "       8:   162.328  635.783 ..." with one sender or "P0:      8:   162.328 ..." with several ("-": a cell
# the test skipped); each cell turned into us per operation (data size over the bandwidth)
VIS_TABLE_RE = re.compile(r"^([A-Z]): (VECTOR|INDEXED|STRIDED) (PUT|GET) CONTIGSZ = (\d+)$")
VIS_DENSITY_RE = re.compile(r"^ density:((?:\s+\d+%)+)\s*$")
VIS_ROW_RE = re.compile(r"^(?:P(\d+):)?\s*(\d+):((?:\s+\S+)+)\s*$")
# testcollperf: "A: 0> LOCAL/SINGLE-addr broadcast_NB sync_mode: (my/my) tree: (null) size: 64 bytes time: 3.5 us"
COLL_RE = re.compile(r"^([A-Z]): (\d+)> (\S+)/(\S+) (\S+) sync_mode: \((\S+)\) tree: .* size: (\d+) bytes"
                     r" time: ([\d.eE+-]+) us$")
# testteam: "row team 0: total time:    0.012 sec, avg row team Barrier latency:    1.234 us" (and "col team ...")
TEAM_RE = re.compile(r"^(row|col) team (\d+): total time:\s+[\d.]+ sec,?\s+[Aa]vg (?:row|column) team Barrier"
                     r" latency:\s+([\d.]+) us$")
NAME_RE = re.compile(r"^(?P<tag>.+?)-(?P<side>gasnet|gexj(?:-[A-Za-z0-9_.]+)?)-r(?P<round>\d+)\.txt$")


def parse_run(path):
    """One run file: its header fields, testam rows {key: us} and testqueue cells {(title, size, depth): us}."""
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    m = NAME_RE.match(os.path.basename(path))
    run = {"path": path, "tag": m.group("tag") if m else None, "side": m.group("side") if m else None,
           "round": int(m.group("round")) if m else None, "conduit": None, "program": None, "args": "",
           "rc": None, "busy": False, "probe": None, "probe_after": None, "copy": [], "tcp": [], "am": {}, "am_max": {},
           "tq": {}, "rma": {},
           "ad": {}, "vis": {}, "coll": {}}
    for ln in lines:
        if not ln.startswith("# "):
            continue
        h = re.match(r"^# side: (\S+)\s+conduit: (\S+)\s+program: (\S+)", ln)
        if h:
            run["side"], run["conduit"], run["program"] = h.groups()
        elif ln.startswith("# args:"):
            run["args"] = ln.split(":", 1)[1].strip()
        elif ln.startswith("# load wait:"):
            run["busy"] = "GAVE UP" in ln
        elif ln.startswith("# mode probe after:"):
            p = re.search(r"us: ([\d.]+)\s*$", ln)
            run["probe_after"] = float(p.group(1)) if p else None
        elif ln.startswith("# mode probe:"):
            p = re.search(r"us: ([\d.]+)\s*$", ln)
            run["probe"] = float(p.group(1)) if p else None
        elif ln.startswith("# copy probe"):
            p = re.search(r"us: ([\d.]+)\s*$", ln)
            if p:
                run["copy"].append(float(p.group(1)))
        elif ln.startswith("# tcp probe"):
            p = re.search(r"us: ([\d.]+)\s*$", ln)
            if p:
                run["tcp"].append(float(p.group(1)))
        elif ln.startswith("# exit status:"):
            run["rc"] = int(ln.split(":", 1)[1].split()[0])
    parse_testam(lines, run)
    parse_testqueue(lines, run)
    parse_rma(lines, run)
    parse_ad(lines, run)
    parse_vis(lines, run)
    parse_coll(lines, run)
    return run


def parse_coll(lines, run):
    """testcollperf rows of thread 0 and testteam's barrier latencies {(kind, ...): us per operation}."""
    for ln in lines:
        m = COLL_RE.match(ln)
        if m and m.group(2) == "0":
            sec, _, addr, naddr, name, sync, size, us = m.groups()
            run["coll"][(sec, f"{name} {addr}/{naddr} {sync}", int(size))] = float(us)
            continue
        m = TEAM_RE.match(ln)
        if m:
            run["coll"][("team", f"{m.group(1)} team {m.group(2)} barrier", 0)] = float(m.group(3))


def parse_vis(lines, run):
    """testvisperf cells of rank 0 {(section, operation, contig size, data size, density %): us per operation}."""
    table, densities = None, None
    for ln in lines:
        m = VIS_TABLE_RE.match(ln)
        if m:
            table, densities = (m.group(1), f"{m.group(2)} {m.group(3)}", int(m.group(4))), None
            continue
        m = VIS_DENSITY_RE.match(ln)
        if table and m:
            densities = [int(t[:-1]) for t in m.group(1).split()]
            continue
        m = VIS_ROW_RE.match(ln)
        if not (table and densities and m) or m.group(1) not in (None, "0"):
            continue
        size, cells = int(m.group(2)), m.group(3).split()
        if len(cells) != len(densities):
            continue
        for density, cell in zip(densities, cells):
            try:
                mib = float(cell)
            except ValueError:
                continue  # "-": skipped by the test
            if 0 < mib < float("inf"):  # leaves out inf and nan, a loop of no measurable time
                run["vis"][table + (size, density)] = size / (mib * 1024.0 * 1024.0) * 1e6


def parse_ad(lines, run):
    """testfaddperf rows of rank 0 {(section, name): us per operation}."""
    for ln in lines:
        m = AD_RE.match(ln)
        if not m or m.group(2) != "0":
            continue
        sec, _, iters, total, rate, name = m.groups()
        tick = 1.0 / int(iters)
        if total is not None:
            us = max(int(total) / int(iters), tick)
        else:
            us = 1e6 / float(rate) if float(rate) > 0 else tick
        run["ad"][(sec, name)] = us


def parse_rma(lines, run):
    """testsmall/testlarge rows of rank 0 {(section, size, name): us per operation}: lower is better either way."""
    for ln in lines:
        m = RMA_RE.match(ln)
        if not m or m.group(2) != "0":
            continue
        sec, _, size, iters, total, rate, unit, name = m.groups()
        # a loop that took under one tick of the programs' microsecond timer prints a total of 0, or a rate of 0
        # (GASNet's guard against dividing by it): either counts as that one tick, an upper bound
        tick = 1.0 / int(iters)
        if total is not None:
            # the whole loop's time in the timer's whole microseconds, over the iterations: the printed average has
            # 3 decimals only, a nanosecond, where smp's small puts take 2 to 10
            us = max(int(total) / int(iters), tick)
        else:
            per_second = float(rate) * (1024.0 * 1024.0 if unit == "M" else 1024.0) / int(size)
            us = 1e6 / per_second if per_second > 0 else tick
        run["rma"][(sec, int(size), name)] = us


def parse_testam(lines, run):
    sized = {}
    for ln in lines:
        m = AM_RE.match(ln)
        if not m:
            continue
        sec, size, kind, pattern, way, rr, avg = m.groups()
        run["am"][(sec, size, kind, pattern, way, rr)] = float(avg)
        if size:
            sized.setdefault((sec, kind, pattern, way, rr), []).append(int(size))
    # each section's largest size becomes its 'max' row (GASNet stops at its AMMedium maximum, GEX/J at the argument)
    for (sec, kind, pattern, way, rr), sizes in sized.items():
        top = max(sizes)
        run["am"][(sec, "max", kind, pattern, way, rr)] = run["am"].pop((sec, str(top), kind, pattern, way, rr))
        run["am_max"][sec] = top


def parse_testqueue(lines, run):
    title, depths = None, None
    for i, ln in enumerate(lines):
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if ln.strip() and re.match(r"^-{5,}$", nxt):
            title, depths = ln.strip(), None
            continue
        if title is None:
            continue
        toks = ln.split()
        if depths is None and len(toks) > 1 and all(t.isdigit() for t in toks):
            depths = [int(t) for t in toks]
        elif depths and len(toks) == len(depths) + 1 and toks[0].isdigit():
            try:
                vals = [float(t) for t in toks[1:]]
            except ValueError:
                continue
            for d, v in zip(depths, vals):
                run["tq"][(title, int(toks[0]), d)] = v


def mode_of(run, split, disturbed, copy_split, tcp_split):
    us = run["probe"]
    if us is None and run["side"] == "gasnet" and run["conduit"] == "smp":
        us = run["am"].get(("A", "", "AMShort", "ping-pong", "roundtrip", "ReqRep"))
    if us is None:
        return "unknown", None
    mode = "fast" if us < split else "slow" if us <= disturbed else "disturbed"
    after = run["probe_after"]
    if mode != "disturbed" and after is not None and (after < split) != (mode == "fast"):
        return "changed", us  # the VM switched modes during the run: its rows belong to neither
    if mode != "disturbed" and run["copy"] and max(run["copy"]) > copy_split:
        mode += "+slowcopy"  # either copy probe: the copy mode changes within a run's length
    if mode != "disturbed" and run["tcp"]:
        if min(run["tcp"]) <= tcp_split < max(run["tcp"]):
            run["changed_by_tcp"] = True
            return "changed", us  # the TCP state changed during the run
        if min(run["tcp"]) > tcp_split:
            mode += "+slowtcp"
    return mode, us


def side_name(side):
    return {"gasnet": "GASNet", "gexj": "GEX/J"}.get(side, "GEX/J " + side[len("gexj-"):])


def rows_of(run):
    out = {("am",) + k: v for k, v in run["am"].items()}
    out.update({("tq",) + k: v for k, v in run["tq"].items()})
    out.update({("rma",) + k: v for k, v in run["rma"].items()})
    out.update({("ad",) + k: v for k, v in run["ad"].items()})
    out.update({("vis",) + k: v for k, v in run["vis"].items()})
    out.update({("coll",) + k: v for k, v in run["coll"].items()})
    return out


def label(key, max_sizes):
    if key[0] == "am":
        sec, size, kind, pattern, way, rr = key[1:]
        if size == "max":
            g, j = max_sizes.get(("gasnet", sec)), max_sizes.get(("gexj", sec))
            size = f"max (GASNet {fmt_sizes(g)}, GEX/J {fmt_sizes(j)})"
        return f"testam {sec}: {size:>6} {kind:8} {pattern:9} {way:9} {rr}"
    if key[0] == "ad":
        sec, name = key[1:]
        return f"testfaddperf {sec}: {name} (us per operation)"
    if key[0] == "vis":
        sec, op, contig, size, density = key[1:]
        return f"testvisperf {sec}: {op:11} contig {contig:>6} data {size:>8} B density {density:>3}% (us per operation)"
    if key[0] == "coll":
        sec, name, size = key[1:]
        return f"{sec}: {name} size {size:>8} B (us per operation)"
    if key[0] == "rma":
        sec, size, name = key[1:]
        return f"{sec}: {size:>8} B {name} (us per operation)"
    title, size, depth = key[1:]
    return f"testqueue {title[:60]} size {size:>8} depth {depth:>4}"


def fmt_sizes(sizes):
    if not sizes:
        return "?"
    return "/".join(str(s) for s in sorted(sizes))


def ratio(g, j):
    if g > 0:
        return j / g
    return 1.0 if j <= 0 else float("inf")


def collect(side, runs, max_sizes):
    """Every row's values over runs {key: [us, ...]}; each testam section's largest sizes go to max_sizes[(side, sec)]."""
    vals = {}
    for r in runs:
        for k, v in rows_of(r).items():
            vals.setdefault(k, []).append(v)
        for sec, top in r["am_max"].items():
            max_sizes.setdefault((side, sec), set()).add(top)
    return vals


def compare(gasnet_runs, gexj_runs, out, every_row=False):
    """Appends to out the comparison of one GEX/J side with GASNet, runs of one mode (every row with every_row)."""
    med = {}
    max_sizes = {}
    for side, runs in (("gasnet", gasnet_runs), ("gexj", gexj_runs)):
        med[side] = {k: statistics.median(v) for k, v in collect(side, runs, max_sizes).items()}
    common = sorted(set(med["gasnet"]) & set(med["gexj"]), key=str)
    if not common:
        out.append("    no rows in common")
        return
    ratios = {k: ratio(med["gasnet"][k], med["gexj"][k]) for k in common}
    above = sorted((k for k in common if ratios[k] > 1.0), key=lambda k: -ratios[k])
    only = {s: len(set(med[s]) - set(common)) for s in ("gasnet", "gexj")}
    out.append(f"    rows at or below 1.0: {len(common) - len(above)} of {len(common)};"
               f" median ratio {statistics.median(ratios.values()):.2f}; largest {max(ratios.values()):.2f}"
               + (f"  (rows on one side only: GASNet {only['gasnet']}, GEX/J {only['gexj']})"
                  if any(only.values()) else ""))
    listed = common if every_row else above
    if listed:
        width = max(len(label(k, max_sizes)) for k in listed)
        title = "every row" if every_row else "rows above 1.0"
        out.append(f"    {title + ' (medians in us):':{width + 2}}    GASNet     GEX/J   ratio")
        for k in listed:
            out.append(f"      {label(k, max_sizes):{width}} {med['gasnet'][k]:9.4f} {med['gexj'][k]:9.4f}"
                       f"  {ratios[k]:6.2f}")


SPREAD_LIMIT = 1.25


def spread(side, runs, out, shown=5):
    """Appends to out how far apart the runs of one side lie, row by row: slowest / fastest, for rows in 2+ runs."""
    max_sizes = {}
    vals = collect("gasnet" if side == "gasnet" else "gexj", runs, max_sizes)
    wide = {k: (max(v) / min(v) if min(v) > 0 else float("inf")) for k, v in vals.items() if len(v) > 1}
    if not wide:
        out.append(f"    {side_name(side)} spread: fewer than 2 runs of any row")
        return
    fewest, most = min(len(vals[k]) for k in wide), max(len(vals[k]) for k in wide)
    within = sum(1 for w in wide.values() if w <= SPREAD_LIMIT)
    worst = sorted(wide, key=lambda k: -wide[k])[:shown]
    counts = str(most) if fewest == most else f"{fewest}-{most}"
    out.append(f"    {side_name(side)} spread (slowest / fastest run, {counts} runs a row): {within} of {len(wide)}"
               f" rows within {SPREAD_LIMIT}; median"
               f" {statistics.median(wide.values()):.2f}; widest:")
    for k in worst:
        out.append(f"      {label(k, max_sizes)}  {min(vals[k]):.4f}-{max(vals[k]):.4f} us  {wide[k]:.2f}")


def section_runs(program, args):
    """(common arguments, sections) when testam runs of one tag differ only in their last argument, a section letter
    (alternate.sh run once per section, so that a mode change spoils one section's run, not a whole sitting)."""
    if program != "testam" or len(args) < 2:
        return None
    split = [a.rsplit(" ", 1) for a in args]
    if any(len(t) != 2 or not re.fullmatch(r"[A-Z]+", t[1]) for t in split) or len({t[0] for t in split}) != 1:
        return None
    return split[0][0], sorted(t[1] for t in split)


def plot(runs, target):
    gexplot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bin", "gexplot")
    if not os.access(gexplot, os.X_OK):
        sys.exit(f"compare.py: --plot needs {os.path.normpath(gexplot)}, which is missing")
    os.makedirs(target, exist_ok=True)
    cmd = [gexplot, "-o", target]
    for r in runs:
        cmd += ["--label", f"{os.path.basename(r['path'])[:-4]}={r['path']}"]
    cmd += [r["path"] for r in runs]
    rc = subprocess.call(cmd)
    if rc != 0:
        sys.exit(f"compare.py: bin/gexplot ended with exit status {rc}")
    print(f"plots: {target}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("paths", nargs="+", metavar="RESULTS_DIR_OR_FILE")
    ap.add_argument("--split", type=float, default=0.55, metavar="US",
                    help="AMShort round trip (us) between the fast and the slow mode (default 0.55)")
    ap.add_argument("--disturbed-above", type=float, default=3.0, metavar="US",
                    help="a mode probe above this (us) marks a disturbed run, not compared (default 3)")
    ap.add_argument("--copy-split", type=float, default=32.0, metavar="US",
                    help="a copy probe (32 KiB loopback UDP round trip) above this (us), before or after a run,"
                         " puts it in the slow-copy mode (default 32)")
    ap.add_argument("--tcp-split", type=float, default=8.2, metavar="US",
                    help="both TCP probes (64-byte loopback TCP round trip, ofi runs) above this (us) put a run in"
                         " the slow-TCP state (default 8.2)")
    ap.add_argument("--include-busy", action="store_true", help="keep runs whose load wait gave up")
    ap.add_argument("--plot", nargs="?", const="", metavar="DIR", help="draw every run with bin/gexplot")
    ap.add_argument("--all", action="store_true", help="list every row in common, in order, not only those above 1.0")
    ap.add_argument("--spread", action="store_true",
                    help="also each side's spread: every row's slowest run over its fastest, per mode")
    a = ap.parse_args(argv)
    if not 0 < a.split < a.disturbed_above:
        ap.error(f"--split {a.split} and --disturbed-above {a.disturbed_above}: give microseconds with"
                 " 0 < split < disturbed-above")

    files = []
    for p in a.paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "*-gasnet-r*.txt")) + glob.glob(os.path.join(p, "*-gexj*-r*.txt")))
        elif os.path.isfile(p):
            files.append(p)
        else:
            ap.error(f"{p}: no such file or directory")
    runs = [parse_run(f) for f in files]
    runs = [r for r in runs if r["side"] and NAME_RE.match(f"t-{r['side']}-r1.txt")]
    if not runs:
        sys.exit("compare.py: no runs (files named TAG-gasnet-rN.txt or TAG-gexj[-NAME]-rN.txt) in "
                 + " ".join(a.paths))

    groups = {}
    for r in runs:
        groups.setdefault((r["conduit"] or "?", r["program"] or "?", r["tag"] or "?"), []).append(r)
    out = []
    for (conduit, program, tag), members in sorted(groups.items()):
        out.append(f"== conduit {conduit}, {program} ({tag})")
        args = {r["args"] for r in members}
        sections = section_runs(program, args)
        if sections:
            out.append(f"   arguments: {sections[0]}, sections run apart: {' '.join(sections[1])}")
        elif len(args) > 1:
            out.append(f"   warning: runs with different arguments: {sorted(args)}")
        elif args and "" not in args:
            out.append(f"   arguments: {args.pop()}")
        kept = []
        for r in members:
            why = ("exit status %s" % r["rc"] if r["rc"] != 0 else "no rows" if not rows_of(r)
                   else "load wait gave up" if r["busy"] and not a.include_busy else None)
            if why:
                out.append(f"   left out: {os.path.basename(r['path'])} ({why})")
            else:
                kept.append(r)
        by_mode = {}
        for r in kept:
            mode, us = mode_of(r, a.split, a.disturbed_above, a.copy_split, a.tcp_split)
            r["mode"], r["mode_us"] = mode, us
            by_mode.setdefault(mode, {}).setdefault(r["side"], []).append(r)
        order = ["fast", "fast+slowcopy", "slow", "slow+slowcopy", "changed", "disturbed", "unknown"]
        modes = sorted(by_mode, key=lambda m: (order.index(m.split("+")[0]), m))
        for mode in modes:
            sides = by_mode[mode]
            probes = sorted(r["mode_us"] for rs in sides.values() for r in rs if r["mode_us"] is not None)
            copies = sorted(c for rs in sides.values() for r in rs for c in r["copy"])
            what = {"fast": f"fast mode (GASNet smp AMShort round trip < {a.split} us",
                    "slow": f"slow mode (GASNet smp AMShort round trip {a.split}-{a.disturbed_above} us",
                    "changed": f"mode changed during the run (mode probes before and after on either side of {a.split} us",
                    "disturbed": f"disturbed (GASNet smp AMShort round trip > {a.disturbed_above} us",
                    "unknown": "mode unknown (no mode probe"}[mode.split("+")[0]]
            if "+slowcopy" in mode:
                what += f", slow-copy mode (a copy probe > {a.copy_split} us)"
            if "+slowtcp" in mode:
                what += f", slow-TCP state (both TCP probes > {a.tcp_split} us)"
            if mode == "changed":
                what += "; " + ", ".join(
                    f"{os.path.basename(r['path'])} TCP probes {r['tcp'][0]:.2f} then {r['tcp'][-1]:.2f} us"
                    if r.get("changed_by_tcp") else
                    f"{os.path.basename(r['path'])} {r['probe']:.3f} then {r['probe_after']:.3f} us"
                    for rs in sides.values() for r in rs)
            elif probes:
                what += f"; probes {probes[0]:.3f}-{probes[-1]:.3f} us"
            if copies:
                what += f"; copy probes {copies[0]:.1f}-{copies[-1]:.1f} us"
            tcps = sorted(t for rs in sides.values() for r in rs for t in r["tcp"])
            if tcps:
                what += f"; TCP probes {tcps[0]:.2f}-{tcps[-1]:.2f} us"
            gexj_sides = sorted(s for s in sides if s != "gasnet")
            counts = ", ".join(f"{len(sides[s])} {side_name(s)} runs" for s in ["gasnet"] + gexj_sides
                               if s in sides)
            if mode == "disturbed":
                out.append(f"  -- {what}): {counts}: not compared (the cores were busy with something else)")
                continue
            if mode == "changed":
                out.append(f"  -- {what}): {counts}: not compared (their rows belong to neither mode)")
                continue
            if "gasnet" not in sides or not gexj_sides:
                out.append(f"  -- {what}): {counts}: not compared (runs are compared only within one mode)")
                continue
            out.append(f"  -- {what}): {counts}; only runs of this mode compared")
            for s in gexj_sides:
                if len(gexj_sides) > 1:
                    out.append(f"   {side_name(s)} against GASNet:")
                compare(sides["gasnet"], sides[s], out, a.all)
            if a.spread:
                for s in ["gasnet"] + gexj_sides:
                    spread(s, sides[s], out)
    print("\n".join(out))
    if a.plot is not None:
        target = a.plot or os.path.join(a.paths[0] if os.path.isdir(a.paths[0])
                                        else os.path.dirname(os.path.abspath(a.paths[0])), "plots")
        plot(runs, target)


if __name__ == "__main__":
    main()
