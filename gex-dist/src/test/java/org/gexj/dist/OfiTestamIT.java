package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * GASNet's testam and testqueue between two processes on the ofi conduit, on tcp;ofi_rxm and udp;ofi_rxd (shm in
 * OfiShmIT), every section, and testam's AM Long sections under each AM Long protocol. Iteration counts are small
 * (no warm-up): these runs check that every operation completes and reports a number, not how fast.
 */
class OfiTestamIT {
    private static final Pattern TESTAM_LINE = Pattern.compile(
        "^([A-K]): +(?:(\\d+) )?AM(?:Short|Medium|Long) +.+: +\\d+\\.\\d{3} sec +\\d+\\.\\d{3} us"
            + "( +\\d+\\.\\d{3} MB/s)?$");
    private static final Pattern LUB = Pattern.compile("^ gex_AM_LUB(Request|Reply)(Medium|Long)\\(\\): +(\\d+)$");
    private static final long TESTAM_MAX = 65536;
    /** ofi's 16 KiB frame less the largest envelope (16 arguments): a packed Long's limit, and a raised Medium's. */
    private static final long PACKED_LONG_MAX = 16296;
    private static final int QUEUE_DEPTH = 4;
    private static final int QUEUE_MAX = 8192;
    private static final String BLOCKING = " (BLOCKING - represents round-trip latency)";
    /** testqueue's tables with every option on, in its order, and the largest payload of each (0: maxsz). */
    private static final Map<String, Integer> QUEUE_TABLES = new LinkedHashMap<>();

