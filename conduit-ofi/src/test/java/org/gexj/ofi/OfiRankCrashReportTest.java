package org.gexj.ofi;

import org.gexj.launch.GexRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank that crashes after libfabric has loaded gets the JVM's fatal error report. Debian's libfabric links
 * libinfinipath, whose constructor takes SIGSEGV; chained behind the JVM's handler it ended the rank with one line
 * ("terminated with signal 11") before the JVM wrote its report, so a crash could not be traced to a frame. The
 * binding switches it off before it loads libfabric ({@code IPATH_NO_BACKTRACE=1}, set in the process with
 * {@code setenv}); the test removes the variable from the launcher's environment so that only that counts. Without
 * it, this test fails: the output has "terminated with signal 11" and no report.
 */
class OfiRankCrashReportTest {

    /** Loads libfabric through the ofi conduit's probe, then stores to an unmapped address. */
    public static final class CrashingProgram {
        public static void main(String[] args) {
            System.out.println("libfabric loaded: " + Ofi.isAvailable());
            MemorySegment.ofAddress(8).reinterpret(8).set(ValueLayout.JAVA_LONG, 0, 1L);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aCrashingRankGetsTheJvmsFatalErrorReport() throws Exception {
        final Path errors = Files.createTempDirectory("gexj-crash");
        try {
            final ProcessBuilder pb = new ProcessBuilder(java(), "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), GexRun.class.getName(), "-n", "1", "--conduit", "ofi", "--",
                CrashingProgram.class.getName());
            pb.environment().put("GEX_JVM_OPTS", "-XX:ErrorFile=" + errors.resolve("hs_err_pid%p.log")
                + " -XX:-CreateCoredumpOnCrash");
            assertTheJvmReportsTheCrash(pb, errors);
        } finally {
            delete(errors);
        }
    }

    /**
     * A JVM without libjsig (gexrun's launcher, or an application started without gexrun): libinfinipath's handler
     * replaced the JVM's own, so any SIGSEGV, even one the JVM raises on purpose, ended it with one line.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aJvmWithoutSignalChainingKeepsItsHandlerAfterLoadingLibfabric() throws Exception {
        final Path errors = Files.createTempDirectory("gexj-crash");
        try {
            final ProcessBuilder pb = new ProcessBuilder(java(), "--enable-native-access=ALL-UNNAMED",
                "-XX:ErrorFile=" + errors.resolve("hs_err_pid%p.log"), "-XX:-CreateCoredumpOnCrash", "-cp",
                System.getProperty("java.class.path"), CrashingProgram.class.getName());
            pb.environment().remove("LD_PRELOAD");
            assertTheJvmReportsTheCrash(pb, errors);
        } finally {
            delete(errors);
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Runs {@code pb} without {@code IPATH_NO_BACKTRACE} and expects the JVM's banner and one report in errors. */
    private static void assertTheJvmReportsTheCrash(ProcessBuilder pb, Path errors) throws Exception {
        pb.environment().remove("IPATH_NO_BACKTRACE");
        pb.redirectErrorStream(true).redirectOutput(errors.resolve("output.txt").toFile());
        final Process process = pb.start();
        final boolean ended = process.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        final String output = Files.readString(errors.resolve("output.txt"), StandardCharsets.UTF_8);
        assertTrue(ended, "the JVM did not end within 60 s: " + output);
        assertTrue(output.contains("libfabric loaded: true"), "libfabric1 must be installed for this test: " + output);
        assertNotEquals(0, process.exitValue(), output);
        assertFalse(output.contains("terminated with signal"), output);
        assertTrue(output.contains("A fatal error has been detected by the Java Runtime Environment"), output);
        final List<Path> reports;
        try (Stream<Path> files = Files.list(errors)) {
            reports = files.filter(f -> f.getFileName().toString().startsWith("hs_err")).toList();
        }
        assertEquals(1, reports.size(), "one hs_err report in " + errors + ": " + output);
        assertTrue(Files.readString(reports.get(0)).contains("SIGSEGV"), reports.get(0).toString());
    }

    private static void delete(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(directory);
    }
}
