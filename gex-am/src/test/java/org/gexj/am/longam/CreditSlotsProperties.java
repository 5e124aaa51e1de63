package org.gexj.am.longam;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

class CreditSlotsProperties {
    enum Kind { ACQUIRE, RELEASE, RELEASE_FREE }

    /**
     * One call. {@code pick} chooses among the slots the model holds toward the peer (RELEASE) or among those it does
     * not hold (RELEASE_FREE, a double release), modulo their count, so every generated sequence is meaningful.
     */
    record Op(Kind kind, int peer, int pick) {
        @Override
        public String toString() {
            return switch (kind) {
                case ACQUIRE -> "acquire(peer=" + peer + ")";
                case RELEASE -> "release(peer=" + peer + ", held #" + pick + ")";
                case RELEASE_FREE -> "releaseNotHeld(peer=" + peer + ", free #" + pick + ")";
            };
        }
    }

    record Run(int peers, int slotsPerPeer, List<Op> ops) {
    }

    /** The acquire weight varies per run, so that some runs exhaust even 64 slots and others drain to empty. */
    private static Gen<Run> runs() {
        return in -> {
            final int peers = Generate.range(1, 3).generate(in);
            final int slots = Generate.pick(List.of(1, 2, 4, 8, 64)).generate(in);
            final int acquireWeight = Generate.range(1, 9).generate(in);
            final Gen<Kind> kinds = Generate.frequency(Pair.of(acquireWeight, Generate.constant(Kind.ACQUIRE)),
                Pair.of(10 - acquireWeight, Generate.constant(Kind.RELEASE)),
                Pair.of(1, Generate.constant(Kind.RELEASE_FREE)));
            final int length = Generate.range(0, 300).generate(in);
            final List<Op> ops = new ArrayList<>(length);
            for (int i = 0; i < length; i++) {
                ops.add(new Op(kinds.generate(in), Generate.range(0, peers - 1).generate(in),
                    Generate.range(0, 63).generate(in)));
            }
            return new Run(peers, slots, ops);
        };
    }

    @Test
    void aSlotIsNeverHandedOutTwiceAndCreditRunsOutExactlyWhenAllAreInFlight() {
        qt().withExamples(1000).forAll(runs()).checkAssert(run -> {
            final CreditSlots credits = new CreditSlots(run.peers(), run.slotsPerPeer());
            final List<List<Integer>> held = new ArrayList<>();
            for (int p = 0; p < run.peers(); p++) {
                held.add(new ArrayList<>());
            }
            for (int i = 0; i < run.ops().size(); i++) {
                final Op op = run.ops().get(i);
                final List<Integer> mine = held.get(op.peer());
                final String where = "op " + i + " " + op + ", model holds " + mine;
                switch (op.kind()) {
                    case ACQUIRE -> {
                        final int slot = credits.acquire(op.peer());
                        if (mine.size() == run.slotsPerPeer()) {
                            assertEquals(CreditSlots.NO_CREDIT, slot, where);
                        } else {
                            assertTrue(slot >= 0 && slot < run.slotsPerPeer(), where + ": got " + slot);
                            assertFalse(mine.contains(slot), where + ": got " + slot + " twice");
                            mine.add(slot);
                        }
                    }
                    case RELEASE -> {
                        if (!mine.isEmpty()) {
                            credits.release(op.peer(), mine.remove(op.pick() % mine.size()));
                        }
                    }
                    case RELEASE_FREE -> {
                        final List<Integer> free = new ArrayList<>();
                        for (int s = 0; s < run.slotsPerPeer(); s++) {
                            if (!mine.contains(s)) {
                                free.add(s);
                            }
                        }
                        if (!free.isEmpty()) {
                            final int slot = free.get(op.pick() % free.size());
                            final IllegalStateException e = assertThrows(IllegalStateException.class,
                                () -> credits.release(op.peer(), slot), where);
                            assertTrue(e.getMessage().contains("slot " + slot)
                                && e.getMessage().contains("peer " + op.peer()), e.getMessage());
                        }
                    }
                }
                for (int p = 0; p < run.peers(); p++) {
                    assertEquals(held.get(p).size(), credits.inFlight(p), where + ": in flight toward peer " + p);
                }
            }
        });
    }

