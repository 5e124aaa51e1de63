package org.gexj.launch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The launcher's command line: {@code gexrun -n N [--conduit C] [-E VAR=VALUE]... [-v] [--] PROGRAM args...}, where
 * PROGRAM is a main class, a jar with a Main-Class, or one of the short names {@code testam} and {@code testqueue}.
 *
 * @param ranks   number of ranks, 1..{@link #MAX_RANKS}
 * @param conduit conduit name, or null to inherit {@code GEX_CONDUIT} (default smp)
 * @param env     extra environment for every rank
 * @param verbose print the child command lines
 * @param program main class or jar path
 * @param args    the program's arguments
 */
public record GexRunOptions(int ranks, String conduit, Map<String, String> env, boolean verbose, String program,
                            List<String> args) {
    public static final int MAX_RANKS = 1024;
    public static final String USAGE =
        "usage: gexrun -n N [--conduit smp] [-E VAR=VALUE]... [-v] [--] <main-class | program.jar | testam | testqueue> [args...]";
    /** Short names of the programs shipped with GEX/J. */
    public static final Map<String, String> PROGRAMS = Map.of(
        "testam", "org.gexj.testam.TestAm",
        "testqueue", "org.gexj.testqueue.TestQueue");

    /**
     * @throws IllegalArgumentException naming the bad argument, with the usage
     */
    public static GexRunOptions parse(String... argv) {
        int ranks = -1;
        String conduit = null;
        boolean verbose = false;
        final Map<String, String> env = new LinkedHashMap<>();
        int i = 0;
        while (i < argv.length) {
            final String a = argv[i];
            if (a.equals("--")) {
                i++;
                break;
            }
            if (!a.startsWith("-")) {
                break;
            }
            switch (a) {
                case "-n", "-np", "--ranks" -> ranks = parseRanks(value(argv, ++i, a));
                case "--conduit", "-c" -> conduit = value(argv, ++i, a);
                case "-E" -> {
                    final String kv = value(argv, ++i, a);
                    final int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw bad("-E " + kv + " is not VAR=VALUE");
                    }
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                case "-v", "--verbose" -> verbose = true;
                default -> {
                    if (a.startsWith("-n") && a.length() > 2) {
                        ranks = parseRanks(a.substring(2));
                    } else {
                        throw bad("unknown option " + a);
                    }
                }
            }
            i++;
        }
        if (ranks < 0) {
            throw bad("the number of ranks (-n N) is required");
        }
        if (i >= argv.length) {
            throw bad("no program given");
        }
        final String program = argv[i];
        final List<String> args = new ArrayList<>(List.of(argv).subList(i + 1, argv.length));
        return new GexRunOptions(ranks, conduit, env, verbose, program, args);
    }

    /** The main class to run: a short name's class, or the program itself (jars are resolved by the launcher). */
    public String mainClass() {
        return PROGRAMS.getOrDefault(program, program);
    }

    public boolean isJar() {
        return program.endsWith(".jar");
    }

    private static int parseRanks(String s) {
        final int n;
        try {
            n = Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw bad("-n " + s + " is not a number; ranks must be in [1, " + MAX_RANKS + "]");
        }
        if (n < 1 || n > MAX_RANKS) {
            throw bad("-n " + n + " outside [1, " + MAX_RANKS + "]");
        }
        return n;
    }

    private static String value(String[] argv, int i, String option) {
        if (i >= argv.length) {
            throw bad(option + " needs a value");
        }
        return argv[i];
    }

    private static IllegalArgumentException bad(String why) {
        return new IllegalArgumentException("gexrun: " + why + "\n" + USAGE);
    }
}
