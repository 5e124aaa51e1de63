package org.gexj.testrma;

import org.gexj.BufferDescriptor;
import org.gexj.Client;
import org.gexj.Lc;
import org.gexj.Registration;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Completion;
import org.gexj.rma.Pwc;
import org.gexj.rma.Rma;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Put and get with completion between ranks 0 and 1, by size, for comparison with GASNet's AMLong round trip
 * (testam) and get latency (testsmall). Sections: A PWC round trip (a PWC answered by a PWC, each target probing
 * its remote completion), B the same with 8 bytes of completion data, C GWC latency (the producer probes its
 * completions), D a blocking get from a registered buffer, E a blocking put into one (on smp both are Cross Memory
 * Attach, or the rings with {@code GEX_SMP_CMA=off}). Other ranks only take part in the barriers.
 */
public final class TestPwc {
    /** The last section. */
    static final char LAST = 'E';
    static final String USAGE = "Usage: testpwc (iters) (maxsz) (warmup)   defaults: 10000 65536 20000\n"
        + "  warmup: iterations per size of each of two silent passes first (a tenth of it above 4 KiB; 0: none)";

    private final Client client;
    private final Pwc pwc;
    private final PrintStream out;
    private final int iters;
    private final long maxSize;
    private final int warmup;
    private final Completion c = new Completion();

    private TestPwc(Client client, int iters, long maxSize, int warmup, PrintStream out) {
        this.client = client;
        this.pwc = Pwc.of(client);
        this.out = out;
        this.iters = iters;
        this.maxSize = maxSize;
        this.warmup = warmup;
    }

    public static void main(String[] args) {
        RmaBench.main("TESTPWC", args, TestPwc::run);
    }

    /** Runs testpwc on this rank (collective). @return 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        final int iters;
        final long maxSize;
        final int warmup;
        try {
            if (args.length > 3) {
                throw new IllegalArgumentException("testpwc takes at most 3 arguments, not " + args.length);
            }
            iters = args.length > 0 ? Integer.parseInt(args[0]) : 10000;
            maxSize = args.length > 1 ? Long.parseLong(args[1]) : 65536;
            warmup = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
            if (iters < 1) {
                throw new IllegalArgumentException("iters " + iters + " outside [1, " + Integer.MAX_VALUE + "]");
            }
            if (maxSize < 1 || maxSize > 1L << 30) {
                throw new IllegalArgumentException("maxsz " + maxSize + " outside [1, " + (1L << 30) + "]");
            }
            if (warmup < 0) {
                throw new IllegalArgumentException("warmup " + warmup + " outside [0, " + Integer.MAX_VALUE + "]");
            }
        } catch (IllegalArgumentException e) {
            if (client.rank() == 0) {
                out.println(e.getMessage());
                out.println(USAGE);
                out.flush();
            }
            return 1;
        }
        if (client.size() < 2) {
            if (client.rank() == 0) {
                out.println("testpwc needs 2 ranks");
                out.flush();
            }
            return 1;
        }
        new TestPwc(client, iters, maxSize, warmup, out).sections();
        return 0;
    }

    private void sections() {
        client.attachSegment(RmaBench.alignUp(maxSize, Client.PAGE_SIZE));
        final int rank = client.rank();
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment src = arena.allocate(maxSize);
            src.fill((byte) 1);
            final MemorySegment data = arena.allocate(8);
            final Registration registration = client.register(arena.allocate(maxSize));
            final BufferDescriptor ofOne = descriptorOfOne(registration.descriptor());
            if (rank == 0) {
                out.printf(Locale.ROOT, "testpwc: %d iterations, sizes 1..%d, %d ranks (ranks 0 and 1 measure)%n",
                    iters, maxSize, client.size());
                out.flush();
            }
            // silent passes first, as testam's warm-up: the JIT settles the PWC paths only after some 100,000
            // round trips, and rows measured before would time the compiler
            for (int pass = 0; pass < 2 && warmup > 0; pass++) {
                for (char section = 'A'; section <= LAST; section++) {
                    for (long n = 1; n <= maxSize; n *= 2) {
                        run(section, n, n <= 4096 ? warmup : warmup / 10 + 1, src, data, ofOne);
                    }
                }
            }
            for (char section = 'A'; section <= LAST; section++) {
                for (long n = 1; n <= maxSize; n *= 2) {
                    final long size = n;
                    final char s = section;
                    final double us = run(section, size, iters, src, data, ofOne) / 1e3 / iters;
                    if (rank == 0) {
                        out.printf(Locale.ROOT, "%c: %7d %-34s %9.3f us%n", s, size, switch (s) {
                            case 'A' -> "PWC ping-pong roundtrip";
                            case 'B' -> "PWC+8B data ping-pong roundtrip";
                            case 'C' -> "GWC latency";
                            case 'D' -> "Get registered latency";
                            default -> "Put registered latency";
                        }, us);
                        out.flush();
                    }
                }
            }
            client.barrier();
            registration.close();
        }
    }

    /** Probes until a remote completion comes, as GASNet's testam polls until its handler has run. */
    private void spinRemote() {
        while (!pwc.probeRemote(c)) {
            Thread.onSpinWait();
        }
    }

