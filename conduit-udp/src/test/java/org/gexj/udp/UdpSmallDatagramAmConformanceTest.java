package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/**
 * AM conformance over udp with 1200-byte datagrams (an Ethernet MTU's worth) and a window of 16: every Medium and
 * Long is several fragments, and the window fills.
 */
class UdpSmallDatagramAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp", "GEX_UDP_DATAGRAM", "1200", "GEX_UDP_NETWORK_DEPTH", "16");
    }
}
