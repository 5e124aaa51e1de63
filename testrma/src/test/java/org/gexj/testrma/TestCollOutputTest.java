package org.gexj.testrma;

import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * testcoll, GASNet's collectives correctness test, passes at 2 to 5 ranks on smp, with every root it picks (the first,
 * the middle and the last rank), over flat and binomial broadcast trees, printing GASNet's lines in GASNet's order and
 * no error: a rank that receives a value other than the root's prints GASNet's validation error and ends the job with
 * exit code 1, which fails the run here.
 */
class TestCollOutputTest {
    private static final Map<String, String> SMP = Map.of("GEX_CONDUIT", "smp");
    private static final List<String> TESTS = List.of("Starting LOCAL/single-addr NO/NO test",
        "Starting LOCAL/single-addr MY/MY test", "Starting LOCAL/single-addr ALL/ALL test",
        "Starting LOCAL/single-addr NB test");

    /** Runs testcoll on {@code ranks} ranks, all printing to one stream. @return its lines */
    private static List<String> run(int ranks, Map<String, String> env, int expectedExit, String... args) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try {
            InProcessJob.run(ranks, Duration.ofSeconds(60), env,
                client -> assertEquals(expectedExit, TestColl.run(client, args, out)));
        } catch (AssertionError e) { // a failed check exits the job: show what testcoll printed
            throw new AssertionError(e.getMessage() + "\n" + bytes.toString(StandardCharsets.UTF_8), e);
        }
        final String output = bytes.toString(StandardCharsets.UTF_8);
        if (expectedExit == 0) {
            assertFalse(output.contains("ERROR"), output);
        }
        return List.of(output.split("\n"));
    }

    /** Rank 0's lines: its own "node 0/n" ones and the unprefixed ones only it prints, in order. */
    private static List<String> ofRank0(List<String> lines) {
        return lines.stream().filter(l -> !l.startsWith("node ") || l.startsWith("node 0/")).toList();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyTestPassesWithEveryRootOnFlatAndBinomialTrees() {
        // up to 4 ranks the broadcast of an int is flat (the root sends to every rank), from 5 binomial; forced at 4
        // too, where the rank 2 after the root forwards what it receives to the rank 3 after it
        check(2, SMP, 0, 1);
        check(3, SMP, 0, 1, 2);
        check(4, SMP, 0, 2, 3);
        check(5, SMP, 0, 2, 4);
        check(4, Map.of("GEX_CONDUIT", "smp", "GEX_COLL_FLAT_RANKS", "2"), 0, 2, 3);
    }

    /** testcoll 200 on {@code ranks} ranks prints GASNet's lines for {@code roots}, in order. */
    private static void check(int ranks, Map<String, String> env, int... roots) {
        final List<String> lines = run(ranks, env, 0, "200");
        final String where = env + ", " + ranks + " ranks:\n" + String.join("\n", lines);
        final List<String> expected = new ArrayList<>(List.of("Running coll test(s) with 200 iterations.",
            TestColl.SKIPPED));
        for (int root : roots) {
            expected.add("Running tests with root = " + root);
            expected.addAll(TESTS);
        }
        expected.add("node 0/" + ranks + " done.");
        assertEquals(expected, ofRank0(lines), where);
        for (int r = 1; r < ranks; r++) {
            final String node = "node " + r + "/" + ranks + " ";
            assertEquals(List.of(node + "done."), lines.stream().filter(l -> l.startsWith(node)).toList(), where);
        }
        assertEquals(expected.size() + ranks - 1, lines.size(), where);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void zeroItersMeansGasnetsDefaultOf1000() {
        final List<String> lines = run(2, SMP, 0, "0");
        assertEquals("Running coll test(s) with 1000 iterations.", lines.get(0), String.join("\n", lines));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badArgumentsPrintTheUsageAndMinusPTheSeqBuildsError() {
        for (String[] args : new String[][] {{"-h"}, {"--help"}, {"-q", "10"}, {"10", "2"}, {"10", "-h"}}) {
            assertEquals(List.of(TestColl.USAGE), run(2, SMP, 1, args), String.join(" ", args));
        }
        assertEquals(List.of(TestColl.PAR_ONLY), run(2, SMP, 1, "-p", "2", "10"));
    }
}
