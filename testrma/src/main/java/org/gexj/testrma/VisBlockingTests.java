package org.gexj.testrma;

import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.rma.Vis;

import java.lang.foreign.MemorySegment;

/**
 * One iteration of each of testvis's blocking sections, as GASNet's {@code doit} has them: vector, indexed and linear
 * strided (a put test and a get test each), and transpositional strided (a get, a put/get and a get/pack test). A put
 * test puts random pieces of a local read area into the partner's remote-write area, gets them back into a
 * contiguous buffer and checks it against the source; a get test gets random pieces of the partner's read area into
 * a local area, packs them into a contiguous buffer with a loopback get or put, and checks it against the known
 * values. Every random choice is drawn in GASNet's order.
 */
final class VisBlockingTests {
    private final VisRun run;
    private final Vis vis;
    private final VisRandom r;
    private final int partner;
    private final int me;

    VisBlockingTests(VisRun run) {
        this.run = run;
        this.vis = run.vis;
        this.r = run.rnd;
        this.partner = run.partner;
        this.me = run.mynode;
    }

    /** A put in the non-blocking forms of GASNet's LC overwrite test. */
    private interface PutForms {
        Event nb();

        void nbi();
    }

    /**
     * GASNet's "LC overwrite test": the put NB, NBI, or NBI in an access region, at random; then its source is
     * cleared and restored, and the get that follows must still find the original data. GASNet asks for local
     * completion (GEX_FLAG_ENABLE_LEAF_LC) and clears before the remote one; GEX/J's VIS has no such flag and
     * completes once, at the target, so the source is cleared after that.
     */
    private void overwriteTest(PutForms put, Runnable clear, Runnable restore) {
        Event rc = null;
        switch ((int) r.rand(1, 3)) {
            case 1 -> rc = put.nb();
            case 2 -> put.nbi();
            default -> {
                run.client.beginAccessRegion();
                put.nbi();
                rc = run.client.endAccessRegion();
            }
        }
        if (rc != null) {
            rc.await();
        } else {
            run.client.nbiWait(Ec.PUT);
        }
        clear.run();
        restore.run();
    }

    /** Whether a get test packs with a loopback get (possible when its destination is in the segment) or a put. */
    private boolean loopbackGet(VisArea dstArea) {
        return dstArea == run.mySegWrite1 && !r.pickFirst(); // TEST_RAND_PICK(0,1) is 1 when the draw is 0
    }

