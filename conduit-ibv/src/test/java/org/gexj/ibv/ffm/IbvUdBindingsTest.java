package org.gexj.ibv.ffm;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The unreliable-datagram bindings without a device: what {@link SendWr#sendUd} writes into the work request (and
 * that the RC setters, sharing the union, still write theirs after it), the address handle's arguments refused before
 * any call, and the MTU's bytes. {@code IbvUdOnDevice} sends datagrams through them on a device.
 */
class IbvUdBindingsTest {
    @Test
    void aUdSendFillsTheUdMembersOfTheWorkRequestsUnion() {
        try (Arena arena = Arena.ofConfined()) {
            final SendWr send = new SendWr(arena);
            final MemorySegment ah = MemorySegment.ofAddress(0x7f00_1234_5000L);
            final MemorySegment wr = send.sendUd(77, 0x4000, 300, 9, Verbs.IBV_SEND_SIGNALED, ah, 0xABCDE,
                0x11111111).segment();
            assertEquals(77, wr.get(JAVA_LONG, SendWr.WR_ID));
            assertEquals(Verbs.IBV_WR_SEND, wr.get(JAVA_INT, SendWr.OPCODE));
            assertEquals(Verbs.IBV_SEND_SIGNALED, wr.get(JAVA_INT, SendWr.SEND_FLAGS));
            assertEquals(1, wr.get(JAVA_INT, SendWr.NUM_SGE));
            assertEquals(ah.address(), wr.get(ADDRESS, SendWr.UD_AH).address(), "wr.ud.ah");
            assertEquals(0xABCDE, wr.get(JAVA_INT, SendWr.UD_REMOTE_QPN), "wr.ud.remote_qpn");
            assertEquals(0x11111111, wr.get(JAVA_INT, SendWr.UD_REMOTE_QKEY), "wr.ud.remote_qkey");
            final MemorySegment sge = wr.get(ADDRESS, SendWr.SG_LIST).reinterpret(VerbsLayouts.IBV_SGE.byteSize());
            assertEquals(0x4000, sge.get(JAVA_LONG, SendWr.SGE_ADDR));
            assertEquals(300, sge.get(JAVA_INT, SendWr.SGE_LENGTH));
            assertEquals(9, sge.get(JAVA_INT, SendWr.SGE_LKEY));

            // the same object reused for an RC write: wr.rdma overwrites wr.ud's bytes with its own
            send.rdmaWrite(78, 0x5000, 64, 9, 0x9999_0000L, 0x4242, 0);
            assertEquals(Verbs.IBV_WR_RDMA_WRITE, wr.get(JAVA_INT, SendWr.OPCODE));
            assertEquals(0x9999_0000L, wr.get(JAVA_LONG, SendWr.REMOTE_ADDR), "wr.rdma.remote_addr");
            assertEquals(0x4242, wr.get(JAVA_INT, SendWr.RKEY), "wr.rdma.rkey");
            // and back: a datagram without payload carries no scatter/gather entry
            send.sendUd(79, 0, 0, 0, 0, ah, 5, 6);
            assertEquals(0, wr.get(JAVA_INT, SendWr.NUM_SGE));
            assertEquals(ah.address(), wr.get(ADDRESS, SendWr.UD_AH).address(), "wr.ud.ah after an RC write");
            assertEquals(5, wr.get(JAVA_INT, SendWr.UD_REMOTE_QPN));
            assertEquals(6, wr.get(JAVA_INT, SendWr.UD_REMOTE_QKEY));
        }
    }

    @Test
    void anAddressHandlesBadArgumentsAreRefusedBeforeAnyCall() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment gid = arena.allocate(16);
            final MemorySegment pd = MemorySegment.NULL;
            assertRefused("port 0: expected 1..255", () -> VerbsAh.create(pd, 0, gid, 1, 0));
            assertRefused("port 256: expected 1..255", () -> VerbsAh.create(pd, 256, gid, 1, 0));
            assertRefused("remote GID of 8 bytes: expected 16", () -> VerbsAh.create(pd, 1, gid.asSlice(0, 8), 1, 0));
            assertRefused("sgid index -1: expected 0..255", () -> VerbsAh.create(pd, 1, gid, -1, 0));
            assertRefused("sgid index 256: expected 0..255", () -> VerbsAh.create(pd, 1, gid, 256, 0));
            assertRefused("remote LID 65536: expected 0..65535", () -> VerbsAh.create(pd, 1, gid, 1, 65536));
            assertRefused("remote LID -1: expected 0..65535", () -> VerbsAh.create(pd, 1, gid, 1, -1));
        }
    }

    private static void assertRefused(String message, Runnable call) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, call::run).getMessage());
    }

    @Test
    void theMtuEnumIsTurnedIntoBytes() {
        assertEquals(256, Verbs.mtuBytes(Verbs.IBV_MTU_256));
        assertEquals(1024, Verbs.mtuBytes(Verbs.IBV_MTU_1024));
        assertEquals(4096, Verbs.mtuBytes(Verbs.IBV_MTU_4096));
        assertRefused("enum ibv_mtu 0: expected 1..5", () -> Verbs.mtuBytes(0));
        assertRefused("enum ibv_mtu 6: expected 1..5", () -> Verbs.mtuBytes(6));
    }
}
