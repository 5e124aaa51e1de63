package org.gexj.ofi;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client closed (collectively) while other threads of each rank still send IMMEDIATE AM Shorts, start small NB puts
 * and gets (native and heap memory, the latter staged through the bounce buffers) and poll: every such thread ends
 * within seconds with a normal return or an {@link IllegalStateException} naming the closed client, never by any other
 * exception and never by libfabric touching the closed endpoint, CQ or AV (on shm a SIGSEGV that ends the JVM).
 * Repeated, so that the race of close's teardown against a call that checked for closed before taking the conduit's
 * lock is met. Each close ends well within the drain's timeout (no peer's CLOSE is lost to another thread's poll).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OfiCloseRaceTest {
    private static final int ROUNDS = 20;
    private static final int HAMMERS = 3;
    private static final long SEGMENT = 1 << 16;
    /** How long the hammers run before the close. */
    private static final long HAMMER_NS = TimeUnit.MILLISECONDS.toNanos(30);
    /** How long a hammer may take to end once its client is closed. */
    private static final long END_MS = 5_000;
    /** Longest close: below the drain's 10 s timeout, which a close that missed a peer's CLOSE waits out. */
    private static final long CLOSE_NS = TimeUnit.SECONDS.toNanos(8);
    /** Rounds that must fit in the time even on a loaded machine (20 take 2-12 s per provider here). */
    private static final int LEAST_ROUNDS = 5;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp;ofi_rxm"})
    void threadsSendingAndPollingWhileTheClientClosesEndCleanly(String provider) {
        final List<String> errors = new CopyOnWriteArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
        int rounds = 0;
        while (rounds < ROUNDS && errors.isEmpty() && System.nanoTime() - deadline < 0) {
            InProcessJob.run(2, Duration.ofSeconds(20), Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", provider,
                "GEX_OFI_RMA_OPS", "16"), client -> race(client, errors));
            rounds++;
        }
        assertEquals(List.of(), errors.stream().limit(10).toList(), "after " + rounds + " round(s) on " + provider);
        assertTrue(rounds >= LEAST_ROUNDS, "only " + rounds + " round(s) on " + provider + " within 25 s");
    }

    private static void race(Client client, List<String> errors) throws InterruptedException {
        final Am am = Am.of(client);
        final Rma rma = Rma.of(client);
        final int handler = am.register(AmHandler.shortRequest(1, (token, args) -> { }));
        client.attachSegment(SEGMENT);
        client.barrier();
        final int peer = 1 - client.rank();
        final AtomicBoolean closing = new AtomicBoolean();
        final CountDownLatch started = new CountDownLatch(HAMMERS);
        final List<Thread> hammers = new ArrayList<>();
        for (int t = 0; t < HAMMERS; t++) {
            final int id = t;
            hammers.add(Thread.ofPlatform().name("hammer-" + client.rank() + "-" + t).start(() -> {
                final MemorySegment local = Arena.ofAuto().allocate(64);
                final MemorySegment heap = MemorySegment.ofArray(new byte[64]);
                final Event[] recent = new Event[8];
                started.countDown();
                try {
                    for (long i = 0; ; i++) {
                        final long remote = (client.rank() * HAMMERS + id) * 64L;
                        switch ((int) ((i + id) % 4)) {
                            case 0 -> am.tryRequestShort(peer, handler, (int) i);
                            case 1 -> recent[(int) (i & 7)] = rma.putNb(peer, remote, local, 0, 8, Lc.NOW);
                            case 2 -> recent[(int) (i & 7)] = rma.getNb((i & 8) == 0 ? local : heap, 8, peer,
                                remote, 8);
                            default -> client.poll();
                        }
                        final Event e = recent[(int) ((i + 1) & 7)];
                        if (e != null && e.test()) {
                            recent[(int) ((i + 1) & 7)] = null;
                        }
                    }
                } catch (IllegalStateException e) {
                    if (!closing.get() || !String.valueOf(e.getMessage()).contains("client TEST rank " + client.rank()
                        + " is closed")) {
                        errors.add(Thread.currentThread().getName() + ": " + e);
                    }
                } catch (RuntimeException | Error e) {
                    errors.add(Thread.currentThread().getName() + ": " + e + " at "
                        + List.of(e.getStackTrace()).stream().limit(8).toList());
                }
            }));
        }
        started.await();
        final long until = System.nanoTime() + HAMMER_NS;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
        closing.set(true);
        final long start = System.nanoTime();
        client.close();
        final long took = System.nanoTime() - start;
        if (took > CLOSE_NS) {
            errors.add("rank " + client.rank() + "'s close took " + took / 1_000_000 + " ms");
        }
        for (Thread h : hammers) {
            h.join(END_MS);
            if (h.isAlive()) {
                errors.add(h.getName() + " still running " + END_MS + " ms after close, at "
                    + List.of(h.getStackTrace()).stream().limit(6).toList());
            }
        }
    }
}
