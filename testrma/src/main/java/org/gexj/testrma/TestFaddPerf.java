package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.benchutil.JitQuiescence;
import org.gexj.benchutil.WarmupFinish;
import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Locale;

/**
 * GASNet's testfaddperf: the round-trip time (an NB operation awaited, repeated) and the flood throughput (NBI
 * operations, then one wait) of remote ADD and FADD, for UINT32, UINT64, FLOAT32 and FLOAT64 in that order, each
 * type's FADD then ADD: sections A-P, a latency and a throughput section per type and operation. Same command line,
 * pairing of ranks, sections and lines as GASNet's.
 */
public final class TestFaddPerf {
    static final String USAGE = "Usage: testfaddperf [options] (iters) (test_sections)\n"
        + "  The -s option skips warm-up iterations\n"
        + "  The -a option enables full-duplex mode, where all nodes send.\n"
        + "  The -S option enables single-counter mode, where all nodes send to node zero.\n"
        + "  The -c option enables cross-machine pairing, default is nearest neighbor.\n"
        + "  The -f option enables 'first/last' mode, where the first/last\n"
        + "   nodes communicate with each other, while all other nodes sit idle.\n"
        + "  The '-warmup N' option (GEX/J; default 20000, 0 = off) first runs silent passes\n"
        + "   of every section with N iterations (two, and more while the JIT still compiles),\n"
        + "   so that the JIT has compiled them.";
    /** The default of {@code -warmup}: the JIT's last tier wants some 10 000 calls of each loop. */
    static final int WARMUP = 20_000;
    /** Silent passes after the first, at most, until one in which no rank's JIT compiled more than this. */
    private static final int MAX_EXTRA_PASSES = 8;
    private static final long QUIET_PASS_MS = 5;
    /** Calls of every loop with every type in {@link #primeLoops}, and the iterations of each call. */
    private static final int PRIME_CALLS = 2500;
    private static final int PRIME_ITERS = 4;
    /** The iterations of each call of a section's loop in the warm-up passes. */
    private static final int WARMUP_CALL = 4;

    private final Client client;
    private final PrintStream out;
    private final int iters;
    private final String sections;
    private final boolean hotspot;
    private final boolean skipWarmup;
    private final int peer;
    private final boolean sender;
    private char section = 'A' - 1;
    /** False during the silent warm-up passes. */
    private boolean timed;

    private TestFaddPerf(Client client, PrintStream out, int iters, String sections, boolean hotspot,
                         boolean skipWarmup, int peer, boolean sender) {
        this.client = client;
        this.out = out;
        this.iters = iters;
        this.sections = sections;
        this.hotspot = hotspot;
        this.skipWarmup = skipWarmup;
        this.peer = peer;
        this.sender = sender;
    }

    public static void main(String[] args) {
        RmaBench.main("TESTFADDPERF", args, TestFaddPerf::run);
    }

