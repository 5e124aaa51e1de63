package org.gexj.ofi;

import org.gexj.testkit.ProgressKit;

import java.util.Map;

/** test() and nbiTest() make no progress over ofi (shm). */
class OfiShmProgressTest extends ProgressKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "shm");
    }
}
