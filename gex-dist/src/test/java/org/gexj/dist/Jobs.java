package org.gexj.dist;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Starts bin/gexrun from the repository root as a user would, capturing its output line by line. */
final class Jobs {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    static final Path GEXRUN = ROOT.resolve("bin/gexrun");

    final Process process;
    final List<String> lines = new CopyOnWriteArrayList<>();

    private Jobs(Process process) {
        this.process = process;
        final Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "gexrun-output");
        reader.setDaemon(true);
        reader.start();
    }

    static Jobs start(Map<String, String> env, String... args) throws IOException {
        return start(List.of(), env, args);
    }

    /** With {@code prefix} in front of gexrun's command, e.g. {@code ip netns exec NS} to start it elsewhere. */
    static Jobs start(List<String> prefix, Map<String, String> env, String... args) throws IOException {
        final List<String> command = new ArrayList<>(prefix);
        command.add(GEXRUN.toString());
        command.addAll(List.of(args));
        return command(command, env);
    }

    /** Any launcher's {@code command} (mpirun), with {@code env} added to this environment, its output captured. */
    static Jobs command(List<String> command, Map<String, String> env) throws IOException {
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().putAll(env);
        return new Jobs(pb.start());
    }

    /**
     * Waits (up to 60 s) for the {@code n} lines "ready RANK PID" that {@link StayAlive}'s ranks print; returns the
     * pids by rank.
     */
    long[] readyPids(int n) throws InterruptedException {
        final long[] pids = new long[n];
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int ready = 0;
        while (ready < n) {
            assertTrue(System.nanoTime() < deadline, "ranks did not start: " + output());
            assertTrue(process.isAlive(), "launcher ended early: " + output());
            ready = 0;
            for (String line : new ArrayList<>(lines)) {
                final String[] w = line.split(" ");
                if (w.length == 3 && w[0].equals("ready")) {
                    pids[Integer.parseInt(w[1])] = Long.parseLong(w[2]);
                    ready++;
                }
            }
            Thread.sleep(50);
        }
        return pids;
    }

    String output() {
        return String.join("\n", lines);
    }

    static List<String> shmFiles() throws IOException {
        return shmFiles("");
    }

    /** The names in /dev/shm that start with {@code prefix} (a job id), sorted. */
    static List<String> shmFiles(String prefix) throws IOException {
        try (var s = Files.list(Path.of("/dev/shm"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).sorted().toList();
        }
    }

    /** The launcher's lines saying it removed files a job left behind (none when the conduit cleaned up). */
    List<String> cleanupReports() {
        return lines.stream().filter(l -> l.startsWith("gexrun: removed ")).toList();
    }
}
