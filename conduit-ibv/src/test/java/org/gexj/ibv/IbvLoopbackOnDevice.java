package org.gexj.ibv;

import org.gexj.ibv.ffm.RecvWr;
import org.gexj.ibv.ffm.SendWr;
import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsOps;
import org.gexj.ibv.ffm.VerbsQp;
import org.gexj.ibv.ffm.WorkCompletions;
import org.gexj.testkit.AllocationMeasureKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The verbs bindings on a real device, in one process: two RC QPs on one port connected to each other (rxe loops the
 * packets back inside the kernel), sharing a PD, an SRQ and registered memory, and the data path called through the
 * context's ops table. Not run by the host suite (no device there; the name does not end in Test): run it where a
 * device exists, e.g. the Soft-RoCE guest of tools/rxe-vm:
 * {@code tools/rxe-vm/run-junit.sh conduit-ibv IbvLoopbackOnDevice}. The device is {@code RXE_DEVICE}, else the
 * conduit's own choice ({@code GEX_IBV_DEVICE}/{@code GEX_IBV_PORT} or the first ACTIVE port); every wait is bounded.
 */
class IbvLoopbackOnDevice {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int SIZE = 1 << 20;
    private static final int ACCESS = Verbs.IBV_ACCESS_LOCAL_WRITE | Verbs.IBV_ACCESS_REMOTE_WRITE
        | Verbs.IBV_ACCESS_REMOTE_READ;
    private static final Arena ARENA = Arena.ofShared();

    private static OnDeviceVerbs device;
    private static MemorySegment context;
    private static VerbsOps ops;
    private static MemorySegment pd;
    private static MemorySegment srq;
    private static MemorySegment memoryA;
    private static MemorySegment memoryB;
    private static MemorySegment mrA;
    private static MemorySegment mrB;
    private static Pair main;
    private static int port;
    private static int gidIndex;
    private static MemorySegment gid;
    private static int mtu;

    /** Two connected QPs, each with a CQ of its own; {@code b} receives from {@code srq} if not NULL. */
    private record Pair(MemorySegment cqA, MemorySegment cqB, MemorySegment a, MemorySegment b) {
        static Pair connect(MemorySegment sharedSrq) {
            final MemorySegment cqA = Verbs.createCq(context, 64);
            final MemorySegment cqB = Verbs.createCq(context, 64);
            final int recv = sharedSrq.equals(MemorySegment.NULL) ? 16 : 0;
            final VerbsQp.Capacity cap = new VerbsQp.Capacity(16, recv, 1, 1, 64);
            final MemorySegment a = VerbsQp.createRc(pd, cqA, cqA, sharedSrq, cap);
            final MemorySegment b = VerbsQp.createRc(pd, cqB, cqB, sharedSrq, cap);
            for (MemorySegment[] qp : new MemorySegment[][] {{a, b}, {b, a}}) {
                VerbsQp.toInit(qp[0], port, ACCESS);
                VerbsQp.toRtr(qp[0], port, VerbsQp.qpNum(qp[1]), 0, gid, gidIndex, 0, mtu, 1);
                VerbsQp.toRts(qp[0], 0, 14, 7, 7, 1);
            }
            return new Pair(cqA, cqB, a, b);
        }

        void destroy() {
            VerbsQp.destroy(a);
            VerbsQp.destroy(b);
            Verbs.destroyCq(cqA);
            Verbs.destroyCq(cqB);
        }
    }

    @BeforeAll
    static void openTheDeviceAndConnectTwoQps() {
        device = OnDeviceVerbs.open(ARENA);
        context = device.context();
        ops = device.ops();
        port = device.port();
        mtu = device.mtu();
        gidIndex = device.gidIndex();
        gid = device.gid();
        pd = device.pd();
        final String expected = System.getenv("RXE_GID_INDEX");
        if (expected != null) {
            // the harness knows which entry is ::ffff:<dummy0's IPv4>, RoCE v2: the conduit's choice must agree
            assertEquals(Integer.parseInt(expected), gidIndex, "GID index chosen vs RXE_GID_INDEX");
        }
        srq = Verbs.createSrq(pd, 32, 1);
        memoryA = ARENA.allocate(SIZE, 4096);
        memoryB = ARENA.allocate(SIZE, 4096);
        mrA = Verbs.regMr(pd, memoryA, ACCESS);
        mrB = Verbs.regMr(pd, memoryB, ACCESS);
        main = Pair.connect(srq);
    }

