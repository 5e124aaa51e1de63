package org.gexj.dist;

import org.gexj.testkit.NetnsSshHosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code gexrun --hosts} end to end, on two "hosts" that are network namespaces with an sshd each
 * ({@link NetnsSshHosts}), the launcher on the first: the job secret appears in no process's command line or
 * environment; a remote rank killed with kill -9, or a lost ssh session, ends the job within seconds with a line
 * naming the rank and its host, and leaves no rank behind. Also prints how long jobs of 2, 4 and 8 ranks take to start
 * and end over ssh, and under mpirun across the two hosts, against local gexrun ({@code -Dssh.startup.runs=N} repeats
 * each). Skipped, with a line on stderr, when not root.
 */
class SshSpawnIT {
    @RegisterExtension
    static final NetnsSshHosts HOSTS = new NetnsSshHosts();

    private static final Map<String, String> ENV = Map.of("GEX_CLASSPATH",
        Jobs.ROOT.resolve("gex-dist/target/test-classes").toString());
    private static final Pattern SECRET = Pattern.compile("secret (\\d+) ([0-9a-f]{64})");

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theJobSecretIsInNoCommandLineAndNoEnvironment() throws Exception {
        final Path stop = Files.createTempFile("gexj-ssh-secret", ".stop");
        Files.delete(stop);
        final Jobs job = start("-n", "4", "--conduit", "udp", "--", SecretProbe.class.getName(), stop.toString());
        try {
            job.readyPids(4);
            final List<String> secrets = new ArrayList<>();
            for (String line : job.lines) {
                final Matcher m = SECRET.matcher(line);
                if (m.matches()) {
                    secrets.add(m.group(2));
                }
            }
            assertEquals(4, secrets.size(), "each rank read a secret of 32 bytes from stdin:\n" + job.output());
            assertEquals(1, secrets.stream().distinct().count(), "one secret for the job:\n" + job.output());
            final String secret = secrets.getFirst();
            final Process ps = new ProcessBuilder("ps", "-ww", "-eo", "args").redirectErrorStream(true).start();
            final String args = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(ps.waitFor(20, TimeUnit.SECONDS));
            // the job is in ps's list, with its ranks' environment on the ssh command lines, but not the secret
            assertTrue(args.contains("GEX_JOB_SECRET=-"), args);
            assertFalse(args.contains(secret), "the secret is on a command line:\n" + args);
            assertEquals(List.of(), environmentsHolding(secret), "processes with the secret in their environment");
            Files.createFile(stop);
            assertEquals(0, job.process.waitFor(30, TimeUnit.SECONDS) ? job.process.exitValue() : -1, job.output());
        } finally {
            Files.deleteIfExists(stop);
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void killNineOfARemoteRankEndsTheJobNamingTheRankAndItsHost() throws Exception {
        // --ppn 2: ranks 0 and 1 on the first host, 2 and 3 on the second
        final Jobs job = start("-n", "4", "--ppn", "2", "--conduit", "udp", "--", StayAlive.class.getName(), "poll");
        try {
            final long[] pids = job.readyPids(4);
            new ProcessBuilder("kill", "-9", Long.toString(pids[2])).start().waitFor();
            assertTrue(job.process.waitFor(15, TimeUnit.SECONDS), "job still running 15 s after kill -9:\n"
                + job.output());
            assertNotEquals(0, job.process.exitValue(), job.output());
            final String rank = "gexrun: rank 2 on " + HOSTS.host(1);
            assertTrue(job.lines.stream().anyMatch(l -> l.equals(rank + " was killed by signal 9; ending the job")
                    || l.startsWith(rank + " failed: its bootstrap connection ended without goodbye")),
                "the launcher names the dead rank and its host:\n" + job.output());
            final Matcher codes = Pattern.compile("gexrun: exit codes by rank: 0=(\\d+) 1=(\\d+) 2=(\\d+) 3=(\\d+)")
                .matcher(job.output());
            assertTrue(codes.find(), job.output());
            assertEquals("137", codes.group(3), "rank 2's exit status through ssh: killed by signal 9");
            assertNoRankLeft(pids, job);
        } finally {
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aLostSshSessionEndsTheJobNamingTheRankAndItsHost() throws Exception {
        final Jobs job = start("-n", "4", "--conduit", "udp", "--", StayAlive.class.getName(), "poll");
        try {
            final long[] pids = job.readyPids(4);
            // rank 1 runs on the second host (round robin): its sshd session ends as when the connection is cut, and
            // the rank itself lives on, until the launcher ends the job
            final List<ProcessHandle> sessions = sshdSessionOf(pids[1]);
            assertFalse(sessions.isEmpty(), "rank 1's sshd session processes");
            sessions.forEach(ProcessHandle::destroyForcibly);
            assertTrue(job.process.waitFor(15, TimeUnit.SECONDS), "job still running 15 s after rank 1's ssh"
                + " session ended:\n" + job.output());
            assertNotEquals(0, job.process.exitValue(), job.output());
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("gexrun: rank 1 on " + HOSTS.host(1)
                + " lost its ssh session: ssh exited with 255")), "the launcher names the rank and its host:\n"
                + job.output());
            assertNoRankLeft(pids, job);
        } finally {
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
        }
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void startUpTimeOverSshAgainstLocalGexrun() throws Exception {
        final int runs = Integer.getInteger("ssh.startup.runs", 1);
        final StringBuilder table = new StringBuilder("job start-up and end (JoinLate: init, barrier, close), udp,"
            + " seconds per run:\n");
        for (int n : new int[] {2, 4, 8}) {
            for (String how : new String[] {"local gexrun:", "ssh (2 hosts, round robin):",
                "mpirun (2 hosts, by node):"}) {
                final List<String> times = new ArrayList<>();
                for (int run = 0; run < runs; run++) {
                    final List<String> args = new ArrayList<>(List.of("-n", Integer.toString(n), "--conduit", "udp",
                        "--", JoinLate.class.getName(), "-1", "0"));
                    final long start = System.nanoTime();
                    final Jobs job = how.startsWith("local") ? Jobs.start(HOSTS.launcherPrefix(), ENV,
                        args.toArray(String[]::new))
                        : how.startsWith("ssh") ? start(args.toArray(String[]::new)) : mpirun(n);
                    final double seconds = OfiRuns.await(job, start, 120);
                    assertEquals(0, job.process.exitValue(), job.output());
                    assertEquals(n, job.lines.stream().filter(l -> l.startsWith("started ")).count(), job.output());
                    times.add(String.format("%.2f", seconds));
                }
                table.append(String.format("  %d ranks, %-27s %s%n", n, how, String.join(" ", times)));
            }
        }
        System.out.print(table);
    }

    /**
     * {@code mpirun -np N --host A,B --map-by node ... bin/gexrank JoinLate -1 0} on udp in the first namespace, its
     * orted on the second started over the test's ssh command: the same job under Open MPI across the two hosts.
     */
    private static Jobs mpirun(int n) throws IOException {
        final List<String> command = new ArrayList<>(HOSTS.launcherPrefix());
        command.addAll(List.of("mpirun", "--oversubscribe", "-np", Integer.toString(n)));
        command.addAll(HOSTS.mpirunOptions());
        final Map<String, String> env = new java.util.TreeMap<>(ManagedJob.environment(ENV));
        env.put("GEX_CONDUIT", "udp");
        env.put("PMIX_MCA_psec", "native");
        for (String name : List.of("GEX_CONDUIT", "GEX_CLASSPATH", "PMIX_MCA_psec")) {
            command.addAll(List.of("-x", name));
        }
        command.addAll(List.of(ManagedJob.GEXRANK.toString(), JoinLate.class.getName(), "-1", "0"));
        return Jobs.command(command, env);
    }

    /** gexrun in the first namespace, with {@code --hosts} naming both and the test's ssh command. */
    private static Jobs start(String... args) throws IOException {
        final List<String> all = new ArrayList<>(HOSTS.gexrunOptions());
        all.addAll(List.of(args));
        return Jobs.start(HOSTS.launcherPrefix(), ENV, all.toArray(String[]::new));
    }

    /** Every rank is gone within 10 s of the launcher: the survivors end by the bootstrap, not by ssh. */
    private static void assertNoRankLeft(long[] pids, Jobs job) throws Exception {
        for (long pid : pids) {
            final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
            if (handle.isPresent()) {
                handle.get().onExit().get(10, TimeUnit.SECONDS);
            }
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "rank pid " + pid
                + " survived:\n" + job.output());
        }
    }

    /**
     * The sshd processes above a remote rank: the session's (root@notty) and its privileged monitor (named
     * {@code sshd-session} from OpenSSH 9.8).
     */
    private static List<ProcessHandle> sshdSessionOf(long rankPid) {
        final List<ProcessHandle> sessions = new ArrayList<>();
        Optional<ProcessHandle> p = ProcessHandle.of(rankPid).flatMap(ProcessHandle::parent);
        while (p.isPresent()) {
            final String args = commandLine(p.get().pid());
            if (args.startsWith("sshd: root") || args.startsWith("sshd-session: root")) {
                sessions.add(p.get());
            } else if (!sessions.isEmpty()) {
                break; // above the session: sshd's listener, which the other ranks' sessions need
            }
            p = p.get().parent();
        }
        return sessions;
    }

    private static String commandLine(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
                StandardCharsets.UTF_8).replace('\0', ' ').strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** The pids whose environment holds {@code secret}. */
    private static List<String> environmentsHolding(String secret) throws IOException {
        final List<String> holders = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(d -> d.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    final String env = new String(Files.readAllBytes(p.resolve("environ")), StandardCharsets.UTF_8);
                    if (env.contains(secret)) {
                        holders.add(p.getFileName() + " (" + commandLine(Long.parseLong(p.getFileName().toString()))
                            + ")");
                    }
                } catch (IOException e) {
                    // the process ended meanwhile
                }
            }
        }
        return holders;
    }
}
