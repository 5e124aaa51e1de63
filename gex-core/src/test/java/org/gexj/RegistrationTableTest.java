package org.gexj;

import org.gexj.spi.RegisteredAccess;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegistrationTableTest {
    private final RegistrationTable table = new RegistrationTable(3, null);

    @Test
    void aRegistrationIsFoundByItsHandleUntilItIsClosed() {
        final MemorySegment memory = Arena.ofAuto().allocate(1000);
        final Registration r = table.register(memory);
        final BufferDescriptor d = r.descriptor();
        assertEquals(3, d.rank());
        assertEquals(memory.address(), d.address());
        assertEquals(1000, d.length());
        assertNotEquals(0, d.handle());
        assertSame(memory, table.memory(d.handle()));
        r.close();
        assertFalse(r.isOpen());
        assertNull(table.memory(d.handle()));
        r.close(); // idempotent
        assertEquals(0, table.open());
    }

    @Test
    void aStaleHandleIsRefusedAfterItsSlotHoldsAnotherRegistration() {
        final Set<Integer> handles = new HashSet<>();
        Registration last = null;
        for (int i = 0; i < 1000; i++) {
            final Registration r = table.register(Arena.ofAuto().allocate(64));
            assertTrue(handles.add(r.descriptor().handle()), "handle reused: " + r);
            if (last != null) {
                last.close();
                assertNull(table.memory(last.descriptor().handle()));
            }
            last = r;
        }
        assertEquals(1, table.open());
        assertSame(last.memory(), table.memory(last.descriptor().handle()));
    }

    @Test
    void manyOpenRegistrationsAreEachFoundAndCloseAllClosesThem() {
        final Registration[] rs = new Registration[300];
        for (int i = 0; i < rs.length; i++) {
            rs[i] = table.register(Arena.ofAuto().allocate(8 + i));
        }
        for (Registration r : rs) {
            assertSame(r.memory(), table.memory(r.descriptor().handle()));
        }
        table.closeAll();
        for (Registration r : rs) {
            assertFalse(r.isOpen());
            assertNull(table.memory(r.descriptor().handle()));
        }
        assertEquals(0, table.open());
    }

    @Test
    void memoryWhoseArenaClosedIsNotFound() {
        final Arena arena = Arena.ofShared();
        final Registration r = table.register(arena.allocate(128));
        arena.close();
        assertNull(table.memory(r.descriptor().handle()));
    }

    @Test
    void unknownHandlesAreNotFound() {
        assertNull(table.memory(1));
        assertNull(table.memory(-1));
        assertNull(table.memory(Integer.MAX_VALUE));
    }

    @Test
    void heapConfinedAndClosedMemoryIsRefusedWithTheReason() {
        assertMessage(() -> table.register(MemorySegment.ofArray(new byte[8])), "heap");
        try (Arena confined = Arena.ofConfined()) {
            final MemorySegment m = confined.allocate(8);
            assertMessage(() -> table.register(m), "confined");
        }
        final Arena closed = Arena.ofShared();
        final MemorySegment gone = closed.allocate(8);
        closed.close();
        assertMessage(() -> table.register(gone), "closed arena");
        assertThrows(NullPointerException.class, () -> table.register(null));
        assertEquals(0, table.open());
    }

    /**
     * A conduit with zero-copy access sees every registration published and withdrawn, and those whose arena closed
     * withdrawn at the owner's sweep (its barrier), since its peers cannot see the arena close.
     */
    @Test
    void aZeroCopyConduitSeesPublicationsWithdrawalsAndClosedArenas() {
        final List<String> calls = new ArrayList<>();
        final RegistrationTable published = new RegistrationTable(0, new PublishingOnly() {
            @Override
            public OptionalLong publish(int handle, MemorySegment memory) {
                calls.add("publish " + handle + " " + memory.byteSize());
                return OptionalLong.empty();
            }

            @Override
            public void withdraw(int handle) {
                calls.add("withdraw " + handle);
            }
        });
        final Arena kept = Arena.ofShared();
        final Arena dropped = Arena.ofShared();
        final Registration a = published.register(kept.allocate(10));
        final Registration b = published.register(dropped.allocate(20));
        a.close();
        dropped.close();
        published.closeThoseOfClosedArenas();
        assertFalse(b.isOpen(), "the registration of a closed arena stayed open");
        assertEquals(List.of("publish " + a.handle() + " 10", "publish " + b.handle() + " 20", "withdraw " + a.handle(),
            "withdraw " + b.handle()), calls);
        published.closeThoseOfClosedArenas();
        assertEquals(4, calls.size(), "withdrawn twice");
        kept.close();
    }

    /**
     * A conduit that registers memory with its NIC for peers gives a key, which the descriptor carries (flag KEYED)
     * with the read-only flag; a registration the NIC refuses leaves nothing registered and its slot free.
     */
    @Test
    void aKeyFromTheConduitGoesIntoTheDescriptor() {
        final boolean[] refuse = {false};
        final RegistrationTable keyed = new RegistrationTable(3, new PublishingOnly() {
            @Override
            public OptionalLong publish(int handle, MemorySegment memory) {
                if (refuse[0]) {
                    throw new IllegalStateException("the NIC refused it");
                }
                return OptionalLong.of(0x5150L + memory.byteSize());
            }

            @Override
            public void withdraw(int handle) {
            }
        });
        try (Arena arena = Arena.ofShared()) {
            final BufferDescriptor writable = keyed.register(arena.allocate(16)).descriptor();
            assertEquals(0x5150L + 16, writable.key());
            assertTrue(writable.keyed());
            assertFalse(writable.readOnly());
            final BufferDescriptor readOnly = keyed.register(arena.allocate(32).asReadOnly()).descriptor();
            assertEquals(BufferDescriptor.KEYED | BufferDescriptor.READ_ONLY, readOnly.flags());
            assertEquals(readOnly, BufferDescriptor.fromBytes(readOnly.toBytes()), "flags survive the encoding");
            refuse[0] = true;
            assertThrows(IllegalStateException.class, () -> keyed.register(arena.allocate(8)));
            assertEquals(2, keyed.open());
            refuse[0] = false;
            final Registration next = keyed.register(arena.allocate(8));
            assertEquals(2, next.handle() & (RegistrationTable.MAX_SLOTS - 1), "the refused registration's slot");
            assertEquals(3, keyed.open());
        }
        final RegistrationTable plain = new RegistrationTable(0, null);
        try (Arena arena = Arena.ofShared()) {
            final BufferDescriptor d = plain.register(arena.allocate(8).asReadOnly()).descriptor();
            assertEquals(BufferDescriptor.READ_ONLY, d.flags(), "no conduit key: not KEYED");
        }
    }

    /** A conduit's access that only sees publications and withdrawals: it moves nothing itself. */
    private abstract static class PublishingOnly implements RegisteredAccess {
        @Override
        public int put(int peer, int handle, long offset, MemorySegment src, long srcOffset, long nbytes) {
            return ELSEWHERE;
        }

        @Override
        public int get(MemorySegment dst, long dstOffset, int peer, int handle, long offset, long nbytes) {
            return ELSEWHERE;
        }

        @Override
        public boolean pullable(int handle) {
            return false;
        }

        @Override
        public int pull(MemorySegment dst, long dstOffset, int peer, int handle, long offset, long nbytes) {
            return ELSEWHERE;
        }
    }

    private static void assertMessage(Runnable r, String mentioned) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(mentioned), "'" + e.getMessage() + "' should name " + mentioned);
    }
}