    @AfterAll
    static void closeEverything() {
        if (main != null) {
            main.destroy();
        }
        if (srq != null) {
            Verbs.destroySrq(srq);
            Verbs.deregMr(mrA);
            Verbs.deregMr(mrB);
        }
        if (device != null) {
            device.close();
        }
    }

    /** Polls {@code cq} through the ops table until one completion arrives or 60 s pass. */
    private static WorkCompletions await(MemorySegment cq, String what) {
        final WorkCompletions wc = new WorkCompletions(ARENA, 1);
        final long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            final int n = ops.pollCq(cq, wc);
            assertTrue(n >= 0, "ibv_poll_cq returned " + n + " waiting for " + what);
            if (n == 1) {
                return wc;
            }
            Thread.onSpinWait();
        }
        fail("no completion for " + what + " in 60 s");
        return wc;
    }

    private static void assertSuccess(WorkCompletions wc, long wrId, int opcode, String what) {
        assertEquals(Verbs.IBV_WC_SUCCESS, wc.status(0), what + ": " + Verbs.wcStatusText(wc.status(0))
            + " (vendor_err " + wc.vendorErr(0) + ")");
        assertEquals(wrId, wc.wrId(0), what + ": wr_id");
        assertEquals(opcode, wc.opcode(0), what + ": opcode");
    }

    private static void fill(MemorySegment memory, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            memory.set(JAVA_BYTE, offset + i, (byte) (seed + i * 31));
        }
    }

    private static void assertBytes(MemorySegment expected, long expectedOffset, MemorySegment actual,
                                    long actualOffset, int length, String what) {
        final long mismatch = MemorySegment.mismatch(expected, expectedOffset, expectedOffset + length, actual,
            actualOffset, actualOffset + length);
        assertEquals(-1, mismatch, what + ": first differing byte");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void anInlineSendArrivesThroughTheSharedReceiveQueue() {
        final RecvWr recv = new RecvWr(ARENA).set(100, memoryB.address(), 4096, Verbs.lkey(mrB));
        assertEquals(0, ops.postSrqRecv(srq, recv), "ibv_post_srq_recv");
        fill(memoryA, 0, 64, 7);
        final MemorySegment sent = MemorySegment.ofArray(memoryA.asSlice(0, 64).toArray(JAVA_BYTE));
        final SendWr send = new SendWr(ARENA).send(1, memoryA.address(), 64, 0,
            Verbs.IBV_SEND_SIGNALED | Verbs.IBV_SEND_INLINE);
        assertEquals(0, ops.postSend(main.a(), send), "ibv_post_send (inline)");
        // inline: the library copied the payload during the call, so the buffer is ours again at once
        fill(memoryA, 0, 64, 99);
        assertSuccess(await(main.cqA(), "the send"), 1, Verbs.IBV_WC_SEND, "sender");
        final WorkCompletions got = await(main.cqB(), "the receive");
        assertSuccess(got, 100, Verbs.IBV_WC_RECV, "receiver");
        assertEquals(64, got.byteLen(0), "byte_len");
        assertEquals(VerbsQp.qpNum(main.b()), got.qpNum(0), "the receive names the QP that took it from the SRQ");
        assertBytes(sent, 0, memoryB, 0, 64, "received payload");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void anRdmaWritePlacesTheBytes() {
        fill(memoryA, 8192, 4096, 3);
        final SendWr write = new SendWr(ARENA).rdmaWrite(2, memoryA.address() + 8192, 4096, Verbs.lkey(mrA),
            memoryB.address() + 65536, Verbs.rkey(mrB), Verbs.IBV_SEND_SIGNALED);
        assertEquals(0, ops.postSend(main.a(), write), "ibv_post_send (RDMA WRITE)");
        assertSuccess(await(main.cqA(), "the write"), 2, Verbs.IBV_WC_RDMA_WRITE, "writer");
        // RC: the completion comes after the target acknowledged, so the bytes are in place
        assertBytes(memoryA, 8192, memoryB, 65536, 4096, "written bytes");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void anRdmaReadFetchesTheBytes() {
        fill(memoryB, 131072, 5000, 11);
        final SendWr read = new SendWr(ARENA).rdmaRead(3, memoryA.address() + 262144, 5000, Verbs.lkey(mrA),
            memoryB.address() + 131072, Verbs.rkey(mrB), Verbs.IBV_SEND_SIGNALED);
        assertEquals(0, ops.postSend(main.a(), read), "ibv_post_send (RDMA READ)");
        assertSuccess(await(main.cqA(), "the read"), 3, Verbs.IBV_WC_RDMA_READ, "reader");
        assertBytes(memoryB, 131072, memoryA, 262144, 5000, "read bytes");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aWriteWithImmediateDeliversTheImmediateInTheTargetsCompletion() {
        final RecvWr recv = new RecvWr(ARENA).set(200, 0, 0, 0);
        assertEquals(0, ops.postSrqRecv(srq, recv), "ibv_post_srq_recv (for the immediate)");
        fill(memoryA, 393216, 1000, 5);
        final int imm = 0xCAFEBABE;
        final SendWr write = new SendWr(ARENA).rdmaWriteWithImm(4, memoryA.address() + 393216, 1000,
            Verbs.lkey(mrA), memoryB.address() + 524288, Verbs.rkey(mrB), Verbs.IBV_SEND_SIGNALED, imm);
        assertEquals(0, ops.postSend(main.a(), write), "ibv_post_send (WRITE_WITH_IMM)");
        assertSuccess(await(main.cqA(), "the write with immediate"), 4, Verbs.IBV_WC_RDMA_WRITE, "writer");
        final WorkCompletions got = await(main.cqB(), "the immediate");
        assertSuccess(got, 200, Verbs.IBV_WC_RECV_RDMA_WITH_IMM, "target");
        assertTrue((got.wcFlags(0) & Verbs.IBV_WC_WITH_IMM) != 0, "wc_flags " + got.wcFlags(0));
        assertEquals(imm, got.immData(0), "imm_data");
        assertEquals(1000, got.byteLen(0), "byte_len of a write with immediate is the write's length");
        assertBytes(memoryA, 393216, memoryB, 524288, 1000, "written bytes");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aBadRkeyIsAnErrorCompletionNotAHang() {
        // a pair of its own with receive queues of its own: the error moves its QPs to the error state
        final Pair pair = Pair.connect(MemorySegment.NULL);
        try {
            final RecvWr recv = new RecvWr(ARENA).set(300, memoryB.address() + 655360, 64, Verbs.lkey(mrB));
            assertEquals(0, ops.postRecv(pair.b(), recv), "ibv_post_recv");
            final SendWr write = new SendWr(ARENA).rdmaWrite(5, memoryA.address(), 64, Verbs.lkey(mrA),
                memoryB.address(), Verbs.rkey(mrB) ^ 0x5a5a00, Verbs.IBV_SEND_SIGNALED);
            assertEquals(0, ops.postSend(pair.a(), write), "ibv_post_send (bad rkey)");
            final WorkCompletions wc = await(pair.cqA(), "the write with a bad rkey");
            System.out.println("bad rkey: status " + wc.status(0) + " (" + Verbs.wcStatusText(wc.status(0))
                + "), vendor_err " + wc.vendorErr(0));
            assertEquals(5, wc.wrId(0), "wr_id");
            assertNotEquals(Verbs.IBV_WC_SUCCESS, wc.status(0), "a write with a bad rkey succeeded");
        } finally {
            pair.destroy();
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void controlPathFailuresAreIbvExceptionsNamingTheCallAndTheErrno() {
        // rxe's max_cqe is 32767: a CQ of 2^24 entries is refused with an errno, not a NULL dereference
        final IbvException cq = assertThrows(IbvException.class, () -> Verbs.createCq(context, 1 << 24));
        System.out.println("oversized CQ: " + cq.getMessage());
        assertTrue(cq.getMessage().startsWith("ibv_create_cq: "), cq.getMessage());
        assertNotEquals(0, cq.errno(), cq.getMessage());
        assertTrue(cq.getMessage().endsWith(" (errno " + cq.errno() + ")"), cq.getMessage());
        // RESET -> RTS skips INIT and RTR: the kernel refuses the transition
        final MemorySegment lone = Verbs.createCq(context, 4);
        final MemorySegment qp = VerbsQp.createRc(pd, lone, lone, srq, new VerbsQp.Capacity(4, 0, 1, 1, 0));
        try {
            final IbvException rts = assertThrows(IbvException.class, () -> VerbsQp.toRts(qp, 0, 14, 7, 7, 1));
            System.out.println("RESET -> RTS: " + rts.getMessage());
            assertTrue(rts.getMessage().startsWith("ibv_modify_qp(RTS): "), rts.getMessage());
            assertNotEquals(0, rts.errno(), rts.getMessage());
        } finally {
            VerbsQp.destroy(qp);
            Verbs.destroyCq(lone);
        }
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void postingAndPollingThroughTheOpsTableAllocatesNothing() {
        final RecvWr recv = new RecvWr(ARENA).set(400, memoryB.address() + 786432, 64, Verbs.lkey(mrB));
        final SendWr send = new SendWr(ARENA).send(401, memoryA.address(), 8, 0,
            Verbs.IBV_SEND_SIGNALED | Verbs.IBV_SEND_INLINE);
        final WorkCompletions wcA = new WorkCompletions(ARENA, 1);
        final WorkCompletions wcB = new WorkCompletions(ARENA, 1);
        // warm-up first (C2 compiles the loop), then three windows, the least kept
        assertEquals(0, roundTrips(12_000, recv, send, wcA, wcB), "warm-up failed");
        final long[] windows = new long[3];
        for (int w = 0; w < windows.length; w++) {
            final long before = AllocationMeasureKit.allocatedBytes();
            final int failed = roundTrips(1_000, recv, send, wcA, wcB);
            windows[w] = AllocationMeasureKit.allocatedBytes() - before;
            assertEquals(0, failed, "window " + w + ": a post, poll or completion failed");
        }
        System.out.println("bytes allocated by 1000 x (post_srq_recv, post_send, 2 x poll_cq): "
            + java.util.Arrays.toString(windows));
        assertEquals(0, java.util.Arrays.stream(windows).min().orElseThrow(), java.util.Arrays.toString(windows));
    }

    /**
     * Inline 8-byte sends through the SRQ, each waited for on both sides (60 s at most each); the number of failed
     * posts, polls and completions, 0 if none.
     */
    private static int roundTrips(int count, RecvWr recv, SendWr send, WorkCompletions wcA, WorkCompletions wcB) {
        int failed = 0;
        for (int i = 0; i < count; i++) {
            final long deadline = System.nanoTime() + WAIT_NANOS;
            failed += ops.postSrqRecv(srq, recv) == 0 ? 0 : 1;
            failed += ops.postSend(main.a(), send) == 0 ? 0 : 1;
            failed += spin(main.cqA(), wcA, deadline) && wcA.status(0) == Verbs.IBV_WC_SUCCESS ? 0 : 1;
            failed += spin(main.cqB(), wcB, deadline) && wcB.status(0) == Verbs.IBV_WC_SUCCESS ? 0 : 1;
            if (failed > 0) {
                return failed;
            }
        }
        return failed;
    }

    private static boolean spin(MemorySegment cq, WorkCompletions wc, long deadline) {
        while (System.nanoTime() < deadline) {
            final int n = ops.pollCq(cq, wc);
            if (n != 0) {
                return n == 1;
            }
        }
        return false;
    }

    @Test
    void theProviderIsAvailableHere() {
        final IbvConduitProvider provider = new IbvConduitProvider();
        assertTrue(provider.isAvailable(), () -> "unavailable: " + provider.unavailabilityCause());
    }
}
