package org.gexj.dist;

import org.gexj.testkit.LossyLink;
import org.gexj.testkit.NetnsPair;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The udp conduit's own reliability against a network that loses datagrams: 2 ranks in two network namespaces joined
 * by a veth pair ({@link NetnsPair}: the launcher and rank 0 in the first, rank 1 in the second) flood each other with
 * AMs of every category, Short, Medium and Long requests and replies ({@link AmFlood}), once over the bare link and
 * once with {@code iptables -A INPUT -i gexvethN -m statistic --mode random --probability 0.1 -j DROP} in both
 * namespaces ({@link LossyLink}), which drops a tenth of what crosses the link in each direction, to rank 0 and to
 * rank 1 (datagrams after IP reassembly, and the bootstrap's TCP segments).
 * Both runs must deliver every message exactly once with its bytes intact, and the lossy one must show the conduit
 * repairing the losses ({@code udp.retransmitted > 0}). The in-process {@code UdpTransportProperties} inject faults
 * into the conduit's own port; this drops them in the kernel, under real sockets, timers and IP fragmentation.
 *
 * <p>Prints each run's throughput (messages/s and MB/s, 1 MB = 10^6 bytes, from the ranks' own timing of the flood)
 * and both ranks' udp counters ({@code GEX_STATS=1}), so a reader sees what the losses cost. Skipped, with a line on
 * stderr, when not root; fails, naming the fix, when root without {@code iptables} ({@code ./gexj.sh} installs it).
 * The seed is random and printed; {@code -DAMFLOOD_SEED=N} replays a run.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the lossless run first, to compare with: each stands alone
class UdpNetnsLossIT {
    @RegisterExtension
    static final NetnsPair NETNS = new NetnsPair();

    /** Requests per rank to the other: a third each Short, Medium (up to 64 KiB) and Long (up to MAX_LONG). */
    private static final int MESSAGES = 6000;
    private static final int MAX_LONG = 512 * 1024;
    /** Requests in flight per target: several frames and their reassemblies open at once. */
    private static final int WINDOW = 8;
    /** How long a rank may take before it prints its state and exits with 2; the job is killed at JOB_SECONDS. */
    private static final int RANK_DEADLINE_SECONDS = 60;
    private static final int JOB_SECONDS = 80;
    private static final String COVERAGE = "checksum of whole datagrams to 1 peer across a link, of the headers only to"
        + " 0 peers on this host (GEX_UDP_CHECKSUM=auto)";
    private static final Pattern MAX_MEDIUM = Pattern.compile("max medium (\\d+)");
    private static final Pattern STATS = Pattern.compile("gex: stats rank (\\d+) udp: (.*)");
    private static final Pattern FLOOD = Pattern.compile(
        "rank (\\d+): flood messages=(\\d+) bytes=(\\d+) seconds=([0-9.]+)");

    @Test
    @Order(1)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aFloodOfEveryCategoryArrivesOnceAndIntactAcrossTheLink() throws Exception {
        flood("lossless");
    }

