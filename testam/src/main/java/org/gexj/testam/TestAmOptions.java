package org.gexj.testam;

import org.gexj.benchutil.WarmupIters;

/**
 * testam's command line, as GASNet's: {@code testam [options] (iters) (maxsz) (test_sections)}.
 *
 * @param inSegment     -in (default) / -out: the requester's source buffer is in the segment or not
 * @param crossMachine  -c: pair rank i with i + n/2 instead of i ^ 1
 * @param asyncRequests -async-req: requests use GROUP local completion; -sync-req (default): NOW
 * @param payload       -fp (fixed payload, default), -np-gb (negotiated, GASNet buffer),
 *                      -np-cb (negotiated, client buffer)
 * @param source        -src-noop (default), -src-generate, -src-memcpy: how a sender fills a Medium or Long payload
 *                      before each injection
 * @param skipWarmup    -s: no warm-up iterations at the start of each category
 * @param pollers       -p N: extra threads on a receiving rank that poll while the tests run
 * @param maxStep       -max-step N: largest step between payload sizes, which otherwise double
 * @param iters         iterations per measurement (default 1000)
 * @param maxSize       largest payload (default 2 MiB), clamped to the conduit's limits
 * @param sections      letters A..K to run, or null for all
 * @param warmupIters   -warmup N (GEX/J only; {@link #DEFAULT_WARMUP_ITERS} when not given: see {@link #warmupFor}):
 *                      short priming passes (16 iterations per size), then
 *                      {@link #WARMUP_ROUNDS} untimed passes of the enabled sections with N
 *                      iterations and sizes up to {@link #WARMUP_MAX_SIZE} first, section A repeated
 *                      {@link #WARMUP_SHORT_REPEATS} times in each, printing to /dev/null, so the JIT has compiled
 *                      the loops being timed and the code between them before the timed pass (one pass is not enough:
 *                      a fresh call of a section starts in slower code)
 * @param registeredSource -out-reg (GEX/J only): as -out, with the buffer registered ({@code Client.register}), so that
 *                      Long requests from it may travel as rendezvous ({@code GEX_AMLONG_RENDEZVOUS_MIN})
 */
