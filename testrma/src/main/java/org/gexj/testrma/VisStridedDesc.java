package org.gexj.testrma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * GASNet's {@code test_strided_desc}, the linear strided test's shape: a random box of {@link #dim} dimensions in
 * source and destination arrays of random extents (each side's volume at most the area), positive strides, and the
 * strides of the contiguous copy ({@link #contigstrides}). {@code count[0]} is the element size in bytes, the other
 * counts are the levels' ({@link #levelCounts}), as GASNet passes {@code count[0]} and {@code count+1}.
 */
final class VisStridedDesc {
    final VisArea src;
    final VisArea dst;
    final int dim;
    final long[] srcstrides;
    final long[] dststrides;
    final long[] srcextents;
    final long[] dstextents;
    final long[] count;
    final long[] contigstrides;
    long totalsz;
    long srcvolume;
    long dstvolume;
    long srcaddr;
    long dstaddr;
    private long checksum;

    private VisStridedDesc(VisArea src, VisArea dst, int dim) {
        this.src = src;
        this.dst = dst;
        this.dim = dim;
        srcstrides = new long[dim];
        dststrides = new long[dim];
        srcextents = new long[dim];
        dstextents = new long[dim];
        count = new long[dim];
        contigstrides = new long[dim];
    }

    /** rand_strided_desc over the {@code elemlen} elements of both areas. */
    static VisStridedDesc random(VisRun run, VisArea src, VisArea dst, long elemlen) {
        final VisRandom r = run.rnd;
        int dim = (int) r.rand(2, r.rand(2, r.rand(2, run.maxStridedim + 1)));
        if (r.oneIn(10)) {
            dim = 1; // 1-dim (fully contiguous)
        }
        final VisStridedDesc sd = new VisStridedDesc(src, dst, dim);
        final long volume = r.rand(elemlen * 7 / 8, elemlen); // in elem
        sd.srcextents[0] = volume;
        sd.dstextents[0] = volume;
        int srcmax = 0;
        int dstmax = 0;
        for (int i = 1; i < dim; i++) { // split the largest extent in two, its parts' product at most it
            srcmax = split(r, sd.srcextents, srcmax, i);
            dstmax = split(r, sd.dstextents, dstmax, i);
        }
        r.shuffle(sd.srcextents, dim);
        r.shuffle(sd.dstextents, dim);
        for (int i = 0; i < dim; i++) {
            final long maxcnt = Math.min(sd.srcextents[i], sd.dstextents[i]);
            sd.count[i] = r.rand(r.rand(1, maxcnt), maxcnt);
        }
        sd.srcvolume = VisRun.VEC_SZ;
        sd.dstvolume = VisRun.VEC_SZ;
        for (int i = 0; i < dim; i++) { // strides[dim-1] is calculated but ignored (harmless)
            sd.srcvolume *= sd.srcextents[i];
            sd.srcstrides[i] = sd.srcvolume;
            sd.dstvolume *= sd.dstextents[i];
            sd.dststrides[i] = sd.dstvolume;
        }
        sd.srcaddr = src.base() + r.rand(0, elemlen - sd.srcvolume / VisRun.VEC_SZ) * VisRun.VEC_SZ;
        sd.dstaddr = dst.base() + r.rand(0, elemlen - sd.dstvolume / VisRun.VEC_SZ) * VisRun.VEC_SZ;
        if (r.oneIn(20)) { // zero sz
            sd.count[(int) r.rand(0, dim - 1)] = 0;
        } else if (r.oneIn(20)) { // some null high dims
            final long cnt = r.rand(1, dim);
            for (int i = (int) (dim - cnt); i < dim; i++) {
                sd.count[i] = 1;
            }
        } else if (r.oneIn(20)) { // some null low dims
            final long cnt = r.rand(1, dim);
            for (int i = 0; i < cnt; i++) {
                sd.count[i] = 1;
            }
        } else if (r.oneIn(20)) { // maximal counts
            for (int i = 0; i < dim; i++) {
                sd.count[i] = Math.min(sd.srcextents[i], sd.dstextents[i]);
            }
        }
        sd.count[0] *= VisRun.VEC_SZ;
        sd.totalsz = 1;
        for (int i = 0; i < dim; i++) {
            sd.totalsz *= sd.count[i];
            sd.contigstrides[i] = sd.totalsz;
        }
        sd.checksum = sd.sum();
        sd.verify(run);
        return sd;
    }

    /** One step of GASNet's choice of extents: dimension {@code i} takes a factor of the largest one so far. */
    static int split(VisRandom r, long[] extents, int max, int i) {
        final long prev = extents[max];
        extents[i] = r.rand(1, r.rand(1, prev - 1));
        extents[max] /= extents[i];
        extents[i] = prev / extents[max];
        return extents[i] > extents[max] ? i : max;
    }

    /** The element size, GASNet's {@code count[0]}. */
    long elemsz() {
        return count[0];
    }

    /** The counts of the stride levels, GASNet's {@code count+1}. */
    long[] levelCounts() {
        return Arrays.copyOfRange(count, 1, dim);
    }

    /** The stride levels. */
    int levels() {
        return dim - 1;
    }

    private long sum() {
        long s = VisRun.checksum(dim, srcstrides, dim);
        s = VisRun.checksum(s, dststrides, dim);
        s = VisRun.checksum(s, srcextents, dim);
        s = VisRun.checksum(s, dstextents, dim);
        s = VisRun.checksum(s, count, dim);
        s = VisRun.checksum(s, contigstrides, dim);
        return VisRun.checksum(s, new long[] {totalsz, srcvolume, dstvolume, srcaddr, dstaddr}, 5);
    }

    /** _verify_strided_desc: the descriptor is as built and its numbers agree with each other. */
    void verify(VisRun run) {
        if (!run.verify) {
            return;
        }
        if (checksum != sum()) {
            run.fatal("Checksum mismatch in verify_strided_desc at " + VisRun.caller());
        }
        long sz = 1;
        long srcvol = VisRun.VEC_SZ;
        long dstvol = VisRun.VEC_SZ;
        for (int i = 0; i < dim; i++) {
            sz *= count[i];
            srcvol *= srcextents[i];
            dstvol *= dstextents[i];
            if (i < dim - 1) {
                run.check(contigstrides[i] == sz, "sd->contigstrides[i] == sz");
                run.check(srcstrides[i] == srcvol, "sd->srcstrides[i] == srcvol");
                run.check(dststrides[i] == dstvol, "sd->dststrides[i] == dstvol");
            }
            final long c = i == 0 ? count[i] / VisRun.VEC_SZ : count[i];
            run.check(c <= srcextents[i] && c <= dstextents[i], "count[i] <= sd->srcextents[i] && <= dstextents[i]");
        }
        run.check(sz == totalsz, "sz == sd->totalsz");
        run.check(srcvolume == srcvol, "sd->srcvolume == srcvol");
        run.check(dstvolume == dstvol, "sd->dstvolume == dstvol");
        if (sz != 0) {
            run.check(count[0] >= VisRun.VEC_SZ && count[0] % VisRun.VEC_SZ == 0, "sd->count[0] % VEC_SZ == 0");
        }
        if (dim > 1) {
            run.check(srcvolume == srcstrides[dim - 2] * srcextents[dim - 1], "sd->srcvolume == srcstrides*extents");
            run.check(dstvolume == dststrides[dim - 2] * dstextents[dim - 1], "sd->dstvolume == dststrides*extents");
        }
    }

    /**
     * verify_strided_desc_data(_remote): {@code result} at {@code resultOffset} holds the source box's elements in
     * order, the lowest dimension fastest.
     */
    void verifyData(VisRun run, MemorySegment result, long resultOffset, String context) {
        if (!run.verify || totalsz == 0) {
            return;
        }
        final long[] idx = new long[dim];
        long resultp = resultOffset;
        long srcoffset = 0; // in bytes
        int curdim = 0;
        while (curdim < dim) {
            final byte srcval = src.valueAt(srcaddr + srcoffset);
            final byte resval = result.get(ValueLayout.JAVA_BYTE, resultp);
            if (srcval != resval) {
                run.err(String.format("mismatch at location %s%n  expected val=0x%02x%n    actual val=0x%02x%n"
                    + "  at %s:%s%n", Arrays.toString(idx), srcval & 0xFF, resval & 0xFF, context, VisRun.caller()));
                run.err("strided desc: " + format(run) + "\n");
                run.fatal("testvis failed.");
            }
            if (idx[0] < count[0] - VisRun.VEC_SZ) { // next element of the lowest dimension
                idx[0] += VisRun.VEC_SZ;
                srcoffset += VisRun.VEC_SZ;
            } else { // carry into the higher ones
                idx[0] = 0;
                srcoffset -= count[0] - VisRun.VEC_SZ;
                for (curdim = 1; curdim < dim; curdim++) {
                    if (idx[curdim] < count[curdim] - 1) {
                        idx[curdim]++;
                        srcoffset += srcstrides[curdim - 1];
                        break;
                    }
                    idx[curdim] = 0;
                    srcoffset -= srcstrides[curdim - 1] * (count[curdim] - 1);
                }
            }
            resultp += VisRun.VEC_SZ;
        }
    }

    /** gasnett_format_putsgets's content: sizes, both sides' offsets and strides, the counts. */
    String format(VisRun run) {
        return "(" + totalsz + " data bytes) peer=" + run.partner + " stridelevels=" + levels() + " elemsz="
            + elemsz() + "\ndst: dstaddr=0x" + Long.toHexString(dstaddr) + " in " + dst.name() + " strides="
            + Arrays.toString(Arrays.copyOf(dststrides, levels())) + "\nsrc: srcaddr=0x" + Long.toHexString(srcaddr)
            + " in " + src.name() + " strides=" + Arrays.toString(Arrays.copyOf(srcstrides, levels()))
            + "\ncount=" + Arrays.toString(levelCounts());
    }
}
