package org.gexj.rdma;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * {@link RdmaRegistrationCache} against a model, over random sequences of acquires, releases and arena closes (which
 * free memory that a new arena often gets back at the same address): a registration handed out covers the range, is
 * live, and belongs to memory of the caller's arena while that arena is open; memory already covered is not registered
 * again; unused registrations never hold more than the limit; an eviction takes the least recently used unused one.
 */
class RdmaRegistrationCacheProperties {
    private static final long ARENA_BYTES = 64 << 10;
    private static final int ARENAS = 3;

    /** One fake NIC registration, as the test's register function made it. */
    private static final class Pin {
        final MemorySegment memory;
        boolean released;
        int users;
        /** Being made by the acquire that runs: newer than every other. */
        long lastUse = Long.MAX_VALUE;

        Pin(MemorySegment memory) {
            this.memory = memory;
        }
    }

    private static final class Model {
        final Map<Long, Pin> pins = new HashMap<>();
        final Arena[] arenas = new Arena[ARENAS];
        final MemorySegment[] memory = new MemorySegment[ARENAS];
        final List<Integer> held = new ArrayList<>();
        final List<Pin> heldPins = new ArrayList<>();
        long nextKey = 1;
        long clock;
        /** The cache closes: it releases everything, in no order. */
        boolean closing;
        final long limit;
        final RdmaRegistrationCache cache;

        Model(long limit, int capacity) {
            this.limit = limit;
            for (int a = 0; a < ARENAS; a++) {
                open(a);
            }
            cache = new RdmaRegistrationCache(this::register, limit, capacity);
        }

        void open(int a) {
            arenas[a] = Arena.ofShared();
            memory[a] = arenas[a].allocate(ARENA_BYTES, 4096);
        }

        RdmaRegion register(MemorySegment m) {
            final long key = nextKey++;
            final Pin pin = new Pin(m);
            pins.put(key, pin);
            return new RdmaRegion(key, key, () -> release(pin));
        }

        void release(Pin pin) {
            assertFalse(pin.released, "a registration released twice");
            assertEquals(0, pin.users, "a registration released while an operation uses it");
            if (pin.memory.scope().isAlive() && !closing) {
                for (Pin other : pins.values()) {
                    if (!other.released && other != pin && other.users == 0 && other.memory.scope().isAlive()) {
                        assertTrue(other.lastUse > pin.lastUse, "evicted a registration used at " + pin.lastUse
                            + " while one unused since " + other.lastUse + " stayed");
                    }
                }
            }
            pin.released = true;
        }

        void acquire(int a, long offset, long nbytes) {
            final MemorySegment local = memory[a];
            final long address = local.address() + offset;
            final Pin covering = live(local.scope(), address, nbytes);
            final long before = nextKey;
            final int entry = cache.acquire(local, address, nbytes);
            clock++;
            if (entry < 0) {
                assertTrue(covering == null, "a live registration covered the range, yet none was handed out");
                return;
            }
            final Pin pin = pins.get(cache.descriptor(entry));
            assertFalse(pin.released, "handed out a released registration");
            assertTrue(pin.memory.scope().isAlive() && pin.memory.scope().equals(local.scope()),
                "handed out a registration of another arena's memory, or of a closed one");
            assertTrue(pin.memory.address() <= address && address + nbytes <= pin.memory.address()
                + pin.memory.byteSize(), "the registration does not cover the range");
            if (covering != null) {
                assertEquals(before, nextKey, "registered again memory that a live registration covered");
            }
            pin.users++;
            pin.lastUse = clock;
            held.add(entry);
            heldPins.add(pin);
        }

        Pin live(MemorySegment.Scope scope, long address, long nbytes) {
            for (Pin p : pins.values()) {
                if (!p.released && p.memory.scope().isAlive() && p.memory.scope().equals(scope)
                    && p.memory.address() <= address && address + nbytes <= p.memory.address() + p.memory.byteSize()) {
                    return p;
                }
            }
            return null;
        }

        void releaseHeld(int i) {
            final int entry = held.remove(i);
            final Pin pin = heldPins.remove(i);
            pin.users--;
            cache.release(entry);
        }

