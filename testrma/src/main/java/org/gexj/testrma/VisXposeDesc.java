package org.gexj.testrma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * GASNet's {@code test_xpose_desc}, the transpositional strided test's shape in GASNet-EX's form (element size,
 * {@link #stridelevels} counts and strides): the source's dimensions are a permutation of the destination's
 * ({@code dim_map}), some source strides are negative (reflections), and one time in 8 the dimensions are swapped on
 * all sides and some reflected everywhere, which changes the order elements are visited but not where they go. The
 * {@code verify*} fields keep the unpermuted source traversal that checks the contiguous copy.
 */
final class VisXposeDesc {
    final VisArea src;
    /** The strided destination, or null where the contiguous area is the only one. */
    final VisArea dst;
    final VisArea contig;
    final int stridelevels;
    final long elemsz;
    final long[] srcstrides;
    final long[] dststrides;
    final long[] contigstrides;
    final long[] count;
    final long[] srcextents;
    final long[] dstextents;
    long[] dimMap;
    long[] revMap;
    long[] verifyCount;
    long[] verifySrcstrides;
    long totalsz;
    long srcvolume;
    long dstvolume;
    long srcaddr;
    long dstaddr;
    long contigaddr;
    long verifySrcaddr;
    long verifyContigaddr;
    private long checksum;

    private VisXposeDesc(VisArea src, VisArea dst, VisArea contig, int dim, long elemsz) {
        this.src = src;
        this.dst = dst;
        this.contig = contig;
        this.stridelevels = dim;
        this.elemsz = elemsz;
        srcstrides = new long[dim];
        dststrides = new long[dim];
        contigstrides = new long[dim];
        count = new long[dim];
        srcextents = new long[dim];
        dstextents = new long[dim];
        dimMap = new long[dim];
        revMap = new long[dim];
    }

    /**
     * rand_xpose_desc over the {@code elemlen} elements of the areas; {@code dst} may be null where the destination is
     * the contiguous area (its offsets are then drawn and unused, as GASNet's).
     */
    static VisXposeDesc random(VisRun run, VisArea src, VisArea dst, VisArea contig, long elemlen) {
        final VisRandom r = run.rnd;
        final int dim = (int) r.rand(2, r.rand(2, run.maxStridedim));
        final long vecsPerElem = r.rand(1, r.rand(1, 16));
        final VisXposeDesc xd = new VisXposeDesc(src, dst, contig, dim, VisRun.VEC_SZ * vecsPerElem);
        final long elems = elemlen / vecsPerElem;
        final long volume = r.rand(elems * 7 / 8, elems); // in elem
        xd.srcextents[0] = volume;
        xd.dstextents[0] = volume;
        int srcmax = 0;
        int dstmax = 0;
        for (int i = 1; i < dim; i++) {
            srcmax = split(r, xd.srcextents, srcmax, i);
            dstmax = split(r, xd.dstextents, dstmax, i);
        }
        r.shuffle(xd.srcextents, dim);
        r.shuffle(xd.dstextents, dim);
        for (int i = 0; i < dim; i++) { // a transpositional map
            xd.dimMap[i] = i;
        }
        r.shuffle(xd.dimMap, dim);
        for (int i = 0; i < dim; i++) {
            xd.revMap[(int) xd.dimMap[i]] = i;
        }
        final boolean maximizecnt = r.oneIn(20);
        for (int i = 0; i < dim; i++) {
            final long maxcnt = Math.min(xd.srcextents[(int) xd.dimMap[i]], xd.dstextents[i]);
            final long mincnt = Math.min(2, maxcnt);
            xd.count[i] = maximizecnt ? maxcnt : r.rand(r.rand(mincnt, maxcnt), maxcnt);
        }
        xd.srcvolume = xd.elemsz;
        xd.dstvolume = xd.elemsz;
        for (int i = 0; i < dim; i++) {
            xd.srcstrides[(int) xd.revMap[i]] = xd.srcvolume;
            xd.srcvolume *= xd.srcextents[i];
            xd.dststrides[i] = xd.dstvolume;
            xd.dstvolume *= xd.dstextents[i];
        }
        final long span = elems * vecsPerElem;
        xd.srcaddr = src.base() + r.rand(0, span - xd.srcvolume / VisRun.VEC_SZ) * VisRun.VEC_SZ;
        xd.dstaddr = (dst == null ? 0 : dst.base()) + r.rand(0, span - xd.dstvolume / VisRun.VEC_SZ) * VisRun.VEC_SZ;
        xd.totalsz = xd.elemsz;
        for (int i = 0; i < dim; i++) {
            xd.contigstrides[i] = xd.totalsz;
            xd.totalsz *= xd.count[i];
        }
        xd.contigaddr = contig.base() + r.rand(0, span - xd.totalsz / VisRun.VEC_SZ) * VisRun.VEC_SZ;
        xd.verifyContigaddr = xd.contigaddr;
        if (r.oneIn(2)) { // invert some src dimensions
            for (int i = 0; i < dim; i++) {
                if (r.oneIn(2)) {
                    xd.srcaddr = xd.invert(xd.srcstrides, i, xd.srcaddr);
                }
            }
        }
        xd.verifySrcaddr = xd.srcaddr;
        if (r.oneIn(8)) { // shuffle dimensions on all sides: the same transfer, visited in another order
            xd.verifyCount = xd.count.clone();
            xd.verifySrcstrides = xd.srcstrides.clone();
            for (int a = 0; a < dim - 1; a++) {
                final int b = (int) r.rand(a + 1, dim - 1);
                for (long[] array : new long[][] {xd.srcstrides, xd.dststrides, xd.contigstrides, xd.count,
                    xd.srcextents, xd.dstextents}) {
                    final long tmp = array[a];
                    array[a] = array[b];
                    array[b] = tmp;
                }
                xd.dimMap = null; // would need more fixup to stay right, and is no longer needed
                xd.revMap = null;
            }
            if (r.oneIn(2)) { // invert some dimensions all around
                for (int i = 0; i < dim; i++) {
                    if (r.oneIn(2)) {
                        xd.srcaddr = xd.invert(xd.srcstrides, i, xd.srcaddr);
                        xd.dstaddr = xd.invert(xd.dststrides, i, xd.dstaddr);
                        xd.contigaddr = xd.invert(xd.contigstrides, i, xd.contigaddr);
                    }
                }
            }
        }
        xd.checksum = xd.sum();
        xd.verify(run);
        return xd;
    }

    /** As {@link VisStridedDesc#split}, but each new extent in [2, half the largest] where it can be. */
    private static int split(VisRandom r, long[] extents, int max, int i) {
        final long prev = extents[max];
        final long hi = Math.max(1, prev / 2);
        final long lo = Math.min(2, hi);
        extents[i] = r.rand(lo, r.rand(lo, hi));
        extents[max] /= extents[i];
        extents[i] = prev / extents[max];
        return extents[i] > extents[max] ? i : max;
    }

    /** INVERT_STRIDE: dimension {@code d} walked backwards from its last element. @return the new base */
    private long invert(long[] strides, int d, long addr) {
        final long moved = addr + strides[d] * (count[d] - 1);
        strides[d] = -strides[d];
        return moved;
    }

    private long sum() {
        final int dim = stridelevels;
        long s = VisRun.checksum(dim, srcstrides, dim);
        s = VisRun.checksum(s, dststrides, dim);
        s = VisRun.checksum(s, contigstrides, dim);
        s = VisRun.checksum(s, count, dim);
        s = VisRun.checksum(s, srcextents, dim);
        s = VisRun.checksum(s, dstextents, dim);
        for (long[] a : new long[][] {dimMap, revMap, verifyCount, verifySrcstrides}) {
            s = a == null ? Long.rotateLeft(s, 8) : VisRun.checksum(s, a, dim);
        }
        return VisRun.checksum(s, new long[] {elemsz, totalsz, srcvolume, dstvolume, srcaddr, dstaddr, contigaddr,
            verifySrcaddr, verifyContigaddr}, 9);
    }

    /** _verify_xpose_desc: as built, the maps inverse to each other, and every side's extent within its volume. */
    void verify(VisRun run) {
        if (!run.verify) {
            return;
        }
        if (checksum != sum()) {
            run.fatal("Checksum mismatch in verify_xpose_desc at " + VisRun.caller());
        }
        final boolean shuffled = dimMap == null;
        run.check(shuffled == (revMap == null) && shuffled == (verifyCount != null)
            && shuffled == (verifySrcstrides != null), "dim_map, rev_map and verify_* consistent");
        long sz = elemsz;
        long srcvol = sz;
        long dstvol = sz;
        long srclo = srcaddr;
        long srchi = srclo;
        long dstlo = dstaddr;
        long dsthi = dstlo;
        long clo = contigaddr;
        long chi = clo;
        for (int i = 0; i < stridelevels; i++) {
            if (!shuffled) {
                run.check(revMap[(int) dimMap[i]] == i, "xd->rev_map[xd->dim_map[i]] == i");
                run.check(dimMap[(int) revMap[i]] == i, "xd->dim_map[xd->rev_map[i]] == i");
                run.check(contigstrides[i] == sz, "xd->contigstrides[i] == sz");
            }
            sz *= count[i];
            run.check(count[i] <= dstextents[i], "xd->count[i] <= xd->dstextents[i]");
            if (!shuffled) {
                run.check(count[i] <= srcextents[(int) dimMap[i]], "xd->count[i] <= xd->srcextents[xd->dim_map[i]]");
                run.check(Math.abs(srcstrides[(int) revMap[i]]) == srcvol, "labs(xd->srcstrides[rev_map[i]]) == vol");
                run.check(Math.abs(dststrides[i]) == dstvol, "labs(xd->dststrides[i]) == dstvol");
            }
            srcvol *= srcextents[i];
            dstvol *= dstextents[i];
            final long extent = count[i] - 1;
            if (srcstrides[i] >= 0) {
                srchi += srcstrides[i] * extent;
            } else {
                srclo += srcstrides[i] * extent;
            }
            if (dststrides[i] >= 0) {
                dsthi += dststrides[i] * extent;
            } else {
                dstlo += dststrides[i] * extent;
            }
            if (contigstrides[i] >= 0) {
                chi += contigstrides[i] * extent;
            } else {
                clo += contigstrides[i] * extent;
            }
        }
        run.check(sz == totalsz, "sz == xd->totalsz");
        if (sz != 0) {
            run.check(elemsz >= VisRun.VEC_SZ && elemsz % VisRun.VEC_SZ == 0, "xd->elemsz % VEC_SZ == 0");
        }
        run.check(srcvol == srcvolume, "srcvol == xd->srcvolume");
        run.check(dstvol == dstvolume, "dstvol == xd->dstvolume");
        run.check(srchi - srclo + elemsz <= srcvolume, "srcbounds <= xd->srcvolume");
        run.check(dsthi - dstlo + elemsz <= dstvolume, "dstbounds <= xd->dstvolume");
        run.check(chi - clo + elemsz == totalsz, "cbounds == xd->totalsz");
    }

    /**
     * verify_xpose_desc_data(_remote): the contiguous copy holds the source's elements in the unpermuted order, the
     * lowest dimension fastest.
     */
    void verifyData(VisRun run, String context) {
        if (!run.verify || totalsz == 0) {
            return;
        }
        final int dim = stridelevels;
        final long[] cnt = verifyCount != null ? verifyCount : count;
        final long[] strides = verifySrcstrides != null ? verifySrcstrides : srcstrides;
        final long vecsPerElem = elemsz / VisRun.VEC_SZ;
        final MemorySegment result = contig.memory();
        final long[] idx = new long[dim];
        long resultp = verifyContigaddr;
        long srcoffset = 0; // in bytes
        int curdim = 0;
        while (curdim < dim) {
            for (long v = 0; v < vecsPerElem; v++) {
                final long srcboffset = srcoffset + v * VisRun.VEC_SZ;
                final byte srcval = src.valueAt(verifySrcaddr + srcboffset);
                final byte resval = result.get(ValueLayout.JAVA_BYTE, resultp);
                if (srcval != resval) {
                    final long areavoffset = (verifySrcaddr + srcboffset - src.base()) / VisRun.VEC_SZ;
                    run.err(String.format("mismatch at element %s.%d%n  srcboffset= 0x%x (%d)%n"
                        + "  areavoffset=0x%x (%d)%n  expected val=0x%02x%n    actual val=0x%02x%n  dim_map=%s%n"
                        + "  at %s:%s%n", Arrays.toString(idx), v, srcboffset, srcboffset, areavoffset, areavoffset,
                        srcval & 0xFF, resval & 0xFF, dimMap == null ? "(shuffled)" : Arrays.toString(dimMap),
                        context, VisRun.caller()));
                    run.err("strided desc: " + format(run) + "\n");
                    run.fatal("testvis failed.");
                }
                resultp += VisRun.VEC_SZ;
            }
            for (curdim = 0; curdim < dim; curdim++) { // next element: increment with carry
                if (idx[curdim] < cnt[curdim] - 1) {
                    idx[curdim]++;
                    srcoffset += strides[curdim];
                    break;
                }
                idx[curdim] = 0;
                srcoffset -= strides[curdim] * (cnt[curdim] - 1);
            }
        }
    }

    /** gasnett_format_putsgets's content for this shape. */
    String format(VisRun run) {
        return "(" + totalsz + " data bytes) peer=" + run.partner + " stridelevels=" + stridelevels + " elemsz="
            + elemsz + "\ndst: dstaddr=0x" + Long.toHexString(dstaddr) + " in " + (dst == null ? "-" : dst.name())
            + " strides=" + Arrays.toString(dststrides)
            + "\nsrc: srcaddr=0x" + Long.toHexString(srcaddr) + " in " + src.name() + " strides="
            + Arrays.toString(srcstrides) + "\ncount=" + Arrays.toString(count) + "\ncontig: 0x"
            + Long.toHexString(contigaddr) + " in " + contig.name() + " strides=" + Arrays.toString(contigstrides);
    }
}
