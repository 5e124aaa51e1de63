package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over udp with NIO datagram channels, the fallback where Netty's epoll does not load. */
class UdpNioAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp", "GEX_UDP_TRANSPORT", "nio");
    }
}
