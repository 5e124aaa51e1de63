package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over udp sockets with {@code GEX_UDP_CHECKSUM=header}: datagrams checksummed in their headers only. */
class UdpHeaderChecksumAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp", "GEX_UDP_CHECKSUM", "header");
    }
}