    @Test
    @Order(2)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aFloodOfEveryCategoryArrivesOnceAndIntactWhenTenPercentIsDropped() throws Exception {
        final LossyLink loss = new LossyLink(NETNS, 0.1);
        loss.add();
        final Map<Integer, Map<String, Long>> counters;
        final long[] dropped = new long[2];
        try {
            counters = flood("10% dropped both ways");
            for (int side = 0; side < 2; side++) {
                dropped[side] = loss.dropped(side);
                System.out.println("iptables in " + NETNS.namespace(side) + " (rank " + side + "): " + dropped[side]
                    + " packets dropped arriving over the link");
            }
        } finally {
            loss.remove(); // the other test may run after this one
        }
        assertTrue(dropped[0] > 0 && dropped[1] > 0, "both directions lost packets: " + dropped[0] + ", "
            + dropped[1]);
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(counters.get(rank).get("udp.retransmitted") > 0, "rank " + rank + " repaired its losses by"
                + " retransmission: " + counters);
        }
    }

    /**
     * Runs {@link AmFlood} across the pair, checks every count and byte total against the seed, prints the
     * throughput and the counters, and returns the counters by rank.
     */
    private static Map<Integer, Map<String, Long>> flood(String label) throws Exception {
        final long seed = Long.getLong("AMFLOOD_SEED", System.nanoTime());
        System.out.println("AmFlood seed " + seed + " (" + label + ")");
        final List<String> args = new ArrayList<>(NETNS.gexrunOptions());
        args.addAll(List.of("-n", "2", "--conduit", "udp", "-E", "GEX_STATS=1", "--", AmFlood.class.getName(),
            Long.toString(seed), Integer.toString(MESSAGES), Integer.toString(MAX_LONG), Integer.toString(WINDOW),
            Integer.toString(RANK_DEADLINE_SECONDS)));
        final long start = System.nanoTime();
        final Jobs job = Jobs.start(NETNS.launcherPrefix(),
            Map.of("GEX_CLASSPATH", Jobs.ROOT.resolve("gex-dist/target/test-classes").toString()),
            args.toArray(String[]::new));
        final double jobSeconds = OfiRuns.await(job, start, JOB_SECONDS);
        final String context = "seed " + seed + ", " + label + ":\n" + job.output();
        assertEquals(0, job.process.exitValue(), context);
        // rank 0 bound its end of the link, as the conduit does by default: the address its bootstrap connection uses
        assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("gex: udp conduit over ")
            && l.contains(" at " + NETNS.address(0) + ":")), "rank 0 bound " + NETNS.address(0) + ":\n" + context);
        assertTrue(job.lines.contains("seed " + seed), context);
        final int maxMedium = job.lines.stream().map(MAX_MEDIUM::matcher).filter(Matcher::matches)
            .mapToInt(m -> Integer.parseInt(m.group(1))).findFirst().orElseThrow(() -> new AssertionError(context));
        for (int rank = 0; rank < 2; rank++) {
            final int peer = 1 - rank;
            // the byte totals come from the seed here, independently of the handlers that counted them
            final String requests = "rank " + rank + " from " + peer + ": requests " + MESSAGES + " of " + MESSAGES
                + ", " + payloadBytes(seed, peer, rank, 0, maxMedium) + " bytes, 0 bad";
            // the replies to this rank's requests, from its peer
            final String replies = "rank " + rank + " to " + peer + ": replies " + MESSAGES + " of " + MESSAGES + ", "
                + payloadBytes(seed, peer, rank, 1, maxMedium) + " bytes, 0 bad";
            assertTrue(job.lines.contains(requests), "missing '" + requests + "'\n" + context);
            assertTrue(job.lines.contains(replies), "missing '" + replies + "'\n" + context);
            assertTrue(job.lines.contains("rank " + rank + ": OK"), context);
        }
        assertFalse(job.lines.stream().anyMatch(l -> l.contains(": bad ") || l.contains("FAIL")
            || l.contains("TIMEOUT")), context);
        final Map<Integer, Map<String, Long>> counters = counters(job.lines);
        assertEquals(2, counters.size(), "GEX_STATS=1 printed both ranks' counters:\n" + context);
        // the default checksum (auto) covers every byte of what crosses the link
        assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("gex: udp conduit over ") && l.contains(COVERAGE)),
            "missing '" + COVERAGE + "'\n" + context);
        for (Map<String, Long> c : counters.values()) {
            assertEquals(0L, c.get("udp.checksum.header-only"), "datagrams checksummed in their headers only: " + c);
        }
        long messages = 0;
        long bytes = 0;
        double seconds = 0;
        for (String line : job.lines) {
            final Matcher m = FLOOD.matcher(line);
            if (m.matches()) {
                messages += Long.parseLong(m.group(2));
                bytes += Long.parseLong(m.group(3));
                seconds = Math.max(seconds, Double.parseDouble(m.group(4)));
            }
        }
        assertTrue(seconds > 0, context);
        System.out.printf("AmFlood udp across namespaces, %s: %d messages (Short, Medium, Long requests and replies),"
                + " %.1f MB in %.2f s: %.0f messages/s, %.1f MB/s (job %.1f s)%n", label, messages, bytes / 1e6,
            seconds, messages / seconds, bytes / 1e6 / seconds, jobSeconds);
        job.lines.stream().filter(l -> l.startsWith("gex: stats rank ")).forEach(System.out::println);
        return counters;
    }

    /**
     * The payload bytes of the messages from {@code source} to {@code target} in direction {@code dir} (0: its
     * requests, 1: its replies to the target's requests), as AmFlood draws them.
     */
    private static long payloadBytes(long seed, int source, int target, int dir, int maxMedium) {
        long bytes = 0;
        for (int seq = 0; seq < MESSAGES; seq++) {
            final int category = AmFlood.category(seq);
            if (category == 0) {
                continue;
            }
            final int max = category == 1 ? maxMedium : MAX_LONG;
            bytes += AmFlood.length(seed, source, target, seq, dir, max);
        }
        return bytes;
    }

    /** {@code gex: stats rank R udp: k=v ...} lines by rank. */
    private static Map<Integer, Map<String, Long>> counters(List<String> lines) {
        final Map<Integer, Map<String, Long>> byRank = new LinkedHashMap<>();
        for (String line : lines) {
            final Matcher m = STATS.matcher(line);
            if (m.matches()) {
                final Map<String, Long> c = new LinkedHashMap<>();
                for (String kv : m.group(2).trim().split(" ")) {
                    final int eq = kv.indexOf('=');
                    c.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
                }
                byRank.put(Integer.parseInt(m.group(1)), c);
            }
        }
        return byRank;
    }
}
