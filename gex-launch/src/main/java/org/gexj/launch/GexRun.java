package org.gexj.launch;

import org.gexj.Conduits;
import org.gexj.bootstrap.JobSecret;
import org.gexj.launch.rendezvous.RendezvousServer;
import org.gexj.spi.ConduitProvider;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.jar.JarFile;

/**
 * The launcher ({@code bin/gexrun}): forks the ranks of a job on this host (each through {@code --wrap}'s command when
 * given, which may put it elsewhere: another network namespace, another host), or starts them on {@code --hosts} over
 * ssh ({@link SshSpawn}), serves their bootstrap rendezvous, and
 * ends the job when a rank dies — the others are told through the bootstrap, then terminated if they do not exit
 * by themselves — so a job never hangs on a dead rank. Exits with 0 when every rank did, else non-zero.
 */
public final class GexRun {
    /**
     * The JVM options of every rank, from the resource {@code rank-jvm.args} (one option per line, {@code #} comments):
     * the one list that gexrun's ranks and {@code bin/gexrank} (which passes the file to java as an @argument file)
     * share. FFM and Agrona need the first ones; Agrona's per-access bounds checks are off in jobs.
     */
    static final List<String> JVM_FLAGS = rankJvmFlags();

    private static List<String> rankJvmFlags() {
        try (var in = GexRun.class.getResourceAsStream("rank-jvm.args")) {
            if (in == null) {
                throw new IllegalStateException("resource org/gexj/launch/rank-jvm.args is missing from gex-launch");
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read org/gexj/launch/rank-jvm.args", e);
        }
    }
    /**
     * Native libraries a conduit loads may install their own handlers for signals the JVM uses itself (libfabric's shm
     * provider does, for SIGSEGV and SIGBUS, to clean up its shared memory): preloading the JDK's libjsig keeps the
     * JVM's handlers in place and chains to theirs for signals the JVM does not handle (HotSpot's signal chaining).
     */
    static void preloadSignalChaining(Map<String, String> env, String javaCommand) {
        final java.nio.file.Path jsig = java.nio.file.Path.of(javaCommand).toAbsolutePath().getParent().getParent()
            .resolve("lib").resolve("libjsig.so");
        if (java.nio.file.Files.isReadable(jsig)) {
            env.merge("LD_PRELOAD", jsig.toString(), (old, mine) -> old.contains(mine) ? old : mine + ":" + old);
        }
    }

    /** The glibc tunable {@link #avoidRepMovsb} sets: the size from which {@code memcpy} uses {@code rep movsb}. */
    static final String REP_MOVSB_THRESHOLD = "glibc.cpu.x86_rep_movsb_threshold";
    /** {@link #REP_MOVSB_THRESHOLD}'s value for the ranks: above any copy (1 TiB), so no copy takes that path. */
    static final String REP_MOVSB_NEVER = REP_MOVSB_THRESHOLD + "=1099511627776";

    /**
     * glibc's {@code memcpy} copies from 2112 bytes on with {@code rep movsb} on AMD's Zen (its FSRM flag), up to the
     * L2 cache's size. Between ranks that is the wrong copy: a payload goes into lines the peer's core read last (a
     * ring frame, a segment) from lines it wrote last, and there {@code rep movsb} took 0.73 us per 4 KiB round trip
     * of two such copies where the same {@code memcpy}'s vector loop took 0.44 (two threads, 1 MiB rings, this
     * 2-core EPYC VM); smp testam's 4-16 KiB Medium round trips took 14-20 % less without it. glibc reads its
     * tunables once, as the process starts, so only the launcher can choose: the ranks get {@link #REP_MOVSB_NEVER}
     * added to {@code GLIBC_TUNABLES}, unless that names the threshold already (a user's choice stands). Other
     * processors ignore the tunable. {@code bin/gexrank} does the same for ranks other launchers start.
     */
    static void avoidRepMovsb(Map<String, String> env) {
        env.merge("GLIBC_TUNABLES", REP_MOVSB_NEVER,
            (old, mine) -> old.contains(REP_MOVSB_THRESHOLD) ? old : old.isBlank() ? mine : old + ":" + mine);
    }

    /** What testam's and testqueue's progress line reads ({@code org.gexj.benchutil.Progress}): 1 shows it. */
    static final String PROGRESS = "GEX_PROGRESS";
    private static final long TERMINATE_AFTER_MS = 3000;
    private static final long KILL_AFTER_MS = 6000;
    private static final long SUPERVISE_WAKE_MS = 250;
    /** How long the launcher waits for killed ranks to go before it cleans up after them. */
    private static final long CLEANUP_WAIT_SECONDS = 5;

    private GexRun() {
    }

    public static void main(String[] argv) {
        final GexRunOptions.Request request = GexRunOptions.request(argv);
        if (request == GexRunOptions.Request.HELP) {
            System.out.println(GexRunOptions.HELP);
            System.exit(0);
            return;
        }
        if (request == GexRunOptions.Request.LIST_CONDUITS) {
            System.out.println(ConduitCatalog.of(System.getenv("GEX_CLASSPATH")).listing(
                GexRunOptions.defaultConduit(System.getenv("GEX_CONDUIT"))));
            System.exit(0);
            return;
        }
        final GexRunOptions options;
        try {
            options = GexRunOptions.parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        int code;
        try {
            final String conduit = options.effectiveConduit(System.getenv("GEX_CONDUIT"));
            final var problem = ConduitCatalog.of(System.getenv("GEX_CLASSPATH"))
                .problem(conduit, options.ranksAreLocal());
            if (problem.isPresent()) {
                System.err.println(problem.get());
                System.exit(2);
                return;
            }
            code = run(options);
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("gexrun: " + e.getMessage());
            code = 2;
        }
        System.exit(code);
    }

    /** The command line of every rank (the environment carries the rank). */
    static List<String> childCommand(GexRunOptions options, String javaExecutable, String classPath,
                                     String extraJvmOptions) throws IOException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(javaExecutable);
        cmd.addAll(JVM_FLAGS);
        if (extraJvmOptions != null && !extraJvmOptions.isBlank()) {
            cmd.addAll(Arrays.asList(extraJvmOptions.trim().split("\\s+")));
        }
        String mainClass = options.mainClass();
        String cp = classPath;
        if (options.isJar()) {
            final Path jar = Path.of(options.program());
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("program jar " + jar + " does not exist");
            }
            try (JarFile jf = new JarFile(jar.toFile())) {
                final var manifest = jf.getManifest();
                mainClass = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
            }
            if (mainClass == null) {
                throw new IllegalArgumentException("program jar " + jar + " has no Main-Class in its manifest");
            }
            cp = jar.toAbsolutePath() + File.pathSeparator + cp;
        }
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add(mainClass);
        cmd.addAll(options.args());
        return cmd;
    }

