package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher end to end: real processes, the smp conduit, GASNet's programs. */
class GexRunIT {
    private static final Pattern TESTAM_LINE = Pattern.compile(
        "^[A-K]: +(\\d+ )?AM(Short|Medium|Long) +.+: +\\d+\\.\\d{3} sec +\\d+\\.\\d{3} us( +\\d+\\.\\d{3} MB/s)?$");

    /** testsmall's and testlarge's rows: GASNet's print_stat lines (the format is checked in testrma's own tests). */
    private static final Pattern RMA_LINE = Pattern.compile(
        "^[A-F]: +0 - +\\d+ byte : +\\d+ iters, (latency +\\d+ us total, +\\d+\\.\\d{3} us ave\\."
            + "|throughput +\\d+\\.\\d+ [KM]B/sec) \\(.+\\)$");

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void testsmallAndTestlargeRunByTheirShortNames() throws Exception {
        final Jobs small = Jobs.start(Map.of(), "-n", "2", "testsmall", "-warmup", "10", "50", "16");
        assertTrue(small.process.waitFor(150, TimeUnit.SECONDS), "testsmall did not finish: " + small.output());
        assertEquals(0, small.process.exitValue(), small.output());
        // A-F: sizes 1, 2, 4, 8, 16, a put line and a get line each
        assertEquals(6 * 5 * 2, small.lines.stream().filter(l -> RMA_LINE.matcher(l).matches()).count(),
            small.output());
        final Jobs large = Jobs.start(Map.of(), "-n", "2", "--conduit", "udp", "testlarge", "-warmup", "10", "-m",
            "20", "64K");
        assertTrue(large.process.waitFor(150, TimeUnit.SECONDS), "testlarge did not finish: " + large.output());
        assertEquals(0, large.process.exitValue(), large.output());
        // A-C: put and get, D-E: put only; sizes 16 .. 64K (13)
        assertEquals((3 * 2 + 2) * 13, large.lines.stream().filter(l -> RMA_LINE.matcher(l).matches()).count(),
            large.output());
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void testamRunsBetweenTwoRanksOnSmp() throws Exception {
        final List<String> before = Jobs.shmFiles();
        final Jobs job = Jobs.start(Map.of(), "-n", "2", "testam", "200", "4096");
        assertTrue(job.process.waitFor(150, TimeUnit.SECONDS), "testam did not finish: " + job.output());
        assertEquals(0, job.process.exitValue(), job.output());
        final long results = job.lines.stream().filter(l -> TESTAM_LINE.matcher(l).matches()).count();
        // A: 4 lines; B-K: sizes 0, 1, 2, ..., 4096 (14 each)
        assertEquals(4 + 10 * 14, results, "result lines for sections A-K:\n" + job.output());
        for (char section = 'A'; section <= 'K'; section++) {
            final String prefix = section + ":";
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(prefix)), "section " + section + " missing");
        }
        assertTrue(job.lines.contains("node 0/2 done.") && job.lines.contains("node 1/2 done."), job.output());
        assertEquals(List.of(), job.cleanupReports(), "the ranks unlinked their own files:\n" + job.output());
        assertEquals(before, Jobs.shmFiles(), "files left in /dev/shm");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void ranksGetMemcpyWithoutRepMovsbUnlessTheUserSetItsThreshold() throws Exception {
        final String never = "glibc.cpu.x86_rep_movsb_threshold=1099511627776";
        final String users = "glibc.cpu.x86_rep_movsb_threshold=4096";
        for (String tunables : new String[] {null, "glibc.malloc.arena_max=2", users}) {
            final Map<String, String> env = new HashMap<>(ManagedJob.environment(Map.of()));
            if (tunables != null) {
                env.put("GLIBC_TUNABLES", tunables);
            }
            final Jobs job = Jobs.start(env, "-n", "2", "--", TunablesProbe.class.getName());
            assertTrue(job.process.waitFor(90, TimeUnit.SECONDS), "the job did not finish: " + job.output());
            assertEquals(0, job.process.exitValue(), job.output());
            final String expected = tunables == null ? never : tunables.equals(users) ? users : tunables + ":" + never;
            for (int r = 0; r < 2; r++) {
                assertTrue(job.lines.contains("tunables " + r + " " + expected), tunables + ":\n" + job.output());
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badRankCountIsRejectedWithTheRange() throws Exception {
        final Jobs job = Jobs.start(Map.of(), "-n", "0", "testam");
        assertTrue(job.process.waitFor(30, TimeUnit.SECONDS));
        assertTrue(job.process.exitValue() != 0);
        assertTrue(job.output().contains("0"), job.output());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void helpIsPrintedAndExitsZero() throws Exception {
        for (String flag : List.of("--help", "-h")) {
            final Jobs job = Jobs.start(Map.of(), flag);
            assertTrue(job.process.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, job.process.exitValue(), job.output());
            assertEquals(org.gexj.launch.GexRunOptions.HELP, job.output());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theConduitsAreListedWithTheirAvailability() throws Exception {
        final Jobs job = Jobs.start(Map.of(), "--list-conduits");
        assertTrue(job.process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, job.process.exitValue(), job.output());
        assertEquals("conduits (default: smp):", job.lines.get(0), job.output());
        // libfabric and libibverbs are installed by ./gexj.sh, so every conduit of the distribution runs here, but
        // ibv also needs an RDMA device: without one (no /sys/class/infiniband: CI, the development machines) it is
        // listed as unavailable with that reason
        final String ibv = hasRdmaDevice() ? "  ibv    available"
            : "  ibv    unavailable: no RDMA device (ibv_get_device_list returned 0 devices)";
        assertEquals(List.of(ibv, "  ofi    available", "  smp    available", "  udp    available"),
            job.lines.subList(1, job.lines.size()).stream().sorted().toList(), job.output());
    }

    private static boolean hasRdmaDevice() throws IOException {
        final Path devices = Path.of("/sys/class/infiniband");
        if (!Files.isDirectory(devices)) {
            return false;
        }
        try (var list = Files.list(devices)) {
            return list.findAny().isPresent();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anUnknownConduitIsOneLineFromTheLauncherAndNoRankStarts() throws Exception {
        for (List<String> args : List.of(List.of("-n", "2", "--conduit", "foo", "testam"),
                                          List.of("-n", "2", "-E", "GEX_CONDUIT=foo", "testam"))) {
            final Jobs job = Jobs.start(Map.of(), args.toArray(String[]::new));
            assertTrue(job.process.waitFor(30, TimeUnit.SECONDS));
            assertEquals(2, job.process.exitValue(), job.output());
            // a rank would print testam's banner or a stack trace
            assertEquals(List.of("gexrun: conduit foo is not known; available: ofi, smp, udp (gexrun"
                + " --list-conduits says more)"), job.lines, job.output());
        }
        final Jobs inherited = Jobs.start(Map.of("GEX_CONDUIT", "bar"), "-n", "2", "testam");
        assertTrue(inherited.process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(2, inherited.process.exitValue(), inherited.output());
        assertTrue(inherited.output().startsWith("gexrun: conduit bar is not known"), inherited.output());
    }
}
