package org.gexj.ibv;

import org.gexj.ibv.ffm.RecvWr;
import org.gexj.ibv.ffm.SendWr;
import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsAh;
import org.gexj.ibv.ffm.VerbsLayouts;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The unreliable-datagram (UD) bindings on a real device, in one process: two UD QPs on one port (A and B, each with
 * a send and a receive CQ of its own), an address handle towards each other's GID, datagrams both ways through the
 * context's ops table. What an on-demand connection channel relies on: the receiver learns the sender's QP number
 * from the completion ({@code src_qp}), the payload lands after the 40-byte GRH, a datagram with another Q_Key is
 * dropped, and the per-datagram calls allocate nothing. Not run by the host suite (no device there): run it in the
 * Soft-RoCE guest, {@code tools/rxe-vm/run-junit.sh conduit-ibv IbvUdOnDevice}. The device is {@code RXE_DEVICE},
 * else the conduit's own choice, as in {@link IbvLoopbackOnDevice}; every wait is bounded.
 */
class IbvUdOnDevice {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int SIZE = 1 << 20;
    /** A receive slot: the GRH and the largest datagram (MTU 4096), rounded up. */
    private static final int SLOT = 8192;
    /** Below 0x80000000: a controlled Q_Key (high bit) needs privileges. */
    private static final int QKEY = 0x1E0F0A55;
    private static final int GRH = Verbs.UD_GRH_BYTES;
    private static final Arena ARENA = Arena.ofShared();

    private static OnDeviceVerbs device;
    private static MemorySegment context;
    private static VerbsOps ops;
    private static MemorySegment pd;
    private static MemorySegment memoryA;
    private static MemorySegment memoryB;
    private static MemorySegment mrA;
    private static MemorySegment mrB;
    private static Side a;
    private static Side b;
    private static int port;
    private static int gidIndex;
    private static MemorySegment gid;
    private static int lid;
    private static int mtuBytes;

    /** One UD endpoint: its QP, its two CQs, and the address handle it sends to the other one through. */
    private static final class Side {
        final String name;
        final MemorySegment sendCq;
        final MemorySegment recvCq;
        final MemorySegment qp;
        final MemorySegment memory;
        final int lkey;
        MemorySegment ahToOther;

        Side(String name, MemorySegment memory, int lkey) {
            this.name = name;
            this.memory = memory;
            this.lkey = lkey;
            this.sendCq = Verbs.createCq(context, 64);
            this.recvCq = Verbs.createCq(context, 64);
            this.qp = VerbsQp.createUd(pd, sendCq, recvCq, new VerbsQp.Capacity(16, 16, 1, 1, 64));
            VerbsQp.toInitUd(qp, port, QKEY);
            VerbsQp.toRtrUd(qp);
            VerbsQp.toRtsUd(qp, 0);
        }

        int qpn() {
            return VerbsQp.qpNum(qp);
        }

        /** A receive into slot {@code slot} of this side's memory (GRH and payload), {@code wr_id} = slot. */
        void postReceive(int slot) {
            final RecvWr recv = new RecvWr(ARENA).set(slot, memory.address() + (long) slot * SLOT, SLOT, lkey);
            assertEquals(0, ops.postRecv(qp, recv), name + ": ibv_post_recv of slot " + slot);
        }

        void destroy() {
            if (ahToOther != null) {
                VerbsAh.destroy(ahToOther);
            }
            VerbsQp.destroy(qp);
            Verbs.destroyCq(sendCq);
            Verbs.destroyCq(recvCq);
        }
    }

    @BeforeAll
    static void openTheDeviceAndMakeTwoUdQps() {
        device = OnDeviceVerbs.open(ARENA);
        context = device.context();
        ops = device.ops();
        port = device.port();
        mtuBytes = Verbs.mtuBytes(device.mtu());
        lid = device.lid();
        gidIndex = device.gidIndex();
        gid = device.gid();
        pd = device.pd();
        memoryA = ARENA.allocate(SIZE, 4096);
        memoryB = ARENA.allocate(SIZE, 4096);
        mrA = Verbs.regMr(pd, memoryA, Verbs.IBV_ACCESS_LOCAL_WRITE);
        mrB = Verbs.regMr(pd, memoryB, Verbs.IBV_ACCESS_LOCAL_WRITE);
        a = new Side("A", memoryA, Verbs.lkey(mrA));
        b = new Side("B", memoryB, Verbs.lkey(mrB));
        // both QPs are on the same port: each one's route to the other is to our own GID
        a.ahToOther = VerbsAh.create(pd, port, gid, gidIndex, lid);
        b.ahToOther = VerbsAh.create(pd, port, gid, gidIndex, lid);
        System.out.println("UD QPs: A " + a.qpn() + ", B " + b.qpn());
    }

