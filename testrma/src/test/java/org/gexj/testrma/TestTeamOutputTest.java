package org.gexj.testrma;

import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * testteam and testsplit, GASNet's team tests, pass on smp at 2, 4 and 6 ranks (grids 1x2, 2x2, 2x3, and a
 * 3x2 given on the command line), printing GASNet's lines: testsplit ends the job with exit code 1 on any failed
 * check, which fails the run here.
 */
class TestTeamOutputTest {
    private static final Pattern ROW_TIME = Pattern.compile("row team \\d+: total time: +[0-9.]+ sec, avg row team"
        + " Barrier latency: +[0-9.]+ us");
    private static final Pattern COL_TIME = Pattern.compile("col team \\d+: total time: +[0-9.]+ sec  Avg column team"
        + " Barrier latency: +[0-9.]+ us");

    private interface Program {
        int run(org.gexj.Client client, String[] args, PrintStream out);
    }

    private static List<String> run(int ranks, Program program, int exit, String... args) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try {
            InProcessJob.run(ranks, Duration.ofSeconds(100), Map.of("GEX_CONDUIT", "smp"),
                client -> assertEquals(exit, program.run(client, args, out)));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + bytes.toString(StandardCharsets.UTF_8), e);
        }
        final String output = bytes.toString(StandardCharsets.UTF_8);
        assertFalse(output.contains("ERROR"), output);
        return List.of(output.split("\n"));
    }

    @Test
    @Timeout(value = 200, unit = TimeUnit.SECONDS)
    void testteamTimesRowAndColumnBarriersOnEveryGrid() {
        for (int[] grid : new int[][] {{2, 1, 2}, {4, 2, 2}, {6, 2, 3}}) {
            final int ranks = grid[0];
            final int rows = grid[1];
            final int cols = grid[2];
            final List<String> lines = run(ranks, TestTeam::run, 0, "-warmup", "100", "200");
            final String where = ranks + " ranks:\n" + String.join("\n", lines);
            assertEquals("Running team test with a " + rows + "-by-" + cols + " grid and 200 iterations...",
                lines.get(0), where);
            assertEquals("", lines.get(1), where); // MSG0 adds a newline to the text's own
            for (int r = 0; r < rows; r++) {
                assertTrue(lines.contains("row team " + r + ": Running team barrier test with row teams..."), where);
            }
            for (int c = 0; c < cols; c++) {
                assertTrue(lines.contains("col team " + c + ": Running team barrier test with column teams..."),
                    where);
            }
            assertEquals(rows, lines.stream().filter(l -> ROW_TIME.matcher(l).matches()).count(), where);
            assertEquals(cols, lines.stream().filter(l -> COL_TIME.matcher(l).matches()).count(), where);
            for (int r = 0; r < ranks; r++) {
                assertTrue(lines.contains("node " + r + "/" + ranks + " done."), where);
            }
            assertEquals(2 + 2 * rows + 2 * cols + ranks, lines.size(), where);
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void testsplitPassesOnEveryGrid() {
        for (int ranks : new int[] {2, 4, 6}) {
            final List<String> lines = run(ranks, TestSplit::run, 0);
            final int rows = ranks == 2 ? 1 : 2;
            final String where = ranks + " ranks:\n" + String.join("\n", lines);
            assertEquals("Running split test with a " + rows + "-by-" + ranks / rows + " grid.", lines.get(0),
                where);
            for (int r = 0; r < ranks; r++) {
                assertTrue(lines.contains("node " + r + "/" + ranks + " done."), where);
            }
            assertEquals(1 + ranks, lines.size(), where);
        }
        final List<String> given = run(6, TestSplit::run, 0, "3", "2");
        assertEquals("Running split test with a 3-by-2 grid.", given.get(0), String.join("\n", given));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aGridThatDoesNotDivideTheJobIsAUsageError() {
        final List<String> team = run(4, TestTeam::run, 1, "10", "3");
        assertEquals(List.of("testteam: 3x1 is not a grid of the job's 4 ranks", TestTeam.USAGE), team);
        final List<String> split = run(4, TestSplit::run, 1, "3", "2");
        assertEquals(List.of("testsplit: 3x2 is not a grid of the job's 4 ranks", TestSplit.USAGE), split);
    }
}