    static {
        for (String t : List.of("gex_RMA_PutNB/bulk", "gex_RMA_PutNBI/bulk", "gex_RMA_PutNB", "gex_RMA_GetNB",
            "gex_RMA_PutNBI", "gex_RMA_GetNBI")) {
            QUEUE_TABLES.put(t, 0);
        }
        QUEUE_TABLES.put("gex_RMA_PutNBVal", 8);
        QUEUE_TABLES.put("gex_RMA_PutNBIVal", 8);
        QUEUE_TABLES.put("gex_RMA_PutBlocking" + BLOCKING, 0);
        QUEUE_TABLES.put("gex_RMA_GetBlocking" + BLOCKING, 0);
        QUEUE_TABLES.put("gex_RMA_PutBlockingVal" + BLOCKING, 8);
        QUEUE_TABLES.put("gex_RMA_GetBlockingVal" + BLOCKING, 8);
        QUEUE_TABLES.put("gex_AM_RequestShort0", 1);
        for (String lc : List.of("blocking", "explicit handle", "implicit handle")) {
            QUEUE_TABLES.put("gex_AM_RequestMedium0 (" + lc + " for LC)", 0);
        }
        for (String lc : List.of("blocking", "explicit handle", "implicit handle")) {
            QUEUE_TABLES.put("gex_AM_RequestLong0 (" + lc + " for LC)", 0);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {OfiRuns.TCP, OfiRuns.UDP}) // shm: OfiShmIT
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testamRunsEverySection(String provider) throws Exception {
        testam(provider);
    }

    @ParameterizedTest
    @ValueSource(strings = {OfiRuns.TCP, OfiRuns.UDP}) // shm: OfiShmIT
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testqueueRunsEveryTable(String provider) throws Exception {
        testqueue(provider);
    }

    /** testam, every section, on {@code provider}: each section's lines with numbers, the conduit on it. */
    static void testam(String provider) throws Exception {
        final long start = System.nanoTime();
        final Jobs job = Jobs.start(OfiRuns.env(provider), "-n", "2", "--conduit", "ofi",
            "testam", "-warmup", "0", "10", Long.toString(TESTAM_MAX));
        final double seconds = OfiRuns.await(job, start, 100);
        assertEquals(0, job.process.exitValue(), "testam on " + provider + ":\n" + job.output());
        assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(OfiRuns.conduitLine(2, provider))),
            "the conduit opened " + provider + ":\n" + job.output());
        assertTestamSections(job, "ABCDEFGHIJK");
        System.out.printf("testam on %s: %.1f s%n", provider, seconds);
    }

    /** testqueue, every table, on {@code provider}: each table's rows with a number per depth, the conduit on it. */
    static void testqueue(String provider) throws Exception {
        final long start = System.nanoTime();
        final Jobs job = Jobs.start(OfiRuns.env(provider), "-n", "2", "--conduit", "ofi",
            "testqueue", "-warmup", "0", "3", Integer.toString(QUEUE_DEPTH), Integer.toString(QUEUE_MAX));
        final double seconds = OfiRuns.await(job, start, 100);
        assertEquals(0, job.process.exitValue(), "testqueue on " + provider + ":\n" + job.output());
        assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(OfiRuns.conduitLine(2, provider))),
            "the conduit opened " + provider + ":\n" + job.output());
        assertTestqueueTables(job);
        System.out.printf("testqueue on %s: %.1f s%n", provider, seconds);
    }

    /**
     * Each AM Long protocol on tcp, through gexrun's -E: sections G-K. Packed sends the payload inside the envelope
     * frame, so testam's largest Long there is what a frame holds ({@link #PACKED_LONG_MAX}, more than ofi's default
     * Medium): that shows the setting reached the ranks.
     */
    @ParameterizedTest
    @ValueSource(strings = {"packed", "putsyncsend", "reassembly"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testamLongSectionsRunUnderEachProtocol(String protocol) throws Exception {
        final long start = System.nanoTime();
        final Jobs job = Jobs.start(OfiRuns.env(OfiRuns.TCP), "-n", "2", "--conduit", "ofi",
            "-E", "GEX_AMLONG_PROTOCOL=" + protocol,
            "testam", "-warmup", "0", "10", Long.toString(TESTAM_MAX), "GHIJK");
        final double seconds = OfiRuns.await(job, start, 100);
        assertEquals(0, job.process.exitValue(), "testam with " + protocol + ":\n" + job.output());
        assertTestamSections(job, "GHIJK");
        final Map<String, Long> lub = lubs(job);
        if (protocol.equals("packed")) {
            assertEquals(PACKED_LONG_MAX, lub.get("RequestLong"), "packed Long fits a frame:\n" + job.output());
        } else {
            assertTrue(lub.get("RequestLong") >= TESTAM_MAX,
                protocol + " Long is not bounded by a frame:\n" + job.output());
        }
        System.out.printf("testam GHIJK with %s: %.1f s%n", protocol, seconds);
    }

    /** The protocol setting is read by every rank: a bad one ends the job naming the variable and the choices. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anUnknownProtocolIsRejected() throws Exception {
        final Jobs job = Jobs.start(OfiRuns.env(OfiRuns.TCP), "-n", "2", "--conduit", "ofi",
            "-E", "GEX_AMLONG_PROTOCOL=bogus", "testam", "-warmup", "0", "10", "64", "G");
        OfiRuns.await(job, System.nanoTime(), 50);
        assertNotEquals(0, job.process.exitValue(), job.output());
        assertTrue(job.output().contains(
            "GEX_AMLONG_PROTOCOL=bogus is not one of auto, packed, putsyncsend, reassembly"), job.output());
    }

    /**
     * Every enabled section printed one line per payload size with its numbers, the sizes being GASNet's sequence
     * (0, 1, 2, 4, ... and a final " max:" size) up to the limit testam uses for that section, from the conduit's
     * limits it printed; and both ranks finished.
     */
    private static void assertTestamSections(Jobs job, String sections) {
        final Map<String, Long> lub = lubs(job);
        assertEquals(4, lub.size(), "testam printed the four LUB limits:\n" + job.output());
        final long medium = Math.min(TESTAM_MAX, lub.get("RequestMedium"));
        final long mediumReqRep = Math.min(medium, lub.get("ReplyMedium"));
        final long longest = Math.min(TESTAM_MAX, lub.get("RequestLong"));
        final long longReqRep = Math.min(longest, lub.get("ReplyLong"));
        final Map<Character, List<Long>> sizes = new LinkedHashMap<>();
        for (String line : job.lines) {
            final Matcher m = TESTAM_LINE.matcher(line);
            if (m.matches()) {
                sizes.computeIfAbsent(m.group(1).charAt(0), k -> new ArrayList<>())
                    .add(m.group(2) == null ? -1 : Long.parseLong(m.group(2)));
            } else if (line.matches("^[A-K]:.*")) {
                fail("a result line without its numbers: '" + line + "'\n" + job.output());
            }
        }
        assertEquals(sections, sizes.keySet().stream().map(String::valueOf).reduce("", String::concat),
            "sections with result lines:\n" + job.output());
        for (char s : sections.toCharArray()) {
            final List<Long> expected = switch (s) {
                case 'A' -> List.of(-1L, -1L, -1L, -1L); // round trips ReqRep and ReqReq, floods one-way and round trip
                case 'B', 'E' -> gasnetSizes(mediumReqRep);
                case 'C', 'D', 'F' -> gasnetSizes(medium);
                case 'G', 'J' -> gasnetSizes(longReqRep);
                default -> gasnetSizes(longest);
            };
            assertEquals(expected, sizes.get(s), "payload sizes of section " + s + ":\n" + job.output());
        }
        assertTrue(job.lines.contains("node 0/2 done.") && job.lines.contains("node 1/2 done."), job.output());
    }

    /** GASNet's ADVANCESZ: 0, 1, doubling while within max, then max itself if the doubling skipped it. */
    private static List<Long> gasnetSizes(long max) {
        final List<Long> sizes = new ArrayList<>(List.of(0L));
        long sz = 1;
        while (sz <= max) {
            sizes.add(sz);
            sz *= 2;
        }
        if (sizes.getLast() != max) {
            sizes.add(max);
        }
        return sizes;
    }

    private static Map<String, Long> lubs(Jobs job) {
        final Map<String, Long> lub = new LinkedHashMap<>();
        for (String line : job.lines) {
            final Matcher m = LUB.matcher(line);
            if (m.matches()) {
                lub.put(m.group(1) + m.group(2), Long.parseLong(m.group(3)));
            }
        }
        return lub;
    }

    /**
     * Every table, in order, with the depth header and one row per payload size (1, 2, 4, ... up to the table's
     * limit) holding a non-negative number for each depth.
     */
    private static void assertTestqueueTables(Jobs job) {
        final List<String> depths = new ArrayList<>();
        for (int d = 1; d <= QUEUE_DEPTH; d *= 2) {
            depths.add(Integer.toString(d));
        }
        final Map<String, List<Integer>> rows = new LinkedHashMap<>();
        String table = null;
        for (int i = 0; i < job.lines.size(); i++) {
            final String line = job.lines.get(i);
            if (QUEUE_TABLES.containsKey(line)) {
                table = line;
                rows.put(table, new ArrayList<>());
                assertEquals("--------------------", job.lines.get(++i), job.output());
                i++;
                while (job.lines.get(i).isEmpty()) { // testqueue leaves a blank line before the header
                    i++;
                }
                assertEquals(depths, List.of(job.lines.get(i).trim().split(" +")),
                    "depth header of " + table + ":\n" + job.output());
            } else if (table != null && line.matches("^\\d+ .*")) {
                final String[] cells = line.trim().split(" +");
                assertEquals(depths.size() + 1, cells.length, "row of " + table + ": '" + line + "'");
                for (int c = 1; c < cells.length; c++) {
                    assertTrue(Double.parseDouble(cells[c]) >= 0, "cell of " + table + ": '" + line + "'");
                }
                rows.get(table).add(Integer.parseInt(cells[0]));
            }
            // other lines (blank ones, a provider's warning on stderr) neither end nor break a table
        }
        assertEquals(List.copyOf(QUEUE_TABLES.keySet()), List.copyOf(rows.keySet()), "tables:\n" + job.output());
        for (Map.Entry<String, Integer> t : QUEUE_TABLES.entrySet()) {
            final int limit = t.getValue() == 0 ? QUEUE_MAX : t.getValue();
            final List<Integer> expected = new ArrayList<>();
            for (int sz = 1; sz <= limit; sz *= 2) {
                expected.add(sz);
            }
            assertEquals(expected, rows.get(t.getKey()), "payload sizes of " + t.getKey() + ":\n" + job.output());
        }
    }
}
