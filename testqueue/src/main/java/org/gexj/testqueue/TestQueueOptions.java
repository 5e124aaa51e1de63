package org.gexj.testqueue;

/**
 * testqueue's command line, as GASNet's:
 * {@code testqueue [-in|-out|-a|-f] [-p -g -s -m -l] [-n -b -v] [-i -e -k] (iters) (maxdepth) (maxsz)}.
 * Operation kinds, put/get flavours and synchronisation kinds each default to "all" when none is given.
 *
 * @param warmupIters -warmup N (GEX/J only): an untimed, silent pass of the enabled tests with N/10 iterations per
 *                    cell and sizes up to {@link #WARMUP_LARGE_MAX_SIZE} (larger payloads take other paths: an AM
 *                    Long past the packed limit goes by RMA), then {@link #WARMUP_ROUNDS} with N iterations and sizes
 *                    up to {@link #WARMUP_MAX_SIZE}, so the JIT has compiled the data path before the first timed
 *                    cell; 0 turns the warm-up off
 */
public record TestQueueOptions(boolean inSegment, boolean fullDuplex, boolean firstLast,
                               boolean puts, boolean gets, boolean amShort, boolean amMedium, boolean amLong,
                               boolean bulk, boolean nonBulk, boolean value,
                               boolean implicit, boolean explicit, boolean blocking,
                               int iters, int maxDepth, int maxSize, int warmupIters) {
    public static final int DEFAULT_WARMUP_ITERS = 100;
    public static final int WARMUP_MAX_SIZE = 4096;
    public static final int WARMUP_ROUNDS = 2;
    public static final int WARMUP_LARGE_MAX_SIZE = 65536;

    public static final String USAGE = """
        Usage: testqueue [-in|-out|-a|-f] [type options] [-warmup N] (iters) (maxdepth) (maxsz)
          The '-in' or '-out' option selects whether the initiator-side
          memory is in the GASNet segment or not (default is 'in').
          The -a option enables full-duplex mode, where all nodes send.
          The -f option enables 'first/last' mode, where the first node
          sends to the last, while all other nodes sit idle.
          Test types to run: (defaults to everything)
           -p : puts
           -g : gets
           -s : AMShort
           -m : AMMedium
           -l : AMLong
           -n : Test non-bulk put/gets
           -b : Test bulk put/gets
           -v : Test value-based put/gets
           -i : Test implicit-handle put/gets/medium/long
           -e : Test explicit-handle put/gets/medium/long
           -k : Test blocking put/gets/medium/long
          The '-warmup N' option (default 100, 0 = off) first runs an untimed
          pass with N/10 iterations per cell and sizes up to 65536, then
          passes with N and sizes up to 4096, so the JIT has compiled the
          data path before timing starts.""";

    /**
     * @throws IllegalArgumentException naming the bad argument
     */
    public static TestQueueOptions parse(String... args) {
        boolean in = true;
        boolean duplex = false;
        boolean firstLast = false;
        boolean p = false;
        boolean g = false;
        boolean s = false;
        boolean m = false;
        boolean l = false;
        boolean b = false;
        boolean n = false;
        boolean v = false;
        boolean i = false;
        boolean e = false;
        boolean k = false;
        int warmup = DEFAULT_WARMUP_ITERS;
        int arg = 0;
        while (arg < args.length && args[arg].startsWith("-")) {
            switch (args[arg]) {
                case "-in" -> in = true;
                case "-out" -> in = false;
                case "-a" -> duplex = true;
                case "-f" -> firstLast = true;
                case "-p" -> p = true;
                case "-g" -> g = true;
                case "-s" -> s = true;
                case "-m" -> m = true;
                case "-l" -> l = true;
                case "-b" -> b = true;
                case "-n" -> n = true;
                case "-v" -> v = true;
                case "-i" -> i = true;
                case "-e" -> e = true;
                case "-k" -> k = true;
                case "-warmup" -> {
                    if (arg + 1 >= args.length) {
                        throw new IllegalArgumentException("-warmup needs an iteration count >= 0");
                    }
                    warmup = number(args[++arg], "-warmup");
                }
                default -> throw new IllegalArgumentException("unknown option " + args[arg]);
            }
            arg++;
        }
        if (duplex && firstLast) {
            throw new IllegalArgumentException("-a and -f exclude each other");
        }
        if (args.length - arg > 3) {
            throw new IllegalArgumentException("unexpected argument " + args[arg + 3]);
        }
        int iters = arg < args.length ? number(args[arg++], "iters") : 0;
        int depth = arg < args.length ? number(args[arg++], "maxdepth") : 0;
        int maxsz = arg < args.length ? number(args[arg++], "maxsz") : 0;
        if (iters == 0) {
            iters = 10;
        }
        if (depth == 0) {
            depth = 1024;
        }
        if (maxsz == 0) {
            maxsz = 2 * 1024 * 1024;
        }
        if (!(p || g || s || m || l)) {
            p = g = s = m = l = true;
        }
        if (!(i || e || k)) {
            i = e = k = true;
        }
        if (!(b || n || v)) {
            b = n = v = true;
        }
        return new TestQueueOptions(in, duplex, firstLast, p, g, s, m, l, b, n, v, i, e, k,
            iters, depth, maxsz, warmup);
    }

    private static int number(String s, String what) {
        final int value;
        try {
            value = Integer.parseInt(s);
        } catch (NumberFormatException ex) {
            throw new IllegalArgumentException(what + " '" + s + "' is not a number");
        }
        if (value < 0) {
            throw new IllegalArgumentException(what + " " + value + " must be >= 0");
        }
        return value;
    }
}
