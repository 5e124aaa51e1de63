package org.gexj.testkit;

import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Many threads per rank on one client, part 2 of 2, run against every conduit: {@value #THREADS} threads send while a
 * handler runs on the polling thread (the handler waits for their sends to return), and issue NB puts and gets at
 * once. Every message and operation is checked exactly, as in part 1 ({@link AmThreadsKit}, whose AM test this kit
 * runs too): conduits subclass this kit.
 *
 * <p>Tests are written for any job size of 2 or more; a subclass runs them with more ranks through
 * {@link #ranks(int)}. Jobs run as threads of the test's JVM.
 */
public abstract class ThreadsKit extends AmThreadsKit {
    /** NB operations per sending thread, alternately puts and gets. */
    private static final int RMA_OPS = 300;
    /** Put slots per (source, thread) in each target; NB operations in flight per thread is twice this. */
    private static final int PUT_SLOTS = 4;
    private static final int MAX_PUT = 80 * 1024;
    /** The part of each segment that is only read (by gets), filled with the rank's pattern. */
    private static final int STATIC_AREA = 256 * 1024;
    /** Sends per sending thread and category while a handler runs. */
    private static final int HELD_SENDS = 4;

    /**
     * Whether a Long sent with {@link Lc#NOW} waits for something only a poll brings (the local completion of its
     * payload's put): then, while a handler holds the polling thread, it waits for the handler to return, and the
     * test of sends during a handler sends its Longs with {@link Lc#GROUP} instead and waits for them after.
     */
    protected boolean longCompletionNeedsPoll() {
        return false;
    }

    /**
     * While a request handler runs on rank 0's polling thread (and waits, without polling, until they are done),
     * {@value #THREADS} other threads of rank 0 send {@value #HELD_SENDS} Short, Medium and Long requests each to the
     * other ranks: their sends return while the handler runs (Mediums up to 4 KiB, so they fit every conduit's credits;
     * Longs with {@link Lc#GROUP} where {@link #longCompletionNeedsPoll()}). The other ranks handle them and reply; the
     * replies and the held handler's own reply all arrive, once each.
     */
    @Test
    void threadsSendWhileAHandlerRuns() {
        job(2, client -> {
            final Am am = Am.of(client);
            final int me = client.rank();
            final int size = client.size();
            final int others = size - 1;
            client.attachSegment((long) THREADS * HELD_SENDS * MAX_LONG); // a place for each Long
            // small Mediums: what the threads send while the handler runs fits any conduit's credits or window
            final int maxMedium = (int) Math.min(am.maxRequestMedium(-1, 3), 4096);
            final Lc longLc = longCompletionNeedsPoll() ? Lc.GROUP : Lc.NOW;
            final Errors errors = new Errors();
            final CountDownLatch holding = new CountDownLatch(1);
            final AtomicBoolean inHandler = new AtomicBoolean();
            final AtomicBoolean held = new AtomicBoolean();
            final AtomicInteger sentWhileHeld = new AtomicInteger();
            final AtomicInteger sentOutside = new AtomicInteger();
            final AtomicInteger requestsHere = new AtomicInteger();
            final AtomicInteger repliesHere = new AtomicInteger();
            final AtomicInteger heldReplies = new AtomicInteger();
            final int sends = THREADS * HELD_SENDS * 3;
            final int reply = am.register(AmHandler.shortReply(1, (t, a) -> repliesHere.incrementAndGet()));
            final int[] request = new int[3];
            for (int c = 0; c < 3; c++) {
                final int category = c;
                final ReplyCheck onRequest = (t, p, a) -> {
                    final int seed = seedOf(t.sourceRank(), me, a.get(0), a.get(1), 0);
                    if (t.sourceRank() != 0 || a.get(0) < 0 || a.get(0) >= THREADS || a.get(2) != seed) {
                        errors.add("request from " + t.sourceRank() + " with args " + a.get(0) + ", " + a.get(1));
                    }
                    if (p != null) {
                        final int n = lengthOf(seed, category == MEDIUM ? maxMedium : MAX_LONG);
                        if (p.length() != n) {
                            errors.add("request " + a.get(1) + " of category " + category + ": " + p.length()
                                + " bytes, want " + n);
                        }
                        checkPattern(errors, "request " + a.get(1) + " of thread " + a.get(0), p, seed);
                    }
                    requestsHere.incrementAndGet();
                    if (t.replyShort(reply, a.get(1)) != Am.OK) {
                        errors.add("reply to request " + a.get(1) + " refused");
                    }
                };
                request[c] = am.register(switch (category) {
                    case SHORT -> AmHandler.shortRequest(3, (t, a) -> onRequest.check(t, null, a));
                    case MEDIUM -> AmHandler.mediumRequest(3, onRequest::check);
                    default -> AmHandler.longRequest(3, onRequest::check);
                });
            }
            final int heldReply = am.register(AmHandler.shortReply(0, (t, a) -> heldReplies.incrementAndGet()));
            final int hold = am.register(AmHandler.shortRequest(0, (t, a) -> {
                inHandler.set(true);
                holding.countDown();
                final long deadline = System.nanoTime() + WAIT_NS;
                // no poll here: the sends must return while this handler holds the polling thread
                while (sentWhileHeld.get() + sentOutside.get() < sends && errors.count.get() == 0) {
                    if (System.nanoTime() > deadline) {
                        errors.add("the senders sent " + sentWhileHeld.get() + " of " + sends
                            + " while the handler ran, and no more in " + WAIT_NS / 1e9 + " s");
                        break;
                    }
                    Thread.yield();
                }
                inHandler.set(false);
                held.set(true);
                if (t.replyShort(heldReply) != Am.OK) {
                    errors.add("the held handler's reply was refused");
                }
            }));
            // rank 0's senders wait for the handler; started before the barrier, which may run it already
            final Senders senders = me != 0 ? null : new Senders(client, errors, "held", thread -> {
                final MemorySegment[] src = new MemorySegment[HELD_SENDS * 3]; // GROUP: a source for each
                for (int k = 0; k < src.length; k++) {
                    src[k] = Arena.ofAuto().allocate(MAX_LONG);
                }
                try {
                    if (!holding.await(WAIT_NS, TimeUnit.NANOSECONDS)) {
                        throw new IllegalStateException("the held handler did not run");
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (int k = 0; k < HELD_SENDS * 3; k++) {
                    final int i = thread * HELD_SENDS * 3 + k;
                    final int peer = 1 + (thread + k) % others;
                    final int seed = seedOf(0, peer, thread, i, 0);
                    final int n = lengthOf(seed, k % 3 == MEDIUM ? maxMedium : MAX_LONG);
                    Patterns.fill(src[k], 0, n, seed);
                    final int status = switch (k % 3) {
                        case SHORT -> am.requestShort(peer, request[SHORT], thread, i, seed);
                        case MEDIUM -> am.requestMedium(peer, request[MEDIUM], src[k], 0, n, Lc.NOW, thread, i,
                            seed);
                        default -> am.requestLong(peer, request[LONG], src[k], 0, n,
                            (long) (thread * HELD_SENDS + k / 3) * MAX_LONG, longLc, thread, i, seed);
                    };
                    if (status != Am.OK) {
                        errors.add("thread " + thread + " request " + i + " returned " + status);
                    }
                    // counted after the send returned: the handler is still running unless it gave up
                    (inHandler.get() ? sentWhileHeld : sentOutside).incrementAndGet();
                }
                am.nbiWait(Ec.AM); // the Longs sent with GROUP, if any: complete once the handler returned
            });
            if (senders != null) {
                senders.start();
            }
            client.barrier();
            if (me == 0) {
                // rank 0's thread polls: it runs the held handler when the last rank's request comes
                senders.pollUntilDone(client, () -> repliesHere.get() == sends && held.get());
                errors.check(client);
                assertEquals(sends, sentWhileHeld.get(), "sends that returned while the handler ran");
            } else if (me == size - 1) {
                assertEquals(Am.OK, am.requestShort(0, hold));
                final long deadline = System.nanoTime() + WAIT_NS;
                while (heldReplies.get() == 0 && errors.count.get() == 0 && System.nanoTime() < deadline) {
                    client.poll();
                    Thread.onSpinWait();
                }
                errors.check(client);
                assertEquals(1, heldReplies.get(), "the held handler's reply");
            }
            client.barrier(); // rank 0's requests were all handled: their replies came back before it entered
            pollAWhile(client, 50);
            client.barrier();
            errors.check(client);
            if (me == 0) {
                assertEquals(sends, repliesHere.get(), "replies handled by rank 0");
                assertEquals(0, requestsHere.get());
            } else {
                // rank 0's thread t sends its k-th request to 1 + (t + k) % others
                int want = 0;
                for (int thread = 0; thread < THREADS; thread++) {
                    for (int k = 0; k < HELD_SENDS * 3; k++) {
                        want += 1 + (thread + k) % others == me ? 1 : 0;
                    }
                }
                assertEquals(want, requestsHere.get(), "rank " + me + ": requests of rank 0 handled");
                assertEquals(me == size - 1 ? 1 : 0, heldReplies.get(), "the held handler's reply");
            }
            client.barrier();
        });
    }

    /**
     * {@value #THREADS} threads per rank each issue {@value #RMA_OPS} NB operations, alternately a put into their own
     * slots at another rank and a get of another rank's read-only area, {@code 2 * PUT_SLOTS} in flight, while the
     * rank's thread polls. Each get returns the bytes of the area; at the end each slot holds the last put into it.
     */
    @Test
    void nbPutsAndGetsFromManyThreadsLandIntact() {
        job(2, client -> {
            final Rma rma = Rma.of(client);
            final int me = client.rank();
            final int size = client.size();
            final long slotArea = (long) size * THREADS * PUT_SLOTS * MAX_PUT;
            final MemorySegment segment = client.attachSegment(STATIC_AREA + slotArea).memory();
            Patterns.fill(segment, 0, STATIC_AREA, 7000 + me);
            final Errors errors = new Errors();
            final AtomicInteger gets = new AtomicInteger();
            client.barrier();
            final Senders senders = new Senders(client, errors, "rma", thread -> {
                final int inFlight = 2 * PUT_SLOTS;
                final MemorySegment[] buffers = new MemorySegment[inFlight];
                for (int b = 0; b < inFlight; b++) {
                    buffers[b] = Arena.ofAuto().allocate(MAX_PUT);
                }
                final Event[] events = new Event[inFlight];
                final int[] getPeer = new int[inFlight];
                final int[] getOffset = new int[inFlight];
                final int[] getLength = new int[inFlight];
                for (int j = 0; j < RMA_OPS + inFlight; j++) {
                    final int b = j % inFlight;
                    if (events[b] != null) {
                        // the operation this buffer and, for a put, its slot served last: complete before reuse
                        events[b].await();
                        events[b] = null;
                        if (getLength[b] >= 0) {
                            final long bad = firstMismatchAt(buffers[b], getLength[b], 7000 + getPeer[b],
                                getOffset[b]);
                            if (bad >= 0) {
                                errors.add("thread " + thread + " get of " + getLength[b] + " bytes at "
                                    + getOffset[b] + " of rank " + getPeer[b] + " differs at byte " + bad);
                            }
                            gets.incrementAndGet();
                        }
                    }
                    if (j >= RMA_OPS) {
                        continue;
                    }
                    final int seed = seedOf(me, 0, thread, j, 2);
                    final int peer = targetOf(me, size, thread, j);
                    if (j % 2 == 0) {
                        final int n = lengthOf(seed, MAX_PUT);
                        Patterns.fill(buffers[b], 0, n, seed);
                        getLength[b] = -1;
                        events[b] = rma.putNb(peer, STATIC_AREA + putSlot(me, thread, j), buffers[b], 0, n, Lc.NOW);
                    } else {
                        final int n = lengthOf(seed, Math.min(MAX_PUT, STATIC_AREA));
                        final int at = Math.floorMod(seed >>> 7, STATIC_AREA - n + 1);
                        getPeer[b] = peer;
                        getOffset[b] = at;
                        getLength[b] = n;
                        buffers[b].fill((byte) 0);
                        events[b] = rma.getNb(buffers[b], 0, peer, at, n);
                    }
                }
            });
            senders.start();
            senders.pollUntilDone(client, () -> true);
            errors.check(client);
            assertEquals(THREADS * RMA_OPS / 2, gets.get(), "gets completed and checked");
            client.barrier(); // every rank's puts completed
            for (int s = 0; s < size; s++) {
                for (int thread = 0; thread < THREADS; thread++) {
                    final int[] last = new int[PUT_SLOTS];
                    java.util.Arrays.fill(last, -1);
                    for (int j = 0; j < RMA_OPS; j += 2) {
                        if (s != me && targetOf(s, size, thread, j) == me) {
                            last[j / 2 % PUT_SLOTS] = j;
                        }
                    }
                    for (int k = 0; k < PUT_SLOTS; k++) {
                        if (last[k] < 0) {
                            continue;
                        }
                        final int seed = seedOf(s, 0, thread, last[k], 2);
                        final long bad = Patterns.firstMismatch(segment, STATIC_AREA + putSlot(s, thread, last[k]),
                            lengthOf(seed, MAX_PUT), seed);
                        assertEquals(-1, bad, "rank " + me + ": slot " + k + " of rank " + s + " thread " + thread
                            + " holds put " + last[k] + " but for byte " + bad);
                    }
                }
            }
            assertEquals(-1, Patterns.firstMismatch(segment, 0, STATIC_AREA, 7000 + me), "the read-only area");
            client.barrier();
        });
    }

    /** Where put {@code j} of (source, thread) lands in the slot area: its slot among the thread's. */
    private static long putSlot(int source, int thread, int j) {
        return (long) ((source * THREADS + thread) * PUT_SLOTS + j / 2 % PUT_SLOTS) * MAX_PUT;
    }

    /** The first byte of {@code buffer[0, length)} that differs from pattern {@code seed} at {@code from}, or -1. */
    private static long firstMismatchAt(MemorySegment buffer, int length, int seed, int from) {
        for (int i = 0; i < length; i++) {
            if (buffer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != Patterns.at(seed, from + i)) {
                return i;
            }
        }
        return -1;
    }
}
