package org.gexj.testrma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GASNet's {@code test_memvec_list}: the pieces of a vector operation over one area, each an (offset, length) pair in
 * bytes ({@link VisArea} says what the offsets index); built at random ({@code rand_memvec_list}), as one contiguous
 * piece ({@code buildcontig_memvec_list}), trimmed to another's total, and checked: its own numbers (that the library
 * did not change the lists) and the data a transfer moved through it.
 */
final class VisMemvecList {
    final VisArea area;
    final long[] offsets;
    final long[] lengths;
    int count;
    /** Bytes over all pieces. */
    long totalsz;
    private long checksum;

    private VisMemvecList(VisArea area, int count) {
        this.area = area;
        this.count = count;
        this.offsets = new long[count];
        this.lengths = new long[count];
    }

    /**
     * rand_memvec_list over the {@code elemlen} elements of {@code area}: with {@code allowOverlap} (a source) pieces
     * anywhere, possibly overlapping; without (a destination) disjoint pieces in increasing order, then shuffled. One
     * time in 20 the list is empty, and each piece is empty (GASNet's NULL, here offset 0) one time in 20.
     */
    static VisMemvecList random(VisRun run, VisArea area, long elemlen, boolean allowOverlap) {
        final VisRandom r = run.rnd;
        final long most = Math.min(run.maxVeclen, elemlen);
        long count = r.pickFirst() ? r.rand(1, most) : r.rand(1, r.rand(1, r.rand(1, most)));
        long per = 0;
        if (r.oneIn(20)) {
            count = 0;
        }
        if (count > 0) {
            per = elemlen / count;
        }
        final VisMemvecList mv = new VisMemvecList(area, (int) count);
        if (allowOverlap) {
            for (int i = 0; i < count; i++) {
                final long offset = r.rand(0, elemlen - 1);
                final long len = r.rand(0, Math.min(per, elemlen - offset));
                if (!r.oneIn(20)) {
                    mv.set(i, offset, len);
                }
            }
        } else {
            long lim = 0;
            final boolean bySlots = !r.pickFirst(); // TEST_RAND_PICK(0,1): true when the draw is 0
            for (int i = 0; i < count; i++) {
                if (r.oneIn(20)) {
                    continue;
                }
                final long offset;
                final long len;
                if (bySlots) { // each piece in its slot of per elements
                    offset = r.rand(lim, per * (i + 1) - 1);
                    len = r.rand(0, per * (i + 1) - offset);
                } else { // each piece in the first quarter of what is left, up to half of the rest long
                    offset = r.rand(lim, lim + (elemlen - lim) / 4);
                    len = r.rand(0, (elemlen - offset) / 2);
                }
                mv.set(i, offset, len);
                lim = offset + len;
            }
            r.shuffle(mv.offsets, mv.lengths, mv.count);
        }
        mv.seal(run);
        return mv;
    }

    /** buildcontig_memvec_list: one piece of {@code elemlen} elements at a random place of the area. */
    static VisMemvecList contiguous(VisRun run, VisArea area, long elemlen, long areasz) {
        final VisMemvecList mv = new VisMemvecList(area, 1);
        mv.offsets[0] = area.base() + run.rnd.rand(0, areasz - elemlen) * VisRun.VEC_SZ;
        mv.lengths[0] = elemlen * VisRun.VEC_SZ;
        mv.totalsz = mv.lengths[0];
        mv.checksum = mv.sum();
        return mv;
    }

    private void set(int i, long elemOffset, long elems) {
        offsets[i] = area.base() + elemOffset * VisRun.VEC_SZ;
        lengths[i] = elems * VisRun.VEC_SZ;
        totalsz += lengths[i];
    }

    private void seal(VisRun run) {
        checksum = sum();
        verify(run);
    }

    private long sum() {
        return VisRun.checksum(VisRun.checksum(count, offsets, count), lengths, count);
    }

    /** trim_memvec_list: shortens the longer list from its end until both carry the same bytes. */
    static void trim(VisRun run, VisMemvecList one, VisMemvecList two) {
        final long total = Math.min(one.totalsz, two.totalsz);
        final VisMemvecList p = one.totalsz > total ? one : two;
        while (p.totalsz > total) {
            final long diff = p.totalsz - total;
            if (diff < p.lengths[p.count - 1]) {
                p.lengths[p.count - 1] -= diff;
                p.totalsz -= diff;
            } else {
                p.totalsz -= p.lengths[p.count - 1];
                p.count--;
            }
        }
        p.seal(run);
        run.check(one.totalsz == two.totalsz, "one->totalsz == two->totalsz");
    }

    /** verify_memvec_list: the list is as built (checksum) and its total is the sum of its pieces. */
    void verify(VisRun run) {
        if (!run.verify) {
            return;
        }
        if (checksum != sum()) {
            run.fatal("Checksum mismatch in verify_memvec_list at " + VisRun.caller());
        }
        long sum = 0;
        for (int i = 0; i < count; i++) {
            sum += lengths[i];
        }
        if (sum != totalsz) {
            run.fatal("totalsz mismatch in verify_memvec_list at " + VisRun.caller());
        }
    }

    /**
     * verify_memvec_data(_remote): the bytes at {@code resultOffset} of {@code result} are this list's source bytes
     * in order (read here, or a partner's read area's known values).
     */
    void verifyData(VisRun run, MemorySegment result, long resultOffset, String context) {
        if (!run.verify) {
            return;
        }
        long p = resultOffset;
        for (int i = 0; i < count; i++) {
            for (long j = 0; j < lengths[i] / VisRun.VEC_SZ; j++) {
                final byte srcval = area.valueAt(offsets[i] + j * VisRun.VEC_SZ);
                final byte resval = result.get(ValueLayout.JAVA_BYTE, p);
                if (srcval != resval) {
                    run.err(String.format("ERROR: mismatch at memvec segment %d, element %d%n  expected val=0x%02x%n"
                        + "    actual val=0x%02x%n  at %s:%s%n", i, j, srcval & 0xFF, resval & 0xFF, context,
                        VisRun.caller()));
                    run.err("memvec: " + format() + "\n");
                    run.fatal("testvis failed.");
                }
                p += VisRun.VEC_SZ;
            }
        }
    }

    /** gasnett_format_memveclist's form, offsets into the area's memory or segment for addresses. */
    String format() {
        final StringBuilder b = new StringBuilder();
        b.append(count).append(" entries, totalsz=").append(totalsz).append(", in ").append(area.name())
            .append("\nlist=[");
        for (int i = 0; i < count; i++) {
            b.append(String.format("{0x%x,%5d}", offsets[i], lengths[i]));
            if (i < count - 1) {
                b.append(", ").append((i + 1) % 4 == 0 ? "\n      " : "");
            }
        }
        return b.append(']').toString();
    }
}
