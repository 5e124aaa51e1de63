package org.gexj.ibv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * kill -9 of a rank in the middle of a flood, on a real device (Soft-RoCE in the guest of tools/rxe-vm:
 * {@code tools/rxe-vm/run-junit.sh conduit-ibv IbvKillMidFloodOnDevice}; not run by the host suite, which has no
 * device): gexrun starts 3 ranks of {@link IbvFloodRank} on {@code --conduit ibv}, each flooding the others with AM
 * Mediums and Shorts; once every rank floods, rank 1 is killed with SIGKILL. The job must end within
 * {@value #BOUND_SECONDS} s of the kill, non-zero, with gexrun naming rank 1 and each survivor's error naming it, and
 * no survivor may outlive the job. The kernel destroys the dead rank's QPs, so the survivors' sends to it end in
 * retry-exceeded completions while the launcher's notice travels; whichever comes first must end them.
 *
 * <p>gexrun runs as {@code bin/gexrun} runs it ({@code org.gexj.launch.GexRun} with bin/gexrun's JVM options), on this
 * JVM's class path: the ranks run the classes under test (run-junit.sh's snapshot of the build outputs) with the rank
 * program from the test classes, and nothing beyond the module's own build is needed.
 */
class IbvKillMidFloodOnDevice {
    /** Kill to the launcher's exit, under emulation (TCG) with 3 rank JVMs on 2 vCPUs. */
    private static final long BOUND_SECONDS = 30;
    /** JVM start, device open and connection of 3 ranks under TCG take tens of seconds. */
    private static final long START_SECONDS = 240;
    private static final int RANKS = 3;
    private static final int KILLED = 1;

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void killNineOfARankMidFloodEndsTheJobNamingIt() throws Exception {
        final Job job = Job.start("-n", Integer.toString(RANKS), "--conduit", "ibv", "--",
            IbvFloodRank.class.getName());
        try {
            final long[] pids = job.readyPids(RANKS);
            job.awaitLines("flooding ", RANKS);
            final long killedAt = System.nanoTime();
            ProcessHandle.of(pids[KILLED]).orElseThrow().destroyForcibly(); // SIGKILL
            if (!job.process.waitFor(BOUND_SECONDS, TimeUnit.SECONDS)) {
                fail("job still running " + BOUND_SECONDS + " s after kill -9 of rank " + KILLED + ":\n"
                    + job.output());
            }
            final double seconds = (System.nanoTime() - killedAt) / 1e9;
            job.drain();
            final String out = job.output();
            assertNotEquals(0, job.process.exitValue(), out);
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("gex: ibv conduit rank 0 of " + RANKS)),
                "the job ran on the ibv conduit:\n" + out);
            assertTrue(job.lines.stream().anyMatch(
                    l -> l.equals("gexrun: rank " + KILLED + " was killed by signal 9; ending the job")
                        || l.startsWith("gexrun: rank " + KILLED + " failed: its bootstrap connection ended")),
                "gexrun names the dead rank:\n" + out);
            final Matcher codes = Pattern.compile("gexrun: exit codes by rank: 0=(-?\\d+) 1=(-?\\d+) 2=(-?\\d+)")
                .matcher(out);
            assertTrue(codes.find(), out);
            assertEquals("137", codes.group(2), "rank 1 exit code: killed by signal 9\n" + out);
            for (int r : new int[] {0, 2}) {
                final String code = codes.group(r + 1);
                assertNotEquals("0", code, "rank " + r + " exit code\n" + out);
                // 134: the JVM aborted (a crash in native code, e.g. closing verbs objects of a dead peer)
                assertNotEquals("134", code, "rank " + r + " crashed\n" + out);
                final String rank = "rank " + r;
                // its own error, or its failure watch's line when its thread was elsewhere
                assertTrue(job.lines.stream().anyMatch(l -> (l.startsWith(rank + " ended at ")
                        || l.startsWith("gex: " + rank + ": aborting: ")) && l.contains("rank " + KILLED)),
                    rank + "'s error names rank " + KILLED + ":\n" + out);
                assertTrue(ProcessHandle.of(pids[r]).map(h -> !h.isAlive()).orElse(true),
                    rank + " (pid " + pids[r] + ") outlived the job");
            }
            System.out.printf("ibv: kill -9 of rank %d mid-flood; gexrun ended %.2f s after, exit codes %s %s %s%n",
                KILLED, seconds, codes.group(1), codes.group(2), codes.group(3));
            for (String l : job.lines) {
                if (l.contains(" ended at ") || l.contains(": aborting: ") || l.startsWith("gexrun: ")) {
                    System.out.println("  " + l);
                }
            }
        } finally {
            job.destroy();
        }
    }

    /** gexrun with its output captured line by line. */
    private static final class Job {
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();
        private final Thread reader;

        private Job(Process process) {
            this.process = process;
            this.reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException ignored) {
                    // the launcher ended
                }
            }, "gexrun-output");
            reader.setDaemon(true);
            reader.start();
        }

        /** {@code java [bin/gexrun's options] org.gexj.launch.GexRun ARGS} on this JVM's class path. */
        static Job start(String... args) throws IOException {
            final List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), "org.gexj.launch.GexRun"));
            command.addAll(List.of(args));
            return new Job(new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start());
        }

        /** Waits for the {@code n} lines "ready RANK PID"; returns the pids by rank. */
        long[] readyPids(int n) throws InterruptedException {
            final long[] pids = new long[n];
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
            int ready = 0;
            while (ready < n) {
                assertTrue(System.nanoTime() < deadline, "ranks not ready in " + START_SECONDS + " s:\n" + output());
                assertTrue(process.isAlive(), "gexrun ended early:\n" + output());
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

        /** Waits for {@code n} lines starting with {@code prefix}. */
        void awaitLines(String prefix, int n) throws InterruptedException {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
            while (lines.stream().filter(l -> l.startsWith(prefix)).count() < n) {
                assertTrue(System.nanoTime() < deadline, "no " + n + " lines '" + prefix + "...':\n" + output());
                assertTrue(process.isAlive(), "gexrun ended early:\n" + output());
                Thread.sleep(20);
            }
        }

        /** After the launcher's exit: the rest of its output. */
        void drain() throws InterruptedException {
            reader.join(5000);
        }

        String output() {
            return String.join("\n", lines);
        }

        void destroy() throws InterruptedException {
            if (process.isAlive()) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
