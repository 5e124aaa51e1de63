package org.gexj.testrma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GASNet's {@code test_addr_list}: the pieces of an indexed operation over one area, each {@link #chunklen} bytes at
 * an offset; built at random ({@code rand_addr_list}, with {@code rand_chunkelem}'s pair of chunk sizes), as one
 * contiguous piece ({@code buildcontig_addr_list}), trimmed to another's total, and checked like
 * {@link VisMemvecList}.
 */
final class VisAddrList {
    final VisArea area;
    /** Holds at least one offset: an empty contiguous list's still names where its (no) data goes. */
    final long[] offsets;
    int count;
    long chunklen;
    long totalsz;
    private long checksum;

    private VisAddrList(VisArea area, int count) {
        this.area = area;
        this.count = count;
        this.offsets = new long[Math.max(1, count)];
    }

    /**
     * rand_chunkelem: a source's and a destination's chunk sizes in elements, in [1, max_chunksz]: equal, one a
     * multiple of the other, or both small multiples of one factor; which is which at random.
     *
     * @return {one, two}
     */
    static long[] randomChunkElems(VisRun run) {
        final VisRandom r = run.rnd;
        final long max = run.maxChunksz;
        final boolean swap = r.oneIn(2);
        long one;
        long two;
        switch ((int) r.rand(0, 2)) {
            case 0 -> { // same chunksz
                one = r.rand(1, r.rand(1, max));
                two = one;
            }
            case 1 -> { // one a multiple of another
                final long factor = r.rand(1, r.rand(1, r.rand(1, max)));
                one = r.rand(factor, max) / factor;
                two = one * factor;
            }
            default -> { // both a small multiple of underlying factor
                final long oneMult = r.rand(1, 5);
                final long twoMult = r.rand(1, 5);
                final long factor = r.rand(1, max / Math.max(oneMult, twoMult));
                one = factor * oneMult;
                two = factor * twoMult;
            }
        }
        return swap ? new long[] {two, one} : new long[] {one, two};
    }

    /**
     * rand_addr_list over the {@code elemlen} elements of {@code area}, chunks of {@code chunkelem} elements: with
     * {@code allowOverlap} anywhere, else disjoint in increasing order, then shuffled; empty one time in 20.
     */
    static VisAddrList random(VisRun run, VisArea area, long chunkelem, long elemlen, boolean allowOverlap) {
        final VisRandom r = run.rnd;
        final long maxchunks = Math.min(run.maxIdxlen, elemlen / chunkelem);
        long count = r.pickFirst() ? r.rand(1, maxchunks) : r.rand(1, r.rand(1, r.rand(1, maxchunks)));
        if (r.oneIn(20)) {
            count = 0;
        }
        final VisAddrList al = new VisAddrList(area, (int) count);
        if (allowOverlap) {
            for (int i = 0; i < count; i++) {
                al.offsets[i] = area.base() + r.rand(0, elemlen - chunkelem) * VisRun.VEC_SZ;
            }
        } else {
            long lim = 0;
            final long per = count > 0 ? elemlen / count : 0;
            for (int i = 0; i < count; i++) { // each chunk in its slot of per elements
                final long offset = r.rand(lim, per * (i + 1) - chunkelem);
                al.offsets[i] = area.base() + offset * VisRun.VEC_SZ;
                lim = offset + chunkelem;
            }
            r.shuffle(al.offsets, al.count);
        }
        al.chunklen = chunkelem * VisRun.VEC_SZ;
        al.totalsz = al.count * al.chunklen;
        al.seal(run);
        return al;
    }

    /** buildcontig_addr_list: one chunk of {@code elemlen} elements at a random place, or none if 0. */
    static VisAddrList contiguous(VisRun run, VisArea area, long elemlen, long areasz) {
        final VisAddrList al = new VisAddrList(area, elemlen == 0 ? 0 : 1);
        al.offsets[0] = area.base() + run.rnd.rand(0, areasz - elemlen) * VisRun.VEC_SZ;
        al.chunklen = elemlen == 0 ? VisRun.VEC_SZ : elemlen * VisRun.VEC_SZ;
        al.totalsz = al.count * al.chunklen;
        al.seal(run);
        return al;
    }

    private void seal(VisRun run) {
        checksum = sum();
        verify(run);
    }

    private long sum() {
        return VisRun.checksum(count, offsets, count);
    }

    /** trim_addr_list: drops the last chunks of the longer list until both carry the same bytes. */
    static void trim(VisRun run, VisAddrList one, VisAddrList two) {
        while (one.totalsz != two.totalsz) {
            final VisAddrList p = one.totalsz > two.totalsz ? one : two;
            p.count--;
            p.totalsz -= p.chunklen;
        }
        one.seal(run);
        two.seal(run);
    }

    /** verify_addr_list: the total is count times chunklen, and the list is as built. */
    void verify(VisRun run) {
        if (!run.verify) {
            return;
        }
        if (totalsz != count * chunklen) {
            run.fatal("Inconsistent totalsz in verify_addr_list at " + VisRun.caller());
        }
        if (checksum != sum()) {
            run.fatal("Checksum mismatch in verify_addr_list at " + VisRun.caller());
        }
    }

    /** verify_addr_list_data(_remote): {@code result} at {@code resultOffset} holds this list's bytes in order. */
    void verifyData(VisRun run, MemorySegment result, long resultOffset, String context) {
        if (!run.verify) {
            return;
        }
        long p = resultOffset;
        for (int i = 0; i < count; i++) {
            for (long j = 0; j < chunklen / VisRun.VEC_SZ; j++) {
                final byte srcval = area.valueAt(offsets[i] + j * VisRun.VEC_SZ);
                final byte resval = result.get(ValueLayout.JAVA_BYTE, p);
                if (srcval != resval) {
                    run.err(String.format("ERROR: mismatch at chunk %d, element %d%n  expected val=0x%02x%n"
                        + "    actual val=0x%02x%n  at %s:%s%n", i, j, srcval & 0xFF, resval & 0xFF, context,
                        VisRun.caller()));
                    run.err("addrlist: " + format() + "\n");
                    run.fatal("testvis failed.");
                }
                p += VisRun.VEC_SZ;
            }
        }
    }

    /** gasnett_format_addrlist's form, offsets for addresses. */
    String format() {
        final StringBuilder b = new StringBuilder();
        b.append(count).append(" entries, totalsz=").append(totalsz).append(", len=").append(chunklen).append(", in ")
            .append(area.name()).append("\nlist=[");
        for (int i = 0; i < count; i++) {
            b.append(String.format("0x%x", offsets[i]));
            if (i < count - 1) {
                b.append(", ").append((i + 1) % 8 == 0 ? "\n      " : "");
            }
        }
        return b.append(']').toString();
    }
}
