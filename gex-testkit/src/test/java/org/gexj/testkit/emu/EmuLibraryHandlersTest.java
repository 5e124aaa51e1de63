package org.gexj.testkit.emu;

import org.gexj.testkit.LibraryHandlersKit;

import java.util.Map;

/** The library's handlers over emu. */
class EmuLibraryHandlersTest extends LibraryHandlersKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