    /** One iteration of "Vector...". */
    void vector(VisTiming timing) {
        { // put test
            final VisArea srcArea = r.pickFirst() ? run.myHeapRead : run.mySegRead;
            final VisMemvecList src = VisMemvecList.random(run, srcArea, run.areasz, true);
            final VisMemvecList dst = VisMemvecList.random(run, run.partnerSegRemoteWrite, run.areasz, false);
            VisMemvecList.trim(run, src, dst);
            final VisMemvecList tmp = VisMemvecList.contiguous(run, r.pickFirst() ? run.myHeapWrite2
                : run.mySegWrite2, dst.totalsz / VisRun.VEC_SZ, run.areasz);
            final MemorySegment from = srcArea.memory();
            if (srcArea == run.myHeapRead && r.oneIn(2)) {
                overwriteTest(new PutForms() {
                    public Event nb() {
                        return vis.putVectorNb(partner, dst.count, dst.offsets, dst.lengths, from, src.count,
                            src.offsets, src.lengths);
                    }

                    public void nbi() {
                        vis.putVectorNbi(partner, dst.count, dst.offsets, dst.lengths, from, src.count, src.offsets,
                            src.lengths);
                    }
                }, () -> {
                    for (int i = src.count - 1; i >= 0; i--) {
                        VisRun.clear(from, src.offsets[i], src.lengths[i]);
                    }
                }, () -> {
                    for (int i = 0; i < src.count; i++) {
                        run.restoreHeapReadArea(src.offsets[i], src.lengths[i] / VisRun.VEC_SZ);
                    }
                });
            } else {
                timing.put(dst.totalsz, () -> vis.putVector(partner, dst.count, dst.offsets, dst.lengths, from,
                    src.count, src.offsets, src.lengths));
            }
            src.verify(run);
            dst.verify(run);
            final MemorySegment to = tmp.area.memory();
            timing.get(dst.totalsz, () -> vis.getVector(to, tmp.count, tmp.offsets, tmp.lengths, partner, dst.count,
                dst.offsets, dst.lengths));
            tmp.verify(run);
            dst.verify(run);
            src.verifyData(run, to, tmp.offsets[0], "gasnet_putv_bulk/gasnet_getv_bulk test");
        }
        { // get test
            final VisArea dstArea = r.pickFirst() ? run.myHeapWrite1 : run.mySegWrite1;
            final VisMemvecList src = VisMemvecList.random(run, run.partnerSegRead, run.areasz, true);
            final VisMemvecList dst = VisMemvecList.random(run, dstArea, run.areasz, false);
            VisMemvecList.trim(run, src, dst);
            final VisMemvecList tmp = VisMemvecList.contiguous(run, run.mySegWrite2, dst.totalsz / VisRun.VEC_SZ,
                run.areasz);
            final MemorySegment mid = dstArea.memory();
            final MemorySegment to = tmp.area.memory();
            vis.getVector(mid, dst.count, dst.offsets, dst.lengths, partner, src.count, src.offsets, src.lengths);
            src.verify(run);
            dst.verify(run);
            if (loopbackGet(dstArea)) {
                vis.getVector(to, tmp.count, tmp.offsets, tmp.lengths, me, dst.count, dst.offsets, dst.lengths);
            } else {
                vis.putVector(me, tmp.count, tmp.offsets, tmp.lengths, mid, dst.count, dst.offsets, dst.lengths);
            }
            tmp.verify(run);
            dst.verify(run);
            src.verifyData(run, to, tmp.offsets[0], "gasnet_getv_bulk test");
        }
    }

    /** One iteration of "Indexed...". */
    void indexed(VisTiming timing) {
        { // put test
            final long[] chunks = VisAddrList.randomChunkElems(run);
            final VisArea srcArea = r.pickFirst() ? run.myHeapRead : run.mySegRead;
            final VisAddrList src = VisAddrList.random(run, srcArea, chunks[0], run.areasz, true);
            final VisAddrList dst = VisAddrList.random(run, run.partnerSegRemoteWrite, chunks[1], run.areasz, false);
            VisAddrList.trim(run, src, dst);
            final VisAddrList tmp = VisAddrList.contiguous(run, r.pickFirst() ? run.myHeapWrite2 : run.mySegWrite2,
                dst.totalsz / VisRun.VEC_SZ, run.areasz);
            final MemorySegment from = srcArea.memory();
            if (srcArea == run.myHeapRead && r.oneIn(2)) {
                overwriteTest(new PutForms() {
                    public Event nb() {
                        return vis.putIndexedNb(partner, dst.count, dst.offsets, dst.chunklen, from, src.count,
                            src.offsets, src.chunklen);
                    }

                    public void nbi() {
                        vis.putIndexedNbi(partner, dst.count, dst.offsets, dst.chunklen, from, src.count,
                            src.offsets, src.chunklen);
                    }
                }, () -> {
                    for (int i = src.count - 1; i >= 0; i--) {
                        VisRun.clear(from, src.offsets[i], src.chunklen);
                    }
                }, () -> {
                    for (int i = 0; i < src.count; i++) {
                        run.restoreHeapReadArea(src.offsets[i], src.chunklen / VisRun.VEC_SZ);
                    }
                });
            } else {
                timing.put(dst.totalsz, () -> vis.putIndexed(partner, dst.count, dst.offsets, dst.chunklen, from,
                    src.count, src.offsets, src.chunklen));
            }
            src.verify(run);
            dst.verify(run);
            final MemorySegment to = tmp.area.memory();
            timing.get(dst.totalsz, () -> vis.getIndexed(to, tmp.count, tmp.offsets, tmp.chunklen, partner,
                dst.count, dst.offsets, dst.chunklen));
            tmp.verify(run);
            dst.verify(run);
            src.verifyData(run, to, tmp.offsets[0], "gasnet_puti_bulk/gasnet_geti_bulk test");
        }
        { // get test
            final VisArea dstArea = r.pickFirst() ? run.myHeapWrite1 : run.mySegWrite1;
            final long[] chunks = VisAddrList.randomChunkElems(run);
            final VisAddrList src = VisAddrList.random(run, run.partnerSegRead, chunks[0], run.areasz, true);
            final VisAddrList dst = VisAddrList.random(run, dstArea, chunks[1], run.areasz, false);
            VisAddrList.trim(run, src, dst);
            final VisAddrList tmp = VisAddrList.contiguous(run, run.mySegWrite2, dst.totalsz / VisRun.VEC_SZ,
                run.areasz);
            final MemorySegment mid = dstArea.memory();
            final MemorySegment to = tmp.area.memory();
            vis.getIndexed(mid, dst.count, dst.offsets, dst.chunklen, partner, src.count, src.offsets, src.chunklen);
            src.verify(run);
            dst.verify(run);
            if (loopbackGet(dstArea)) {
                vis.getIndexed(to, tmp.count, tmp.offsets, tmp.chunklen, me, dst.count, dst.offsets, dst.chunklen);
            } else {
                vis.putIndexed(me, tmp.count, tmp.offsets, tmp.chunklen, mid, dst.count, dst.offsets, dst.chunklen);
            }
            tmp.verify(run);
            dst.verify(run);
            src.verifyData(run, to, tmp.offsets[0], "gasnet_geti_bulk test");
        }
    }

