package org.gexj.udp;

import org.gexj.testkit.KitHosts;
import org.gexj.testkit.NetnsPair;
import org.gexj.testkit.RmaConformanceKit;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

/**
 * RMA conformance (RMA over AM: udp has no native RMA) over udp, 2 ranks as gexrun processes on two "hosts": the
 * launcher and rank 0 in one network namespace, rank 1 in another, joined by a veth pair
 * ({@link NetnsPair}). Unlike loopback, each rank binds its own interface's address (the conduit's default: the local
 * end of its bootstrap connection, which here crosses the link to the launcher's rendezvous), the addresses the ranks
 * publish must be reachable from the other namespace, and the link's 1500-byte MTU splits large datagrams into IP
 * fragments, as on Ethernet (loopback's MTU is 64 KiB). Skipped, with a line on stderr, when not root.
 */
class UdpNetnsRmaConformanceTest extends RmaConformanceKit {
    @RegisterExtension
    static final NetnsPair NETNS = new NetnsPair();

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
