package org.gexj.smp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.smp.ffm.UioH;
import org.gexj.smp.wire.RegistrationTableFlyweight;
import org.gexj.spi.RegisteredAccess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SmpRegisteredAccess} between two ranks' tables in this process (Cross Memory Attach to its own pid): the
 * owner's checks hold without the owner (closed, stale, out of range, read-only, unmapped), heap memory and
 * unpublished slots go elsewhere, and a withdrawal waits for a copy in progress.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SmpRegisteredAccessTest {
    private static final int HANDLE = (1 << RegisteredAccess.SLOT_BITS) | 5; // generation 1, slot 5
    private final Arena arena = Arena.ofShared();
    private final RegistrationTableFlyweight[] tables = new RegistrationTableFlyweight[2];
    private final SmpRegisteredAccess access;

    SmpRegisteredAccessTest() {
        for (int r = 0; r < 2; r++) {
            final MemorySegment m = arena.allocate(RegistrationTableFlyweight.length(), 4096);
            tables[r] = new RegistrationTableFlyweight().wrap(new UnsafeBuffer(m.address(), (int) m.byteSize()));
            tables[r].initialise(ProcessHandle.current().pid());
        }
        access = SmpRegisteredAccess.open("on", 0, 1, tables, new UioH(arena));
    }

    @AfterEach
    void free() {
        arena.close();
    }

    @Test
    void aPublishedRegistrationIsReachedAndTheOwnersChecksHold() {
        final MemorySegment owned = arena.allocate(4096);
        access.publish(HANDLE, owned); // rank 1 owns it
        final MemorySegment local = arena.allocate(4096);
        local.fill((byte) 9);
        assertEquals(RegisteredAccess.OK, access.put(1, HANDLE, 100, local, 0, 200));
        assertEquals(9, owned.get(ValueLayout.JAVA_BYTE, 299));
        assertEquals(0, owned.get(ValueLayout.JAVA_BYTE, 300));
        assertEquals(RegisteredAccess.OK, access.get(local, 1000, 1, HANDLE, 0, 101));
        assertEquals(0, local.get(ValueLayout.JAVA_BYTE, 1099));
        assertEquals(9, local.get(ValueLayout.JAVA_BYTE, 1100));
        assertEquals(RegisteredAccess.OUT_OF_RANGE, access.put(1, HANDLE, 4000, local, 0, 97));
        assertEquals(RegisteredAccess.OUT_OF_RANGE, access.get(local, 0, 1, HANDLE, Long.MAX_VALUE, 2));
        assertEquals(RegisteredAccess.NOT_REGISTERED, access.put(1, HANDLE + (1 << RegisteredAccess.SLOT_BITS),
            0, local, 0, 1), "a stale generation");
        assertEquals(RegisteredAccess.NOT_REGISTERED, access.put(0, HANDLE, 0, local, 0, 1), "another rank's");
        assertEquals(RegisteredAccess.ELSEWHERE, access.put(1, HANDLE, 0, MemorySegment.ofArray(new byte[8]), 0, 8),
            "heap memory");
        assertEquals(RegisteredAccess.ELSEWHERE, access.put(1, RegistrationTableFlyweight.SLOTS, 0, local, 0, 8),
            "a slot beyond the table");
        access.withdraw(HANDLE);
        owned.fill((byte) 0);
        assertEquals(RegisteredAccess.NOT_REGISTERED, access.put(1, HANDLE, 0, local, 0, 8));
        assertEquals(0, owned.get(ValueLayout.JAVA_BYTE, 0), "written after the withdrawal");
    }

    @Test
    void readOnlyMemoryIsReadNotWritten() {
        final MemorySegment owned = arena.allocate(64);
        owned.fill((byte) 3);
        access.publish(HANDLE, owned.asReadOnly());
        final MemorySegment local = arena.allocate(64);
        assertEquals(RegisteredAccess.READ_ONLY, access.put(1, HANDLE, 0, local, 0, 8));
        assertEquals(3, owned.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(RegisteredAccess.OK, access.get(local, 0, 1, HANDLE, 0, 64));
        assertEquals(3, local.get(ValueLayout.JAVA_BYTE, 63));
        access.withdraw(HANDLE);
    }

    @Test
    void memoryWhosePagesWereUnmappedFaultsInsteadOfBeingWritten() {
        final Arena dropped = Arena.ofShared();
        // above glibc's largest mmap threshold: freeing it unmaps it
        final MemorySegment owned = dropped.allocate(64L << 20);
        access.publish(HANDLE, owned);
        dropped.close();
        final MemorySegment local = arena.allocate(4096);
        assertEquals(RegisteredAccess.FAULT, access.put(1, HANDLE, 0, local, 0, 4096));
        access.withdraw(HANDLE);
    }

    @Test
    void aWithdrawalWaitsForACopyInProgress() throws Exception {
        final MemorySegment owned = arena.allocate(64);
        access.publish(HANDLE, owned);
        final int slot = RegisteredAccess.slotOf(HANDLE);
        assertTrue(tables[1].enter(slot, HANDLE), "a peer's copy starts");
        final Thread owner = Thread.ofPlatform().start(() -> access.withdraw(HANDLE));
        owner.join(300);
        assertTrue(owner.isAlive(), "the withdrawal returned with a copy in progress");
        assertFalse(tables[1].enter(slot, HANDLE), "a copy started after the close began");
        tables[1].exit(slot);
        owner.join(5000);
        assertFalse(owner.isAlive(), "the withdrawal did not return once the copy ended");
        final int next = HANDLE + (1 << RegisteredAccess.SLOT_BITS);
        access.publish(next, owned); // the slot is free again
        assertEquals(RegisteredAccess.OK, access.get(arena.allocate(8), 0, 1, next, 0, 8));
    }

    /** A peer that Cross Memory Attach cannot reach (here: no such process) means the rings, or a failure with on. */
    @Test
    void aPeerThatCannotBeReachedMeansTheRingsOrAFailureWithOn() {
        final MemorySegment m = arena.allocate(RegistrationTableFlyweight.length(), 4096);
        final RegistrationTableFlyweight gone = new RegistrationTableFlyweight().wrap(new UnsafeBuffer(m.address(),
            (int) m.byteSize()));
        gone.initialise(Integer.MAX_VALUE); // above any pid_max: ESRCH
        final RegistrationTableFlyweight[] withGone = {tables[0], gone};
        final SmpRegisteredAccess auto = SmpRegisteredAccess.open("auto", 0, 0, withGone, new UioH(arena));
        assertFalse(auto.enabled());
        assertEquals(RegisteredAccess.ELSEWHERE, auto.put(0, HANDLE, 0, arena.allocate(8), 0, 8));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SmpRegisteredAccess.open("on", 0, 0, withGone, new UioH(arena)));
        assertTrue(e.getMessage().contains("rank 1") && e.getMessage().contains("ESRCH"), e.getMessage());
        assertTrue(SmpRegisteredAccess.open("auto", 0, 0, tables, new UioH(arena)).enabled(), "reachable peers");
    }

    @Test
    void operationsBelowTheMinimumGoThroughTheRings() {
        final SmpRegisteredAccess large = SmpRegisteredAccess.open("on", 4096, 1, tables, new UioH(arena));
        final MemorySegment owned = arena.allocate(8192);
        large.publish(HANDLE, owned);
        final MemorySegment local = arena.allocate(8192);
        assertEquals(RegisteredAccess.ELSEWHERE, large.put(1, HANDLE, 0, local, 0, 4095));
        assertEquals(RegisteredAccess.ELSEWHERE, large.get(local, 0, 1, HANDLE, 0, 4095));
        assertEquals(RegisteredAccess.OK, large.put(1, HANDLE, 0, local, 0, 4096));
        large.withdraw(HANDLE);
    }

    @Test
    void aBadSettingIsNamed() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SmpRegisteredAccess.open("sometimes", 0, 0, tables, new UioH(arena)));
        assertTrue(e.getMessage().contains("GEX_SMP_CMA=sometimes") && e.getMessage().contains("auto, on, off"),
            e.getMessage());
    }
}