    static int run(GexRunOptions options) throws IOException {
        final byte[] secret = JobSecret.random(32);
        final String jobId = "gexj" + JobSecret.hex(JobSecret.random(4));
        final String java = ProcessHandle.current().info().command().orElse(
            Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String cp = System.getProperty("java.class.path");
        final String extraCp = System.getenv("GEX_CLASSPATH");
        if (extraCp != null && !extraCp.isBlank()) {
            cp = extraCp + File.pathSeparator + cp;
        }
        final List<String> command = childCommand(options, java, cp, System.getenv("GEX_JVM_OPTS"));
        final Process[] ranks = new Process[options.ranks()];
        // the ranks' stderr is a pipe to this launcher: whether to show progress is this launcher's terminal's call
        final boolean progress = stderrIsTerminal();
        final RankOutputForwarder output = new RankOutputForwarder(System.out, System.err);
        final SshSpawn ssh = options.ssh();
        try (RendezvousServer server = rendezvous(options, secret)) {
            final Thread cleanup = new Thread(() -> destroyAll(ranks, true), "gexrun-shutdown");
            Runtime.getRuntime().addShutdownHook(cleanup);
            for (int r = 0; r < ranks.length; r++) {
                final Map<String, String> env = new LinkedHashMap<>();
                if (progress && System.getenv(PROGRESS) == null) {
                    env.put(PROGRESS, "1");
                }
                if (ssh != null) {
                    // a remote shell starts with sshd's environment: what a local rank inherits goes with it
                    env.putAll(forwardedToHosts(System.getenv()));
                }
                env.putAll(options.env());
                env.put("GEX_RANK", Integer.toString(r));
                env.put("GEX_SIZE", Integer.toString(ranks.length));
                env.put("GEX_BOOTSTRAP", server.address());
                // over ssh the secret goes on stdin, never on a command line (ps shows those to every user)
                env.put("GEX_JOB_SECRET", ssh == null ? JobSecret.hex(secret) : JobSecret.FROM_STDIN);
                env.put("GEX_JOB_ID", jobId);
                env.put("GEX_EXIT_ON_FAILURE", "1");
                if (options.conduit() != null) {
                    env.put("GEX_CONDUIT", options.conduit());
                }
                final ProcessBuilder pb;
                if (ssh == null) {
                    final List<String> rankCommand = new ArrayList<>(options.wrapFor(r));
                    rankCommand.addAll(command);
                    pb = new ProcessBuilder(rankCommand).redirectInput(ProcessBuilder.Redirect.INHERIT);
                    pb.environment().putAll(env);
                    preloadSignalChaining(pb.environment(), java);
                    avoidRepMovsb(pb.environment());
                } else {
                    preloadSignalChaining(env, java);
                    avoidRepMovsb(env);
                    pb = new ProcessBuilder(ssh.commandFor(ssh.host(r), System.getProperty("user.dir"), env, command));
                }
                if (options.verbose()) {
                    output.launcherLine("gexrun: rank " + r + ": " + String.join(" ", pb.command()));
                }
                try {
                    ranks[r] = pb.start();
                } catch (IOException e) {
                    if (ssh != null) {
                        throw new IOException("--hosts: cannot start " + ssh.command().getFirst() + " for rank " + r
                            + " on " + ssh.host(r) + ": " + e.getMessage(), e);
                    }
                    if (options.wrap().isEmpty()) {
                        throw e;
                    }
                    throw new IOException("--wrap " + String.join(" ", options.wrap()) + ": cannot start rank " + r
                        + ": " + e.getMessage(), e);
                }
                if (ssh != null) {
                    sendSecret(ranks[r], secret);
                }
                output.forward(r, ranks[r]);
            }
            final int code = supervise(ranks, server, output, r -> ssh == null ? "rank " + r
                : "rank " + r + " on " + ssh.host(r), ssh != null);
            Runtime.getRuntime().removeShutdownHook(cleanup);
            return code;
        } finally {
            destroyAll(ranks, true);
            output.drain();
            final List<Long> pids = ssh == null ? endedPids(ranks) : List.of();
            final List<String> removed = new ArrayList<>();
            for (ConduitProvider conduit : Conduits.all()) {
                removed.addAll(conduit.cleanup(jobId, pids));
            }
            if (!removed.isEmpty()) {
                output.launcherLine(leftoversReport(jobId, removed));
            }
        }
    }

    /**
     * The rendezvous on loopback, on {@code --bind}'s address, or with {@code --hosts} on the address that routes to
     * the first host, with an error naming the option if it cannot.
     */
    private static RendezvousServer rendezvous(GexRunOptions options, byte[] secret) throws IOException {
        if (options.bind() == null && options.ssh() == null) {
            return new RendezvousServer(options.ranks(), secret);
        }
        final InetAddress address = options.bind() != null ? options.bind()
            : SshSpawn.addressTowards(options.ssh().hosts().getFirst());
        try {
            return new RendezvousServer(options.ranks(), secret, address);
        } catch (IOException e) {
            // typically "Cannot assign requested address": not an address of this host (or of this network namespace)
            throw new IllegalArgumentException((options.bind() != null ? "--bind " : "--hosts: the route's address ")
                + address.getHostAddress() + ": cannot listen there: " + e.getMessage(), e);
        }
    }

    /**
     * The launcher's variables that ranks on other hosts get: GEX/J's settings and libfabric's, as local ranks inherit
     * them; not the launcher's own (its ssh command, class path and JVM options are used here) nor any job secret.
     */
    static Map<String, String> forwardedToHosts(Map<String, String> launcherEnvironment) {
        final Map<String, String> forwarded = new TreeMap<>();
        launcherEnvironment.forEach((k, v) -> {
            if ((k.startsWith("GEX_") || k.startsWith("FI_")) && !LAUNCHER_ONLY.contains(k)) {
                forwarded.put(k, v);
            }
        });
        return forwarded;
    }

    private static final Set<String> LAUNCHER_ONLY = Set.of("GEX_JOB_SECRET", "GEX_SSH", "GEX_CLASSPATH",
        "GEX_JVM_OPTS");

    /**
     * Writes the secret as the first line of a remote rank's stdin (ssh carries it), then closes it: the rank reads
     * that line ({@code GEX_JOB_SECRET=-}) and then end of file. An ssh that ended already is reported by supervision.
     */
    private static void sendSecret(Process ssh, byte[] secret) {
        try (OutputStream stdin = ssh.getOutputStream()) {
            stdin.write((JobSecret.hex(secret) + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            // broken pipe: ssh exited, and its exit status ends the job
        }
    }

    /**
     * Waits for every rank; on the first failure, aborts the job and terminates whoever does not exit. Exits arrive
     * through {@link Process#onExit()}, so the launcher sleeps instead of polling: on 2 cores a launcher waking
     * every few milliseconds preempts a spinning rank. The bounded wait still notices failures that the rendezvous
     * reports and the terminate/kill deadlines.
     */
    private static int supervise(Process[] ranks, RendezvousServer server, RankOutputForwarder output,
                                 IntFunction<String> who, boolean overSsh) {
        final BlockingQueue<Integer> exited = new LinkedBlockingQueue<>();
        for (int r = 0; r < ranks.length; r++) {
            final int rank = r;
            ranks[r].onExit().thenRun(() -> exited.add(rank));
        }
        final Map<Integer, Integer> codes = new HashMap<>();
        int failedRank = -1;
        long failedAt = 0;
        while (codes.size() < ranks.length) {
            final Integer r;
            try {
                r = exited.poll(SUPERVISE_WAKE_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                destroyAll(ranks, true);
                return 1;
            }
            // the rendezvous's failure first: a rank that exits on hearing of it is not the cause
            if (failedRank < 0 && server.failure() != null) {
                failedRank = Math.max(server.failedRank(), 0);
                failedAt = System.currentTimeMillis();
                final String failed = server.failedRank() >= 0 ? who.apply(server.failedRank()) + " failed"
                    : "the job failed";
                output.launcherLine("gexrun: " + failed + ": " + server.failure() + "; ending the job");
            }
            if (r != null) {
                final int code = ranks[r].exitValue();
                codes.put(r, code);
                if (code != 0 && failedRank < 0) {
                    failedRank = r;
                    failedAt = System.currentTimeMillis();
                    final String why = why(code, overSsh);
                    output.launcherLine("gexrun: " + who.apply(r) + " " + why + "; ending the job");
                    // a lost ssh session may leave its rank running: then it is told too (rank -1: all ranks)
                    final boolean rankMayLive = overSsh && code == SshSpawn.SSH_FAILED;
                    server.abort(rankMayLive ? -1 : r, who.apply(r) + " " + why);
                }
            }
            if (failedRank >= 0) {
                final long waited = System.currentTimeMillis() - failedAt;
                if (waited > KILL_AFTER_MS) {
                    destroyAll(ranks, true);
                } else if (waited > TERMINATE_AFTER_MS) {
                    destroyAll(ranks, false);
                }
            }
        }
        if (failedRank >= 0) {
            final StringBuilder summary = new StringBuilder("gexrun: exit codes by rank:");
            for (int r = 0; r < ranks.length; r++) {
                summary.append(' ').append(r).append('=').append(codes.get(r));
            }
            output.drain();
            output.launcherLine(summary.toString());
            return Math.max(1, codes.getOrDefault(failedRank, 1) & 0xff);
        }
        return codes.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /** How a rank's process ended, for the launcher's line; over ssh, 255 is ssh's own failure. */
    static String why(int code, boolean overSsh) {
        if (overSsh && code == SshSpawn.SSH_FAILED) {
            return "lost its ssh session: ssh exited with " + code + " (connection refused or lost, or login"
                + " failed: see ssh's message above)";
        }
        return code > 128 ? "was killed by signal " + (code - 128) : "exited with code " + code;
    }

    /**
     * The ranks' process ids, once each has ended (a killed process takes a moment to go; one still there after
     * {@link #CLEANUP_WAIT_SECONDS} is left out, so nothing it still uses is removed).
     */
    private static List<Long> endedPids(Process[] ranks) {
        final List<Long> pids = new ArrayList<>(ranks.length);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLEANUP_WAIT_SECONDS);
        for (Process p : ranks) {
            if (p == null) {
                continue;
            }
            try {
                if (p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    pids.add(p.pid());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return pids;
    }

    private static void destroyAll(Process[] ranks, boolean forcibly) {
        for (Process p : ranks) {
            if (p != null && p.isAlive()) {
                if (forcibly) {
                    p.destroyForcibly();
                } else {
                    p.destroy();
                }
            }
        }
    }

    /**
     * The launcher's line about what the conduits' {@code cleanup} had to remove after the job: a rank killed before it
     * could release its resources, or a conduit leak. A test or a user can tell either from a clean end.
     */
    static String leftoversReport(String jobId, List<String> removed) {
        return "gexrun: removed " + removed.size() + " leftover file(s) of job " + jobId + ": "
            + String.join(" ", removed);
    }

    /**
     * Whether this process's stderr is a terminal (Linux: descriptor 2 is a tty or pseudo-terminal), which decides
     * whether gexrun asks its ranks for progress lines.
     */
    static boolean stderrIsTerminal() {
        try {
            final String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
