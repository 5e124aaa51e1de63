package org.gexj.testrma;

import org.gexj.benchutil.WarmupIters;

/**
 * The command line of GASNet's testsmall and testlarge:
 * {@code [-in|-out] [-p|-g] [-s] [-m] [-a] [-c] [-f] [-minsz N] [-max-step N] [-segsz N] [-lbufs N] (iters) (maxsz)
 * (test_sections)}. Sizes take GASNet's suffixes (K, M, G: powers of 1024); {@code -segsz} is in MiB unless it has
 * one. {@code -lbufs} is testlarge's only. {@code -warmup N} is GEX/J's own (see {@link #warmupIters}).
 *
 * @param inSegment   -in (default) or -out: the initiator's buffer is in the segment or not
 * @param puts        test puts (-p alone: only puts)
 * @param gets        test gets (-g alone: only gets)
 * @param skipWarmup  -s: skip GASNet's warm-up operations
 * @param unitsMB     -m: throughput in MB/sec (2^20 bytes) instead of KB/sec
 * @param fullDuplex  -a: every rank sends
 * @param crossMachine -c: rank r pairs with r + n/2
 * @param firstLast   -f: the first and the last rank communicate, the others sit idle
 * @param minSize     -minsz: the smallest size (0: the program's default, 1 or 16)
 * @param maxStep     -max-step: the largest step between sizes (0: sizes double)
 * @param segmentSize -segsz: the segment to attach (0: the least the test needs)
 * @param localBuffers -lbufs: local buffers to cycle through with -out (0: one)
 * @param sections    the letters to run, or null for all
 * @param warmupIters -warmup N (GEX/J only): a silent pass of the enabled sections with N iterations per size and
 *                    sizes up to {@link #WARMUP_MAX_SIZE} before the timed pass, so that the JIT has compiled the
 *                    data path first; 0 turns it off; {@link #DEFAULT_WARMUP_ITERS} when not given (see
 *                    {@link #warmup})
 */
