package org.gexj.testqueue;

/**
 * testqueue's command line, as GASNet's:
 * {@code testqueue [-in|-out|-a|-f] [-p -g -s -m -l] [-n -b -v] [-i -e -k] (iters) (maxdepth) (maxsz)}.
 * Operation kinds, put/get flavours and synchronisation kinds each default to "all" when none is given.
 */
public record TestQueueOptions(boolean inSegment, boolean fullDuplex, boolean firstLast,
                               boolean puts, boolean gets, boolean amShort, boolean amMedium, boolean amLong,
                               boolean bulk, boolean nonBulk, boolean value,
                               boolean implicit, boolean explicit, boolean blocking,
                               int iters, int maxDepth, int maxSize) {

    public static final String USAGE = """
        Usage: testqueue [-in|-out|-a|-f] (iters) (maxdepth) (maxsz)
          The 'in' or 'out' option selects whether the initiator-side
          memory is in the GASNet segment or not (default it not).
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
           -k : Test blocking put/gets/medium/long""";

    /**
     * @throws IllegalArgumentException naming the bad argument
     */
    public static TestQueueOptions parse(String... args) {
        boolean in = false;
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
        return new TestQueueOptions(in, duplex, firstLast, p, g, s, m, l, b, n, v, i, e, k, iters, depth, maxsz);
    }

    private static int number(String s, String what) {
        final int value;
        try {
            value = Integer.parseInt(s);
        } catch (NumberFormatException ex) {
            throw new IllegalArgumentException(what + " '" + s + "' is not a number");
        }
        if (value < 0) {
            throw new IllegalArgumentException(what + " " + value + " must be positive");
        }
        return value;
    }
}