    @Test
    void constructorAcceptsExactlyPowersOfTwoUpTo64() {
        qt().forAll(integers().between(-5, 200)).checkAssert(slots -> {
            final boolean allowed = slots >= 1 && slots <= 64 && Integer.bitCount(slots) == 1;
            if (allowed) {
                assertEquals(slots, new CreditSlots(3, slots).slotsPerPeer());
            } else {
                final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new CreditSlots(3, slots));
                assertTrue(e.getMessage().contains(slots + " slots per peer")
                    && e.getMessage().contains("1..64"), e.getMessage());
            }
        });
        assertThrows(IllegalArgumentException.class, () -> new CreditSlots(0, 8));
        final CreditSlots credits = new CreditSlots(2, 8);
        assertThrows(IllegalArgumentException.class, () -> credits.acquire(2));
        assertThrows(IllegalArgumentException.class, () -> credits.release(0, 8));
    }

    /**
     * Sender threads take and give back slots of two peers as fast as they can, each holding up to three at once, so
     * that demand exceeds credit. Ownership flags, set on acquire and cleared before release, catch any slot that two
     * threads hold at the same time.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentSendersNeverHoldTheSameSlot() throws Exception {
        final int threads = 4;
        final int peers = 2;
        final int slots = 4;
        final int rounds = 1_000_000;
        final CreditSlots credits = new CreditSlots(peers, slots);
        final AtomicBoolean[][] owned = new AtomicBoolean[peers][slots];
        for (final AtomicBoolean[] row : owned) {
            for (int s = 0; s < slots; s++) {
                row[s] = new AtomicBoolean();
            }
        }
        final AtomicReference<String> violation = new AtomicReference<>();
        final AtomicLong acquired = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final CyclicBarrier start = new CyclicBarrier(threads);
        final List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            senders.add(Thread.ofPlatform().name("sender-" + t).start(() -> {
                try {
                    start.await();
                    hammer(credits, owned, rounds, violation, acquired, refused);
                } catch (Throwable e) {
                    violation.compareAndSet(null, Thread.currentThread().getName() + " failed: " + e);
                }
            }));
        }
        for (final Thread sender : senders) {
            sender.join();
        }
        System.out.println("CreditSlots under " + threads + " threads: " + acquired.get() + " acquired, "
            + refused.get() + " refused for lack of credit");
        assertNull(violation.get());
        assertTrue(acquired.get() > rounds, "the senders acquired slots: " + acquired.get());
        for (int p = 0; p < peers; p++) {
            assertEquals(0, credits.inFlight(p), "every slot toward peer " + p + " came back");
        }
    }

    /** One sender: acquires (holding up to three slots) or releases at random, then gives back what it holds. */
    private static void hammer(CreditSlots credits, AtomicBoolean[][] owned, int rounds,
                               AtomicReference<String> violation, AtomicLong acquired, AtomicLong refused) {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final int peers = owned.length;
        final int[] heldPeer = new int[3];
        final int[] heldSlot = new int[3];
        int count = 0;
        for (int i = 0; i < rounds && violation.get() == null; i++) {
            if (count < heldPeer.length && (count == 0 || random.nextBoolean())) {
                final int peer = random.nextInt(peers);
                final int slot = credits.acquire(peer);
                if (slot == CreditSlots.NO_CREDIT) {
                    refused.incrementAndGet();
                } else if (!owned[peer][slot].compareAndSet(false, true)) {
                    violation.compareAndSet(null, "slot " + slot + " toward peer " + peer + " handed to "
                        + Thread.currentThread().getName() + " while another thread held it");
                } else {
                    acquired.incrementAndGet();
                    heldPeer[count] = peer;
                    heldSlot[count++] = slot;
                }
            } else if (count > 0) {
                final int k = random.nextInt(count);
                final int peer = heldPeer[k];
                final int slot = heldSlot[k];
                heldPeer[k] = heldPeer[--count];
                heldSlot[k] = heldSlot[count];
                owned[peer][slot].set(false);
                credits.release(peer, slot);
            }
        }
        while (count > 0) {
            count--;
            owned[heldPeer[count]][heldSlot[count]].set(false);
            credits.release(heldPeer[count], heldSlot[count]);
        }
    }
}