public record RmaBenchOptions(boolean inSegment, boolean puts, boolean gets, boolean skipWarmup, boolean unitsMB,
                              boolean fullDuplex, boolean crossMachine, boolean firstLast, long minSize, long maxStep,
                              long segmentSize, int localBuffers, int iters, long maxSize, String sections,
                              int warmupIters) {
    /** -warmup's value when none is given: {@link #warmup} takes {@link #DEFAULT_WARMUP}. */
    public static final int DEFAULT_WARMUP_ITERS = WarmupIters.BY_CONDUIT;
    /** Warm-up iterations per size by default, on every conduit ({@link #warmup}). */
    public static final int DEFAULT_WARMUP = WarmupIters.MEMORY;
    public static final long WARMUP_MAX_SIZE = 65536;

    static final String COMMON_USAGE = """
          The '-in' or '-out' option selects whether the initiator-side
           memory is in the GASNet segment or not (default is 'in').
          The -p/-g option selects puts only or gets only (default is both).
          The -s option skips warm-up iterations
          The -m option enables MB/sec units for bandwidth output (MB=2^20 bytes).
          The -a option enables full-duplex mode, where all nodes send.
          The -c option enables cross-machine pairing, default is nearest neighbor.
          The -f option enables 'first/last' mode, where the first/last
           nodes communicate with each other, while all other nodes sit idle.
        """;

    /**
     * @param program      "testsmall" or "testlarge" (which options and defaults apply)
     * @param defaultMaxSize maxsz when none is given
     * @throws IllegalArgumentException naming the bad argument
     */
    public static RmaBenchOptions parse(String program, long defaultMaxSize, String... args) {
        final boolean large = program.equals("testlarge");
        boolean in = true;
        boolean puts = true;
        boolean gets = true;
        boolean skip = false;
        boolean mb = false;
        boolean duplex = false;
        boolean cross = false;
        boolean firstLast = false;
        long minSize = 0;
        long maxStep = 0;
        long segsz = 0;
        int lbufs = 0;
        int warmup = DEFAULT_WARMUP_ITERS;
        int arg = 0;
        while (arg < args.length && args[arg].startsWith("-")) {
            final String option = args[arg++];
            switch (option) {
                case "-in" -> in = true;
                case "-out" -> in = false;
                case "-p" -> {
                    puts = true;
                    gets = false;
                }
                case "-g" -> {
                    puts = false;
                    gets = true;
                }
                case "-s" -> skip = true;
                case "-m" -> mb = true;
                case "-a" -> duplex = true;
                case "-c" -> cross = true;
                case "-f" -> firstLast = true;
                case "-minsz" -> minSize = size(value(args, arg++, option), 1, option);
                case "-max-step" -> maxStep = size(value(args, arg++, option), 1, option);
                case "-segsz" -> segsz = size(value(args, arg++, option), 1 << 20, option);
                case "-warmup" -> warmup = (int) Math.min(Integer.MAX_VALUE,
                    size(value(args, arg++, option), 1, option));
                case "-lbufs" -> {
                    if (!large) {
                        throw new IllegalArgumentException("unknown option -lbufs");
                    }
                    lbufs = (int) Math.min(Integer.MAX_VALUE, size(value(args, arg++, option), 1, option));
                }
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        if (args.length - arg > 3) {
            throw new IllegalArgumentException("unexpected argument " + args[arg + 3]);
        }
        final long iters = arg < args.length ? size(args[arg++], 1, "iters") : 0;
        if (iters > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("iters " + iters + " is above " + Integer.MAX_VALUE);
        }
        long maxSize = arg < args.length ? size(args[arg++], 1, "maxsz") : 0;
        final String sections = arg < args.length ? sections(args[arg]) : null;
        if (maxSize == 0) {
            maxSize = defaultMaxSize;
        }
        if (minSize == 0) {
            minSize = large ? 16 : 1;
        }
        if (maxSize < minSize) {
            throw new IllegalArgumentException("maxsz (" + maxSize + ") must be >= " + minSize);
        }
        return new RmaBenchOptions(in, puts, gets, skip, mb, duplex, cross, firstLast, minSize,
            maxStep == 0 ? maxSize : maxStep, segsz, lbufs, iters == 0 ? 1000 : (int) iters, maxSize, sections,
            warmup);
    }

    private static String value(String[] args, int at, String option) {
        if (at >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[at];
    }

    /**
     * The warm-up iterations to run: as given, or by default {@link #DEFAULT_WARMUP} on every conduit, networks too.
     * RMA rows over a network are short (testlarge {@code -m 200}): with testam's {@link WarmupIters#NETWORK} per size,
     * C2 compiled the RMA-over-AM path and the loops during the first timed rows, and udp's 16-128 B NBI rows ran 5-13
     * times slower than GASNet's. It costs a few seconds per run there.
     */
    public int warmup() {
        return warmupIters == WarmupIters.BY_CONDUIT ? DEFAULT_WARMUP : warmupIters;
    }

    /** GASNet's gasnett_parse_int: a count with an optional K, M or G suffix; {@code unit} without one. */
    static long size(String text, long unit, String what) {
        final String s = text.trim();
        if (s.isEmpty()) {
            throw new IllegalArgumentException(what + " '' is not a number");
        }
        final char last = Character.toUpperCase(s.charAt(s.length() - 1));
        final long multiplier = switch (last) {
            case 'K' -> 1L << 10;
            case 'M' -> 1L << 20;
            case 'G' -> 1L << 30;
            default -> unit;
        };
        final String digits = Character.isDigit(last) ? s : s.substring(0, s.length() - 1);
        final long value;
        try {
            value = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a number");
        }
        if (value < 0 || value > Long.MAX_VALUE / multiplier) {
            throw new IllegalArgumentException(what + " '" + text + "' is outside [0, " + Long.MAX_VALUE + "]");
        }
        return value * multiplier;
    }

    private static String sections(String letters) {
        for (char c : letters.toCharArray()) {
            if (Character.toUpperCase(c) < 'A' || Character.toUpperCase(c) > 'Z') {
                throw new IllegalArgumentException("test section '" + c + "' is not a letter");
            }
        }
        return letters.toUpperCase(java.util.Locale.ROOT);
    }

    boolean sectionEnabled(char section) {
        return sections == null || sections.indexOf(section) >= 0;
    }
}
