package org.gexj.dist;

import org.gexj.testkit.NetnsPair;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A partition, no process dying: 2 ranks in two network namespaces ({@link NetnsPair}: the launcher and rank 0 in
 * the first, rank 1 in the second) flood each other with 1 MiB AM Longs ({@link FailureFlood}), then iptables in the
 * second namespace drops everything to and from the first (the conduit's traffic and rank 1's bootstrap connection).
 * Each rank must declare the other failed after its conduit's peer timeout, set to 3 s here ({@code
 * GEX_UDP_PEER_TIMEOUT}, {@code GEX_OFI_TIMEOUT}; the defaults, 20 and 30 s, are checked by the settings tests), with
 * an error naming the other rank and the variable, and the job must end non-zero: udp by its peer timeout, ofi on
 * tcp;ofi_rxm by its own (libfabric reports nothing while the kernel retransmits for minutes). Prints the time from
 * the cut to each rank's end. Skipped, with a line on stderr, when not root.
 */
class PartitionIT {
    @RegisterExtension
    static final NetnsPair NETNS = new NetnsPair();

    private static final int TIMEOUT_SECONDS = 3;
    private static final double BOUND_SECONDS = TIMEOUT_SECONDS + 10;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"udp, , GEX_UDP_PEER_TIMEOUT", "ofi, tcp;ofi_rxm, GEX_OFI_TIMEOUT"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aPartitionInTheMiddleOfAFloodEndsTheJobAfterThePeerTimeout(String conduit, String provider,
                                                                    String timeoutVariable) throws Exception {
        final String iptables = NetnsPair.tool("iptables").map(Object::toString).orElseThrow(() -> new AssertionError(
            "iptables is missing: ./gexj.sh installs it (Debian package iptables, as root),"
                + " or apt-get install iptables"));
        final List<String> args = new ArrayList<>(NETNS.gexrunOptions());
        args.addAll(List.of("-n", "2", "--conduit", conduit, "-E", timeoutVariable + "=" + TIMEOUT_SECONDS, "--",
            FailureFlood.class.getName(), "long"));
        final Jobs job = Jobs.start(NETNS.launcherPrefix(), FailureMidTransferIT.env(provider),
            args.toArray(String[]::new));
        final String what = conduit + (provider == null ? "" : " " + provider);
        final String[][] rules = {{"INPUT", "-s", NETNS.address(0), "-j", "DROP"},
            {"OUTPUT", "-d", NETNS.address(0), "-j", "DROP"}};
        boolean cut = false;
        try {
            final long[] pids = job.readyPids(2);
            FailureMidTransferIT.awaitLines(job, "flooding ", 2);
            final long cutAt = System.nanoTime();
            for (String[] rule : rules) {
                iptables(iptables, "-A", rule);
            }
            cut = true;
            final double[] ended = FailureMidTransferIT.awaitExits(job, pids, cutAt, new int[] {0, 1});
            final double jobSeconds = OfiRuns.await(job, cutAt, 30);
            System.out.printf("%s partition with %s=%d: rank 0 ended %.2f s after the cut, rank 1 %.2f s, gexrun"
                + " %.2f s%n", what, timeoutVariable, TIMEOUT_SECONDS, ended[0], ended[1], jobSeconds);
            final String out = job.output();
            assertNotEquals(0, job.process.exitValue(), out);
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("gexrun: rank ") && l.endsWith("ending the job")),
                out);
            // each side's own conduit declared the other failed: rank 1 cannot hear the launcher any more
            for (int r = 0; r < 2; r++) {
                final int rank = r;
                final String names = "rank " + (1 - r) + " failed: ";
                assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("rank " + rank + " ended at ")
                    && l.contains(names) && l.contains(TIMEOUT_SECONDS + " s") && l.contains(timeoutVariable)),
                    what + ": rank " + r + "'s error names rank " + (1 - r) + " and " + timeoutVariable + ":\n" + out);
                assertTrue(ended[r] > TIMEOUT_SECONDS - 0.1 && ended[r] < BOUND_SECONDS, what + ": rank " + r
                    + " ended " + ended[r] + " s after the cut:\n" + out);
            }
        } finally {
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
            if (cut) {
                for (String[] rule : rules) {
                    iptables(iptables, "-D", rule); // the next test runs on a whole link
                }
            }
        }
    }

    private static void iptables(String iptables, String action, String[] rule) {
        final List<String> words = new ArrayList<>(List.of(iptables, action));
        words.addAll(List.of(rule));
        NETNS.run(1, words.toArray(String[]::new));
    }
}
