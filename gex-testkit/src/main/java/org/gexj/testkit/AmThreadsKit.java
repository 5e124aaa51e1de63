package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.Token;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Many threads per rank on one client, part 1 of 2, run against every conduit: {@value #THREADS} threads of each rank
 * send AM Short, Medium and Long requests (Longs up to {@value #MAX_LONG} bytes, above the packed maximum, so a conduit
 * with native RMA moves them by its large protocol: target-side reassembly by default on ofi) while the rank's own
 * thread polls and the handlers reply in the same category. Every message is delivered exactly once, with its
 * arguments and payload bytes as sent (patterns the receiver recomputes from the message's identity), and the counts
 * are checked exactly at the end. Also the parts both halves share: the message identities and patterns, the sending
 * threads, the error log.
 *
 * <p>Tests are written for any job size of 2 or more; a subclass runs them with more ranks through
 * {@link #ranks(int)}. Jobs run as threads of the test's JVM. Conduits subclass {@link ThreadsKit}, which runs both
 * parts.
 */
public abstract class AmThreadsKit extends ConduitKit {
    /** Longer than the kit's own waits, which report what they waited for; each method gets 60 s more. */
    @Override
    protected Duration timeout() {
        return Duration.ofSeconds(90);
    }

    /** Sending threads per rank, besides the rank's own thread, which polls. */
    protected static final int THREADS = 4;
    /** AM requests per sending thread: a third each Short, Medium and Long. */
    private static final int MESSAGES = 600;
    /** Requests in flight per sending thread; each has a slot for its Long payload at the target and its reply. */
    private static final int WINDOW = 4;
    static final int MAX_LONG = 32 * 1024;
    /** Errors kept word for word; the others are counted. */
    private static final int KEPT_ERRORS = 20;
    static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    /** The AM categories, also indices of the category handlers a test registers. */
    static final int SHORT = 0;
    static final int MEDIUM = 1;
    static final int LONG = 2;

    /**
     * The protocol a Long of {@value #MAX_LONG} bytes must take here ({@link Am#longProtocol}), or null to accept any:
     * a conduit with native RMA names its large protocol, so the kit is known to cover it.
     */
    protected String largeLongProtocol() {
        return null;
    }

    /** Mixes a message's identity into a pattern seed, also sent as an argument and checked against it. */
    static int seedOf(int source, int target, int thread, int i, int dir) {
        long x = 0x9E3779B97F4A7C15L * (source + 1) + 0xC2B2AE3D27D4EB4FL * (target + 1)
            + 0x165667B19E3779F9L * (thread + 1) + 0x27D4EB2F165667C5L * (i + 1) + dir;
        x ^= x >>> 31;
        x *= 0xBF58476D1CE4E5B9L;
        x ^= x >>> 29;
        return (int) x;
    }

    /** A payload length in [0, max]: the ends one time in eight each, else uniform. */
    static int lengthOf(int seed, int max) {
        final int pick = Math.floorMod(seed, 8);
        if (pick == 0) {
            return max;
        }
        if (pick == 1) {
            return Math.floorMod(seed >>> 3, 2); // 0 or 1 byte
        }
        return Math.floorMod(seed >>> 3, max + 1);
    }

    /** Message {@code i}'s target among the ranks other than {@code source}, spread over them by thread. */
    static int targetOf(int source, int size, int thread, int i) {
        final int k = Math.floorMod(i / 3 + thread, size - 1);
        return k < source ? k : k + 1;
    }

    /** Errors of one rank: the first few word for word, and how many in all. */
    static final class Errors {
        final List<String> kept = new CopyOnWriteArrayList<>();
        final AtomicInteger count = new AtomicInteger();

        void add(String error) {
            if (count.incrementAndGet() <= KEPT_ERRORS) {
                kept.add(error);
            }
        }

        void check(Client client) {
            assertEquals(0, count.get(), "rank " + client.rank() + ": " + count.get() + " errors, the first " + kept);
        }
    }

    static void checkPattern(Errors errors, String what, Payload p, int seed) {
        final long n = p.length();
        for (long i = 0; i < n; i++) {
            if (p.getByte(i) != Patterns.at(seed, i)) {
                errors.add(what + ": payload of " + n + " bytes differs at byte " + i);
                return;
            }
        }
    }

    /** Sending threads that record what they throw; the rank's thread polls until they end. */
    static final class Senders {
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicInteger running = new AtomicInteger();
        private final Errors errors;

        Senders(Client client, Errors errors, String name, java.util.function.IntConsumer body) {
            this.errors = errors;
            for (int t = 0; t < THREADS; t++) {
                final int thread = t;
                final Thread th = new Thread(() -> {
                    try {
                        body.accept(thread);
                    } catch (Throwable e) {
                        errors.add("thread " + thread + " threw " + e);
                    } finally {
                        running.decrementAndGet();
                    }
                }, "rank" + client.rank() + "-" + name + thread);
                th.setDaemon(true); // a thread stuck in a failed job must not keep the test JVM alive
                threads.add(th);
            }
        }

        void start() {
            running.set(threads.size());
            threads.forEach(Thread::start);
        }

        boolean done() {
            return running.get() == 0;
        }

        /** The rank's thread polls until the senders ended and {@code alsoDone} holds, or an error. */
        void pollUntilDone(Client client, java.util.function.BooleanSupplier alsoDone) throws InterruptedException {
            final long deadline = System.nanoTime() + WAIT_NS;
            while (!(done() && alsoDone.getAsBoolean())) {
                if (errors.count.get() > 0 && done()) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    errors.add("rank " + client.rank() + ": senders or replies not done after " + WAIT_NS / 1e9 + " s");
                    break;
                }
                client.poll();
                Thread.onSpinWait();
            }
            for (Thread th : threads) {
                th.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
            }
        }
    }

    /** Waits for {@code condition} without polling: the rank's own thread polls. */
    private static void spinUntil(Errors errors, String what, java.util.function.BooleanSupplier condition) {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " not after " + WAIT_NS / 1e9 + " s");
            }
            if (errors.count.get() > KEPT_ERRORS) {
                throw new IllegalStateException("giving up on " + what + ": errors elsewhere");
            }
            Thread.yield();
        }
    }

    /**
     * {@value #THREADS} threads per rank each send {@value #MESSAGES} requests, Short, Medium and Long in turn, to the
     * other ranks, at most {@value #WINDOW} in flight, while the rank's thread polls; each request handler checks its
     * message and replies in its category (a Long reply into the requester's segment). At the end every request and
     * every reply was handled exactly once with the bytes sent.
     */
    @Test
    void amsOfEveryCategoryFromManyThreadsArriveOnceIntact() {
        job(2, client -> {
            final Am am = Am.of(client);
            final int me = client.rank();
            final int size = client.size();
            final long requestArea = (long) size * THREADS * WINDOW * MAX_LONG;
            client.attachSegment(requestArea + (long) THREADS * WINDOW * MAX_LONG);
            final int maxMedium = (int) Math.min(Math.min(am.maxRequestMedium(-1, 3), am.maxReplyMedium(-1, 3)),
                64 * 1024);
            if (largeLongProtocol() != null) {
                assertEquals(largeLongProtocol(), am.longProtocol(MAX_LONG), "a Long of " + MAX_LONG + " bytes");
            }
            final Errors errors = new Errors();
            // per source rank, (thread, message): how often its request was handled here
            final AtomicIntegerArray[] requests = new AtomicIntegerArray[size];
            for (int s = 0; s < size; s++) {
                requests[s] = new AtomicIntegerArray(THREADS * MESSAGES);
            }
            final AtomicIntegerArray replies = new AtomicIntegerArray(THREADS * MESSAGES);
            final AtomicIntegerArray busy = new AtomicIntegerArray(THREADS * WINDOW);
            final AtomicInteger repliesHandled = new AtomicInteger();
            final ThreadLocal<MemorySegment> replySource = ThreadLocal.withInitial(
                () -> Arena.ofAuto().allocate(Math.max(maxMedium, MAX_LONG)));

            final int[] replyIndex = new int[3];
            final int[] requestIndex = new int[3];
            for (int c = 0; c < 3; c++) {
                final int category = c;
                final ReplyCheck onReply = (t, p, a) -> {
                    final int thread = a.get(0);
                    final int i = a.get(1);
                    if (thread < 0 || thread >= THREADS || i < 0 || i >= MESSAGES || i % 3 != category) {
                        errors.add("reply of category " + category + " with args " + thread + ", " + i);
                        return;
                    }
                    final int peer = targetOf(me, size, thread, i);
                    final int seed = seedOf(peer, me, thread, i, 1);
                    final String what = "reply to " + me + " thread " + thread + " message " + i;
                    if (t.sourceRank() != peer || a.get(2) != seed) {
                        errors.add(what + ": from " + t.sourceRank() + " (want " + peer + "), seed " + a.get(2));
                    }
                    if (p != null) {
                        final int max = category == MEDIUM ? maxMedium : MAX_LONG;
                        if (p.length() != lengthOf(seed, max)) {
                            errors.add(what + ": " + p.length() + " bytes, want " + lengthOf(seed, max));
                        }
                        if (category == LONG && p.length() > 0 && p.segmentOffset()
                            != requestArea + (long) (thread * WINDOW + i % WINDOW) * MAX_LONG) {
                            errors.add(what + ": Long reply at offset " + p.segmentOffset());
                        }
                        checkPattern(errors, what, p, seed);
                    }
                    if (replies.incrementAndGet(thread * MESSAGES + i) != 1) {
                        errors.add(what + ": handled again");
                    }
                    repliesHandled.incrementAndGet();
                    busy.set(thread * WINDOW + i % WINDOW, 0); // the slot's Long reply is checked: reusable
                };
                replyIndex[c] = am.register(switch (category) {
                    case SHORT -> AmHandler.shortReply(3, (t, a) -> onReply.check(t, null, a));
                    case MEDIUM -> AmHandler.mediumReply(3, onReply::check);
                    default -> AmHandler.longReply(3, onReply::check);
                });
            }
            for (int c = 0; c < 3; c++) {
                final int category = c;
                final int reply = replyIndex[c];
                final ReplyCheck onRequest = (t, p, a) -> {
                    final int source = t.sourceRank();
                    final int thread = a.get(0);
                    final int i = a.get(1);
                    if (thread < 0 || thread >= THREADS || i < 0 || i >= MESSAGES || i % 3 != category
                        || targetOf(source, size, thread, i) != me) {
                        errors.add("request of category " + category + " from " + source + " with args " + thread
                            + ", " + i);
                        return;
                    }
                    final String what = "request from " + source + " thread " + thread + " message " + i;
                    final int seed = seedOf(source, me, thread, i, 0);
                    if (a.get(2) != seed) {
                        errors.add(what + ": seed argument " + a.get(2) + ", want " + seed);
                    }
                    if (p != null) {
                        final int max = category == MEDIUM ? maxMedium : MAX_LONG;
                        if (p.length() != lengthOf(seed, max)) {
                            errors.add(what + ": " + p.length() + " bytes, want " + lengthOf(seed, max));
                        }
                        if (category == LONG && p.length() > 0 && p.segmentOffset()
                            != (long) ((source * THREADS + thread) * WINDOW + i % WINDOW) * MAX_LONG) {
                            errors.add(what + ": Long request at offset " + p.segmentOffset());
                        }
                        checkPattern(errors, what, p, seed);
                    }
                    if (requests[source].incrementAndGet(thread * MESSAGES + i) != 1) {
                        errors.add(what + ": handled again");
                    }
                    final int back = seedOf(me, source, thread, i, 1);
                    final int status;
                    if (category == SHORT) {
                        status = t.replyShort(reply, thread, i, back);
                    } else {
                        final int n = lengthOf(back, category == MEDIUM ? maxMedium : MAX_LONG);
                        final MemorySegment src = replySource.get();
                        Patterns.fill(src, 0, n, back);
                        status = category == MEDIUM ? t.replyMedium(reply, src, 0, n, Lc.NOW, thread, i, back)
                            : t.replyLong(reply, src, 0, n, requestArea
                                + (long) (thread * WINDOW + i % WINDOW) * MAX_LONG, Lc.NOW, thread, i, back);
                    }
                    if (status != Am.OK) {
                        errors.add(what + ": reply returned " + status);
                    }
                };
                requestIndex[c] = am.register(switch (category) {
                    case SHORT -> AmHandler.shortRequest(3, (t, a) -> onRequest.check(t, null, a));
                    case MEDIUM -> AmHandler.mediumRequest(3, onRequest::check);
                    default -> AmHandler.longRequest(3, onRequest::check);
                });
            }
            client.barrier();

            final Senders senders = new Senders(client, errors, "am", thread -> {
                final MemorySegment src = Arena.ofAuto().allocate(Math.max(maxMedium, MAX_LONG));
                for (int i = 0; i < MESSAGES; i++) {
                    final int category = i % 3;
                    final int slot = thread * WINDOW + i % WINDOW;
                    final int message = i;
                    // the slot's last request has its reply: its Long payload at the target was checked
                    spinUntil(errors, "thread " + thread + " slot " + slot, () -> busy.get(slot) == 0);
                    busy.set(slot, 1);
                    final int peer = targetOf(me, size, thread, i);
                    final int seed = seedOf(me, peer, thread, i, 0);
                    final int status;
                    if (category == SHORT) {
                        status = am.requestShort(peer, requestIndex[SHORT], thread, i, seed);
                    } else {
                        final int n = lengthOf(seed, category == MEDIUM ? maxMedium : MAX_LONG);
                        Patterns.fill(src, 0, n, seed);
                        status = category == MEDIUM
                            ? am.requestMedium(peer, requestIndex[MEDIUM], src, 0, n, Lc.NOW, thread, i, seed)
                            : am.requestLong(peer, requestIndex[LONG], src, 0, n,
                                (long) ((me * THREADS + thread) * WINDOW + i % WINDOW) * MAX_LONG, Lc.NOW,
                                thread, i, seed);
                    }
                    if (status != Am.OK) {
                        errors.add("thread " + thread + " message " + message + ": request returned " + status);
                    }
                }
            });
            senders.start();
            senders.pollUntilDone(client, () -> repliesHandled.get() == THREADS * MESSAGES);
            errors.check(client);
            client.barrier(); // every rank's requests were handled and replied to
            pollAWhile(client, 50); // a duplicate sent late would be handled now
            client.barrier();
            for (int s = 0; s < size; s++) {
                for (int thread = 0; thread < THREADS; thread++) {
                    for (int i = 0; i < MESSAGES; i++) {
                        final int want = s != me && targetOf(s, size, thread, i) == me ? 1 : 0;
                        assertEquals(want, requests[s].get(thread * MESSAGES + i), "rank " + me + ": request of rank "
                            + s + " thread " + thread + " message " + i + " handled that often");
                    }
                }
            }
            for (int k = 0; k < THREADS * MESSAGES; k++) {
                assertEquals(1, replies.get(k), "rank " + me + ": reply to thread " + k / MESSAGES + " message "
                    + k % MESSAGES + " handled that often");
            }
            assertEquals(THREADS * MESSAGES, repliesHandled.get());
            errors.check(client);
            client.barrier();
        });
    }

    /** A handler body of any category: the payload is null for a Short. */
    @FunctionalInterface
    interface ReplyCheck {
        void check(Token token, Payload payload, Args args);
    }
}
