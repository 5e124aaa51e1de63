package org.gexj.udp;

import org.gexj.testkit.LibraryHandlersKit;

import java.util.Map;

/** The library's handlers over udp, whose RMA always goes over AM. */
class UdpLibraryHandlersTest extends LibraryHandlersKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