    @AfterAll
    static void closeEverything() {
        for (Side side : new Side[] {a, b}) {
            if (side != null) {
                side.destroy();
            }
        }
        if (pd != null) {
            Verbs.deregMr(mrA);
            Verbs.deregMr(mrB);
        }
        if (device != null) {
            device.close();
        }
    }

    /** Polls {@code cq} until {@code count} completions arrived or 60 s passed; fails naming {@code what}. */
    private static WorkCompletions await(MemorySegment cq, int count, String what) {
        final WorkCompletions wc = new WorkCompletions(ARENA, count);
        final long deadline = System.nanoTime() + WAIT_NANOS;
        int got = 0;
        while (got < count && System.nanoTime() < deadline) {
            final int n = ops.pollCq(cq, count - got, wc.segment().asSlice(got * VerbsLayouts.IBV_WC.byteSize()));
            assertTrue(n >= 0, "ibv_poll_cq returned " + n + " waiting for " + what);
            got += n;
            if (n == 0) {
                Thread.onSpinWait();
            }
        }
        if (got < count) {
            fail("only " + got + " of " + count + " completions of " + what + " in 60 s");
        }
        return wc;
    }

    private static void assertSuccess(WorkCompletions wc, int i, int opcode, String what) {
        assertEquals(Verbs.IBV_WC_SUCCESS, wc.status(i), what + ": " + Verbs.wcStatusText(wc.status(i))
            + " (vendor_err " + wc.vendorErr(i) + ")");
        assertEquals(opcode, wc.opcode(i), what + ": opcode");
    }