    /** One iteration of "Strided (linear)...". */
    void strided(VisTiming timing) {
        { // put test: strided local data to the partner, then back to a contiguous local buffer
            final VisArea srcArea = r.pickFirst() ? run.myHeapRead : run.mySegRead;
            final VisArea tmpArea = r.pickFirst() ? run.myHeapWrite2 : run.mySegWrite2;
            final VisStridedDesc d = VisStridedDesc.random(run, srcArea, run.partnerSegRemoteWrite, run.areasz);
            final long tmpbuf = tmpArea.base() + r.rand(0, run.areasz - d.totalsz / VisRun.VEC_SZ) * VisRun.VEC_SZ;
            final MemorySegment from = srcArea.memory();
            final long[] counts = d.levelCounts();
            if (srcArea == run.myHeapRead && r.oneIn(2) && d.totalsz > 0) {
                overwriteTest(new PutForms() {
                    public Event nb() {
                        return vis.putStridedNb(partner, d.dstaddr, d.dststrides, from, d.srcaddr, d.srcstrides,
                            d.elemsz(), counts, d.levels());
                    }

                    public void nbi() {
                        vis.putStridedNbi(partner, d.dstaddr, d.dststrides, from, d.srcaddr, d.srcstrides,
                            d.elemsz(), counts, d.levels());
                    }
                }, () -> VisRun.clear(from, d.srcaddr, d.elemsz()),
                    () -> run.restoreHeapReadArea(d.srcaddr, d.elemsz() / VisRun.VEC_SZ));
            } else {
                timing.put(d.totalsz, () -> vis.putStrided(partner, d.dstaddr, d.dststrides, from, d.srcaddr,
                    d.srcstrides, d.elemsz(), counts, d.levels()));
            }
            d.verify(run);
            final MemorySegment to = tmpArea.memory();
            timing.get(d.totalsz, () -> vis.getStrided(to, tmpbuf, d.contigstrides, partner, d.dstaddr,
                d.dststrides, d.elemsz(), counts, d.levels()));
            d.verify(run);
            d.verifyData(run, to, tmpbuf, "gex_VIS_Strided{Put,Get}Blocking linear test");
        }
        { // get test: strided partner data to a strided local area, then packed to a contiguous local buffer
            final VisArea dstArea = r.pickFirst() ? run.myHeapWrite1 : run.mySegWrite1;
            final VisStridedDesc d = VisStridedDesc.random(run, run.partnerSegRead, dstArea, run.areasz);
            final long tmpbuf = run.mySegWrite2.base() + r.rand(0, run.areasz - d.totalsz / VisRun.VEC_SZ)
                * VisRun.VEC_SZ;
            final MemorySegment mid = dstArea.memory();
            final MemorySegment to = run.mySegWrite2.memory();
            final long[] counts = d.levelCounts();
            vis.getStrided(mid, d.dstaddr, d.dststrides, partner, d.srcaddr, d.srcstrides, d.elemsz(), counts,
                d.levels());
            d.verify(run);
            if (loopbackGet(dstArea)) {
                vis.getStrided(to, tmpbuf, d.contigstrides, me, d.dstaddr, d.dststrides, d.elemsz(), counts,
                    d.levels());
            } else {
                vis.putStrided(me, tmpbuf, d.contigstrides, mid, d.dstaddr, d.dststrides, d.elemsz(), counts,
                    d.levels());
            }
            d.verify(run);
            d.verifyData(run, to, tmpbuf, "gex_VIS_StridedGetBlocking linear test");
        }
    }

