package org.gexj.smp;

import org.gexj.testkit.LibraryHandlersKit;

import java.util.Map;

/** The library's handlers over smp (the kit forces RMA over AM). */
class SmpLibraryHandlersTest extends LibraryHandlersKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
