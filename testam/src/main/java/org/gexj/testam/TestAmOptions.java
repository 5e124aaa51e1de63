package org.gexj.testam;

/**
 * testam's command line, as GASNet's: {@code testam [options] (iters) (maxsz) (test_sections)}.
 *
 * @param inSegment     -in (default) / -out: the requester's source buffer is in the segment or not
 * @param crossMachine  -c: pair rank i with i + n/2 instead of i ^ 1
 * @param asyncRequests -async-req: requests use GROUP local completion; -sync-req (default): NOW
 * @param payload       -fp (fixed payload, default), -np-gb (negotiated, GASNet buffer), -np-cb (negotiated, client buffer)
 * @param iters         iterations per measurement (default 1000)
 * @param maxSize       largest payload (default 2 MiB), clamped to the conduit's limits
 * @param sections      letters A..K to run, or null for all
 * @param warmupIters   -warmup N (GEX/J only): {@link #WARMUP_ROUNDS} untimed, silent passes of the enabled sections
 *                      with N iterations and sizes up to {@link #WARMUP_MAX_SIZE} first, so the JIT has compiled the
 *                      loops being timed (one pass is not enough: a fresh call of a section starts in slower code)
 */
public record TestAmOptions(boolean inSegment, boolean crossMachine, boolean asyncRequests, PayloadMode payload,
                            int iters, long maxSize, String sections, int warmupIters) {

    public static final int DEFAULT_WARMUP_ITERS = 10_000;
    public static final long WARMUP_MAX_SIZE = 4096;
    public static final int WARMUP_ROUNDS = 3;

    /** How Medium and Long requests get their payload. */
    public enum PayloadMode { FIXED, NEGOTIATED_GASNET_BUFFER, NEGOTIATED_CLIENT_BUFFER }

    public static final String USAGE = """
        Usage: testam [options] (iters) (maxsz) (test_sections)
          The '-in' or '-out' option selects whether the requestor's
            buffer is in the GASNet segment or not (default is 'in').
          The -c option enables cross-machine pairing (default is nearest neighbor).
          The '-sync-req' or '-async-req' option selects synchronous (NOW) or
            asynchronous (GROUP) local completion of requests (default is synchronous).
          The '-fp', '-np-gb' or '-np-cb' option selects fixed-payload AMs, or negotiated-payload
            AMs with a GASNet or a client buffer (default is fixed-payload).
          The '-warmup N' option runs untimed passes with N iterations first, so
            the JIT compiles the timed loops (default 10000, 0 disables; GEX/J only).
          test_sections is a string of letters A..K (default is all).""";

    /**
     * @throws IllegalArgumentException naming the bad argument
     */
    public static TestAmOptions parse(String... args) {
        boolean in = true;
        boolean cross = false;
        boolean async = false;
        PayloadMode mode = PayloadMode.FIXED;
        int warmup = DEFAULT_WARMUP_ITERS;
        int arg = 0;
        while (arg < args.length && args[arg].startsWith("-")) {
            switch (args[arg]) {
                case "-in" -> in = true;
                case "-out" -> in = false;
                case "-c" -> cross = true;
                case "-sync-req" -> async = false;
                case "-async-req" -> async = true;
                case "-fp" -> mode = PayloadMode.FIXED;
                case "-np-gb" -> mode = PayloadMode.NEGOTIATED_GASNET_BUFFER;
                case "-np-cb" -> mode = PayloadMode.NEGOTIATED_CLIENT_BUFFER;
                case "-warmup" -> {
                    if (arg + 1 >= args.length) {
                        throw new IllegalArgumentException("-warmup needs an iteration count >= 0");
                    }
                    warmup = parseInt(args[++arg], "-warmup");
                    if (warmup < 0) {
                        throw new IllegalArgumentException("-warmup " + warmup + " must be >= 0");
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + args[arg]);
            }
            arg++;
        }
        int iters = 1000;
        long maxsz = 2L << 20;
        String sections = null;
        if (arg < args.length) {
            iters = parseInt(args[arg++], "iters");
            if (iters == 0) {
                iters = 1000;
            }
        }
        if (arg < args.length) {
            maxsz = parseInt(args[arg++], "maxsz");
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
        if (iters < 0) {
            throw new IllegalArgumentException("iters " + iters + " must be positive");
        }
        if (maxsz < 0) {
            throw new IllegalArgumentException("maxsz " + maxsz + " must be positive");
        }
        return new TestAmOptions(in, cross, async, mode, iters, maxsz, sections, warmup);
    }

    private static int parseInt(String s, String what) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + s + "' is not a number");
        }
    }

    public boolean sectionEnabled(char section) {
        return sections == null || sections.indexOf(section) >= 0;
    }
}