        void check() {
            long pinned = 0;
            long unused = 0;
            int entries = 0;
            for (Pin p : pins.values()) {
                if (!p.released) {
                    pinned += p.memory.byteSize();
                    unused += p.users == 0 ? p.memory.byteSize() : 0;
                    entries++;
                }
            }
            assertEquals(pinned, cache.pinnedBytes(), "bytes held");
            assertEquals(unused, cache.unusedBytes(), "bytes held unused");
            assertEquals(entries, cache.entries(), "registrations held");
            assertTrue(unused <= limit, "unused registrations hold " + unused + " bytes, over the limit " + limit);
        }

        void close() {
            while (!held.isEmpty()) {
                releaseHeld(held.size() - 1);
            }
            closing = true;
            cache.close();
            assertEquals(0, cache.pinnedBytes());
            for (Pin p : pins.values()) {
                assertTrue(p.released, "the close left a registration open");
            }
            for (Arena a : arenas) {
                if (a.scope().isAlive()) {
                    a.close();
                }
            }
        }
    }

    @Test
    void everyHandedOutRegistrationIsLiveCoversItsRangeAndTheUnusedOnesFitTheLimit() {
        qt().withExamples(300).forAll(lists().of(integers().between(0, Integer.MAX_VALUE)).ofSizeBetween(1, 120),
            integers().between(0, 3)).checkAssert((steps, shape) -> {
                final long limit = new long[] {16 << 10, 40 << 10, 128 << 10, 1 << 20}[shape];
                final Model m = new Model(limit, shape == 0 ? 3 : 8);
                try {
                    for (int step : steps) {
                        final int what = step % 10;
                        final int a = (step / 10) % ARENAS;
                        if (what < 6) {
                            final long offset = (step / 30) % ARENA_BYTES;
                            final long nbytes = 1 + (step / 7) % Math.min(ARENA_BYTES - offset, 20_000);
                            m.acquire(a, offset, nbytes);
                        } else if (what < 9 && !m.held.isEmpty()) {
                            m.releaseHeld((step / 10) % m.held.size());
                        } else if (what == 9) {
                            m.arenas[a].close(); // its memory is freed; a new arena often gets the same address
                            m.open(a);
                        }
                        m.check();
                    }
                } finally {
                    m.close();
                }
            });
    }

    @Test
    void theSameBufferUsedAgainIsRegisteredOnceAndALimitOfZeroCachesNothing() {
        final Model m = new Model(1 << 20, 8);
        for (int i = 0; i < 100; i++) {
            m.acquire(0, 100, 4000);
            m.releaseHeld(0);
        }
        assertEquals(1, m.cache.misses());
        assertEquals(99, m.cache.hits());
        m.close();
        final Model none = new Model(0, 8);
        none.acquire(0, 0, 10);
        assertTrue(none.held.isEmpty(), "a cache of 0 bytes handed out a registration");
        none.close();
    }

    @Test
    void memoryOfAClosedArenaAtTheSameAddressGetsANewRegistration() {
        final Model m = new Model(1 << 20, 8);
        m.acquire(0, 0, 4096);
        final Pin first = m.heldPins.get(0);
        m.releaseHeld(0);
        m.arenas[0].close();
        m.open(0);
        m.acquire(0, 0, 4096);
        assertTrue(first.released, "the closed arena's registration was kept");
        assertTrue(m.heldPins.get(0) != first, "the closed arena's registration was handed out again");
        m.close();
    }

    /**
     * Memory reached through a raw address (the global scope, always alive) may be freed outside any arena and come
     * back as an arena's: a registration made through the raw address is not handed out for the arena's memory.
     */
    @Test
    void aRegistrationMadeThroughARawAddressIsNotHandedOutForAnArenasMemory() {
        final Model m = new Model(1 << 20, 8);
        final MemorySegment raw = MemorySegment.ofAddress(m.memory[0].address()).reinterpret(ARENA_BYTES);
        final int entry = m.cache.acquire(raw, raw.address(), 100);
        m.cache.release(entry);
        m.acquire(0, 0, 100);
        assertEquals(2, m.cache.misses(), "the arena's memory was given the raw address's registration");
        m.close();
    }
}