    /** One iteration of "Strided (transpositional)...". */
    void transpose(VisTiming timing) {
        { // get test: strided partner data to a contiguous local area
            final VisArea tmpArea = r.pickFirst() ? run.myHeapWrite1 : run.mySegWrite1;
            final VisXposeDesc d = VisXposeDesc.random(run, run.partnerSegRead, null, tmpArea, run.areasz);
            vis.getStrided(tmpArea.memory(), d.contigaddr, d.contigstrides, partner, d.srcaddr, d.srcstrides,
                d.elemsz, d.count, d.stridelevels);
            d.verify(run);
            d.verifyData(run, "gex_VIS_StridedGetBlocking transpose test");
        }
        { // put/get test: strided local data to the partner, then back to a contiguous local area
            final VisArea srcArea = r.pickFirst() ? run.myHeapRead : run.mySegRead;
            final VisArea tmpArea = r.pickFirst() ? run.myHeapWrite2 : run.mySegWrite2;
            final VisXposeDesc d = VisXposeDesc.random(run, srcArea, run.partnerSegRemoteWrite, tmpArea, run.areasz);
            timing.put(d.totalsz, () -> vis.putStrided(partner, d.dstaddr, d.dststrides, srcArea.memory(), d.srcaddr,
                d.srcstrides, d.elemsz, d.count, d.stridelevels));
            d.verify(run);
            timing.get(d.totalsz, () -> vis.getStrided(tmpArea.memory(), d.contigaddr, d.contigstrides, partner,
                d.dstaddr, d.dststrides, d.elemsz, d.count, d.stridelevels));
            d.verify(run);
            d.verifyData(run, "gex_VIS_Strided{Put,Get}Blocking transpose test");
        }
        { // get/pack test: strided partner data to a strided local area, then packed to a contiguous one
            final VisArea dstArea = r.pickFirst() ? run.myHeapWrite1 : run.mySegWrite1;
            final VisArea tmpArea = run.mySegWrite2;
            final VisXposeDesc d = VisXposeDesc.random(run, run.partnerSegRead, dstArea, tmpArea, run.areasz);
            final MemorySegment mid = dstArea.memory();
            vis.getStrided(mid, d.dstaddr, d.dststrides, partner, d.srcaddr, d.srcstrides, d.elemsz, d.count,
                d.stridelevels);
            d.verify(run);
            if (loopbackGet(dstArea)) {
                vis.getStrided(tmpArea.memory(), d.contigaddr, d.contigstrides, me, d.dstaddr, d.dststrides,
                    d.elemsz, d.count, d.stridelevels);
            } else {
                vis.putStrided(me, d.contigaddr, d.contigstrides, mid, d.dstaddr, d.dststrides, d.elemsz, d.count,
                    d.stridelevels);
            }
            d.verify(run);
            d.verifyData(run, "gex_VIS_StridedGetBlocking/pack transpose test");
        }
    }
}
