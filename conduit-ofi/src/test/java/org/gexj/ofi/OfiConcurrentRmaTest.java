package org.gexj.ofi;

import org.agrona.DirectBuffer;
import org.gexj.Config;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.JobHealth;
import org.gexj.testkit.ThreadBootstrap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The ofi conduit's RMA from several threads while another polls (the SPI lets any thread call): a flood of 0-byte
 * puts and gets (completed through the deferred completions, pushed by the issuing thread, popped by the poller) with
 * a few 8-byte ones (completed by the provider, back-pressured by a small operation table), on tcp;ofi_rxm. Every
 * operation completes exactly once, with OK. Before the deferred completions were guarded, the poller popped while
 * issuers pushed, and operations completed twice or never.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class OfiConcurrentRmaTest {
    private static final int THREADS = 4;
    private static final int OPS = 100_000;
    /** Of every this many operations, one moves 8 bytes (the provider's completions); the others none. */
    private static final int SMALL_EVERY = 256;
    private static final long SEGMENT = 1 << 16;
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(45);

    @Test
    void rmaFromSeveralThreadsWhileAnotherPollsCompletesEachOperationOnce() throws Exception {
        final ThreadBootstrap[] bootstraps = ThreadBootstrap.job(2);
        final String job = "ofithreads" + Long.toHexString(System.nanoTime());
        final AtomicBoolean done = new AtomicBoolean();
        final List<String> errors = new CopyOnWriteArrayList<>();
        final CompletableFuture<?> target = CompletableFuture.runAsync(() -> {
            try (OfiConduit c = open(bootstraps[1], job)) {
                c.attachSegment(SEGMENT);
                final ConduitListener none = (channel, buffer, offset, length) -> { };
                final long deadline = System.nanoTime() + DEADLINE_NS;
                while (!done.get() && System.nanoTime() - deadline < 0) {
                    c.poll(none, Conduit.ALL_CHANNELS, 64); // manual progress: the initiator's RMA needs this rank's
                }
            }
        });
        try (OfiConduit c = open(bootstraps[0], job)) {
            c.attachSegment(SEGMENT);
            final AtomicIntegerArray seen = new AtomicIntegerArray(THREADS * OPS);
            final AtomicLong completed = new AtomicLong();
            final ConduitListener listener = new ConduitListener() {
                @Override
                public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
                }

                @Override
                public void onRmaCompletion(long operation, int status) {
                    if (status != Conduit.OK || operation < 0 || operation >= seen.length()) {
                        errors.add("completion of " + operation + " with status " + status);
                    } else if (seen.incrementAndGet((int) operation) != 1) {
                        errors.add("operation " + operation + " completed " + seen.get((int) operation) + " times");
                    }
                    completed.incrementAndGet();
                }
            };
            final long deadline = System.nanoTime() + DEADLINE_NS;
            final AtomicBoolean issued = new AtomicBoolean();
            final Thread poller = Thread.ofPlatform().name("poller").start(() -> {
                try {
                    while ((!issued.get() || completed.get() < (long) THREADS * OPS)
                        && System.nanoTime() - deadline < 0) {
                        c.poll(listener, Conduit.ALL_CHANNELS, 64);
                    }
                } catch (RuntimeException | Error e) {
                    errors.add("poller: " + e);
                }
            });
            final Thread[] issuers = new Thread[THREADS];
            for (int t = 0; t < THREADS; t++) {
                final int thread = t;
                issuers[t] = Thread.ofPlatform().name("issuer-" + t).start(() -> {
                    final MemorySegment local = Arena.ofShared().allocate(64);
                    try {
                        for (int i = 0; i < OPS; i++) {
                            final long op = (long) thread * OPS + i;
                            // 0-byte and a few 8-byte puts and gets, each thread in its own 64 bytes of the target
                            final long bytes = i % SMALL_EVERY == SMALL_EVERY - 1 || i % SMALL_EVERY == SMALL_EVERY - 2
                                ? 8 : 0;
                            final long remote = thread * 64L + (i & 7) * 8L;
                            while (((i & 1) == 0 ? c.rma().put(1, remote, local, 0, bytes, op)
                                : c.rma().get(local, 8, 1, remote, bytes, op)) == Conduit.NO_ROOM) {
                                if (System.nanoTime() - deadline > 0) {
                                    errors.add("issuer " + thread + " back-pressured until the deadline at " + i
                                        + ", " + completed.get() + " completed");
                                    return;
                                }
                                Thread.onSpinWait();
                            }
                        }
                    } catch (RuntimeException | Error e) {
                        errors.add("issuer " + thread + ": " + e);
                    }
                });
            }
            for (Thread issuer : issuers) {
                issuer.join();
            }
            issued.set(true);
            poller.join();
            done.set(true);
            assertEquals(List.of(), errors.stream().limit(10).toList());
            assertEquals((long) THREADS * OPS, completed.get(), "completions");
        } finally {
            done.set(true);
            target.get(30, TimeUnit.SECONDS);
        }
    }

    private static OfiConduit open(ThreadBootstrap bootstrap, String job) {
        return OfiConduit.open(new ConduitContext(bootstrap.rank(), 2, job, bootstrap,
            Config.of(Map.of("GEX_OFI_PROVIDER", "tcp;ofi_rxm", "GEX_OFI_RMA_OPS", "16")), new JobHealth()));
    }
}
