package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;
import org.gexj.testkit.KitHosts;
import org.gexj.testkit.NetnsPair;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

/**
 * The Am conformance kit over udp across a lossy link: 2 ranks as gexrun processes in two network namespaces joined by
 * a veth pair ({@link NetnsPair}), each namespace dropping 10 % of what arrives over the link ({@code LossyLink}), so
 * datagrams are lost in both directions, requests and replies, data and acknowledgements. The kit checks every
 * count and byte as over the clean link ({@code UdpNetnsAmConformanceTest}); the conduit repairs the losses. Prints
 * the class's time and the packets each side dropped, to compare with the clean class's time, and fails if either side
 * dropped none ({@link LossyNetns}). Skipped, with a line on stderr, when not root.
 */
class UdpNetnsLossyAmConformanceTest extends AmConformanceKit {
    @RegisterExtension
    static final NetnsPair NETNS = new NetnsPair();
    private static final LossyNetns LOSSY = new LossyNetns(UdpNetnsLossyAmConformanceTest.class, NETNS);

    @BeforeAll
    static void dropTenPercentBothWays() {
        LOSSY.dropTenPercentBothWays();
    }

    @AfterAll
    static void reportTheLosses() {
        LOSSY.reportTheLosses();
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
