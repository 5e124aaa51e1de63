package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;
import org.gexj.testkit.KitHosts;
import org.gexj.testkit.LossyLink;
import org.gexj.testkit.NetnsPair;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Am conformance kit over udp across a lossy link: 2 ranks as gexrun processes in two network namespaces joined by
 * a veth pair ({@link NetnsPair}), each namespace dropping 10 % of what arrives over the link ({@link LossyLink}), so
 * datagrams are lost in both directions, requests and replies, data and acknowledgements. The kit checks every
 * count and byte as over the clean link ({@code UdpNetnsAmConformanceTest}); the conduit repairs the losses. Prints
 * the class's time and the packets each side dropped, to compare with the clean class's time (no speed is asserted),
 * and fails if either side dropped none. Skipped, with a line on stderr, when not root.
 */
class UdpNetnsLossyAmConformanceTest extends AmConformanceKit {
    @RegisterExtension
    static final NetnsPair NETNS = new NetnsPair();
    private static LossyLink loss;
    private static long start;

    @BeforeAll
    static void dropTenPercentBothWays() {
        loss = new LossyLink(NETNS, 0.1);
        loss.add();
        start = System.nanoTime();
    }

    @AfterAll
    static void reportTheLosses() {
        if (loss == null) {
            return; // skipped (not root) or no iptables: nothing was added
        }
        try {
            final long[] dropped = {loss.dropped(0), loss.dropped(1)};
            System.out.printf("UdpNetnsLossyAmConformanceTest: %.1f s with 10 %% dropped both ways: %d packets dropped"
                + " arriving at rank 0's namespace, %d at rank 1's%n", (System.nanoTime() - start) / 1e9, dropped[0],
                dropped[1]);
            assertTrue(dropped[0] > 0 && dropped[1] > 0, "both directions lost packets: " + dropped[0] + ", "
                + dropped[1]);
        } finally {
            loss.remove();
        }
    }

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }

    @Override
    protected KitHosts hosts() {
        return NETNS;
    }
}