    /** Runs testfaddperf on this rank (collective). @return 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        boolean firstLast = false;
        boolean fullDuplex = false;
        boolean crossMachine = false;
        boolean hotspot = false;
        boolean skipWarmup = false;
        boolean help = false;
        int warmup = WARMUP;
        int arg = 0;
        while (arg < args.length && args[arg].startsWith("-")) {
            switch (args[arg]) {
                case "-warmup" -> {
                    try {
                        warmup = Integer.parseInt(args[++arg]);
                    } catch (RuntimeException e) {
                        help = true;
                    }
                    help |= warmup < 0;
                }
                case "-f" -> firstLast = true;
                case "-c" -> crossMachine = true;
                case "-a" -> fullDuplex = true;
                case "-S" -> hotspot = true;
                case "-s" -> skipWarmup = true;
                default -> help = true;
            }
            arg++;
        }
        int iters = 0;
        String sections = null;
        try {
            if (arg < args.length) {
                iters = Integer.parseInt(args[arg++]);
            }
            if (arg < args.length) {
                sections = args[arg++].toUpperCase(Locale.ROOT);
            }
        } catch (NumberFormatException e) {
            help = true;
        }
        if (iters < 0) {
            help = true;
        }
        if (help || arg < args.length) {
            if (client.rank() == 0) {
                out.println(USAGE);
                out.flush();
            }
            return 1;
        }
        if (iters == 0) {
            iters = 10000;
        }
        final int rank = client.rank();
        final int ranks = client.size();
        if (!firstLast && ranks > 1 && ranks % 2 != 0) {
            if (rank == 0) {
                out.println("WARNING: This test requires a unary or even number of nodes. Test skipped.");
                out.flush();
            }
            return 0;
        }
        final int peer;
        final boolean sender;
        if (firstLast) {
            peer = rank == 0 ? ranks - 1 : 0;
            sender = fullDuplex ? rank == 0 || rank == ranks - 1 : rank == 0;
        } else if (ranks == 1) {
            peer = 0;
            sender = true;
        } else if (crossMachine) {
            peer = rank < ranks / 2 ? rank + ranks / 2 : rank - ranks / 2;
            sender = rank < ranks / 2 || fullDuplex;
        } else if (hotspot) {
            peer = 0;
            sender = true;
        } else {
            peer = rank % 2 == 1 ? rank - 1 : rank + 1;
            sender = fullDuplex || rank % 2 == 0;
        }
        client.attachSegment(Client.PAGE_SIZE);
        if (rank == 0) {
            out.printf(Locale.ROOT, "Running %d iterations of %s%s%s%sremote atomic (F)ADD perfomance tests%n", iters,
                firstLast ? "first/last " : "", fullDuplex ? "full-duplex " : "", crossMachine ? "cross-machine " : "",
                hotspot ? "single-counter " : "");
            out.flush();
        }
        client.barrier();
        new TestFaddPerf(client, out, iters, sections, hotspot, skipWarmup, peer, sender).all(warmup);
        return 0;
    }

    private void all(int warmup) {
        if (warmup > 0) {
            primeLoops((int) ((long) PRIME_CALLS * warmup / WARMUP));
            types(warmup);
            // each new type or operation deoptimises the loops it reaches; they recompile in later passes
            JitQuiescence.repeatWhileCompiling(() -> types(warmup), ms -> RmaBench.maxOverRanks(client, ms),
                MAX_EXTRA_PASSES, QUIET_PASS_MS);
            WarmupFinish.scaled(warmup, WARMUP).finish(client.rank(), client::barrier);
        }
        timed = true;
        types(iters);
    }

    /**
     * Calls each timed loop with every type and operation in turn, a few iterations a call, so that its profile holds
     * all of them before C2 compiles it. GASNet's macros make a function per type; here one loop serves four types,
     * and a loop compiled while one type ran keeps the others' paths as calls, whose live values then cost stores in
     * every iteration. Collective.
     */
    private void primeLoops(int calls) {
        final AtomicType[] types = {AtomicType.UINT32, AtomicType.UINT64, AtomicType.FLOAT32, AtomicType.FLOAT64};
        final AtomicOp[] ops = {AtomicOp.FADD, AtomicOp.ADD};
        final AtomicDomain[] domains = new AtomicDomain[types.length * ops.length];
        for (int d = 0; d < domains.length; d++) {
            domains[d] = AtomicDomain.create(client, types[d / ops.length], EnumSet.of(ops[d % ops.length]), 0);
        }
        client.barrier();
        if (sender) {
            try (Arena arena = Arena.ofShared()) {
                final MemorySegment results = arena.allocate(8L * PRIME_ITERS, 8);
                for (int k = 0; k < calls; k++) {
                    for (int d = 0; d < domains.length; d++) {
                        final AtomicType type = types[d / ops.length];
                        final AtomicOp op = ops[d % ops.length];
                        latencyLoop(domains[d], type.integer(), op, results, peer, PRIME_ITERS);
                        throughputLoop(domains[d], type, op, results, peer, 0, PRIME_ITERS);
                    }
                }
                client.nbiWait(Ec.RMW);
            }
        }
        client.barrier();
        for (AtomicDomain d : domains) {
            d.close();
        }
    }

    /** Every section in GASNet's order, each loop {@code n} iterations. */
    private void types(int n) {
        section = 'A' - 1;
        for (AtomicType type : new AtomicType[] {AtomicType.UINT32, AtomicType.UINT64, AtomicType.FLOAT32,
            AtomicType.FLOAT64}) {
            type(type, AtomicOp.FADD, n);
            type(type, AtomicOp.ADD, n);
        }
    }

    private boolean beginSection() {
        section++;
        return sections == null || sections.indexOf(section) >= 0;
    }