    /** One timed loop of {@code section} at {@code size}; returns rank 0's nanoseconds (0 elsewhere). */
    /**
     * Rank 1's descriptor, sent to every rank in an AM Medium as a runtime would send it (with its NIC key where the
     * conduit keys registrations). Collective.
     */
    private BufferDescriptor descriptorOfOne(BufferDescriptor mine) {
        final Am am = Am.of(client);
        final AtomicReference<BufferDescriptor> received = new AtomicReference<>();
        final int handler = am.register(AmHandler.mediumRequest(0, (token, payload, args) ->
            received.set(BufferDescriptor.fromBytes(payload.toArray()))));
        client.barrier();
        if (client.rank() == 1) {
            final MemorySegment bytes = MemorySegment.ofArray(mine.toBytes());
            for (int r = 0; r < client.size(); r++) {
                am.requestMedium(r, handler, bytes, 0, bytes.byteSize(), Lc.NOW);
            }
        }
        while (received.get() == null) {
            client.poll();
        }
        client.barrier();
        return received.get();
    }

    private long run(char section, long size, int n, MemorySegment src, MemorySegment data, BufferDescriptor ofOne) {
        client.barrier();
        final int rank = client.rank();
        final long begin = System.nanoTime();
        if (section == 'A' || section == 'B') {
            final MemorySegment d = section == 'B' ? data : null;
            if (rank == 0) {
                for (int i = 0; i < n; i++) {
                    pwc.putWithCompletion(1, 0, src, 0, size, i, i, d, Pwc.NO_LCE);
                    spinRemote();
                }
            } else if (rank == 1) {
                for (int i = 0; i < n; i++) {
                    spinRemote();
                    pwc.putWithCompletion(0, 0, src, 0, size, i, i, d, Pwc.NO_LCE);
                }
            }
        } else if (section == 'C') {
            final MemorySegment dst = client.segment().memory();
            if (rank == 0) {
                for (int i = 0; i < n; i++) {
                    pwc.getWithCompletion(dst, 0, 1, 0, size, i, i, 0);
                    while (!pwc.probeLocal(c)) {
                        Thread.onSpinWait();
                    }
                }
            } else if (rank == 1) {
                for (int i = 0; i < n; i++) {
                    spinRemote();
                }
            }
        } else if (rank == 0 && section == 'D') {
            final Rma rma = Rma.of(client);
            final MemorySegment dst = client.segment().memory();
            for (int i = 0; i < n; i++) {
                rma.get(dst, 0, ofOne, 0, size);
            }
        } else if (rank == 0) {
            final Rma rma = Rma.of(client);
            for (int i = 0; i < n; i++) {
                rma.put(ofOne, 0, src, 0, size);
            }
        }
        final long elapsed = System.nanoTime() - begin;
        client.barrier();
        return elapsed;
    }
}
