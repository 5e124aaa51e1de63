package org.gexj.testkit;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The driver's side of a kit job of processes: runs {@code [PREFIX] gexrun -n N [OPTIONS] -E ... KitRank KIT METHOD
 * JOB} as a user runs gexrun, or {@code [PREFIX] mpirun -np N [OPTIONS] -x ... java RANK-JVM-OPTIONS KitRank KIT METHOD
 * JOB} as a user runs {@code bin/gexrank} under Open MPI, waits for it with a timeout (then kills the launcher and its
 * ranks), and fails with the job's output when the launcher exits non-zero.
 */
final class ProcessKitJob {
    /** What a failed job's message keeps of its output. */
    private static final int KEPT_LINES = 120;

    /** Files of the signal directory that hold the failure of an earlier job of the method: message, and output. */
    private static final String VERDICT = "verdict-";
    private static final String OUTPUT = "-output";

    private ProcessKitJob() {
    }

    /**
     * In a rank process, the failure that the driver saw for earlier job {@code job}, to be thrown again, or null if
     * it passed.
     */
    static AssertionError replay(Path signals, int job) {
        final Path message = signals.resolve(VERDICT + job);
        if (!Files.exists(message)) {
            return null;
        }
        try {
            return new AssertionError(Files.readString(message, StandardCharsets.UTF_8),
                new Failure(Files.readString(signals.resolve(VERDICT + job + OUTPUT), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Where the job runs: the launcher, words in front of its command ({@code ip netns exec NS}), its options for
     * where the ranks run (gexrun's {@code --bind}, {@code --wrap}, {@code --hosts}; mpirun's {@code --host}), and the
     * hosts' addresses that the ranks check they run on ({@link KitHosts#addresses()}); all empty for a job on this
     * host's loopback.
     */
    record Placement(ConduitKit.Launch launcher, List<String> launcherPrefix, List<String> options,
                     List<String> hostAddresses) {
        Placement {
            if (launcher == ConduitKit.Launch.THREADS) {
                throw new IllegalArgumentException("a job of threads has no launcher");
            }
            launcherPrefix = List.copyOf(launcherPrefix);
            options = List.copyOf(options);
            hostAddresses = List.copyOf(hostAddresses);
        }
    }

    /** A job of processes that failed; its message is the job's output. */
    static final class Failure extends RuntimeException {
        Failure(String output) {
            super(output);
        }
    }

    /**
     * Runs job {@code earlier.size()} of the test method; {@code earlier} holds the verdicts of the jobs before it, in
     * order (null: passed), which the rank processes replay.
     */
    static void run(Class<?> kit, String method, List<AssertionError> earlier, int ranks, Map<String, String> env,
                    long seed, Duration timeout, Placement placement) {
        final int job = earlier.size();
        final Path signals;
        try {
            signals = Files.createTempDirectory("gexj-kit-signals");
            for (int i = 0; i < earlier.size(); i++) {
                final AssertionError verdict = earlier.get(i);
                if (verdict != null) {
                    Files.writeString(signals.resolve(VERDICT + i), verdict.getMessage(), StandardCharsets.UTF_8);
                    Files.writeString(signals.resolve(VERDICT + i + OUTPUT),
                        verdict.getCause() == null ? verdict.getMessage() : verdict.getCause().getMessage(),
                        StandardCharsets.UTF_8);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        final Map<String, String> rankEnv = new LinkedHashMap<>(env);
        rankEnv.put(KitRank.SIGNALS, signals.toString());
        rankEnv.put(KitRank.SEED, Long.toString(seed));
        rankEnv.put(KitRank.LAUNCHER, placement.launcher().name());
        if (!placement.hostAddresses().isEmpty()) {
            rankEnv.put(KitRank.HOSTS, String.join(",", placement.hostAddresses()));
        }
        final List<String> rankProgram = List.of(KitRank.class.getName(), kit.getName(), method, Integer.toString(job));
        final List<String> command = new ArrayList<>(placement.launcherPrefix());
        command.addAll(placement.launcher() == ConduitKit.Launch.MPIRUN
            ? mpirun(ranks, placement.options(), rankEnv, rankProgram)
            : gexrun(ranks, placement.options(), rankEnv, rankProgram));
        final String name = placement.launcher().name().toLowerCase(java.util.Locale.ROOT);
        final List<String> lines = new CopyOnWriteArrayList<>();
        Process launcher = null;
        try {
            final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            if (placement.launcher() == ConduitKit.Launch.MPIRUN) {
                builder.environment().putAll(MPIRUN_ENVIRONMENT);
            } else {
                // gexrun gives the ranks its own GEX_JVM_OPTS; later options win, so the caller's come last
                final String outer = System.getenv("GEX_JVM_OPTS");
                builder.environment().put("GEX_JVM_OPTS", String.join(" ", kitJvmOptions())
                    + (outer == null || outer.isBlank() ? "" : " " + outer));
            }
            launcher = builder.start();
            final Process p = launcher;
            final Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException ignored) {
                    // the launcher ended
                }
            }, name + "-kit-output");
            reader.setDaemon(true);
            reader.start();
            // the launcher's own start and the ranks' JVMs come on top of the job's time
            if (!launcher.waitFor(timeout.toSeconds() + 30, TimeUnit.SECONDS)) {
                kill(launcher);
                reader.join(2000);
                throw new AssertionError(name + " kit job " + job + " of " + kit.getSimpleName() + "." + method
                    + " still running after " + timeout.toSeconds() + " + 30 s, killed:\n" + tail(lines));
            }
            reader.join(5000);
            if (launcher.exitValue() != 0) {
                final String output = tail(lines);
                throw new AssertionError(name + " kit job " + job + " of " + kit.getSimpleName() + "." + method
                    + " (" + ranks + " ranks) exited with " + launcher.exitValue() + ":\n" + output,
                    new Failure(output));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for " + name + " kit job " + job, e);
        } finally {
            if (launcher != null && launcher.isAlive()) {
                kill(launcher);
            }
            delete(signals);
        }
    }

    /** {@code java GexRun -n N OPTIONS -E K=V... -- PROGRAM}: gexrun as {@code bin/gexrun} runs it. */
    private static List<String> gexrun(int ranks, List<String> options, Map<String, String> env, List<String> program) {
        final List<String> command = new ArrayList<>(List.of(java(), "--enable-native-access=ALL-UNNAMED"));
        command.addAll(kitJvmOptions());
        command.addAll(List.of("-cp", classPath(), "org.gexj.launch.GexRun", "-n", Integer.toString(ranks)));
        command.addAll(options);
        env.forEach((k, v) -> {
            command.add("-E");
            command.add(k + "=" + v);
        });
        command.add("--");
        command.addAll(program);
        return command;
    }

    /**
     * {@code mpirun -np N OPTIONS -x K=V... java RANK-JVM-OPTIONS -cp CP PROGRAM}: each rank as {@code bin/gexrank}
     * starts it (gex-launch's rank-jvm.args, libjsig preloaded), finding its job through mpirun's PMIx server.
     */
    private static List<String> mpirun(int ranks, List<String> options, Map<String, String> env, List<String> program) {
        final List<String> command = new ArrayList<>(List.of("mpirun", "--oversubscribe", "-np",
            Integer.toString(ranks)));
        command.addAll(options);
        final Map<String, String> all = new LinkedHashMap<>(env);
        final Path jsig = Path.of(System.getProperty("java.home"), "lib", "libjsig.so");
        if (Files.isReadable(jsig)) {
            all.put("LD_PRELOAD", jsig.toString());
        }
        MPIRUN_ENVIRONMENT.forEach(all::putIfAbsent);
        all.forEach((k, v) -> {
            command.add("-x");
            command.add(k + "=" + v);
        });
        command.add(java());
        command.addAll(rankJvmOptions());
        command.addAll(kitJvmOptions());
        command.add("-cp");
        command.add(classPath());
        command.addAll(program);
        return command;
    }

    /**
     * The ranks' JVM options, gex-launch's resource {@code org/gexj/launch/rank-jvm.args} (which gexrun and
     * {@code bin/gexrank} use), read from the class path: the kits' tests run on it.
     */
    private static List<String> rankJvmOptions() {
        try (var in = ClassLoader.getSystemResourceAsStream("org/gexj/launch/rank-jvm.args")) {
            if (in == null) {
                throw new IllegalStateException("org/gexj/launch/rank-jvm.args (gex-launch) is not on the class path:"
                    + " a kit job under mpirun needs the test JVM to run on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * JVM options of the launcher and the ranks of a kit job, after the ranks' own: {@value #KIT_JVM_OPTIONS} by
     * default, or the words of {@code GEX_KIT_JVM_OPTS} (empty: none, to run kit jobs with C2 as jobs run).
     *
     * <p>Why C1 and the serial collector: a kit job's JVMs live a few seconds, most of it start-up, and on a 2-core
     * machine two or four ranks and a launcher compete for the cores. C2's compilations of start-up code (class
     * loading, FFM linkage, libfabric's set-up) and the parallel collector's threads cost more CPU than they give
     * back: with these options the ofi AM kit under gexrun took 51 s instead of 69 s (2.8 s a job, not 3.8). The
     * kits' jobs of threads run in the test JVM with its defaults (C2), and so does every test that measures
     * allocation.
     */
    static List<String> kitJvmOptions() {
        final String chosen = System.getenv("GEX_KIT_JVM_OPTS");
        final String words = chosen == null ? KIT_JVM_OPTIONS : chosen.strip();
        return words.isEmpty() ? List.of() : List.of(words.split("\\s+"));
    }

    private static final String KIT_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The ranks need this JVM's classes: the module path (Surefire puts a module's classes there) and the class path,
     * both on the ranks' class path.
     */
    private static String classPath() {
        final List<String> entries = new ArrayList<>();
        for (String property : new String[] {"jdk.module.path", "java.class.path"}) {
            final String value = System.getProperty(property);
            if (value != null && !value.isBlank()) {
                entries.add(value);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /**
     * mpirun's environment: Open MPI refuses root without the two variables (root runs the kits in CI); PMIx's munge
     * security component, when munged is not answering but its socket file remains, retries the socket for 2.25 s in
     * mpirun and in every orted before it falls back to native security, which is what a job on one user's hosts uses.
     */
    private static final Map<String, String> MPIRUN_ENVIRONMENT = Map.of("OMPI_ALLOW_RUN_AS_ROOT", "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", "PMIX_MCA_psec", "native");

    private static void kill(Process launcher) {
        launcher.descendants().forEach(ProcessHandle::destroyForcibly);
        launcher.destroyForcibly();
        try {
            launcher.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(List<String> lines) {
        final int from = Math.max(0, lines.size() - KEPT_LINES);
        return (from > 0 ? "[" + from + " lines before]\n" : "") + String.join("\n", lines.subList(from, lines.size()));
    }

    private static void delete(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
