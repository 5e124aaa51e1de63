package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.rma.Vis;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One measurement's operation in testvisperf: GASNet's metadata for it ({@code make_vlist}, {@code make_ilist}, the
 * strided shape of {@code stridelevels} levels), built before any timing, and its {@code DOIT(iters)} loop: the
 * operation {@code iters} times in one form (NB or NBI), then the wait for all of them. The remote side is the peer's
 * segment from offset 0 (GASNet's {@code Rbase}), the local side {@code local} from {@code localBase} ({@code Lbase}).
 */
final class VisPerfOp {
    static final int VECTOR = 0;
    static final int INDEXED = 1;
    static final int STRIDED = 2;
    /** GASNet's visdesc[]. */
    static final String[] NAMES = {"VECTOR", "INDEXED", "STRIDED"};

    private final Client client;
    private final Vis vis;
    private final int kind;
    private final boolean get;
    private final boolean nb;
    private final int peer;
    private final MemorySegment local;
    private final long localBase;
    private final long contig;
    private int lcnt;
    private int rcnt;
    private long lsz;
    private long rsz;
    private long[] loff;
    private long[] llen;
    private long[] roff;
    private long[] rlen;
    private long[] lstrides;
    private long[] rstrides;
    private long[] count;
    private int levels;
    /** GASNet's evts: the NB events of one DOIT, grown by {@link #prepare} outside the timed region. */
    private Event[] events = new Event[0];

    VisPerfOp(Client client, Vis vis, int kind, boolean get, boolean nb, int peer, MemorySegment local,
              long localBase, long contig) {
        this.client = client;
        this.vis = vis;
        this.kind = kind;
        this.get = get;
        this.nb = nb;
        this.peer = peer;
        this.local = local;
        this.localBase = localBase;
        this.contig = contig;
    }

    /**
     * GASNet's setup of the metadata for {@code datasz} bytes in chunks of the contig size, {@code stride} bytes apart
     * (the contig size on a side that is contiguous).
     */
    void setup(long datasz, boolean localContig, boolean remoteContig, long stride, int strideLevels) {
        lcnt = Math.toIntExact(localContig ? 1 : datasz / contig);
        rcnt = Math.toIntExact(remoteContig ? 1 : datasz / contig);
        lsz = datasz / lcnt;
        rsz = datasz / rcnt;
        switch (kind) {
            case VECTOR -> {
                loff = offsets(localBase, stride, lcnt);
                llen = lengths(lcnt, lsz);
                roff = offsets(0, stride, rcnt);
                rlen = lengths(rcnt, rsz);
            }
            case INDEXED -> {
                loff = offsets(localBase, stride, lcnt);
                roff = offsets(0, stride, rcnt);
            }
            default -> strided(datasz, localContig, remoteContig, stride, strideLevels);
        }
    }

    private static long[] offsets(long base, long stride, int cnt) {
        final long[] offsets = new long[cnt];
        for (int i = 0; i < cnt; i++) {
            offsets[i] = base + i * stride;
        }
        return offsets;
    }

    private static long[] lengths(int cnt, long chunk) {
        final long[] lengths = new long[cnt];
        Arrays.fill(lengths, chunk);
        return lengths;
    }

    /** GASNet's strided shape: the chunks in {@code strideLevels} levels of "reasonable" factors of their count. */
    private void strided(long datasz, boolean localContig, boolean remoteContig, long stride, int strideLevels) {
        long chunks = datasz / contig;
        levels = strideLevels;
        lstrides = new long[levels];
        rstrides = new long[levels];
        count = new long[levels];
        lstrides[0] = localContig ? contig : stride;
        rstrides[0] = remoteContig ? contig : stride;
        for (int dim = 1; dim < levels; dim++) {
            long factor = 1;
            for (long fi = 1; fi <= chunks / (2L * (levels - dim)); fi++) { // choose a reasonable factor
                if (chunks / fi * fi == chunks) {
                    factor = fi;
                }
            }
            count[dim - 1] = factor;
            chunks /= factor;
            lstrides[dim] = factor * lstrides[dim - 1];
            rstrides[dim] = factor * rstrides[dim - 1];
        }
        count[levels - 1] = chunks;
        long total = contig;
        for (long c : count) {
            total *= c;
        }
        if (total != datasz) {
            throw new IllegalStateException("strided shape of " + total + " bytes for " + datasz);
        }
    }

    /** Grows the NB events for a DOIT of {@code iters}: call before the timed region. */
    void prepare(long iters) {
        if (nb && iters > events.length) {
            events = new Event[Math.toIntExact(iters)];
        }
    }

    /** GASNet's DOIT(iters): the operations, then gex_Event_WaitAll or gex_NBI_Wait(GEX_EC_ALL). */
    void run(long iters) {
        final int n = Math.toIntExact(iters);
        switch (kind) {
            case VECTOR -> {
                if (nb) {
                    if (get) {
                        vectorGetNb(n);
                    } else {
                        vectorPutNb(n);
                    }
                } else if (get) {
                    vectorGetNbi(n);
                } else {
                    vectorPutNbi(n);
                }
            }
            case INDEXED -> {
                if (nb) {
                    if (get) {
                        indexedGetNb(n);
                    } else {
                        indexedPutNb(n);
                    }
                } else if (get) {
                    indexedGetNbi(n);
                } else {
                    indexedPutNbi(n);
                }
            }
            default -> {
                if (nb) {
                    if (get) {
                        stridedGetNb(n);
                    } else {
                        stridedPutNb(n);
                    }
                } else if (get) {
                    stridedGetNbi(n);
                } else {
                    stridedPutNbi(n);
                }
            }
        }
        if (nb) {
            for (int i = 0; i < n; i++) {
                events[i].await();
                events[i] = null;
            }
        } else {
            client.nbiWait(Ec.ALL);
        }
    }

    private void vectorGetNb(int n) {
        for (int i = 0; i < n; i++) {
            events[i] = vis.getVectorNb(local, lcnt, loff, llen, peer, rcnt, roff, rlen);
        }
    }

    private void vectorPutNb(int n) {
        for (int i = 0; i < n; i++) {
            events[i] = vis.putVectorNb(peer, rcnt, roff, rlen, local, lcnt, loff, llen);
        }
    }

    private void vectorGetNbi(int n) {
        for (int i = 0; i < n; i++) {
            vis.getVectorNbi(local, lcnt, loff, llen, peer, rcnt, roff, rlen);
        }
    }

    private void vectorPutNbi(int n) {
        for (int i = 0; i < n; i++) {
            vis.putVectorNbi(peer, rcnt, roff, rlen, local, lcnt, loff, llen);
        }
    }

    private void indexedGetNb(int n) {
        for (int i = 0; i < n; i++) {
            events[i] = vis.getIndexedNb(local, lcnt, loff, lsz, peer, rcnt, roff, rsz);
        }
    }

    private void indexedPutNb(int n) {
        for (int i = 0; i < n; i++) {
            events[i] = vis.putIndexedNb(peer, rcnt, roff, rsz, local, lcnt, loff, lsz);
        }
    }

    private void indexedGetNbi(int n) {
        for (int i = 0; i < n; i++) {
            vis.getIndexedNbi(local, lcnt, loff, lsz, peer, rcnt, roff, rsz);
        }
    }

    private void indexedPutNbi(int n) {
        for (int i = 0; i < n; i++) {
            vis.putIndexedNbi(peer, rcnt, roff, rsz, local, lcnt, loff, lsz);
        }
    }

    private void stridedGetNb(int n) {
        for (int i = 0; i < n; i++) {
            events[i] = vis.getStridedNb(local, localBase, lstrides, peer, 0, rstrides, contig, count, levels);
        }
    }

    private void stridedPutNb(int n) {
        for (int i = 0; i < n; i++) {
            events[i] = vis.putStridedNb(peer, 0, rstrides, local, localBase, lstrides, contig, count, levels);
        }
    }

    private void stridedGetNbi(int n) {
        for (int i = 0; i < n; i++) {
            vis.getStridedNbi(local, localBase, lstrides, peer, 0, rstrides, contig, count, levels);
        }
    }

    private void stridedPutNbi(int n) {
        for (int i = 0; i < n; i++) {
            vis.putStridedNbi(peer, 0, rstrides, local, localBase, lstrides, contig, count, levels);
        }
    }
}
