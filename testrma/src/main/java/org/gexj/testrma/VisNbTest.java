package org.gexj.testrma;

import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.rma.Vis;

import java.lang.foreign.MemorySegment;

/**
 * One iteration of testvis's "Non-blocking tests...": up to {@code max_inflight_ops} random puts in flight at once
 * (vector, indexed, linear or transpositional strided; each NB or NBI at random), each into its own slice of the
 * partner's remote-write area; after all complete, the gets of the same places into contiguous local buffers, again
 * in flight together; after those complete, every buffer is checked against its source.
 *
 * <p>GASNet also draws {@code GEX_FLAG_IMMEDIATE} at random and reissues an operation that declined; GEX/J's VIS takes
 * no flags, so the draw is made (to keep GASNet's sequence of random choices) and every operation is issued once.
 */
final class VisNbTest {
    private final VisRun run;
    private final Vis vis;
    private final VisRandom r;
    private final int partner;

    /** GASNet's {@code test_op}: one operation's shape, of one of the four kinds. */
    private static final class Op {
        VisMemvecList vsrc;
        VisMemvecList vdst;
        VisMemvecList vtmp;
        VisAddrList isrc;
        VisAddrList idst;
        VisAddrList itmp;
        VisStridedDesc sdesc;
        VisArea stmpArea;
        long stmpbuf;
        VisXposeDesc xdesc;
    }

    VisNbTest(VisRun run) {
        this.run = run;
        this.vis = run.vis;
        this.r = run.rnd;
        this.partner = run.partner;
    }

    /** GASNet's flags draw, TEST_RAND_PICK(0, GEX_FLAG_IMMEDIATE): made, and unused (see the class comment). */
    private void drawFlags() {
        r.rand(0, 1);
    }

    /** One iteration: the puts, their completion, the gets, their completion, the checks. */
    void iteration() {
        final int numops = (int) r.rand(1, run.maxInflightOps);
        final Event[] events = new Event[numops];
        final Op[] ops = new Op[numops];
        final long opareasz = run.areasz / numops;
        final int lastCase = run.maxStridedim < 2 ? 3 : 4;
        for (int i = 0; i < numops; i++) {
            final Op op = ops[i] = new Op();
            final VisArea segWrite2 = run.mySegWrite2.slice(opareasz * i);
            final VisArea heapWrite2 = run.myHeapWrite2.slice(opareasz * i);
            final VisArea remoteWrite = run.partnerSegRemoteWrite.slice(opareasz * i);
            drawFlags();
            switch ((int) r.rand(1, lastCase)) {
                case 1 -> {
                    final VisArea srcArea = r.pickFirst() ? run.myHeapRead : run.mySegRead;
                    op.vsrc = VisMemvecList.random(run, srcArea, run.areasz, true);
                    op.vdst = VisMemvecList.random(run, remoteWrite, opareasz, false);
                    VisMemvecList.trim(run, op.vsrc, op.vdst);
                    op.vtmp = VisMemvecList.contiguous(run, r.pickFirst() ? heapWrite2 : segWrite2,
                        op.vdst.totalsz / VisRun.VEC_SZ, opareasz);
                    final VisMemvecList s = op.vsrc;
                    final VisMemvecList d = op.vdst;
                    if (r.oneIn(2)) {
                        events[i] = vis.putVectorNb(partner, d.count, d.offsets, d.lengths, srcArea.memory(),
                            s.count, s.offsets, s.lengths);
                    } else {
                        vis.putVectorNbi(partner, d.count, d.offsets, d.lengths, srcArea.memory(), s.count,
                            s.offsets, s.lengths);
                    }
                    s.verify(run);
                    d.verify(run);
                }
                case 2 -> {
                    final long[] chunks = VisAddrList.randomChunkElems(run);
                    final VisArea srcArea = r.pickFirst() ? run.myHeapRead : run.mySegRead;
                    op.isrc = VisAddrList.random(run, srcArea, chunks[0], run.areasz, true);
                    op.idst = VisAddrList.random(run, remoteWrite, chunks[1], opareasz, false);
                    VisAddrList.trim(run, op.isrc, op.idst);
                    op.itmp = VisAddrList.contiguous(run, r.pickFirst() ? heapWrite2 : segWrite2,
                        op.idst.totalsz / VisRun.VEC_SZ, opareasz);
                    final VisAddrList s = op.isrc;
                    final VisAddrList d = op.idst;
                    if (r.oneIn(2)) {
                        events[i] = vis.putIndexedNb(partner, d.count, d.offsets, d.chunklen, srcArea.memory(),
                            s.count, s.offsets, s.chunklen);
                    } else {
                        vis.putIndexedNbi(partner, d.count, d.offsets, d.chunklen, srcArea.memory(), s.count,
                            s.offsets, s.chunklen);
                    }
                    s.verify(run);
                    d.verify(run);
                }
                case 3 -> {
                    final VisArea srcArea = r.pickFirst() ? run.myHeapRead : run.mySegRead;
                    op.stmpArea = r.pickFirst() ? heapWrite2 : segWrite2;
                    final VisStridedDesc d = op.sdesc = VisStridedDesc.random(run, srcArea, remoteWrite, opareasz);
                    op.stmpbuf = op.stmpArea.base() + r.rand(0, opareasz - d.totalsz / VisRun.VEC_SZ)
                        * VisRun.VEC_SZ;
                    if (r.oneIn(2)) {
                        events[i] = vis.putStridedNb(partner, d.dstaddr, d.dststrides, srcArea.memory(), d.srcaddr,
                            d.srcstrides, d.elemsz(), d.levelCounts(), d.levels());
                    } else {
                        vis.putStridedNbi(partner, d.dstaddr, d.dststrides, srcArea.memory(), d.srcaddr,
                            d.srcstrides, d.elemsz(), d.levelCounts(), d.levels());
                    }
                    d.verify(run);
                }
                default -> {
                    final VisArea srcArea = r.pickFirst() ? run.myHeapRead : run.mySegRead;
                    final VisArea tmpArea = r.pickFirst() ? heapWrite2 : segWrite2;
                    final VisXposeDesc d = op.xdesc = VisXposeDesc.random(run, srcArea, remoteWrite, tmpArea,
                        opareasz);
                    if (r.oneIn(2)) {
                        events[i] = vis.putStridedNb(partner, d.dstaddr, d.dststrides, srcArea.memory(), d.srcaddr,
                            d.srcstrides, d.elemsz, d.count, d.stridelevels);
                    } else {
                        vis.putStridedNbi(partner, d.dstaddr, d.dststrides, srcArea.memory(), d.srcaddr,
                            d.srcstrides, d.elemsz, d.count, d.stridelevels);
                    }
                    d.verify(run);
                }
            }
        }
        sync(events);
        for (int i = 0; i < numops; i++) {
            events[i] = get(ops[i]);
        }
        sync(events);
        for (Op op : ops) {
            check(op);
        }
    }