    /** GASNet's do_<type>: a domain, the warm-up, the latency and throughput sections. */
    private void type(AtomicType type, AtomicOp op, int iters) {
        final AtomicDomain ad = AtomicDomain.create(client, type, EnumSet.of(op), 0);
        final boolean integer = type.integer();
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment result = arena.allocate(8, 8);
            if (sender && !skipWarmup) {
                final int warm = Math.min(this.iters, 10000);
                final Event[] events = new Event[warm];
                for (int i = 0; i < warm; i++) {
                    events[i] = integer ? ad.opLongNb(result, 0, peer, 0, op, 1, 9999, 0)
                        : ad.opDoubleNb(result, 0, peer, 0, op, 1, 9999, 0);
                    if (integer) {
                        ad.opLongNbi(result, 0, peer, 0, op, 1, 9999, 0);
                    } else {
                        ad.opDoubleNbi(result, 0, peer, 0, op, 1, 9999, 0);
                    }
                }
                client.nbiWait(Ec.RMW);
                for (Event e : events) {
                    e.await();
                }
            }
            client.barrier();
            if (beginSection()) {
                latency(ad, type, op, result, iters);
            }
            if (beginSection()) {
                throughput(ad, type, op, arena, iters);
            }
            client.barrier();
        }
        ad.close();
    }

    private static String code(AtomicType type) {
        return switch (type) {
            case UINT32 -> "U32";
            case UINT64 -> "U64";
            case FLOAT32 -> "FLT";
            case FLOAT64 -> "DBL";
            case INT32 -> "I32";
            case INT64 -> "I64";
        };
    }

    private void latency(AtomicDomain ad, AtomicType type, AtomicOp op, MemorySegment result, int iters) {
        client.segment().memory().fill((byte) 0);
        client.barrier();
        long elapsed = 0;
        if (sender) {
            if (timed) {
                final long begin = System.nanoTime();
                latencyLoop(ad, type.integer(), op, result, peer, iters);
                elapsed = System.nanoTime() - begin;
            } else {
                // in short calls, so that the JIT compiles the loop itself, not only what it calls: the timed run's
                // one long call would otherwise run in the first tiers, whose profiling counters are stores that
                // each next locked instruction waits for
                for (int done = 0; done < iters; done += WARMUP_CALL) {
                    latencyLoop(ad, type.integer(), op, result, peer, Math.min(WARMUP_CALL, iters - done));
                }
            }
        }
        client.barrier();
        if (sender && timed) {
            final double us = elapsed / 1e3;
            out.printf(Locale.ROOT, "%c: %2d : %7d iters, latency %10d us total, %9.3f us ave. (%s %s latency)%n",
                section, client.rank(), iters, (long) us, us / iters, code(type), op);
            out.flush();
        }
    }

    /**
     * The latency sections' loop: {@code n} NB operations, each awaited. One method per form, as GASNet's macros make
     * one function per type: in one, the two loops' values spilled to the stack.
     */
    private static void latencyLoop(AtomicDomain ad, boolean integer, AtomicOp op, MemorySegment result, int peer,
                                    int n) {
        if (integer) {
            latencyLongs(ad, op, result, peer, n);
        } else {
            latencyDoubles(ad, op, result, peer, n);
        }
    }

    private static void latencyLongs(AtomicDomain ad, AtomicOp op, MemorySegment result, int peer, int n) {
        for (int i = 0; i < n; i++) {
            ad.opLongNb(result, 0, peer, 0, op, i & 15, 9999, 0).await();
        }
    }

    private static void latencyDoubles(AtomicDomain ad, AtomicOp op, MemorySegment result, int peer, int n) {
        for (int i = 0; i < n; i++) {
            ad.opDoubleNb(result, 0, peer, 0, op, i & 15, 9999, 0).await();
        }
    }

    /** The throughput sections' loop: NBI operations {@code first} to {@code first + n - 1}, each its own result. */
    private static void throughputLoop(AtomicDomain ad, AtomicType type, AtomicOp op, MemorySegment results, int peer,
                                       int first, int n) {
        if (type.integer()) {
            throughputLongs(ad, type.bytes(), op, results, peer, first, n);
        } else {
            throughputDoubles(ad, type.bytes(), op, results, peer, first, n);
        }
    }

    private static void throughputLongs(AtomicDomain ad, int width, AtomicOp op, MemorySegment results, int peer,
                                        int first, int n) {
        for (int i = first; i < first + n; i++) {
            ad.opLongNbi(results, (long) i * width, peer, 0, op, i & 15, 9999, 0);
        }
    }

    private static void throughputDoubles(AtomicDomain ad, int width, AtomicOp op, MemorySegment results, int peer,
                                          int first, int n) {
        for (int i = first; i < first + n; i++) {
            ad.opDoubleNbi(results, (long) i * width, peer, 0, op, i & 15, 9999, 0);
        }
    }

    private void throughput(AtomicDomain ad, AtomicType type, AtomicOp op, Arena arena, int iters) {
        final MemorySegment results = arena.allocate((long) iters * type.bytes(), 8);
        client.barrier();
        long elapsed = 0;
        if (sender) {
            final long begin = System.nanoTime();
            if (timed) {
                throughputLoop(ad, type, op, results, peer, 0, iters);
            } else {
                for (int done = 0; done < iters; done += WARMUP_CALL) {
                    throughputLoop(ad, type, op, results, peer, done, Math.min(WARMUP_CALL, iters - done));
                }
            }
            client.nbiWait(Ec.RMW);
            if (hotspot) {
                client.barrier();
            }
            elapsed = System.nanoTime() - begin;
        } else if (hotspot) {
            client.barrier();
        }
        client.barrier();
        if (sender && timed) {
            final double us = elapsed / 1e3;
            out.printf(Locale.ROOT, "%c: %2d : %7d iters, throughput             %15.3f ops/sec (%s %s throughput)%n",
                section, client.rank(), iters, us == 0 ? 0.0 : 1e6 * iters / us, code(type), op);
            out.flush();
        }
    }
}
