#!/usr/bin/env python3
"""Compares GEX/J's testpwc with GASNet-EX's nearest rows, from tools/gasnet/pwc-sitting.sh's runs in DIR.

    python3 tools/gasnet/pwccompare.py DIR [--conduit smp|udp|ofi]

Rows, medians over the runs (ratio = GEX/J / GASNet, at or below 1.0 is as fast or faster):
  A  PWC ping-pong round trip          against testam H, the AMLong ping-pong round trip ReqReq
  B  PWC with 8 B of completion data   against the same
  C  GWC latency                       against testsmall A, GetBlocking latency
  D  blocking get of a registration    against GetBlocking
  E  blocking put into a registration  against PutBlocking
Each run's mode probe (GASNet smp's AMShort round trip, in the header alternate.sh writes) is printed, so that runs of
different VM modes are not mistaken for a difference of the code.
"""
import argparse
import glob
import os
import re
import statistics

PWC = re.compile(r'^([A-E]):\s+(\d+) .*?([\d.]+) us\s*$')
LONG = re.compile(r'^H:\s+(\d+) AMLong\s+ping-pong roundtrip ReqReq:.*?([\d.]+) us')
SMALL = re.compile(r'^A:\s+0 -\s+(\d+) byte .*?([\d.]+) us ave\. \((GetBlocking|PutBlocking) latency\)')
PROBE = re.compile(r'^# mode probe: .*?: ([\d.]+)')


def runs(pattern):
    return sorted(glob.glob(pattern), key=lambda f: int(re.search(r'-r(\d+)\.txt$', f).group(1)))


def collect(files, rx, key):
    rows, probes = {}, []
    for f in files:
        for line in open(f, errors='replace'):
            m = PROBE.match(line)
            if m:
                probes.append(float(m.group(1)))
            m = rx.match(line)
            if m:
                k, v = key(m)
                rows.setdefault(k, []).append(v)
    return {k: statistics.median(v) for k, v in rows.items()}, probes


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('dir')
    p.add_argument('--conduit', default=None, help='smp, udp or ofi (default: the one whose runs DIR holds)')
    a = p.parse_args()
    conduit = a.conduit
    if conduit is None:
        found = sorted({os.path.basename(f).split('-pwc')[0] for f in glob.glob(os.path.join(a.dir, '*-pwc-gexj-r*.txt'))})
        if len(found) != 1:
            p.error('give --conduit: DIR holds runs of %s' % (found or 'no conduit'))
        conduit = found[0]
    d = lambda s: os.path.join(a.dir, conduit + s)
    pwc, jp = collect(runs(d('-pwc-gexj-r*.txt')), PWC, lambda m: ((m.group(1), int(m.group(2))), float(m.group(3))))
    longs, gp = collect(runs(d('-pwc-am-gasnet-r*.txt')), LONG, lambda m: (int(m.group(1)), float(m.group(2))))
    small, sp = collect(runs(d('-pwc-small-gasnet-r*.txt')), SMALL,
                        lambda m: ((m.group(3), int(m.group(1))), float(m.group(2))))
    print('%s: mode probes (GASNet smp AMShort round trip, us): GEX/J runs %s; GASNet testam %s, testsmall %s'
          % (conduit, jp, gp, sp))
    total = [0, 0]
    for sec, title, ref in (('A', 'PWC round trip vs AMLong ReqReq (testam H)', lambda s: longs.get(s)),
                            ('B', 'PWC+8 B data round trip vs AMLong ReqReq', lambda s: longs.get(s)),
                            ('C', 'GWC latency vs GetBlocking (testsmall A)', lambda s: small.get(('GetBlocking', s))),
                            ('D', 'registered get vs GetBlocking', lambda s: small.get(('GetBlocking', s))),
                            ('E', 'registered put vs PutBlocking', lambda s: small.get(('PutBlocking', s)))):
        n = ok = 0
        print(title)
        for s in sorted(k[1] for k in pwc if k[0] == sec):
            g = ref(s)
            if g is None or g <= 0:
                continue
            j = pwc[(sec, s)]
            n += 1
            ok += j <= g
            print('  %s %8d  GEX/J %10.3f  GASNet %10.3f  ratio %6.2f' % (sec, s, j, g, j / g))
        print('  %s: %d of %d at or below GASNet' % (sec, ok, n))
        total[0] += ok
        total[1] += n
    print('all: %d of %d rows at or below GASNet' % tuple(total))


if __name__ == '__main__':
    main()