    /** gex_Event_WaitAll, then gex_NBI_Wait(GEX_EC_ALL). */
    private void sync(Event[] events) {
        for (int i = 0; i < events.length; i++) {
            if (events[i] != null) {
                events[i].await();
                events[i] = null;
            }
        }
        run.client.nbiWait(Ec.ALL);
    }

    /** The get of an operation's destination into its contiguous buffer: NB (its event) or NBI (null). */
    private Event get(Op op) {
        drawFlags();
        final boolean nb = r.oneIn(2);
        Event e = null;
        if (op.vsrc != null) {
            final VisMemvecList t = op.vtmp;
            final VisMemvecList d = op.vdst;
            final MemorySegment to = t.area.memory();
            if (nb) {
                e = vis.getVectorNb(to, t.count, t.offsets, t.lengths, partner, d.count, d.offsets, d.lengths);
            } else {
                vis.getVectorNbi(to, t.count, t.offsets, t.lengths, partner, d.count, d.offsets, d.lengths);
            }
            t.verify(run);
            d.verify(run);
        } else if (op.isrc != null) {
            final VisAddrList t = op.itmp;
            final VisAddrList d = op.idst;
            final MemorySegment to = t.area.memory();
            if (nb) {
                e = vis.getIndexedNb(to, t.count, t.offsets, t.chunklen, partner, d.count, d.offsets, d.chunklen);
            } else {
                vis.getIndexedNbi(to, t.count, t.offsets, t.chunklen, partner, d.count, d.offsets, d.chunklen);
            }
            t.verify(run);
            d.verify(run);
        } else if (op.sdesc != null) {
            final VisStridedDesc d = op.sdesc;
            final MemorySegment to = op.stmpArea.memory();
            if (nb) {
                e = vis.getStridedNb(to, op.stmpbuf, d.contigstrides, partner, d.dstaddr, d.dststrides, d.elemsz(),
                    d.levelCounts(), d.levels());
            } else {
                vis.getStridedNbi(to, op.stmpbuf, d.contigstrides, partner, d.dstaddr, d.dststrides, d.elemsz(),
                    d.levelCounts(), d.levels());
            }
            d.verify(run);
        } else {
            final VisXposeDesc d = op.xdesc;
            final MemorySegment to = d.contig.memory();
            if (nb) {
                e = vis.getStridedNb(to, d.contigaddr, d.contigstrides, partner, d.dstaddr, d.dststrides, d.elemsz,
                    d.count, d.stridelevels);
            } else {
                vis.getStridedNbi(to, d.contigaddr, d.contigstrides, partner, d.dstaddr, d.dststrides, d.elemsz,
                    d.count, d.stridelevels);
            }
            d.verify(run);
        }
        return e;
    }

    /** Every operation's contiguous copy holds its source's bytes. */
    private void check(Op op) {
        if (op.vsrc != null) {
            op.vsrc.verify(run);
            op.vdst.verify(run);
            op.vtmp.verify(run);
            op.vsrc.verifyData(run, op.vtmp.area.memory(), op.vtmp.offsets[0],
                "non-blocking gasnet_putv_bulk/gasnet_getv_bulk test");
        } else if (op.isrc != null) {
            op.isrc.verify(run);
            op.idst.verify(run);
            op.itmp.verify(run);
            op.isrc.verifyData(run, op.itmp.area.memory(), op.itmp.offsets[0],
                "non-blocking gasnet_puti_bulk/gasnet_geti_bulk test");
        } else if (op.sdesc != null) {
            op.sdesc.verifyData(run, op.stmpArea.memory(), op.stmpbuf, "gasnet_puts_bulk/gasnet_gets_bulk test");
        } else {
            op.xdesc.verifyData(run, "gasnet_puts_bulk/gasnet_gets_bulk test");
        }
    }
}
