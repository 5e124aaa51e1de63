package org.gexj.launch;

import org.gexj.Conduits;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The launcher's command line: {@code gexrun -n N [--conduit C] [-E VAR=VALUE]... [--bind ADDRESS] [--wrap PREFIX]
 * [-v] [--] PROGRAM args...}, where PROGRAM is a main class, a jar with a Main-Class, or one of the short names
 * {@code testam} and {@code testqueue}.
 *
 * @param ranks   number of ranks, 1..{@link #MAX_RANKS}
 * @param conduit conduit name, or null to inherit {@code GEX_CONDUIT} (default smp)
 * @param env     extra environment for every rank
 * @param verbose print the child command lines
 * @param program main class or jar path
 * @param args    the program's arguments
 * @param bind    {@code --bind}: the IP address the rendezvous listens on (and {@code GEX_BOOTSTRAP} names), or null
 *                for loopback; ranks that are not on the launcher's loopback (another network namespace, another
 *                host) need it
 * @param wrap    {@code --wrap}: words put in front of every rank's command, {@code %r} in them standing for the rank
 *                ({@link #wrapFor}); empty for none
 * @param ssh     {@code --hosts}, {@code --ppn} and {@code --ssh}: the hosts the ranks are started on over ssh, or null
 *                to fork them on this host
 */
public record GexRunOptions(int ranks, String conduit, Map<String, String> env, boolean verbose, String program,
                            List<String> args, InetAddress bind, List<String> wrap, SshSpawn ssh) {
    public static final int MAX_RANKS = 1024;
    public static final String USAGE =
        "usage: gexrun -n N [--conduit NAME] [-E VAR=VALUE]... [--bind ADDRESS] [--wrap 'PREFIX %r']"
            + " [--hosts H1,H2,... [--ppn K] [--ssh 'COMMAND']] [-v] [--]"
            + " <main-class | program.jar | testam | testqueue | testsmall | testlarge | testpwc | testfaddperf"
            + " | testratomic | testvis | testvisperf | testteam | testsplit | testcoll | testcollperf> [args...]\n"
            + "       gexrun --list-conduits | -h | --help";
    /** {@code gexrun --help}: every option, one line each, and examples. */
    public static final String HELP = USAGE + "\n"
        + "Starts N ranks of a GEX/J job on this host, or on --hosts over ssh, and supervises them: a rank that fails"
        + " ends the job.\n"
        + "  -n, --ranks N       number of ranks, 1.." + MAX_RANKS + "\n"
        + "  -c, --conduit NAME  the conduit (sets GEX_CONDUIT; default smp); gexrun --list-conduits shows them\n"
        + "  -E VAR=VALUE        set a variable in every rank's environment (GEX_* settings), repeatable\n"
        + "  --bind ADDRESS      the rendezvous listens on this IP address of the launcher's host instead of loopback\n"
        + "  --wrap PREFIX       run each rank as PREFIX's words + its command, %r standing for the rank, %% for %\n"
        + "                      (e.g. --wrap 'ip netns exec gexns%r')\n"
        + "  --hosts H1,H2,...   start the ranks on these hosts over ssh ([user@]host), round robin; the launcher's\n"
        + "                      java, class path and working directory must exist at the same paths on every host\n"
        + "  --ppn K             with --hosts: K ranks per host, in blocks (ranks 0..K-1 on H1, ...), 1.." + MAX_RANKS
        + "\n"
        + "  --ssh COMMAND       with --hosts: the ssh command's words (default: $GEX_SSH, else ssh); gexrun adds\n"
        + "                      -o BatchMode=yes and time-outs, the host and the rank's command; the job secret\n"
        + "                      goes on its stdin\n"
        + "  -v, --verbose       print each rank's command line\n"
        + "  --list-conduits     list the conduits, available or not and why, and exit\n"
        + "  -h, --help          print this help and exit\n"
        + "Environment: GEX_CLASSPATH (entries put before GEX/J's), GEX_JVM_OPTS (extra JVM options of the ranks),\n"
        + "  GEX_SSH (the ssh command of --hosts); ranks on --hosts get the launcher's GEX_* and FI_* variables.\n"
        + "Examples:\n"
        + "  gexrun -n 2 testam 10000 65536\n"
        + "  gexrun -n 4 --conduit udp -E GEX_STATS=1 -- com.example.Main arg1\n"
        + "  gexrun -n 8 --hosts node1,node2 --ppn 4 --conduit udp testam 1000 65536";

    /** What a command line asks for: a job, or only help or the list of conduits. */
    public enum Request { RUN, HELP, LIST_CONDUITS }

    /** The options that take a value, which the scan for {@link #request} steps over. */
    private static final Set<String> TAKES_VALUE = Set.of("-n", "-np", "--ranks", "--conduit", "-c", "-E", "--bind",
        "--wrap", "--hosts", "--ppn", "--ssh");

    /** Short names of the programs shipped with GEX/J. */
    public static final Map<String, String> PROGRAMS = Map.ofEntries(
        Map.entry("testam", "org.gexj.testam.TestAm"),
        Map.entry("testqueue", "org.gexj.testqueue.TestQueue"),
        Map.entry("testsmall", "org.gexj.testrma.TestSmall"),
        Map.entry("testlarge", "org.gexj.testrma.TestLarge"),
        Map.entry("testpwc", "org.gexj.testrma.TestPwc"),
        Map.entry("testfaddperf", "org.gexj.testrma.TestFaddPerf"),
        Map.entry("testratomic", "org.gexj.testrma.TestRatomic"),
        Map.entry("testvis", "org.gexj.testrma.TestVis"),
        Map.entry("testvisperf", "org.gexj.testrma.TestVisPerf"),
        Map.entry("testteam", "org.gexj.testrma.TestTeam"),
        Map.entry("testsplit", "org.gexj.testrma.TestSplit"),
        Map.entry("testcoll", "org.gexj.testrma.TestColl"),
        Map.entry("testcollperf", "org.gexj.testrma.TestCollPerf"));

    public GexRunOptions {
        wrap = wrap == null ? List.of() : List.copyOf(wrap);
    }

    /** Without {@code --bind}, {@code --wrap} and {@code --hosts}: the rendezvous on loopback, ranks forked here. */
    public GexRunOptions(int ranks, String conduit, Map<String, String> env, boolean verbose, String program,
                         List<String> args) {
        this(ranks, conduit, env, verbose, program, args, null, List.of(), null);
    }

    /** Whether every rank runs on this host as forked (no {@code --wrap}, no {@code --hosts}). */
    public boolean ranksAreLocal() {
        return wrap.isEmpty() && ssh == null;
    }

    /**
     * {@link Request#HELP} or {@link Request#LIST_CONDUITS} if the launcher's options (those before the program) name
     * one of them, else {@link Request#RUN}; then {@link #parse} reads the job's options.
     */
    public static Request request(String... argv) {
        for (int i = 0; i < argv.length; i++) {
            final String a = argv[i];
            if (a.equals("--") || !a.startsWith("-")) {
                break;
            }
            switch (a) {
                case "-h", "--help" -> {
                    return Request.HELP;
                }
                case "--list-conduits" -> {
                    return Request.LIST_CONDUITS;
                }
                default -> i += TAKES_VALUE.contains(a) ? 1 : 0;
            }
        }
        return Request.RUN;
    }

    /**
     * @throws IllegalArgumentException naming the bad argument, with the usage
     */
    public static GexRunOptions parse(String... argv) {
        return parseWith(System.getenv("GEX_SSH"), argv);
    }

    /**
     * @param sshFromEnvironment the launcher's {@code GEX_SSH} (the ssh command when {@code --ssh} is not given), or
     *                           null
     * @throws IllegalArgumentException naming the bad argument, with the usage
     */
    static GexRunOptions parseWith(String sshFromEnvironment, String... argv) {
        int ranks = -1;
        String hosts = null;
        String ppn = null;
        String sshCommand = null;
        String conduit = null;
        boolean verbose = false;
        InetAddress bind = null;
        List<String> wrap = List.of();
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
                case "--bind" -> bind = parseBind(value(argv, ++i, a));
                case "--wrap" -> wrap = parseWrap(value(argv, ++i, a));
                case "--hosts" -> hosts = value(argv, ++i, a);
                case "--ppn" -> ppn = value(argv, ++i, a);
                case "--ssh" -> sshCommand = value(argv, ++i, a);
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
        final SshSpawn ssh;
        try {
            ssh = SshSpawn.parse(ranks, hosts, ppn, sshCommand, sshFromEnvironment);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        if (ssh != null && !wrap.isEmpty()) {
            throw bad("--wrap and --hosts do not combine: --hosts starts each rank through ssh (--ssh gives its"
                + " command)");
        }
        return new GexRunOptions(ranks, conduit, env, verbose, program, args, bind, wrap, ssh);
    }

    /**
     * The conduit the ranks will use: {@code --conduit}, else {@code -E GEX_CONDUIT=}, else {@code inherited} (the
     * launcher's own {@code GEX_CONDUIT}), else smp; the same order in which the ranks' environment is built.
     */
    public String effectiveConduit(String inherited) {
        if (conduit != null) {
            return conduit;
        }
        final String fromEnv = env.get("GEX_CONDUIT");
        if (fromEnv != null) {
            return fromEnv;
        }
        return defaultConduit(inherited);
    }

    /**
     * The conduit of a job that names none: {@code inherited} (the launcher's {@code GEX_CONDUIT}) if set, else smp.
     */
    public static String defaultConduit(String inherited) {
        return inherited == null || inherited.isBlank() ? Conduits.DEFAULT : inherited;
    }

    /** The words that {@code --wrap} puts in front of rank {@code rank}'s command: {@code %r} replaced by the rank. */
    public List<String> wrapFor(int rank) {
        final List<String> words = new ArrayList<>(wrap.size());
        for (String w : wrap) {
            words.add(substitute(w, rank));
        }
        return words;
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

    /**
     * An IP literal only: a host name would make the launcher depend on name resolution (and could resolve to an
     * address it cannot bind), and the ranks must be given one address they can all connect to, so not the wildcard.
     */
    private static InetAddress parseBind(String s) {
        final InetAddress address;
        try {
            address = InetAddress.ofLiteral(s);
        } catch (IllegalArgumentException e) {
            throw bad("--bind " + s + " is not an IP address (IPv4 or IPv6 literal)");
        }
        if (address.isAnyLocalAddress() || address.isMulticastAddress()) {
            throw bad("--bind " + s + " is a " + (address.isAnyLocalAddress() ? "wildcard" : "multicast")
                + " address: give one the ranks can connect to");
        }
        return address;
    }

    /** The words of {@code --wrap}, split on white space; each {@code %} must be {@code %r} or {@code %%}. */
    private static List<String> parseWrap(String s) {
        final String trimmed = s.strip();
        if (trimmed.isEmpty()) {
            throw bad("--wrap '" + s + "' is empty: give the words to put in front of each rank's command");
        }
        final List<String> words = List.of(trimmed.split("\\s+"));
        for (String w : words) {
            for (int at = w.indexOf('%'); at >= 0; at = w.indexOf('%', at + 2)) {
                if (at + 1 >= w.length() || (w.charAt(at + 1) != 'r' && w.charAt(at + 1) != '%')) {
                    throw bad("--wrap '" + s + "': '" + w + "' has a % that is neither %r (the rank) nor %% (a %)");
                }
            }
        }
        return words;
    }

    private static String substitute(String word, int rank) {
        if (word.indexOf('%') < 0) {
            return word;
        }
        final StringBuilder out = new StringBuilder(word.length() + 4);
        for (int i = 0; i < word.length(); i++) {
            final char c = word.charAt(i);
            if (c == '%' && i + 1 < word.length()) {
                out.append(word.charAt(++i) == 'r' ? Integer.toString(rank) : "%");
            } else {
                out.append(c);
            }
        }
        return out.toString();
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