    private static void fill(MemorySegment memory, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            memory.set(JAVA_BYTE, offset + i, (byte) (seed + i * 31));
        }
    }

    /** Nothing more arrives on {@code cq} (one poll: whatever was sent before has completed already). */
    private static void assertEmpty(MemorySegment cq, String what) {
        final WorkCompletions wc = new WorkCompletions(ARENA, 1);
        assertEquals(0, ops.pollCq(cq, wc), what + ": an unexpected completion, wr_id " + wc.wrId(0) + " status "
            + wc.status(0) + " byte_len " + wc.byteLen(0));
    }

    /**
     * Sends one datagram per length from {@code from} to {@code to} (receives posted first, slots 0..n-1; the first
     * datagram inline), then checks every receive completion: success, the receiving QP, the sender's QP number, the
     * GRH counted in {@code byte_len}, the payload after it. Datagrams are matched to completions by their length:
     * UD promises no order.
     */
    private static void exchange(Side from, Side to, int[] lengths) {
        for (int slot = 0; slot < lengths.length; slot++) {
            to.postReceive(slot);
        }
        final SendWr send = new SendWr(ARENA);
        long offset = 0;
        for (int i = 0; i < lengths.length; i++) {
            fill(from.memory, offset, lengths[i], 17 * i + 3);
            final int flags = Verbs.IBV_SEND_SIGNALED | (i == 0 ? Verbs.IBV_SEND_INLINE : 0);
            send.sendUd(1000 + i, from.memory.address() + offset, lengths[i], from.lkey, flags, from.ahToOther,
                to.qpn(), QKEY);
            assertEquals(0, ops.postSend(from.qp, send), from.name + ": ibv_post_send of " + lengths[i] + " B");
            offset += SLOT;
        }
        final WorkCompletions sent = await(from.sendCq, lengths.length, "the sends of " + from.name);
        for (int i = 0; i < lengths.length; i++) {
            assertSuccess(sent, i, Verbs.IBV_WC_SEND, from.name + "'s send " + i);
            assertEquals(1000 + i, sent.wrId(i), "send wr_id (a send queue completes in order)");
        }
        final WorkCompletions got = await(to.recvCq, lengths.length, "the datagrams " + Arrays.toString(lengths)
            + " from " + from.name + " to " + to.name);
        final List<Integer> unmatched = new ArrayList<>(Arrays.stream(lengths).boxed().toList());
        final boolean v4 = isIpv4Mapped(gid);
        for (int i = 0; i < lengths.length; i++) {
            final String what = to.name + "'s receive " + i;
            assertSuccess(got, i, Verbs.IBV_WC_RECV, what);
            assertEquals(to.qpn(), got.qpNum(i), what + ": qp_num is the receiving QP");
            assertEquals(from.qpn(), got.srcQp(i), what + ": src_qp is the sending QP");
            final int length = got.byteLen(i) - GRH;
            final int k = Arrays.stream(lengths).boxed().toList().indexOf(length);
            assertTrue(unmatched.remove((Integer) length), what + ": byte_len " + got.byteLen(i) + " is not "
                + GRH + " + one of the outstanding lengths " + unmatched);
            final long slot = got.wrId(i) * SLOT;
            final long mismatch = MemorySegment.mismatch(from.memory, (long) k * SLOT, (long) k * SLOT + length,
                to.memory, slot + GRH, slot + GRH + length);
            assertEquals(-1, mismatch, what + ": payload of " + length + " B after the GRH, first differing byte");
            System.out.println(what + ": " + length + " B in slot " + got.wrId(i) + ", src_qp " + got.srcQp(i)
                + ", wc_flags " + got.wcFlags(i) + ", GRH " + HexFormat.of().formatHex(to.memory.asSlice(slot, GRH)
                .toArray(JAVA_BYTE)));
            assertTrue((got.wcFlags(i) & Verbs.IBV_WC_GRH) != 0, what + ": IBV_WC_GRH not in wc_flags "
                + got.wcFlags(i));
            if (v4) {
                // RoCE v2 over IPv4: the GRH's last 20 bytes are the IPv4 header; its source is the sender's GID
                assertEquals(0x45, Byte.toUnsignedInt(to.memory.get(JAVA_BYTE, slot + 20)), what + ": IPv4 header");
                assertEquals(-1, MemorySegment.mismatch(gid, 12, 16, to.memory, slot + 32, slot + 36),
                    what + ": the IPv4 source address in the GRH is the sender's");
            }
        }
        assertEmpty(to.recvCq, to.name + "'s receive CQ after the datagrams");
    }

    private static boolean isIpv4Mapped(MemorySegment gid) {
        for (int i = 0; i < 10; i++) {
            if (gid.get(JAVA_BYTE, i) != 0) {
                return false;
            }
        }
        return gid.get(JAVA_BYTE, 10) == (byte) 0xFF && gid.get(JAVA_BYTE, 11) == (byte) 0xFF;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void threeDatagramsArriveAfterTheGrhNamingTheSendingQp() {
        exchange(a, b, new int[] {17, 333, mtuBytes});
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theReceiverRepliesToTheQpNumberItLearnedFromTheCompletion() {
        b.postReceive(0);
        final SendWr request = new SendWr(ARENA).sendUd(1, memoryA.address(), 40, a.lkey,
            Verbs.IBV_SEND_SIGNALED, a.ahToOther, b.qpn(), QKEY);
        fill(memoryA, 0, 40, 9);
        assertEquals(0, ops.postSend(a.qp, request), "A: ibv_post_send of the request");
        assertSuccess(await(a.sendCq, 1, "A's request"), 0, Verbs.IBV_WC_SEND, "A's request");
        final WorkCompletions got = await(b.recvCq, 1, "A's request at B");
        assertSuccess(got, 0, Verbs.IBV_WC_RECV, "B's receive");
        final int replyTo = got.srcQp(0);
        assertEquals(a.qpn(), replyTo, "src_qp");
        // the reply: B -> A, addressed only by what B learned (its route to the port, the QP number from src_qp)
        a.postReceive(1);
        fill(memoryB, SLOT, 700, 21);
        final SendWr reply = new SendWr(ARENA).sendUd(2, memoryB.address() + SLOT, 700, b.lkey,
            Verbs.IBV_SEND_SIGNALED, b.ahToOther, replyTo, QKEY);
        assertEquals(0, ops.postSend(b.qp, reply), "B: ibv_post_send of the reply");
        assertSuccess(await(b.sendCq, 1, "B's reply"), 0, Verbs.IBV_WC_SEND, "B's reply");
        final WorkCompletions answer = await(a.recvCq, 1, "B's reply at A");
        assertSuccess(answer, 0, Verbs.IBV_WC_RECV, "A's receive");
        assertEquals(1, answer.wrId(0), "wr_id of A's receive");
        assertEquals(b.qpn(), answer.srcQp(0), "src_qp of the reply");
        assertEquals(GRH + 700, answer.byteLen(0), "byte_len of the reply");
        assertEquals(-1, MemorySegment.mismatch(memoryB, SLOT, SLOT + 700, memoryA, SLOT + GRH, SLOT + GRH + 700),
            "reply payload, first differing byte");
        // and the datagrams of the other test both ways through the same QPs
        exchange(b, a, new int[] {1, 512, mtuBytes - 1});
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aDatagramWithAnotherQkeyIsDroppedByTheReceiver() {
        b.postReceive(0);
        final SendWr send = new SendWr(ARENA);
        fill(memoryA, 0, 64, 5);
        send.sendUd(11, memoryA.address(), 50, a.lkey, Verbs.IBV_SEND_SIGNALED, a.ahToOther, b.qpn(), QKEY + 1);
        assertEquals(0, ops.postSend(a.qp, send), "A: ibv_post_send with the wrong Q_Key");
        send.sendUd(12, memoryA.address(), 60, a.lkey, Verbs.IBV_SEND_SIGNALED, a.ahToOther, b.qpn(), QKEY);
        assertEquals(0, ops.postSend(a.qp, send), "A: ibv_post_send with the right Q_Key");
        // UD: both leave successfully; only the receiver knows the Q_Key
        final WorkCompletions sent = await(a.sendCq, 2, "A's two sends");
        assertSuccess(sent, 0, Verbs.IBV_WC_SEND, "the send with the wrong Q_Key");
        assertSuccess(sent, 1, Verbs.IBV_WC_SEND, "the send with the right Q_Key");
        final WorkCompletions got = await(b.recvCq, 1, "the datagram with the right Q_Key");
        assertSuccess(got, 0, Verbs.IBV_WC_RECV, "B's receive");
        assertEquals(GRH + 60, got.byteLen(0), "the one receive took the datagram with the right Q_Key");
        assertEmpty(b.recvCq, "B's receive CQ");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void controlPathFailuresAreIbvExceptionsNamingTheCall() {
        // an sgid index past the port's GID table: the library refuses the address handle
        final IbvException ah = assertThrows(IbvException.class, () -> VerbsAh.create(pd, port, gid, 255, lid));
        System.out.println("AH from GID index 255: " + ah.getMessage());
        assertTrue(ah.getMessage().startsWith("ibv_create_ah: "), ah.getMessage());
        assertNotEquals(0, ah.errno(), ah.getMessage());
        // RESET -> RTS skips INIT and RTR: the kernel refuses the transition
        final MemorySegment cq = Verbs.createCq(context, 4);
        final MemorySegment qp = VerbsQp.createUd(pd, cq, cq, new VerbsQp.Capacity(4, 4, 1, 1, 0));
        try {
            final IbvException rts = assertThrows(IbvException.class, () -> VerbsQp.toRtsUd(qp, 0));
            System.out.println("UD RESET -> RTS: " + rts.getMessage());
            assertTrue(rts.getMessage().startsWith("ibv_modify_qp(UD RTS): "), rts.getMessage());
            assertNotEquals(0, rts.errno(), rts.getMessage());
        } finally {
            VerbsQp.destroy(qp);
            Verbs.destroyCq(cq);
        }
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void sendingAndReceivingDatagramsAllocatesNothing() {
        final RecvWr recv = new RecvWr(ARENA).set(400, memoryB.address() + 64L * SLOT, SLOT, b.lkey);
        final SendWr send = new SendWr(ARENA);
        final WorkCompletions wcA = new WorkCompletions(ARENA, 1);
        final WorkCompletions wcB = new WorkCompletions(ARENA, 1);
        // warm-up first (the JIT compiles the loop), then three windows, the least kept
        assertEquals(0, roundTrips(12_000, recv, send, wcA, wcB), "warm-up failed");
        final long[] windows = new long[3];
        for (int w = 0; w < windows.length; w++) {
            final long before = AllocationMeasureKit.allocatedBytes();
            final int failed = roundTrips(1_000, recv, send, wcA, wcB);
            windows[w] = AllocationMeasureKit.allocatedBytes() - before;
            assertEquals(0, failed, "window " + w + ": a post, poll or completion failed");
        }
        System.out.println("bytes allocated by 1000 x (post_recv, sendUd + post_send, 2 x poll_cq): "
            + Arrays.toString(windows));
        assertEquals(0, Arrays.stream(windows).min().orElseThrow(), Arrays.toString(windows));
    }

    /**
     * Inline 16-byte datagrams A -> B, each waited for on both sides (60 s at most each), the work request rewritten
     * every time as a channel would; the number of failed posts, polls and completions, 0 if none.
     */
    private static int roundTrips(int count, RecvWr recv, SendWr send, WorkCompletions wcA, WorkCompletions wcB) {
        int failed = 0;
        for (int i = 0; i < count; i++) {
            final long deadline = System.nanoTime() + WAIT_NANOS;
            failed += ops.postRecv(b.qp, recv) == 0 ? 0 : 1;
            send.sendUd(i, memoryA.address(), 16, 0, Verbs.IBV_SEND_SIGNALED | Verbs.IBV_SEND_INLINE, a.ahToOther,
                b.qpn(), QKEY);
            failed += ops.postSend(a.qp, send) == 0 ? 0 : 1;
            failed += spin(a.sendCq, wcA, deadline) && wcA.status(0) == Verbs.IBV_WC_SUCCESS ? 0 : 1;
            failed += spin(b.recvCq, wcB, deadline) && wcB.status(0) == Verbs.IBV_WC_SUCCESS
                && wcB.srcQp(0) == a.qpn() && wcB.byteLen(0) == GRH + 16 ? 0 : 1;
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
}
