package org.gexj.ibv.wire;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

/** The connection datagram: fields round-trip at any offset; only a message of this job, to this rank, is valid. */
class IbvConnectFlyweightTest {
    @Test
    void fieldsRoundTripAtAnyOffset() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment memory = arena.allocate(256);
            final IbvConnectFlyweight m = new IbvConnectFlyweight();
            qt().withExamples(500).forAll(integers().between(0, 256 - IbvConnectFlyweight.LENGTH),
                integers().between(1, 3), integers().all(), integers().between(0, 0xFFFFFF))
                .checkAssert((offset, kind, tag, qpn) -> {
                    final int psn = (qpn * 31 + 7) & 0xFFFFFF;
                    m.wrap(memory, offset).write(kind, tag, 5, 2, qpn, psn);
                    assertEquals(IbvConnectFlyweight.VERSION, m.version());
                    assertEquals(kind, m.kind());
                    assertEquals(tag, m.tag());
                    assertEquals(5, m.source());
                    assertEquals(2, m.destination());
                    assertEquals(qpn, m.qpn());
                    assertEquals(psn, m.psn());
                    assertTrue(m.valid(tag, 2, 6));
                });
        }
    }

    @Test
    void messagesOfAnotherJobRankOrKindAreInvalid() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment memory = arena.allocate(IbvConnectFlyweight.LENGTH);
            final IbvConnectFlyweight m = new IbvConnectFlyweight().wrap(memory, 0);
            m.write(IbvConnectFlyweight.REQUEST, 42, 1, 0, 100, 200);
            assertTrue(m.valid(42, 0, 2));
            assertFalse(m.valid(43, 0, 2), "another job's tag");
            assertFalse(m.valid(42, 1, 2), "to another rank");
            assertFalse(m.valid(42, 0, 1), "from a rank outside the job");
            m.write(IbvConnectFlyweight.REQUEST, 42, 0, 0, 100, 200);
            assertFalse(m.valid(42, 0, 2), "from itself");
            m.write(4, 42, 1, 0, 100, 200);
            assertFalse(m.valid(42, 0, 2), "unknown kind");
            m.write(IbvConnectFlyweight.REPLY, 42, 1, 0, 1 << 24, 200);
            assertFalse(m.valid(42, 0, 2), "QP number over 24 bits");
            memory.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 7);
            assertFalse(m.valid(42, 0, 2), "another version");
            assertEquals("offset 1 outside [0, 0]: a connection message takes 24 bytes of 24",
                assertThrows(IllegalArgumentException.class, () -> m.wrap(memory, 1)).getMessage());
        }
    }
}
