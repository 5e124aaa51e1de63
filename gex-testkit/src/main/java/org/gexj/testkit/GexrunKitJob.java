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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The driver's side of a kit job of processes: runs {@code [PREFIX] gexrun -n N [OPTIONS] -E ... KitRank KIT METHOD
 * JOB} as a user runs gexrun, waits for it with a timeout (then kills the launcher and its ranks), and fails with the
 * job's output when the launcher exits non-zero.
 */
final class GexrunKitJob {
    /** What a failed job's message keeps of its output. */
    private static final int KEPT_LINES = 120;

    /** Files of the signal directory that hold the failure of an earlier job of the method: message, and output. */
    private static final String VERDICT = "verdict-";
    private static final String OUTPUT = "-output";

    private GexrunKitJob() {
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
     * Where the job runs: words in front of the launcher's command ({@code ip netns exec NS}), and gexrun options
     * ({@code --bind}, {@code --wrap}) for where its ranks run; both empty for a job on this host's loopback.
     */
    record Placement(List<String> launcherPrefix, List<String> gexrunOptions) {
        Placement {
            launcherPrefix = List.copyOf(launcherPrefix);
            gexrunOptions = List.copyOf(gexrunOptions);
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
                    Files.writeString(signals.resolve(VERDICT + i + OUTPUT), verdict.getCause() == null ? verdict.getMessage() : verdict.getCause().getMessage(),
                        StandardCharsets.UTF_8);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        final List<String> command = new ArrayList<>(placement.launcherPrefix());
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-cp");
        command.add(classPath());
        command.add("org.gexj.launch.GexRun");
        command.add("-n");
        command.add(Integer.toString(ranks));
        command.addAll(placement.gexrunOptions());
        env.forEach((k, v) -> {
            command.add("-E");
            command.add(k + "=" + v);
        });
        command.add("-E");
        command.add(KitRank.SIGNALS + "=" + signals);
        command.add("-E");
        command.add(KitRank.SEED + "=" + seed);
        command.add("--");
        command.add(KitRank.class.getName());
        command.add(kit.getName());
        command.add(method);
        command.add(Integer.toString(job));
        final List<String> lines = new CopyOnWriteArrayList<>();
        Process launcher = null;
        try {
            launcher = new ProcessBuilder(command).redirectErrorStream(true).start();
            final Process p = launcher;
            final Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException ignored) {
                    // the launcher ended
                }
            }, "gexrun-kit-output");
            reader.setDaemon(true);
            reader.start();
            // the launcher's own start and the ranks' JVMs come on top of the job's time
            if (!launcher.waitFor(timeout.toSeconds() + 30, TimeUnit.SECONDS)) {
                kill(launcher);
                reader.join(2000);
                throw new AssertionError("gexrun kit job " + job + " of " + kit.getSimpleName() + "." + method
                    + " still running after " + timeout.toSeconds() + " + 30 s, killed:\n" + tail(lines));
            }
            reader.join(5000);
            if (launcher.exitValue() != 0) {
                final String output = tail(lines);
                throw new AssertionError("gexrun kit job " + job + " of " + kit.getSimpleName() + "." + method
                    + " (" + ranks + " ranks) exited with " + launcher.exitValue() + ":\n" + output,
                    new Failure(output));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for gexrun kit job " + job, e);
        } finally {
            if (launcher != null && launcher.isAlive()) {
                kill(launcher);
            }
            delete(signals);
        }
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
