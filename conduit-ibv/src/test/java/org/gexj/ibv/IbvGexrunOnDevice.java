package org.gexj.ibv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README's commands on a real device (the Soft-RoCE guest: {@code tools/rxe-vm/run-junit.sh conduit-ibv
 * IbvGexrunOnDevice}; not run by the host suite): {@code bin/gexrun -n 2 --conduit ibv testam} with connections on
 * demand and {@code testqueue} with static ones, each to its last table. Needs the distribution built ({@code mvn
 * package}, as {@code ./gexj.sh test} has done before its guest step). {@code -warmup 0}: testam's JIT warm-up takes
 * minutes under emulation; small sizes keep each job near a minute.
 */
class IbvGexrunOnDevice {
    private static final long JOB_SECONDS = 300;

    /** The repository's bin/gexrun, looked for from the working directory up. */
    private static Path gexrun() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            final Path candidate = dir.resolve("bin/gexrun");
            if (Files.isExecutable(candidate) && Files.isDirectory(dir.resolve("conduit-ibv"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no bin/gexrun above " + Path.of("").toAbsolutePath());
    }

    /** Runs gexrun with {@code args}; returns its output, after checking it exited 0 within the bound. */
    private static String run(String connect, String... args) throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>(List.of(gexrun().toString(), "-n", "2", "--conduit", "ibv",
            "-E", "GEX_IBV_CONNECT=" + connect));
        command.addAll(List.of(args));
        final Path log = Files.createTempFile("gexrun", ".log");
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(JOB_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail(String.join(" ", command) + " still running after " + JOB_SECONDS + " s:\n"
                + Files.readString(log, StandardCharsets.UTF_8));
        }
        final String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
        assertTrue(out.contains("gex: ibv conduit rank 0 of 2: device ") && out.contains("connect " + connect),
            "the job ran on ibv, connecting " + connect + ":\n" + out);
        return out;
    }

    @Test
    @Timeout(value = 330, unit = TimeUnit.SECONDS)
    void testamRunsEverySectionWithConnectionsOnDemand() throws Exception {
        final String out = run("ondemand", "testam", "-warmup", "0", "10", "1024");
        for (char section = 'A'; section <= 'K'; section++) {
            final String prefix = section + ":";
            assertTrue(out.lines().anyMatch(l -> l.startsWith(prefix) && l.contains(" us")), "testam section "
                + section + ":\n" + out);
        }
    }

    @Test
    @Timeout(value = 330, unit = TimeUnit.SECONDS)
    void testqueueRunsWithStaticConnections() throws Exception {
        final String out = run("static", "testqueue", "-warmup", "0", "10", "4", "1024");
        // every table (RMA and AM) ends with the row of the largest size: a time per queue depth 1, 2, 4
        final long rows = out.lines().filter(l -> l.matches("1024( +[0-9.]+){3}")).count();
        assertTrue(rows >= 10, rows + " tables reach 1024 bytes (14 on smp):\n" + out);
    }
}