public record TestAmOptions(boolean inSegment, boolean crossMachine, boolean asyncRequests, PayloadMode payload,
                            SourceMode source, boolean skipWarmup, int pollers, long maxStep,
                            int iters, long maxSize, String sections, int warmupIters, boolean registeredSource) {

    /** -warmup's value when none is given: {@link #warmupFor} chooses by conduit. */
    public static final int DEFAULT_WARMUP_ITERS = WarmupIters.BY_CONDUIT;
    /**
     * Up to GASNet's usual largest size: what runs only for large payloads (datagram fragments, large buffer classes,
     * copies of many bytes) must be compiled before section D, the first large flood; warmed to 4 KiB only, D's 8-32
     * KiB rows took 1.3-1.7 times as long as I's, the same flood of Longs timed later, on udp.
     */
    public static final long WARMUP_MAX_SIZE = 65536;
    public static final int WARMUP_ROUNDS = 3;
    /**
     * Section A's loops run once per pass, a Medium or Long loop once per size; 3 passes of 10 000 iterations left
     * them interpreted and their compilation for the first timed flood.
     */
    public static final int WARMUP_SHORT_REPEATS = 8;
    /** GASNet's test harness runs at most 256 threads per process, the main one included. */
    public static final int MAX_POLLERS = 255;

    /** How Medium and Long requests and replies get their payload. */
    public enum PayloadMode { FIXED, NEGOTIATED_GASNET_BUFFER, NEGOTIATED_CLIENT_BUFFER }

    /** How the sender treats the payload's buffer before each Medium or Long injection. */
    public enum SourceMode {
        /** sent as it is */
        NOOP,
        /** filled by computation, without reading memory */
        GENERATE,
        /** filled by a copy from a buffer of zeros */
        MEMCPY
    }

    public static final String USAGE = """
        Usage: testam [options] (iters) (maxsz) (test_sections)
          -in | -out            requester's buffer in the segment (default) or not
          -out-reg              as -out, the buffer registered (GEX/J only: for GEX_AMLONG_RENDEZVOUS_MIN)
          -p N                  N extra polling threads on each receiving rank, N in [0, 255] (default 0)
          -max-step N           largest step between payload sizes (default: sizes double up to maxsz)
          -sync-req | -async-req  local completion of Medium and Long requests: synchronous (default)
                                or asynchronous
          -fp | -np-gb | -np-cb fixed payload (default), or negotiated payload in a library or a client buffer
          -src-noop | -src-generate | -src-memcpy
                                each Medium and Long injection sends its buffer untouched (default), fills it
                                by computation, or fills it by a memory copy
          -s                    skip the warm-up iterations
          -c                    cross-machine pairing (default is nearest neighbor)
          -warmup N             GEX/J only: first run untimed passes with N iterations so the JIT compiles
                                the timed loops (default 10000 on smp, 1000 on network conduits; 0 disables)
          test_sections is a string of letters A..K (default is all).""";

    /** The warm-up iterations to run: as given, or by default as the conduit's kind suggests. */
    public int warmupFor(boolean crossMapped) {
        return WarmupIters.forConduit(warmupIters, crossMapped);
    }

    /**
     * @throws IllegalArgumentException naming the bad argument and what is allowed
     */
    public static TestAmOptions parse(String... args) {
        boolean in = true;
        boolean registered = false;
        boolean cross = false;
        boolean async = false;
        PayloadMode mode = PayloadMode.FIXED;
        SourceMode source = SourceMode.NOOP;
        boolean skipWarmup = false;
        int pollers = 0;
        long maxStep = 0;
        int warmup = DEFAULT_WARMUP_ITERS;
        int arg = 0;
        while (arg < args.length && args[arg].startsWith("-")) {
            switch (args[arg]) {
                case "-in" -> {
                    in = true;
                    registered = false;
                }
                case "-out" -> {
                    in = false;
                    registered = false;
                }
                case "-out-reg" -> {
                    in = false;
                    registered = true;
                }
                case "-c" -> cross = true;
                case "-s" -> skipWarmup = true;
                case "-sync-req" -> async = false;
                case "-async-req" -> async = true;
                case "-fp" -> mode = PayloadMode.FIXED;
                case "-np-gb" -> mode = PayloadMode.NEGOTIATED_GASNET_BUFFER;
                case "-np-cb" -> mode = PayloadMode.NEGOTIATED_CLIENT_BUFFER;
                case "-src-noop" -> source = SourceMode.NOOP;
                case "-src-generate" -> source = SourceMode.GENERATE;
                case "-src-memcpy" -> source = SourceMode.MEMCPY;
                case "-p" -> pollers = (int) optionValue(args, ++arg, "-p", 0, MAX_POLLERS);
                case "-max-step" -> maxStep = optionValue(args, ++arg, "-max-step", 0, Integer.MAX_VALUE);
                case "-warmup" -> warmup = (int) optionValue(args, ++arg, "-warmup", 0, Integer.MAX_VALUE);
                default -> throw new IllegalArgumentException("unknown option " + args[arg]);
            }
            arg++;
        }
        int iters = 1000;
        long maxsz = 2L << 20;
        String sections = null;
        if (arg < args.length) {
            iters = (int) number(args[arg++], "iters", 0, Integer.MAX_VALUE);
            if (iters == 0) {
                iters = 1000;
            }
        }
        if (arg < args.length) {
            maxsz = number(args[arg++], "maxsz", 0, Integer.MAX_VALUE);
            if (maxsz == 0) {
                maxsz = 2L << 20;
            }
        }
        if (arg < args.length) {
            sections = args[arg++].toUpperCase();
            if (!sections.matches("[A-K]+")) {
                throw new IllegalArgumentException("test_sections '" + sections + "' must be letters in A..K");
            }
        }
        if (arg < args.length) {
            throw new IllegalArgumentException("unexpected argument " + args[arg]);
        }
        return new TestAmOptions(in, cross, async, mode, source, skipWarmup, pollers, maxStep, iters, maxsz, sections,
            warmup, registered);
    }

    private static long optionValue(String[] args, int at, String option, long min, long max) {
        if (at >= args.length) {
            throw new IllegalArgumentException(option + " needs a number in [" + min + ", " + max + "]");
        }
        return number(args[at], option, min, max);
    }

    private static long number(String s, String what, long min, long max) {
        final long value;
        try {
            value = Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + s + "' is not a number in [" + min + ", " + max + "]");
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " " + value + " is outside [" + min + ", " + max + "]");
        }
        return value;
    }

    public boolean sectionEnabled(char section) {
        return sections == null || sections.indexOf(section) >= 0;
    }

    /** The step after payload size {@code sz} (GASNet's ADVANCESZ): the size itself, at most {@link #maxStep}. */
    public long step(long sz) {
        return maxStep == 0 ? sz : Math.min(maxStep, sz);
    }
}
